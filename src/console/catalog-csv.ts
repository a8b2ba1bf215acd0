/**
 * A supplier's catalog as CSV, for the console's import and export: one row per item, the item named by
 * its SKU (or its inventory item id), the price tiers in one cell as "min qty:price" pairs ("1:4.50
 * 10:4.00"). Import checks every row before anything is sent and reports each problem by line; the rows
 * then go to the API in one PUT, which writes all of them or none.
 */

export const CATALOG_CSV_HEADER = [
  "sku",
  "inventory_item_id",
  "supplier_sku",
  "pack_size",
  "pack_unit",
  "min_order_qty",
  "is_primary",
  "tiers",
  "effective_from",
] as const;

/** At most one PUT's worth of rows, so an import is written whole or not at all. */
export const MAX_IMPORT_ROWS = 250;

/** RFC 4180 fields: commas, quotes doubled inside quoted fields, CRLF or LF line ends. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  const source = text.replace(/^\uFEFF/, "");
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (quoted) {
      if (c === '"' && source[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"' && cell === "") quoted = true;
    else if (c === ",") {
      row.push(cell);
      cell = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && source[i + 1] === "\n") i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
    } else cell += c;
  }
  if (cell !== "" || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows.filter((r) => r.some((c) => c.trim() !== ""));
}

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) || /^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function toCsv(rows: readonly (readonly string[])[]): string {
  return `${rows.map((r) => r.map(csvCell).join(",")).join("\r\n")}\r\n`;
}

export interface CatalogRowInput {
  inventory_item_id?: number;
  variant_id?: number;
  supplier_sku?: string | null;
  pack_size?: number;
  pack_unit?: string;
  min_order_qty?: number;
  is_primary?: boolean;
  tiers?: { min_qty: number; price: string }[];
  effective_from?: string;
}

export interface RowProblem {
  /** The line of the file (the header is line 1). */
  line: number;
  column: string;
  message: string;
}

/** Reads "1:4.50 10:4.00" (spaces or semicolons between pairs); null when it is not that. */
export function parseTiers(text: string): { min_qty: number; price: string }[] | null {
  const parts = text.split(/[\s;]+/).filter((p) => p !== "");
  const tiers = [];
  for (const part of parts) {
    const m = /^(\d{1,9}):(\d+(?:\.\d+)?)$/.exec(part);
    if (!m) return null;
    tiers.push({ min_qty: Number(m[1]), price: m[2] });
  }
  return tiers;
}

export function formatTiers(tiers: readonly { min_qty: number; price: string }[]): string {
  return tiers.map((t) => `${t.min_qty}:${t.price}`).join(" ");
}

const YES = new Set(["yes", "y", "true", "1"]);
const NO = new Set(["no", "n", "false", "0", ""]);

/**
 * The SKUs the file names its items by (rows without an inventory_item_id), for looking them up before
 * the file is read; none when the file is refused whole (no header, too many rows).
 */
export function catalogCsvSkus(text: string): string[] {
  const [head, ...body] = parseCsv(text);
  if (!head || body.length > MAX_IMPORT_ROWS) return [];
  const header = head.map((h) => h.trim().toLowerCase());
  const cell = (cells: string[], name: string) => (cells[header.indexOf(name)] ?? "").trim();
  return body.filter((cells) => cell(cells, "inventory_item_id") === "").map((cells) => cell(cells, "sku"));
}

/**
 * The file's rows as API input, or every problem found. `variantsBySku` resolves the `sku` column (the
 * store's variants having it, exact match); a row may name its item by `inventory_item_id` instead.
 * A SKU several variants share names no one item: the row is refused with their count, never put on
 * the first of them.
 */
export function readCatalogCsv(
  text: string,
  variantsBySku: (sku: string) => readonly { id: number }[] | undefined,
): { rows: CatalogRowInput[]; problems: RowProblem[] } {
  const table = parseCsv(text);
  const problems: RowProblem[] = [];
  if (table.length === 0) return { rows: [], problems: [{ line: 1, column: "file", message: "is empty" }] };
  const header = table[0].map((h) => h.trim().toLowerCase());
  const unknown = header.filter((h) => !(CATALOG_CSV_HEADER as readonly string[]).includes(h));
  if (unknown.length > 0)
    problems.push({ line: 1, column: "header", message: `has unknown columns: ${unknown.join(", ")}` });
  if (!header.includes("sku") && !header.includes("inventory_item_id"))
    problems.push({ line: 1, column: "header", message: "needs a sku or an inventory_item_id column" });
  if (table.length - 1 > MAX_IMPORT_ROWS)
    problems.push({ line: 1, column: "file", message: `has more than ${MAX_IMPORT_ROWS} rows; split it` });
  if (problems.length > 0) return { rows: [], problems };
  const rows: CatalogRowInput[] = [];
  table.slice(1).forEach((cells, index) => {
    const line = index + 2;
    const get = (name: string) => (cells[header.indexOf(name)] ?? "").trim();
    const problem = (column: string, message: string) => problems.push({ line, column, message });
    const row: CatalogRowInput = {};
    const itemId = get("inventory_item_id");
    const sku = get("sku");
    if (itemId !== "") {
      if (/^\d{1,10}$/.test(itemId)) row.inventory_item_id = Number(itemId);
      else problem("inventory_item_id", "is not a whole number");
    } else if (sku !== "") {
      const variants = variantsBySku(sku) ?? [];
      if (variants.length === 1) row.variant_id = variants[0].id;
      else if (variants.length === 0) problem("sku", `"${sku}" is no item of this store`);
      else
        problem(
          "sku",
          `"${sku}" is the SKU of ${variants.length} items of this store: name the item by its inventory_item_id`,
        );
    } else problem("sku", "is empty: name the item by its SKU");
    const supplierSku = get("supplier_sku");
    if (header.includes("supplier_sku")) row.supplier_sku = supplierSku === "" ? null : supplierSku;
    for (const name of ["pack_size", "min_order_qty"] as const) {
      const value = get(name);
      if (value === "") continue;
      if (/^\d{1,9}$/.test(value) && Number(value) >= 1) row[name] = Number(value);
      else problem(name, "must be a whole number of at least 1");
    }
    const unit = get("pack_unit");
    if (unit !== "") row.pack_unit = unit;
    const primary = get("is_primary").toLowerCase();
    if (YES.has(primary)) row.is_primary = true;
    else if (NO.has(primary)) {
      if (header.includes("is_primary")) row.is_primary = false;
    } else problem("is_primary", "must be yes or no");
    const tiers = get("tiers");
    if (tiers !== "") {
      const parsed = parseTiers(tiers);
      if (parsed) row.tiers = parsed;
      else problem("tiers", 'must be "min qty:price" pairs, such as "1:4.50 10:4.00"');
    }
    const from = get("effective_from");
    if (from !== "") {
      if (/^\d{4}-\d{2}-\d{2}$/.test(from)) row.effective_from = from;
      else problem("effective_from", "must be a date such as 2026-12-01");
    }
    rows.push(row);
  });
  return { rows, problems };
}
