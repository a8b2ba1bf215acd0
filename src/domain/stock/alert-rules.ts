import type { Db } from "../../db/database.ts";
import { findVariants, locationNames } from "../catalog/index.ts";
import { DetailCollector } from "../errors.ts";

/**
 * The store's item alert rules: a store-wide low-stock threshold and per-item rules
 * (reorder point, maximum stock), either for one location or, with `location_id: null`, for every
 * location of the item (a location's own row wins). PUT replaces the whole set.
 */

export interface AlertRuleItem {
  inventory_item_id: number;
  location_id: number | null;
  reorder_point: number | null;
  max_stock: number | null;
}

export interface AlertRules {
  low_stock_threshold: number | null;
  items: AlertRuleItem[];
}

export async function getAlertRules(db: Db, storeId: number): Promise<AlertRules> {
  const settings = await db
    .selectFrom("alert_settings")
    .select("low_stock_threshold")
    .where("store_id", "=", storeId)
    .executeTakeFirst();
  const items = await db
    .selectFrom("alert_item_rules")
    .select(["inventory_item_id", "location_id", "reorder_point", "max_stock"])
    .where("store_id", "=", storeId)
    .orderBy("inventory_item_id")
    .orderBy((eb) => eb.fn.coalesce("location_id", eb.lit(0)))
    .execute();
  return { low_stock_threshold: settings?.low_stock_threshold ?? null, items };
}

/**
 * Replaces the rules; unknown items or locations, duplicate rows and a reorder point above the row's max
 * stock are refused before any write.
 */
export async function putAlertRules(
  trx: Db,
  storeId: number,
  now: Date,
  rules: AlertRules,
): Promise<AlertRules> {
  const problems = new DetailCollector();
  const itemIds = [...new Set(rules.items.map((i) => i.inventory_item_id))];
  const locationIds = [
    ...new Set(rules.items.map((i) => i.location_id).filter((id): id is number => id !== null)),
  ];
  const { byInventoryItemId: knownItems } = await findVariants(trx, storeId, { inventoryItemIds: itemIds });
  const knownLocations = await locationNames(trx, storeId, locationIds);
  const seen = new Set<string>();
  rules.items.forEach((item, i) => {
    if (!knownItems.has(item.inventory_item_id))
      problems.add(`items.${i}.inventory_item_id`, "not_found", "no such inventory item in this store");
    if (item.location_id !== null && !knownLocations.has(item.location_id))
      problems.add(`items.${i}.location_id`, "not_found", "no such location in this store");
    // A reorder point above the maximum would reorder an item that is already overstocked.
    if (item.reorder_point !== null && item.max_stock !== null && item.reorder_point > item.max_stock)
      problems.add(
        `items.${i}.reorder_point`,
        "above_max_stock",
        `must be at most the max stock (${item.max_stock})`,
      );
    const key = `${item.inventory_item_id}:${item.location_id ?? "all"}`;
    if (seen.has(key))
      problems.add(`items.${i}`, "duplicate", "another row already sets rules for this item and location");
    seen.add(key);
  });
  problems.throwIfAny();

  await trx
    .insertInto("alert_settings")
    .values({ store_id: storeId, low_stock_threshold: rules.low_stock_threshold, updated_at: now })
    .onConflict((oc) =>
      oc.column("store_id").doUpdateSet({ low_stock_threshold: rules.low_stock_threshold, updated_at: now }),
    )
    .execute();
  await trx.deleteFrom("alert_item_rules").where("store_id", "=", storeId).execute();
  if (rules.items.length > 0)
    await trx
      .insertInto("alert_item_rules")
      .values(
        rules.items.map((item) => ({
          store_id: storeId,
          inventory_item_id: item.inventory_item_id,
          location_id: item.location_id,
          reorder_point: item.reorder_point,
          max_stock: item.max_stock,
        })),
      )
      .execute();
  return getAlertRules(trx, storeId);
}
