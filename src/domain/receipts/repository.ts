/**
 * The receipts module's rows: receipts and receipt_lines are written here only. Also the few reads a
 * receipt makes of what other modules keep (a location's name, the movements a receipt recorded).
 */
import { type Insertable, type RawBuilder, sql } from "kysely";
import { type BulkColumn, type ColumnName, columnList, unnestRows } from "../../db/bulk.ts";
import type { Db } from "../../db/database.ts";
import type { ReceiptsTable } from "../../db/tables/receipts_payments.ts";
import type { ComputedReceiptLine } from "./compute.ts";
import type { ReceiptLineBody } from "./types.ts";

/** One receipt line to write: what was computed, the order line it books, the request entry (if any). */
export interface ReceiptLineWrite {
  line: ComputedReceiptLine;
  lineId: number;
  entry: ReceiptLineBody | undefined;
}

/** receipt_lines' columns but receipt_id, one array each in the bulk insert. */
function lineColumns(
  storeId: number,
  now: Date,
): ReadonlyArray<BulkColumn<ReceiptLineWrite, ColumnName<"receipt_lines">>> {
  return [
    ["store_id", "int", () => storeId],
    ["line_id", "int", (r) => r.lineId],
    ["location_id", "bigint", (r) => r.line.locationId],
    ["quantity", "int", (r) => r.line.quantity],
    ["surplus_quantity", "int", (r) => r.line.surplusQuantity],
    ["rejected_quantity", "int", (r) => r.line.rejectedQuantity],
    ["rejected", "jsonb", (r) => JSON.stringify(r.line.rejected)],
    ["outstanding_before", "int", (r) => (r.line.source.kind === "unordered" ? 0 : r.line.outstandingBefore)],
    ["cancelled_added", "int", (r) => r.line.cancelledAdded],
    ["unordered", "boolean", (r) => r.line.source.kind === "unordered"],
    ["unit_cost", "numeric", (r) => r.line.unitCost.toString()],
    ["landed_unit_cost", "numeric", (r) => r.line.landedUnitCost.toString()],
    ["allocated_charge_amount", "numeric", (r) => r.line.allocatedChargeAmount.toString()],
    ["bin_location", "text", (r) => r.entry?.bin_location ?? null],
    ["lot_number", "text", (r) => r.entry?.lot_number ?? null],
    ["lot_expiry", "date", (r) => r.entry?.lot_expiry ?? null],
    ["lot_manufactured", "date", (r) => r.entry?.lot_manufactured ?? null],
    ["lot_id", "int", (r) => r.entry?.lot_id ?? null],
    ["created_at", "timestamptz", () => now],
  ];
}

/**
 * The receipt and its lines (one array per column, in the order given) as parts of the statement
 * that records the receipt's movements (stock/ledger.ts `recordStockMovementsWith`), so every row a
 * receipt writes goes in one round trip. `values` carries the id the receipt takes (taken with the
 * order's lock). `receipt_line_ids` answers the lines' ids in order.
 */
export function receiptWrites(
  values: Insertable<ReceiptsTable> & { id: number },
  lines: readonly ReceiptLineWrite[],
  now: Date,
): { parts: Array<[name: string, write: RawBuilder<unknown>]>; columns: RawBuilder<unknown> } {
  const names = Object.keys(values) as Array<keyof typeof values>;
  const receipt = sql`insert into receipts (${sql.join(names.map((n) => sql.ref(n)))})
    values (${sql.join(names.map((n) => values[n]))})`;
  if (lines.length === 0)
    return { parts: [["new_receipt", receipt]], columns: sql`null as receipt_line_ids` };
  const columns = lineColumns(values.store_id, now);
  const receiptLines = sql`insert into receipt_lines (receipt_id, ${columnList(columns)})
    select ${values.id}::int, u.* from (${unnestRows(lines, columns)}) as u
    returning id`;
  return {
    parts: [
      ["new_receipt", receipt],
      ["new_receipt_lines", receiptLines],
    ],
    columns: sql`(select json_agg(id) from new_receipt_lines) as receipt_line_ids`,
  };
}

/** The lines' ids as the statement of `receiptWrites` answered them. */
export function receiptLineIdsOf(columns: { receipt_line_ids: number[] | null }): number[] {
  return (columns.receipt_line_ids ?? []).map(Number);
}

export function findReceipt(trx: Db, storeId: number, orderId: number, receiptId: number) {
  return trx
    .selectFrom("receipts")
    .selectAll()
    .where("store_id", "=", storeId)
    .where("purchase_order_id", "=", orderId)
    .where("id", "=", receiptId)
    .executeTakeFirst();
}

export function receiptLinesOf(trx: Db, storeId: number, receiptId: number) {
  return trx
    .selectFrom("receipt_lines")
    .selectAll()
    .where("store_id", "=", storeId)
    .where("receipt_id", "=", receiptId)
    .orderBy("id")
    .execute();
}

export async function markReceiptVoided(
  trx: Db,
  storeId: number,
  receiptId: number,
  now: Date,
): Promise<void> {
  await trx
    .updateTable("receipts")
    .set({ voided_at: now, updated_at: now })
    .where("store_id", "=", storeId)
    .where("id", "=", receiptId)
    .execute();
}

/** The order a receipt belongs to (undefined when the receipt is not the store's). */
export async function orderIdOfReceipt(
  trx: Db,
  storeId: number,
  receiptId: number,
): Promise<number | undefined> {
  const row = await trx
    .selectFrom("receipts")
    .select("purchase_order_id")
    .where("store_id", "=", storeId)
    .where("id", "=", receiptId)
    .executeTakeFirst();
  return row?.purchase_order_id;
}

/** The orders these receipts of the store belong to, by receipt id (unknown ids are left out). */
export async function ordersOfReceipts(
  db: Db,
  storeId: number,
  receiptIds: readonly number[],
): Promise<Map<number, number>> {
  if (receiptIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("receipts")
    .select(["id", "purchase_order_id"])
    .where("store_id", "=", storeId)
    .where("id", "in", [...new Set(receiptIds)])
    .execute();
  return new Map(rows.map((r) => [r.id, r.purchase_order_id]));
}

/** The movements a receipt recorded for `reason` (read from the stock ledger, to take them back). */
export function recordedMovements(trx: Db, storeId: number, receiptId: number, reason: string) {
  return trx
    .selectFrom("stock_movements")
    .select(["inventory_item_id", "location_id", "available_delta", "on_hand_delta"])
    .where("store_id", "=", storeId)
    .where("subject_type", "=", "receipt")
    .where("subject_id", "=", receiptId)
    .where("reason", "=", reason)
    .execute();
}

export async function findLocationName(db: Db, storeId: number, id: number): Promise<string | null> {
  const row = await db
    .selectFrom("locations")
    .select("name")
    .where("store_id", "=", storeId)
    .where("id", "=", id)
    .executeTakeFirst();
  return row?.name ?? null;
}
