import { sql } from "kysely";
import type { Clock } from "../../clock.ts";
import { unnestRows } from "../../db/bulk.ts";
import type { Db } from "../../db/database.ts";
import { inTransaction } from "../../db/transaction.ts";
import {
  type InventoryAdjustment,
  type InventoryAdjustResult,
  movedNothing,
  type PlatformInventoryLevel,
  PlatformPermanentError,
  PlatformTransientError,
} from "../connector.ts";
import { takeFault } from "./faults.ts";
import { addToLevels, levelDeltas, unknownItemsAndLocations } from "./inventory.ts";
import { allocateChanges } from "./shop.ts";

/** Stock adjustment as the platform applies it: idempotent on the key, faults first. */
export async function applySimAdjustment(
  db: Db,
  clock: Clock,
  storeId: number,
  adjustment: InventoryAdjustment,
): Promise<InventoryAdjustResult> {
  // Every refusal below comes before anything was written, or rolls the transaction back: the
  // document moved nothing (movedNothing), so a batch it carried may be taken apart.
  if (!adjustment.idempotencyKey)
    throw movedNothing(new PlatformPermanentError("an idempotency key is required"));
  const fault = await takeFault(db, storeId);
  if (fault === "down")
    throw movedNothing(new PlatformTransientError("platform unavailable (simulated outage)"));
  if (fault === "reject")
    throw movedNothing(new PlatformPermanentError("rejected by the platform (simulated refusal)"));
  return inTransaction(db, async (trx) => {
    // The shop locked and the key looked up in one statement.
    const { rows: heads } = await sql<{ result: unknown }>`select k.result from sim_stores s
      left join sim_push_keys k on k.store_id = s.store_id and k.key = ${adjustment.idempotencyKey}
      where s.store_id = ${storeId} for update of s`.execute(trx);
    if (heads.length === 0)
      throw movedNothing(new PlatformPermanentError(`unknown shop for store ${storeId}`));
    if (heads[0].result !== null) {
      const stored = heads[0].result as { levels: Array<PlatformInventoryLevel & { updatedAt: string }> };
      return {
        replayed: true,
        levels: stored.levels.map((l) => ({ ...l, updatedAt: new Date(l.updatedAt) })),
      };
    }
    const itemIds = [
      ...adjustment.changes.map((c) => c.inventoryItemId),
      ...adjustment.itemCosts.map((c) => c.inventoryItemId),
    ];
    const locationIds = adjustment.changes.map((c) => c.locationId);
    const unknown = await unknownItemsAndLocations(trx, storeId, itemIds, locationIds);
    const missingItem = itemIds.find((id) => unknown.items.has(id));
    if (missingItem !== undefined)
      throw movedNothing(new PlatformPermanentError(`unknown inventory item ${missingItem}`));
    const missingLocation = locationIds.find((id) => unknown.locations.has(id));
    if (missingLocation !== undefined)
      throw movedNothing(new PlatformPermanentError(`unknown location ${missingLocation}`));

    // The last cost given for an item wins, as if the costs were set one after the other.
    const costs = [...new Map(adjustment.itemCosts.map((c) => [c.inventoryItemId, c])).values()];
    // One allocation of change numbers: the levels' first, then the costs'.
    const added = await addToLevels(trx, clock, storeId, levelDeltas(adjustment.changes), costs.length);
    const { reported } = added;
    const first = added.first ?? (await allocateChanges(trx, storeId, costs.length));
    if (costs.length > 0) {
      const firstCost = first + reported.length;
      const numbered = costs.map((c, i) => ({ ...c, seq: firstCost + i }));
      // The cost is the item's, not the variant's: the variant keeps its change number and updated_at.
      await sql`update sim_variants as v
        set unit_cost = c.unit_cost, unit_cost_currency = c.currency, cost_seq = c.seq
        from (${unnestRows(numbered, [
          ["item", "bigint", (c) => c.inventoryItemId],
          ["unit_cost", "numeric", (c) => c.unitCost],
          ["currency", "text", (c) => c.currency],
          ["seq", "bigint", (c) => c.seq],
        ])}) as c(item, unit_cost, currency, seq)
        where v.store_id = ${storeId} and v.inventory_item_id = c.item
          and v.inventory_item_id = any(${costs.map((c) => c.inventoryItemId)}::bigint[])`.execute(trx);
    }
    await trx
      .insertInto("sim_push_keys")
      .values({
        store_id: storeId,
        key: adjustment.idempotencyKey,
        result: JSON.stringify({ levels: reported }),
        created_at: clock.now(),
      })
      .execute();
    // The change numbers just allocated are this adjustment's alone (the shop's row stays locked to
    // the commit), so the feed from `first - 1` to its last number is what it reports.
    const last = first + reported.length + costs.length - 1;
    return {
      replayed: false,
      levels: reported,
      ...(last >= first ? { feed: { before: String(first - 1), after: String(last) } } : {}),
    };
  });
}
