/** The payments module's rows: payments are written here only, always within one order of the store. */
import type Big from "big.js";
import type { Selectable } from "kysely";
import type { Db } from "../../db/database.ts";
import type { PaymentsTable } from "../../db/tables/receipts_payments.ts";

export type PaymentRow = Selectable<PaymentsTable>;

/** The order's payments, oldest first. */
export function paymentRows(db: Db, storeId: number, orderId: number): Promise<PaymentRow[]> {
  return db
    .selectFrom("payments")
    .selectAll()
    .where("store_id", "=", storeId)
    .where("purchase_order_id", "=", orderId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
}

export function insertPayment(
  trx: Db,
  storeId: number,
  orderId: number,
  values: {
    amount: Big;
    currency: string;
    paid_on: string;
    method: string;
    reference: string | null;
    note: string | null;
  },
  now: Date,
): Promise<PaymentRow> {
  return trx
    .insertInto("payments")
    .values({
      store_id: storeId,
      purchase_order_id: orderId,
      amount: values.amount.toString(),
      currency: values.currency,
      paid_on: values.paid_on,
      method: values.method,
      reference: values.reference,
      note: values.note,
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Deletes one payment of the order; answers it (undefined when the order has no such payment). */
export function deletePaymentRow(
  trx: Db,
  storeId: number,
  orderId: number,
  paymentId: number,
): Promise<PaymentRow | undefined> {
  return trx
    .deleteFrom("payments")
    .where("store_id", "=", storeId)
    .where("purchase_order_id", "=", orderId)
    .where("id", "=", paymentId)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteAllPayments(trx: Db, storeId: number, orderId: number): Promise<void> {
  await trx
    .deleteFrom("payments")
    .where("store_id", "=", storeId)
    .where("purchase_order_id", "=", orderId)
    .execute();
}
