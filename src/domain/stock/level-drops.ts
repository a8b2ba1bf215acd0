import { sql } from "kysely";
import type { Db } from "../../db/database.ts";
import { pairIn } from "../../db/pair-in.ts";
import { keyOf, type LevelKey } from "./level-keys.ts";

/**
 * Levels the platform no longer has (docs/decisions.md, "Shopify webhooks and reconciliation"): the
 * item no longer stocked at the location (Shopify's inventory_levels/disconnect, or a level
 * reconciliation finds gone), or the location deleted with its levels. The row is marked, not
 * deleted: movements, receipts and adjustments point at it, and a level with a push in flight is not
 * forgotten: it stays listed (visible = platform part + unacknowledged) until that push is
 * acknowledged or fails, then leaves the lists (listedLevel). A receipt or an
 * adjustment naming it is refused (droppedLevels). A newer report of it (stocked there again) clears
 * the mark (refreshLevels).
 */

/** Marks the levels of `pairs` dropped; answers how many were not already. */
export async function dropLevels(
  trx: Db,
  storeId: number,
  pairs: readonly LevelKey[],
  now: Date,
): Promise<number> {
  if (pairs.length === 0) return 0;
  const result = await trx
    .updateTable("inventory_levels")
    .set({ dropped_at: now, updated_at: now })
    .where("store_id", "=", storeId)
    .where("dropped_at", "is", null)
    .where(
      pairIn(
        "inventory_item_id",
        "location_id",
        pairs.map((p) => [p.inventoryItemId, p.locationId] as const),
      ),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Marks every level at the given locations (deleted on the platform) dropped. */
export async function dropLevelsAt(
  trx: Db,
  storeId: number,
  locationIds: readonly number[],
  now: Date,
): Promise<number> {
  if (locationIds.length === 0) return 0;
  const result = await trx
    .updateTable("inventory_levels")
    .set({ dropped_at: now, updated_at: now })
    .where("store_id", "=", storeId)
    .where("dropped_at", "is", null)
    .where("location_id", "in", [...locationIds])
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Which of `pairs` the platform dropped (keyOf keys): stock cannot go there. */
export async function droppedLevels(
  db: Db,
  storeId: number,
  pairs: readonly LevelKey[],
): Promise<Set<string>> {
  if (pairs.length === 0) return new Set();
  const rows = await db
    .selectFrom("inventory_levels")
    .select(["inventory_item_id", "location_id"])
    .where("store_id", "=", storeId)
    .where("dropped_at", "is not", null)
    .where(
      pairIn(
        "inventory_item_id",
        "location_id",
        pairs.map((p) => [p.inventoryItemId, p.locationId] as const),
      ),
    )
    .execute();
  return new Set(rows.map((r) => keyOf(Number(r.inventory_item_id), Number(r.location_id))));
}

/**
 * The mirror's levels the platform has not dropped, as keys, in (item, location) order: what a
 * reconciliation pass expects to find on the platform. Levels of a variant marked deleted are left
 * out (the item is gone there, and its levels with it).
 */
export async function heldLevelKeys(db: Db, storeId: number): Promise<LevelKey[]> {
  const rows = await db
    .selectFrom("inventory_levels as il")
    .select(["il.inventory_item_id", "il.location_id"])
    .where("il.store_id", "=", storeId)
    .where("il.dropped_at", "is", null)
    .where(itemNotDeleted("il"))
    .orderBy("il.inventory_item_id")
    .orderBy("il.location_id")
    .execute();
  return rows.map((r) => ({
    inventoryItemId: Number(r.inventory_item_id),
    locationId: Number(r.location_id),
  }));
}

/**
 * SQL condition on a level row aliased `alias`: listed unless the platform dropped it and no push of
 * it is in flight (a movement sent and not acknowledged, as levels.ts reads it): such a level is not
 * forgotten until that push is acknowledged or fails. Only a dropped row reads the ledger (on
 * `stock_movements_unpushed_level`).
 */
export const listedLevel = (alias: string) => {
  const level = (column: string) => sql.ref(`${alias}.${column}`);
  return sql<boolean>`(${level("dropped_at")} is null or exists (select 1 from stock_movements m
    left join push_batch_movements b on b.movement_id = m.id
    where m.store_id = ${level("store_id")} and m.inventory_item_id = ${level("inventory_item_id")}
      and m.location_id = ${level("location_id")} and m.pushed_at is null
      and (m.push_sent_at is not null or b.in_flight is true)))`;
};

/**
 * SQL condition on a level row aliased `alias`: its item's variant was not deleted on the platform
 * (the item is gone there, its stock no longer counts; the row stays, as movements and receipts point
 * at it). One lookup per row on the variants_item index.
 */
export const itemNotDeleted = (alias: string) => {
  const level = (column: string) => sql.ref(`${alias}.${column}`);
  return sql<boolean>`not exists (select 1 from variants dv
    where dv.store_id = ${level("store_id")} and dv.inventory_item_id = ${level("inventory_item_id")}
      and dv.deleted_at is not null)`;
};
