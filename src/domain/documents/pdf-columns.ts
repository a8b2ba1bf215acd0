import { formatAmount, formatInteger, formatPercent } from "./pdf-text.ts";
import type { PurchaseOrderLineView } from "./purchase-order-view.ts";

/**
 * The purchase order PDF's line table: which columns the priced order and the receiving copy
 * show, and where each falls on the page.
 */

/** One table column; `width` 0 takes whatever the fixed columns leave. */
export interface Column {
  readonly label: string;
  readonly width: number;
  readonly align: "left" | "right";
  readonly cell: (line: PurchaseOrderLineView, index: number) => Cell;
}

export type Cell =
  | { readonly kind: "text"; readonly text: string; readonly maxLines: number }
  | { readonly kind: "item"; readonly line: PurchaseOrderLineView }
  | { readonly kind: "box" };

const text = (value: string, maxLines = 2): Cell => ({ kind: "text", text: value, maxLines });

const COMMON_COLUMNS: readonly Column[] = [
  { label: "#", width: 16, align: "right", cell: (line, i) => text(String(line.position ?? i + 1), 1) },
  { label: "SKU", width: 68, align: "left", cell: (line) => text(line.sku ?? "") },
  { label: "Supplier SKU", width: 68, align: "left", cell: (line) => text(line.supplier_sku ?? "") },
  { label: "Item", width: 0, align: "left", cell: (line) => ({ kind: "item", line }) },
];

export const PRICED_COLUMNS: readonly Column[] = [
  ...COMMON_COLUMNS,
  { label: "Qty", width: 34, align: "right", cell: (line) => text(formatInteger(line.quantity)) },
  { label: "Unit cost", width: 70, align: "right", cell: (line) => text(formatAmount(line.unit_cost)) },
  { label: "Disc.", width: 32, align: "right", cell: (line) => text(formatPercent(line.discount_percent)) },
  { label: "Line total", width: 70, align: "right", cell: (line) => text(formatAmount(line.line_total)) },
];

// The receiving copy: counts only, and an empty box per line to write what was counted.
export const RECEIVING_COLUMNS: readonly Column[] = [
  ...COMMON_COLUMNS,
  { label: "Ordered", width: 42, align: "right", cell: (line) => text(formatInteger(line.quantity)) },
  {
    label: "Received",
    width: 44,
    align: "right",
    cell: (line) => text(formatInteger(line.received_quantity)),
  },
  {
    label: "Outstanding",
    width: 58,
    align: "right",
    cell: (line) => text(formatInteger(line.outstanding_quantity)),
  },
  { label: "Counted", width: 60, align: "left", cell: () => ({ kind: "box" }) },
];

/**
 * The lines a copy prints. The supplier's (priced) copy leaves out lines of nothing ordered: a line a
 * voided receipt took back to quantity 0 (an item delivered unordered, then the delivery voided) was
 * never asked of the supplier, and "0 × item" on a purchase order reads as an order for it. The
 * receiving copy is the store's own sheet of the order as it stands, and keeps every line.
 */
export function printedLines(
  lines: readonly PurchaseOrderLineView[],
  receivingCopy: boolean,
): readonly PurchaseOrderLineView[] {
  return receivingCopy ? lines : lines.filter((line) => line.quantity > 0);
}

export function layoutColumns(columns: readonly Column[], left: number, width: number) {
  const fixed = columns.reduce((sum, c) => sum + c.width, 0);
  let x = left;
  return columns.map((column) => {
    const w = column.width || width - fixed;
    const placed = { column, x, width: w };
    x += w;
    return placed;
  });
}
