import type { Db } from "../../db/database.ts";

/**
 * A store's erasure, the stock module's part: the ledger's movements and their push batches
 * (`push_batch_movements`), which keep no reference to
 * `stores` (migration 036: the reference was checked once per movement, 200 times an apply, against
 * the same row). Runs after the store's row is deleted, in the same transaction: a write recording
 * movements meanwhile either committed before that delete (it held the row through its event's
 * reference, so the delete waited) and its movements are seen here, or it fails on that reference
 * once the erasure commits and its movements roll back with it (docs/decisions.md, "Store erasure").
 */
export async function eraseStoreMovements(trx: Db, storeId: number): Promise<void> {
  await trx.deleteFrom("stock_movements").where("store_id", "=", storeId).execute();
  await trx.deleteFrom("push_batch_movements").where("store_id", "=", storeId).execute();
}
