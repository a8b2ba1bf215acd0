/**
 * Voiding a receipt: under the order's lock, the order lines lose what the receipt booked (a line the
 * receipt added, never ordered, loses the quantity it brought too, so it expects nothing and costs
 * nothing: docs/decisions.md, "Receipts and payments"), the order's status and totals follow, the
 * stock movements are taken back, and the order is read back and announced.
 */
import { emit } from "../../events/outbox.ts";
import { invalidTransition, notFound } from "../errors.ts";
import {
  addHistory,
  assertCan,
  bookReceivedQuantities,
  deriveStatusAfterReceiving,
  incomingOf,
  type LineRow,
  loadPurchaseOrderInTransaction,
  lockPurchaseOrder,
  orderLines,
  type PresentedReceipt,
  type PurchaseOrder,
  setStatusAfterVoid,
  withdrawUnorderedQuantities,
} from "../purchase-orders/index.ts";
import { recordStockMovements, refuseGoneFor } from "../stock/index.ts";
import { RECEIPT_REASON, receiptReference, voidMovements } from "./movements.ts";
import { findReceipt, markReceiptVoided, receiptLinesOf, recordedMovements } from "./repository.ts";
import type { ReceiptCall } from "./types.ts";

export async function voidReceipt(
  call: ReceiptCall,
  orderId: number,
  receiptId: number,
  body: { note?: string | null },
): Promise<{ receipt: PresentedReceipt; order: PurchaseOrder }> {
  const { ctx, trx, store, actor } = call;
  const order = await lockPurchaseOrder(trx, store.id, orderId);
  const receipt = await findReceipt(trx, store.id, orderId, receiptId);
  if (!receipt) throw notFound("receipt on this purchase order");
  assertCan("void_receipt", order.status);
  if (receipt.voided_at !== null)
    throw invalidTransition("The receipt is voided: it cannot be voided again.");

  const [lines, receiptLines, recorded] = await Promise.all([
    orderLines(trx, store.id, orderId),
    receiptLinesOf(trx, store.id, receiptId),
    recordedMovements(trx, store.id, receiptId, RECEIPT_REASON),
  ]);
  const linesAfter = linesWithout(lines, receiptLines);
  const statusAfter = deriveStatusAfterReceiving(linesAfter);
  const now = ctx.clock.now();

  await markReceiptVoided(trx, store.id, receiptId, now);
  await bookReceivedQuantities(
    trx,
    store.id,
    linesAfter
      .filter(
        (l, i) =>
          l.received_quantity !== lines[i].received_quantity ||
          l.cancelled_quantity !== lines[i].cancelled_quantity,
      )
      .map((l) => ({ id: l.id, received: l.received_quantity, cancelled: l.cancelled_quantity })),
    now,
  );
  await withdrawUnorderedQuantities(
    trx,
    store.id,
    orderId,
    linesAfter
      .filter((l, i) => l.quantity !== lines[i].quantity)
      .map((l) => ({ id: l.id, quantity: l.quantity })),
    now,
  );
  await setStatusAfterVoid(trx, store.id, orderId, statusAfter, now);
  await recordStockMovements(ctx, trx, {
    storeId: store.id,
    subjectType: "receipt",
    subjectId: receiptId,
    reference: receiptReference(orderId, receiptId),
    movements: voidMovements(recorded, {
      before: incomingOf(order, lines),
      after: incomingOf({ status: statusAfter, updates_stock: order.updates_stock }, linesAfter),
      orderLocationId: order.location_id,
    }),
    // Its units taken out, or the order's incoming expected again, where the platform no longer takes
    // stock: 422, nothing voided, as the receipt would be (docs/decisions.md, "Shopify webhooks and
    // reconciliation"); the platform would refuse the push and the receipt's platform_sync fail.
    refuseGone: (gone) =>
      refuseGoneFor(Number(receipt.location_id), gone, "the void cannot move the receipt's stock there"),
  });

  await addHistory(trx, {
    storeId: store.id,
    orderId,
    type: "receipt_voided",
    by: actor.by,
    via: actor.via,
    at: now,
    data: { receipt_id: receiptId, note: body.note ?? null, status: { from: order.status, to: statusAfter } },
  });

  const presented = await loadPurchaseOrderInTransaction(trx, store.id, orderId);
  const presentedReceipt = presented.receipts.find((r) => r.id === receiptId)!;
  await emit(ctx, trx, {
    storeId: store.id,
    name: "receipt.voided",
    subjectType: "receipt",
    subjectId: receiptId,
    data: { ...presentedReceipt, purchase_order: presented },
  });
  await emit(ctx, trx, {
    storeId: store.id,
    name: "purchase_order.updated",
    subjectType: "purchase_order",
    subjectId: orderId,
    data: presented,
  });
  return { receipt: presentedReceipt, order: presented };
}

/**
 * The order lines as they are without the receipt's lines, in the same order. A line the receipt added
 * (unordered) loses its units from the ordered quantity as well as the received one.
 */
function linesWithout(
  lines: readonly LineRow[],
  receiptLines: readonly { line_id: number; quantity: number; cancelled_added: number; unordered: boolean }[],
): LineRow[] {
  const after = new Map(lines.map((l) => [l.id, { ...l }]));
  for (const rl of receiptLines) {
    const l = after.get(rl.line_id);
    if (!l) continue;
    l.received_quantity = Math.max(0, l.received_quantity - rl.quantity);
    l.cancelled_quantity = Math.max(0, l.cancelled_quantity - rl.cancelled_added);
    if (rl.unordered) l.quantity = Math.max(0, l.quantity - rl.quantity);
  }
  return lines.map((l) => after.get(l.id)!);
}
