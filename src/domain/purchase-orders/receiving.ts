/**
 * What receiving, voiding and paying do to an order, written here because the order's tables are this
 * module's: receipts and payments decide what changes and call these with the caller's transaction.
 * Each is a fixed number of statements whatever the number of lines (a receipt is benchmarked).
 */
import { type RawBuilder, sql } from "kysely";
import { arrayParam, unnestRows } from "../../db/bulk.ts";
import type { Db } from "../../db/database.ts";
import { type LineDraft, lineRowOf } from "./lines.ts";
import { refreshPaymentStatus } from "./payment-status.ts";
import { recomputeTotals } from "./totals.ts";
import type { PurchaseOrderStatus } from "./transitions.ts";

/**
 * Adds a receipt's unordered entries as order lines, fully received at the cost given (no discount,
 * no notes). Answers the new lines' ids in the order of `drafts`. The order's totals are left to
 * `bookReceipt`, once the quantities are booked.
 */
export async function addUnorderedLines(
  trx: Db,
  storeId: number,
  orderId: number,
  drafts: readonly LineDraft[],
  now: Date,
): Promise<number[]> {
  if (drafts.length === 0) return [];
  const inserted = await trx
    .insertInto("purchase_order_lines")
    .values(
      drafts.map((l) => ({
        ...lineRowOf(storeId, orderId, l, now),
        cancelled_quantity: 0,
        received_quantity: l.quantity,
        discount_percent: null,
        supplier_note: null,
        internal_note: null,
        warnings: "[]",
        created_at: now,
      })),
    )
    .returning(["id", "position"])
    .execute();
  const byPosition = new Map(inserted.map((r) => [r.position, r.id]));
  return drafts.map((l) => byPosition.get(l.position)!);
}

type QuantityChange = { id: number; received: number; cancelled: number };

/** The UPDATE of order lines' received and cancelled quantities, one array per column. */
function quantitiesUpdate(storeId: number, changes: readonly QuantityChange[], now: Date) {
  return sql`update purchase_order_lines as l
    set received_quantity = v.received, cancelled_quantity = v.cancelled, updated_at = ${now}
    from (${unnestRows(changes, [
      ["id", "int", (c) => c.id],
      ["received", "int", (c) => c.received],
      ["cancelled", "int", (c) => c.cancelled],
    ])}) as v(id, received, cancelled)
    where l.id = v.id and l.id = any(${arrayParam(
      "int",
      changes.map((c) => c.id),
    )}) and l.store_id = ${storeId}`;
}

/** Sets the received and cancelled quantities of order lines, in one statement. */
export async function bookReceivedQuantities(
  trx: Db,
  storeId: number,
  changes: readonly QuantityChange[],
  now: Date,
): Promise<void> {
  if (changes.length === 0) return;
  await quantitiesUpdate(storeId, changes, now).execute(trx);
}

/**
 * A receipt's booking on the order, as parts of the receipt's one statement (a data-modifying WITH,
 * receipts/record.ts), by name: the lines' quantities (as `bookReceivedQuantities`) and the order's status
 * (received_at set when it became received); two tables, so neither part needs the other's rows.
 * When the receipt added lines, `bookAddedLinesTotals` follows (the totals sum the booked lines, so a
 * statement after).
 */
export function receiptBooking(
  storeId: number,
  orderId: number,
  changes: readonly QuantityChange[],
  after: { status: PurchaseOrderStatus; becameReceived: boolean },
  now: Date,
): Array<[name: string, write: RawBuilder<unknown>]> {
  const receivedAt = after.becameReceived ? sql`, received_at = ${now}` : sql``;
  const status = sql`update purchase_orders set status = ${after.status}${receivedAt}, updated_at = ${now}
    where store_id = ${storeId} and id = ${orderId}`;
  return changes.length === 0
    ? [["booked_order", status]]
    : [
        ["booked_lines", quantitiesUpdate(storeId, changes, now)],
        ["booked_order", status],
      ];
}

/** The order's totals again after a receipt added (unordered) lines and its booking ran. */
export async function bookAddedLinesTotals(trx: Db, storeId: number, orderId: number): Promise<void> {
  await recomputeTotals(trx, storeId, orderId);
}

/**
 * A voided receipt's unordered lines: nothing was ordered of them, so their quantity goes back by
 * what the receipt brought (to zero unless a later receipt booked more on them) and their cost leaves
 * the order's totals, which are computed again (payment status included).
 */
export async function withdrawUnorderedQuantities(
  trx: Db,
  storeId: number,
  orderId: number,
  changes: readonly { id: number; quantity: number }[],
  now: Date,
): Promise<void> {
  if (changes.length === 0) return;
  await sql`update purchase_order_lines as l
    set quantity = v.quantity, updated_at = ${now}
    from (${unnestRows(changes, [
      ["id", "int", (c) => c.id],
      ["quantity", "int", (c) => c.quantity],
    ])}) as v(id, quantity)
    where l.id = v.id and l.id = any(${changes.map((c) => c.id)}::int[]) and l.store_id = ${storeId}`.execute(
    trx,
  );
  await recomputeTotals(trx, storeId, orderId);
}

/** The order's status after a receipt was voided: received_at goes unless the order is still received. */
export async function setStatusAfterVoid(
  trx: Db,
  storeId: number,
  orderId: number,
  status: PurchaseOrderStatus,
  now: Date,
): Promise<void> {
  await trx
    .updateTable("purchase_orders")
    .set({ status, ...(status !== "received" && { received_at: null }), updated_at: now })
    .where("store_id", "=", storeId)
    .where("id", "=", orderId)
    .execute();
}

/** After a payment was added or deleted: payment_status/paid_at follow the payments, updated_at is now. */
export async function settlePaymentChange(
  trx: Db,
  storeId: number,
  orderId: number,
  now: Date,
): Promise<void> {
  await refreshPaymentStatus(trx, storeId, orderId);
  await trx
    .updateTable("purchase_orders")
    .set({ updated_at: now })
    .where("store_id", "=", storeId)
    .where("id", "=", orderId)
    .execute();
}
