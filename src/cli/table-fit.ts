/**
 * Fitting a text table into the terminal's width (issue 20 item 9). A table that fits is left as it is.
 * One that does not has its widest column moved last, where it wraps onto as many lines as it needs
 * without pushing any other column out of line; when the other columns alone are too wide, the widest of
 * them is cut short with "…" until the last one has room to be readable.
 */

/** The width tables must fit: the terminal's, else $COLUMNS, else none (a pipe or a file). */
export function outputWidth(): number {
  if (process.stdout.isTTY && process.stdout.columns > 0) return process.stdout.columns;
  const fromEnv = Number(process.env.COLUMNS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : Number.POSITIVE_INFINITY;
}

const GAP = 2;
/** Narrower than this, a wrapped column is more breaks than text. */
const MIN_LAST_WIDTH = 12;
/** A cut column keeps at least this much (its first letters and the ellipsis). */
const MIN_CUT_WIDTH = 4;

/** `text` cut to `width` characters, the last one an ellipsis when anything was cut. */
export function truncate(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join("")}…`;
}

/** `text` broken into lines of at most `width` characters, at spaces where it can, inside words where not. */
export function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let current = "";
  for (const word of text.split(" ")) {
    let rest = word;
    while ([...rest].length > width) {
      // A word longer than the line: what fits of it goes on a line of its own.
      if (current !== "") out.push(current);
      const chars = [...rest];
      out.push(chars.slice(0, width).join(""));
      rest = chars.slice(width).join("");
      current = "";
    }
    if (current === "") current = rest;
    else if ([...current].length + 1 + [...rest].length <= width) current += ` ${rest}`;
    else {
      out.push(current);
      current = rest;
    }
  }
  out.push(current);
  return out;
}

export interface FittedTable {
  /** The columns' order: indices into the input's columns. */
  order: number[];
  widths: number[];
  /** Each row as lines of cells, in `order`. */
  header: string[];
  rows: string[][][];
}

const len = (text: string) => [...text].length;

/**
 * Lays out `header` and `body` (rows of cells) within `width`: the order of the columns, their widths and
 * every row's physical lines.
 */
export function fitTable(header: string[], body: string[][], width: number): FittedTable {
  const natural = header.map((h, i) => Math.max(len(h), ...body.map((r) => len(r[i]))));
  const total = natural.reduce((a, b) => a + b, 0) + GAP * Math.max(0, header.length - 1);
  const identity = header.map((_, i) => i);
  if (total <= width || header.length === 0) {
    return { order: identity, widths: natural, header, rows: body.map((r) => [r]) };
  }
  const widest = natural.indexOf(Math.max(...natural));
  const order = [...identity.filter((i) => i !== widest), widest];
  const widths = order.map((i) => natural[i]);
  const last = widths.length - 1;
  const room = () => width - GAP * last - widths.slice(0, last).reduce((a, b) => a + b, 0);
  // Cut the widest of the others, one character at a time, until the last column has its minimum.
  const lastMinimum = Math.min(natural[widest], Math.max(MIN_LAST_WIDTH, len(header[widest])));
  while (room() < lastMinimum) {
    let cut = -1;
    for (let i = 0; i < last; i++)
      if (widths[i] > MIN_CUT_WIDTH && (cut < 0 || widths[i] > widths[cut])) cut = i;
    if (cut < 0) break;
    widths[cut] -= 1;
  }
  widths[last] = Math.max(1, Math.min(natural[widest], room()));
  const place = (cells: string[]) =>
    order.map((source, i) =>
      i === last ? wrap(cells[source], widths[i]) : [truncate(cells[source], widths[i])],
    );
  const rows = body.map((r) => {
    const cells = place(r);
    const height = Math.max(...cells.map((c) => c.length));
    return Array.from({ length: height }, (_, line) => cells.map((c) => c[line] ?? ""));
  });
  return { order, widths, header: place(header).map((c) => c[0]), rows };
}
