import { arrayLiteral } from "../../db/bulk.ts";
import type { Db } from "../../db/database.ts";
import { hotSql } from "../../db/prepared.ts";

/**
 * Mirror levels locked before a record reads them to move stock (a stock adjustment's quantity_before).
 * Locks are taken in item order, so two writers touching the same items queue instead of deadlocking.
 */

async function lockExisting(
  trx: Db,
  storeId: number,
  locationId: number,
  inventoryItemIds: readonly number[],
): Promise<Map<number, number>> {
  const result = new Map<number, number>();
  if (inventoryItemIds.length === 0) return result;
  const rows = await lockAt.run(
    trx,
    storeId,
    locationId,
    arrayLiteral("bigint", [...new Set(inventoryItemIds)]),
  );
  for (const row of rows) result.set(Number(row.inventory_item_id), row.available);
  return result;
}

// One text whatever the number of items (an array, where an `in` list of as many parameters made a
// text per count), prepared once per PostgreSQL connection (db/prepared.ts).
const lockAt = hotSql<
  [storeId: number, locationId: number, itemIds: string],
  { inventory_item_id: number; available: number }
>(
  "stockroom_levels_lock_at",
  `select inventory_item_id, available from inventory_levels
   where store_id = $1 and location_id = $2 and inventory_item_id = any($3::bigint[])
   order by inventory_item_id
   for update`,
  { priority: false },
);

/**
 * Locks the levels of these items at the location and answers each item's `available`. An item with
 * no level row there gets a zero row first (as the mirror does before recomputing a level), so it is
 * locked too: two writers on a never-stocked item then queue on the row instead of both reading 0.
 */
export async function lockLevelsAt(
  trx: Db,
  storeId: number,
  locationId: number,
  inventoryItemIds: readonly number[],
  now: Date,
): Promise<Map<number, number>> {
  const levels = await lockExisting(trx, storeId, locationId, inventoryItemIds);
  const missing = [...new Set(inventoryItemIds)].filter((item) => !levels.has(item));
  if (missing.length === 0) return levels;
  await trx
    .insertInto("inventory_levels")
    .values(
      missing.map((itemId) => ({
        store_id: storeId,
        inventory_item_id: itemId,
        location_id: locationId,
        created_at: now,
        updated_at: now,
      })),
    )
    .onConflict((oc) => oc.columns(["store_id", "inventory_item_id", "location_id"]).doNothing())
    .execute();
  for (const [item, available] of await lockExisting(trx, storeId, locationId, missing))
    levels.set(item, available);
  return levels;
}
