/** A supplier merge's part in purchase orders: the merged suppliers' orders move to the survivor. */
import type { Db } from "../../db/database.ts";
import { type Actor, addHistory } from "./history.ts";
import { moveOrdersOfSuppliers } from "./repository.ts";

/**
 * Moves every order of the suppliers `fromIds` to `toId`, each with an `updated` history row marked
 * `merge`; returns the moved orders with the supplier each one had.
 */
export async function moveOrdersToSupplier(
  trx: Db,
  storeId: number,
  fromIds: readonly number[],
  toId: number,
  actor: Actor,
  now: Date,
): Promise<Array<{ id: number; supplier_id: number }>> {
  const moved = await moveOrdersOfSuppliers(trx, storeId, fromIds, toId, now);
  for (const order of moved) {
    await addHistory(trx, {
      storeId,
      orderId: order.id,
      type: "updated",
      by: actor.by,
      via: actor.via,
      at: now,
      data: { changes: { supplier_id: [order.supplier_id, toId] }, merge: true },
    });
  }
  return moved;
}
