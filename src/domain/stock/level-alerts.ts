import { sql } from "kysely";
import type { AppContext } from "../../context.ts";
import { arrayParam } from "../../db/bulk.ts";
import type { Db } from "../../db/database.ts";
import { emit } from "../../events/outbox.ts";
import { findVariants, locationNames } from "../catalog/index.ts";
import { crossingsFor, type ItemRuleRow, type LevelQuantities, ruleForLevel } from "./crossings.ts";
import type { LevelKey } from "./level-keys.ts";

/** A visible level before and after one change (what the item alerts compare). */
export interface LevelChange {
  key: LevelKey;
  before: LevelQuantities;
  after: LevelQuantities;
}

/** The store's alert rules as far as a set of moved items goes. */
export interface AlertRules {
  lowStockThreshold: number | null;
  anyItemRule: boolean;
  itemRules: ItemRuleRow[];
}

/** The three columns alertRulesColumns selects, as the driver gives them. */
export interface AlertRulesRow {
  low_stock_threshold: number | null;
  any_item_rule: boolean;
  item_rules: Array<[number, number | null, number | null, number | null]> | null;
}

/**
 * The store's threshold, whether it has any item rule at all, and the rules of these items, as three
 * columns of one select: it runs in every stock-moving transaction (a receipt, an apply), where the
 * three reads it replaces were three round trips, and the levels' upsert selects it beside its own
 * rows (movement-levels.ts). A store with neither a threshold nor a rule raises no item event, not
 * even out_of_stock, which is why "any rule" is asked apart from "rules of these items".
 */
export function alertRulesColumns(storeId: number, itemIds: readonly number[]) {
  return sql`(select low_stock_threshold from alert_settings where store_id = ${storeId}) as low_stock_threshold,
      exists (select 1 from alert_item_rules where store_id = ${storeId}) as any_item_rule,
      (select json_agg(json_build_array(inventory_item_id, location_id, reorder_point, max_stock))
        from alert_item_rules
        where store_id = ${storeId} and inventory_item_id = any(${arrayParam("bigint", itemIds)})) as item_rules`;
}

export function alertRulesOf(row: AlertRulesRow): AlertRules {
  return {
    lowStockThreshold: row.low_stock_threshold,
    anyItemRule: row.any_item_rule,
    itemRules: (row.item_rules ?? []).map(([inventory_item_id, location_id, reorder_point, max_stock]) => ({
      inventory_item_id: Number(inventory_item_id),
      location_id: location_id === null ? null : Number(location_id),
      reorder_point,
      max_stock,
    })),
  };
}

async function alertRulesFor(trx: Db, storeId: number, itemIds: readonly number[]): Promise<AlertRules> {
  const { rows } = await sql<AlertRulesRow>`select ${alertRulesColumns(storeId, itemIds)}`.execute(trx);
  return alertRulesOf(rows[0]);
}

/**
 * Item events for the crossings among `changes`, with the store's rules (none: nothing fires): `rules`
 * when the caller read them already (of at least the changed items), else read here.
 */
export async function emitCrossings(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  changes: LevelChange[],
  rules?: AlertRules,
): Promise<void> {
  const itemIds = [...new Set(changes.map((c) => c.key.inventoryItemId))];
  const { lowStockThreshold, anyItemRule, itemRules } = rules ?? (await alertRulesFor(trx, storeId, itemIds));
  if (lowStockThreshold === null && !anyItemRule) return;
  const fired: Array<{ change: LevelChange; event: string; threshold: number | null }> = [];
  for (const change of changes) {
    const rule = ruleForLevel(itemRules, change.key.inventoryItemId, change.key.locationId);
    for (const c of crossingsFor(change.before, change.after, {
      lowStockThreshold,
      reorderPoint: rule?.reorder_point ?? null,
      maxStock: rule?.max_stock ?? null,
      outOfStock: true,
    }))
      fired.push({ change, event: c.event, threshold: c.threshold });
  }
  if (fired.length === 0) return;
  const { byInventoryItemId: variantByItem } = await findVariants(trx, storeId, {
    inventoryItemIds: fired.map((f) => f.change.key.inventoryItemId),
  });
  const locationName = await locationNames(
    trx,
    storeId,
    fired.map((f) => f.change.key.locationId),
  );
  for (const f of fired) {
    const variant = variantByItem.get(f.change.key.inventoryItemId);
    // An item the mirror does not know, one the platform does not track, or one the platform deleted
    // (its levels are no longer listed; a receipt on an open order can still move them) raises no alert.
    if (!variant?.inventory_tracked || variant.deleted_at !== null) continue;
    await emit(ctx, trx, {
      storeId,
      name: f.event,
      subjectType: "inventory_item",
      subjectId: variant.inventory_item_id,
      data: {
        inventory_item_id: variant.inventory_item_id,
        variant_id: variant.id,
        product_id: variant.product_id,
        sku: variant.sku,
        product_title: variant.product_title,
        variant_title: variant.title,
        location: { id: f.change.key.locationId, name: locationName.get(f.change.key.locationId) ?? "" },
        available: f.change.after.available,
        incoming: f.change.after.incoming,
        on_hand: f.change.after.on_hand,
        threshold: f.threshold,
      },
    });
  }
}
