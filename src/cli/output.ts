/** Human output (aligned tables, key/value records) and machine output (`--json`) of the CLI. */
import { fitTable, outputWidth, wrap } from "./table-fit.ts";

export interface Column<T> {
  header: string;
  /** A field name, or a function computing the cell. */
  value: keyof T | ((row: T) => unknown);
  align?: "left" | "right";
}

/** One cell as text: null/undefined as "-", booleans yes/no, arrays comma-joined, objects as JSON. */
export function cell(value: unknown): string {
  if (value === null || value === undefined || value === "") return "-";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (Array.isArray(value)) return value.length === 0 ? "-" : value.map((v) => cell(v)).join(",");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value).replace(/[\r\n\t]+/g, " ");
}

/**
 * Rows as an aligned table, fitted to `width` (the terminal's by default; see table-fit.ts): a table too
 * wide has its widest column last, wrapped, and the others cut short only when they must be.
 */
export function renderTable<T>(
  rows: readonly T[],
  columns: readonly Column<T>[],
  width: number = outputWidth(),
): string {
  const header = columns.map((c) => c.header);
  const body = rows.map((row) =>
    columns.map((c) =>
      cell(typeof c.value === "function" ? c.value(row) : (row as Record<PropertyKey, unknown>)[c.value]),
    ),
  );
  const fitted = fitTable(header, body, width);
  const line = (cells: string[]) =>
    cells
      .map((text, i) => {
        const pad = fitted.widths[i] - [...text].length;
        const spaces = " ".repeat(Math.max(0, pad));
        return columns[fitted.order[i]].align === "right" ? spaces + text : text + spaces;
      })
      .join("  ")
      .trimEnd();
  const out = [
    line(fitted.header),
    line(fitted.widths.map((w) => "-".repeat(w))),
    ...fitted.rows.flatMap((physical) => physical.map(line)),
  ];
  if (rows.length === 0) out.push("(none)");
  return `${out.join("\n")}\n`;
}

/** Nested objects flattened to `a.b: value` lines, aligned; a value too long for `width` wraps under itself. */
export function renderRecord(record: Record<string, unknown>, width: number = outputWidth()): string {
  const pairs: [string, string][] = [];
  const walk = (prefix: string, value: unknown) => {
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value)) walk(prefix ? `${prefix}.${k}` : k, v);
    } else {
      pairs.push([prefix, cell(value)]);
    }
  };
  walk("", record);
  const keyWidth = Math.max(0, ...pairs.map(([k]) => k.length)) + 2;
  // Below 20 characters a wrapped value is more breaks than text: let the terminal wrap it instead.
  const valueWidth = width - keyWidth >= 20 ? width - keyWidth : Number.POSITIVE_INFINITY;
  const indent = " ".repeat(keyWidth);
  return `${pairs
    .map(([k, v]) => {
      const [first, ...more] = [...v].length > valueWidth ? wrap(v, valueWidth) : [v];
      return [`${`${k}:`.padEnd(keyWidth)}${first}`, ...more.map((m) => indent + m)].join("\n");
    })
    .join("\n")}\n`;
}

export interface Output {
  json: boolean;
  /** Writes `value` as JSON when --json, otherwise the text `human()` builds. */
  emit(value: unknown, human: () => string): void;
  /** Notes for people (stderr), never mixed into stdout so --json stays parseable. */
  note(text: string): void;
}

export function makeOutput(json: boolean): Output {
  return {
    json,
    emit(value, human) {
      process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : human());
    },
    note(text) {
      process.stderr.write(`${text}\n`);
    },
  };
}

/** A table whose columns are the union of the rows' fields (for shapes the CLI does not know in detail). */
export function renderAnyTable(rows: readonly Record<string, unknown>[]): string {
  const names: string[] = [];
  for (const row of rows) for (const k of Object.keys(row)) if (!names.includes(k)) names.push(k);
  return renderTable(
    rows,
    names.map((n) => ({ header: n.toUpperCase(), value: (r: Record<string, unknown>) => r[n] })),
  );
}

/** Scalars and nested objects as a record, then each array of objects as a titled table. */
export function renderMixed(value: Record<string, unknown>): string {
  const scalars: Record<string, unknown> = {};
  const tables: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (Array.isArray(v) && v.every((x) => x !== null && typeof x === "object"))
      tables.push(`\n${k}:\n${renderAnyTable(v as Record<string, unknown>[])}`);
    else scalars[k] = v;
  }
  return (Object.keys(scalars).length > 0 ? renderRecord(scalars) : "") + tables.join("");
}
