/**
 * Payments of a purchase order: list, add, delete, mark paid, mark unpaid. Each change locks the
 * order, writes its history row, refreshes payment_status/paid_at and emits purchase_order.updated,
 * all in the caller's transaction. A draft takes payments (deposits); so does every other state.
 */
import Big from "big.js";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { emit } from "../../events/outbox.ts";
import { notFound } from "../errors.ts";
import { localDate } from "../local-time.ts";
import {
  type Actor,
  addHistory,
  type HistoryType,
  loadPurchaseOrder,
  lockPurchaseOrder,
  orderExists,
  type PresentedPayment,
  type PurchaseOrder,
  presentPayment,
  settlePaymentChange,
} from "../purchase-orders/index.ts";
import { deleteAllPayments, deletePaymentRow, insertPayment, paymentRows } from "./repository.ts";
import {
  assertCanMarkUnpaid,
  DEFAULT_PAYMENT_METHOD,
  markPaidAmount,
  type PaymentBody,
  paymentValues,
} from "./rules.ts";

export interface PaymentsCall {
  ctx: AppContext;
  trx: Db;
  store: { id: number; timezone: string };
  actor: Actor;
}

/** The order's payments, oldest first; 404 when the order is not in the store. */
export async function listPayments(db: Db, storeId: number, orderId: number): Promise<PresentedPayment[]> {
  if (!(await orderExists(db, storeId, orderId))) throw notFound("purchase order");
  const rows = await paymentRows(db, storeId, orderId);
  return rows.map(presentPayment);
}

async function finish(
  call: PaymentsCall,
  orderId: number,
  type: HistoryType,
  data: Record<string, unknown>,
  now: Date,
): Promise<PurchaseOrder> {
  const { ctx, trx, store, actor } = call;
  await settlePaymentChange(trx, store.id, orderId, now);
  await addHistory(trx, { storeId: store.id, orderId, type, by: actor.by, via: actor.via, data, at: now });
  const order = await loadPurchaseOrder(trx, store.id, orderId);
  await emit(ctx, trx, {
    storeId: store.id,
    name: "purchase_order.updated",
    subjectType: "purchase_order",
    subjectId: orderId,
    data: order,
  });
  return order;
}

export async function addPayment(
  call: PaymentsCall,
  orderId: number,
  body: PaymentBody,
): Promise<{ payment: PresentedPayment; order: PurchaseOrder }> {
  const order = await lockPurchaseOrder(call.trx, call.store.id, orderId);
  const now = call.ctx.clock.now();
  const values = paymentValues(body, order.currency, localDate(now, call.store.timezone));
  const row = await insertPayment(call.trx, call.store.id, orderId, values, now);
  const payment = presentPayment(row);
  const presented = await finish(
    call,
    orderId,
    "payment_added",
    {
      payment_id: row.id,
      amount: payment.amount,
      currency: row.currency,
      paid_on: row.paid_on,
      method: row.method,
    },
    now,
  );
  return { payment, order: presented };
}

export async function deletePayment(
  call: PaymentsCall,
  orderId: number,
  paymentId: number,
): Promise<{ order: PurchaseOrder }> {
  await lockPurchaseOrder(call.trx, call.store.id, orderId);
  const row = await deletePaymentRow(call.trx, call.store.id, orderId, paymentId);
  if (!row) throw notFound("payment on this purchase order");
  const now = call.ctx.clock.now();
  const order = await finish(
    call,
    orderId,
    "payment_deleted",
    { payment_id: row.id, amount: presentPayment(row).amount, currency: row.currency },
    now,
  );
  return { order };
}

export async function markPaid(
  call: PaymentsCall,
  orderId: number,
  body: { paid_on?: string; method?: string },
): Promise<PurchaseOrder> {
  const order = await lockPurchaseOrder(call.trx, call.store.id, orderId);
  const payments = await paymentRows(call.trx, call.store.id, orderId);
  const amount = markPaidAmount(new Big(order.total), order.currency, payments);
  const now = call.ctx.clock.now();
  const row = await insertPayment(
    call.trx,
    call.store.id,
    orderId,
    {
      amount,
      currency: order.currency,
      paid_on: body.paid_on ?? localDate(now, call.store.timezone),
      method: body.method ?? DEFAULT_PAYMENT_METHOD,
      reference: null,
      note: null,
    },
    now,
  );
  return finish(
    call,
    orderId,
    "marked_paid",
    { payment_id: row.id, amount: presentPayment(row).amount, currency: row.currency },
    now,
  );
}

export async function markUnpaid(call: PaymentsCall, orderId: number): Promise<PurchaseOrder> {
  const order = await lockPurchaseOrder(call.trx, call.store.id, orderId);
  const payments = await paymentRows(call.trx, call.store.id, orderId);
  assertCanMarkUnpaid(new Big(order.total), payments);
  await deleteAllPayments(call.trx, call.store.id, orderId);
  const now = call.ctx.clock.now();
  return finish(call, orderId, "marked_unpaid", { deleted_payment_ids: payments.map((p) => p.id) }, now);
}
