import type { AppContext } from "../../context.ts";
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

/** Item events for the crossings among `changes`, with the store's rules (none: nothing fires). */
export async function emitCrossings(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  changes: LevelChange[],
): Promise<void> {
  const settings = await trx
    .selectFrom("alert_settings")
    .select("low_stock_threshold")
    .where("store_id", "=", storeId)
    .executeTakeFirst();
  const lowStockThreshold = settings?.low_stock_threshold ?? null;
  const anyItemRule = await trx
    .selectFrom("alert_item_rules")
    .select("id")
    .where("store_id", "=", storeId)
    .limit(1)
    .executeTakeFirst();
  if (lowStockThreshold === null && !anyItemRule) return;
  const itemIds = [...new Set(changes.map((c) => c.key.inventoryItemId))];
  const itemRules: ItemRuleRow[] = anyItemRule
    ? await trx
        .selectFrom("alert_item_rules")
        .select(["inventory_item_id", "location_id", "reorder_point", "max_stock"])
        .where("store_id", "=", storeId)
        .where("inventory_item_id", "in", itemIds)
        .execute()
    : [];
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
