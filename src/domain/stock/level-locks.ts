import { arrayLiteral } from "../../db/bulk.ts";
import type { Db } from "../../db/database.ts";
import { hotSql } from "../../db/prepared.ts";

/**
 * Mirror levels locked before a record reads them to move stock (a stock adjustment's quantity_before).
 * Locks are taken in item order, so two writers touching the same items queue instead of deadlocking
 * (the apply's read of its lines takes its existing levels' locks the same way:
 * stock-adjustments/repository.ts).
 */

/** A level locked: its row's id and its `available` when locked. */
export interface LockedLevel {
  id: number;
  available: number;
}

async function lockExisting(
  trx: Db,
  storeId: number,
  locationId: number,
  inventoryItemIds: readonly number[],
): Promise<Map<number, LockedLevel>> {
  const result = new Map<number, LockedLevel>();
  if (inventoryItemIds.length === 0) return result;
  const rows = await lockAt.run(
    trx,
    storeId,
    locationId,
    arrayLiteral("bigint", [...new Set(inventoryItemIds)]),
  );
  for (const row of rows)
    result.set(Number(row.inventory_item_id), { id: Number(row.id), available: row.available });
  return result;
}

// One text whatever the number of items (an array, where an `in` list of as many parameters made a
// text per count), prepared once per PostgreSQL connection (db/prepared.ts).
const lockAt = hotSql<
  [storeId: number, locationId: number, itemIds: string],
  { id: string; inventory_item_id: number; available: number }
>(
  "stockroom_levels_lock_at",
  `select id, inventory_item_id, available from inventory_levels
   where store_id = $1 and location_id = $2 and inventory_item_id = any($3::bigint[])
   order by inventory_item_id
   for update`,
  { priority: false },
);

/**
 * Creates the levels these items lack at the location, at zero (as the mirror does before
 * recomputing a level), and locks them: two writers on a never-stocked item then queue on the row
 * instead of both reading 0. For a caller that locked the existing levels already and found these
 * missing (a stock adjustment's apply locks its lines' levels as it reads its lines); a row another
 * writer created meanwhile is locked as it is. Answers each item's level: its id and `available`.
 */
export async function lockNewLevelsAt(
  trx: Db,
  storeId: number,
  locationId: number,
  inventoryItemIds: readonly number[],
  now: Date,
): Promise<Map<number, LockedLevel>> {
  const missing = [...new Set(inventoryItemIds)];
  if (missing.length === 0) return new Map();
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
  return lockExisting(trx, storeId, locationId, missing);
}
