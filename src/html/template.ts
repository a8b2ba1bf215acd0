/**
 * HTML built with template literals, escaped strictly: every interpolated value is escaped unless it is
 * a `SafeHtml` produced by this module (`html` templates, `raw` for trusted constants). Arrays of
 * fragments are joined. Nothing else reaches a page or a mail unescaped. It belongs to no layer: the
 * console's pages and every mail's HTML part are built with it.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"'`]/g, (c) => ESCAPES[c]);
}

type Interpolation = SafeHtml | string | number | boolean | null | undefined | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(value);
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}

/** Marks a trusted constant (never user data) as HTML. */
export function raw(value: string): SafeHtml {
  return new SafeHtml(value);
}

/** Lines of text shown as lines: each escaped, separated by `<br>`. */
export function lines(texts: readonly string[]): SafeHtml {
  return new SafeHtml(texts.map(escapeHtml).join("<br>"));
}
