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

/** A location the store can use: active on the platform and not hidden in the store's settings. */
export async function findUsableLocation(
  db: Db,
  storeId: number,
  locationId: number,
): Promise<{ id: number; name: string } | undefined> {
  return db
    .selectFrom("locations")
    .select(["id", "name"])
    .where("store_id", "=", storeId)
    .where("id", "=", locationId)
    .where("active", "=", true)
    .where("hidden", "=", false)
    .executeTakeFirst();
}

/**
 * Which of these locations the mirror holds inactive (deactivated or deleted on the platform): stock
 * cannot go there. A location the mirror does not hold is not answered.
 */
export async function inactiveLocationIds(
  db: Db,
  storeId: number,
  locationIds: readonly number[],
): Promise<Set<number>> {
  if (locationIds.length === 0) return new Set();
  const rows = await db
    .selectFrom("locations")
    .select("id")
    .where("store_id", "=", storeId)
    .where("id", "in", [...new Set(locationIds)])
    .where("active", "=", false)
    .execute();
  return new Set(rows.map((r) => Number(r.id)));
}
