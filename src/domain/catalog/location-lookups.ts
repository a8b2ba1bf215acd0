import type { Db } from "../../db/database.ts";

/** Location reads other modules need by id: names for presenting, and whether one can take stock. */

/** Current mirror names of locations (any state), in one query. */
export async function locationNames(
  db: Db,
  storeId: number,
  locationIds: readonly number[],
): Promise<Map<number, string>> {
  const result = new Map<number, string>();
  if (locationIds.length === 0) return result;
  const rows = await db
    .selectFrom("locations")
    .select(["id", "name"])
    .where("store_id", "=", storeId)
    .where("id", "in", [...new Set(locationIds)])
    .execute();
  for (const row of rows) result.set(Number(row.id), row.name);
  return result;
}

/**
 * A location of the store not hidden in its settings, with whether the platform still has it active:
 * the store can use it when it is (an inactive one is refused as `inactive`, a hidden or unknown one
 * as `not_found`: purchase-orders/lookups.ts `checkNamedLocation`).
 */
export async function findShownLocation(
  db: Db,
  storeId: number,
  locationId: number,
): Promise<{ id: number; name: string; active: boolean } | undefined> {
  return db
    .selectFrom("locations")
    .select(["id", "name", "active"])
    .where("store_id", "=", storeId)
    .where("id", "=", locationId)
    .where("hidden", "=", false)
    .executeTakeFirst();
}
