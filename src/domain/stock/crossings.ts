/**
 * Item alert crossings (the rules: docs/decisions.md, "Catalog mirror and the simulated platform").
 * Pure: given a level before and after a change and the rules that apply to it, which item events fire. An event fires on the crossing only, never on a
 * change that stays on the same side, so each crossing fires exactly once:
 *
 * - item.out_of_stock: on_hand goes from above 0 to 0 or below;
 * - item.low_stock: on_hand goes from above the store's low-stock threshold to at or below it;
 * - item.reorder_point: available + incoming goes from above the item's reorder point to at or below;
 * - item.overstock: on_hand goes from at or below the item's max_stock to above it.
 */

export type ItemEventName = "item.low_stock" | "item.out_of_stock" | "item.reorder_point" | "item.overstock";

export interface LevelQuantities {
  available: number;
  on_hand: number;
  incoming: number;
}

export interface AppliedRules {
  /** The store's low-stock threshold (null: no low-stock alerts). */
  lowStockThreshold: number | null;
  reorderPoint: number | null;
  maxStock: number | null;
  /** Out-of-stock alerts are on when the store has any alert rule at all. */
  outOfStock: boolean;
}

export interface Crossing {
  event: ItemEventName;
  /** The level crossed; null for out_of_stock, which has none. */
  threshold: number | null;
}

export function crossingsFor(
  before: LevelQuantities,
  after: LevelQuantities,
  rules: AppliedRules,
): Crossing[] {
  const out: Crossing[] = [];
  if (rules.outOfStock && before.on_hand > 0 && after.on_hand <= 0)
    out.push({ event: "item.out_of_stock", threshold: null });
  const low = rules.lowStockThreshold;
  if (low !== null && before.on_hand > low && after.on_hand <= low)
    out.push({ event: "item.low_stock", threshold: low });
  const reorder = rules.reorderPoint;
  if (
    reorder !== null &&
    before.available + before.incoming > reorder &&
    after.available + after.incoming <= reorder
  )
    out.push({ event: "item.reorder_point", threshold: reorder });
  const max = rules.maxStock;
  if (max !== null && before.on_hand <= max && after.on_hand > max)
    out.push({ event: "item.overstock", threshold: max });
  return out;
}

export interface ItemRuleRow {
  inventory_item_id: number;
  location_id: number | null;
  reorder_point: number | null;
  max_stock: number | null;
}

/** The item rule for a level: the row for that location wins over the item's all-locations row. */
export function ruleForLevel(
  rules: readonly ItemRuleRow[],
  inventoryItemId: number,
  locationId: number,
): ItemRuleRow | null {
  let general: ItemRuleRow | null = null;
  for (const rule of rules) {
    if (rule.inventory_item_id !== inventoryItemId) continue;
    if (rule.location_id === locationId) return rule;
    if (rule.location_id === null) general = rule;
  }
  return general;
}
