import { type RawBuilder, sql } from "kysely";
import type { Db } from "../../db/database.ts";

/**
 * Takes the store's next stock adjustment number atomically (one UPDATE … RETURNING on the store row,
 * so concurrent creations queue on it). `atLeast` is the caller's lowest number not yet issued, read in
 * the same statement: a counter set below a number already issued (admin numbering settings) continues
 * after the highest issued one, so numbers never repeat.
 */
export async function takeStockAdjustmentNumber(
  trx: Db,
  storeId: number,
  atLeast: RawBuilder<number>,
): Promise<{ sequentialId: number; prefix: string }> {
  const row = await trx
    .updateTable("stores")
    .set((eb) => ({
      next_stock_adjustment_number: sql<number>`greatest(${eb.ref("next_stock_adjustment_number")},
        ${atLeast}) + 1`,
    }))
    .where("id", "=", storeId)
    .returning(["next_stock_adjustment_number", "stock_adjustment_prefix"])
    .executeTakeFirstOrThrow();
  return { sequentialId: row.next_stock_adjustment_number - 1, prefix: row.stock_adjustment_prefix };
}

/**
 * Takes `count` purchase order numbers from the store's numbering (UPDATE … RETURNING, atomic):
 * answers the prefix and the first number taken.
 */
export async function takePurchaseOrderNumbers(
  trx: Db,
  storeId: number,
  count = 1,
): Promise<{ prefix: string; first: number }> {
  const row = await trx
    .updateTable("stores")
    .set((eb) => ({ next_purchase_order_number: eb("next_purchase_order_number", "+", count) }))
    .where("id", "=", storeId)
    .returning(["purchase_order_prefix", "next_purchase_order_number"])
    .executeTakeFirstOrThrow();
  return { prefix: row.purchase_order_prefix, first: row.next_purchase_order_number - count };
}
