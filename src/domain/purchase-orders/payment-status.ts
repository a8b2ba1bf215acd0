/**
 * payment_status and paid_at follow from the order's payment rows: sum = 0 → unpaid;
 * total > 0 and sum ≥ total → paid (paid_at = created_at of the payment that made it paid);
 * anything else → partial.
 */
import Big from "big.js";
import type { Db } from "../../db/database.ts";

export type PaymentStatus = "unpaid" | "partial" | "paid";

export function paymentStatusOf(
  total: Big,
  payments: readonly { amount: string; created_at: Date }[],
): { payment_status: PaymentStatus; paid_at: Date | null } {
  let sum = new Big(0);
  let paidAt: Date | null = null;
  for (const p of payments) {
    sum = sum.plus(p.amount);
    if (paidAt === null && total.gt(0) && sum.gte(total)) paidAt = p.created_at;
  }
  if (sum.eq(0)) return { payment_status: "unpaid", paid_at: null };
  if (total.gt(0) && sum.gte(total)) return { payment_status: "paid", paid_at: paidAt };
  return { payment_status: "partial", paid_at: null };
}

/**
 * Recomputes the order's payment_status/paid_at from its payments and current total and writes them
 * when they changed (updated_at is the caller's business). Call after any payment change and after
 * any change of the order's total.
 */
export async function refreshPaymentStatus(
  trx: Db,
  storeId: number,
  orderId: number,
): Promise<{ payment_status: PaymentStatus; paid_at: Date | null; changed: boolean }> {
  const [order, payments] = await Promise.all([
    trx
      .selectFrom("purchase_orders")
      .select(["total", "payment_status", "paid_at"])
      .where("store_id", "=", storeId)
      .where("id", "=", orderId)
      .executeTakeFirstOrThrow(),
    trx
      .selectFrom("payments")
      .select(["amount", "created_at"])
      .where("store_id", "=", storeId)
      .where("purchase_order_id", "=", orderId)
      .orderBy("created_at")
      .orderBy("id")
      .execute(),
  ]);
  const next = paymentStatusOf(new Big(order.total), payments);
  const changed =
    next.payment_status !== order.payment_status ||
    (next.paid_at?.getTime() ?? null) !== (order.paid_at?.getTime() ?? null);
  if (changed) {
    await trx
      .updateTable("purchase_orders")
      .set({ payment_status: next.payment_status, paid_at: next.paid_at })
      .where("store_id", "=", storeId)
      .where("id", "=", orderId)
      .execute();
  }
  return { ...next, changed };
}
