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
import { knownItems, knownLocations, lockLevelsToChange, writeLevels } from "./inventory.ts";
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
    const shop = await trx
      .selectFrom("sim_stores")
      .select("store_id")
      .where("store_id", "=", storeId)
      .forUpdate()
      .executeTakeFirst();
    if (!shop) throw movedNothing(new PlatformPermanentError(`unknown shop for store ${storeId}`));
    const seen = await trx
      .selectFrom("sim_push_keys")
      .select("result")
      .where("store_id", "=", storeId)
      .where("key", "=", adjustment.idempotencyKey)
      .executeTakeFirst();
    if (seen) {
      const stored = seen.result as { levels: Array<PlatformInventoryLevel & { updatedAt: string }> };
      return {
        replayed: true,
        levels: stored.levels.map((l) => ({ ...l, updatedAt: new Date(l.updatedAt) })),
      };
    }
    const itemIds = [
      ...adjustment.changes.map((c) => c.inventoryItemId),
      ...adjustment.itemCosts.map((c) => c.inventoryItemId),
    ];
    const items = await knownItems(trx, storeId, itemIds);
    const missingItem = itemIds.find((id) => !items.has(id));
    if (missingItem !== undefined)
      throw movedNothing(new PlatformPermanentError(`unknown inventory item ${missingItem}`));
    const locationIds = adjustment.changes.map((c) => c.locationId);
    const locations = await knownLocations(trx, storeId, locationIds);
    const missingLocation = locationIds.find((id) => !locations.has(id));
    if (missingLocation !== undefined)
      throw movedNothing(new PlatformPermanentError(`unknown location ${missingLocation}`));

    const levels = await lockLevelsToChange(
      trx,
      storeId,
      adjustment.changes.map((c) => ({ item: c.inventoryItemId, location: c.locationId })),
    );
    for (const c of adjustment.changes) {
      const row = levels.row(c.inventoryItemId, c.locationId);
      if (c.name === "available") {
        row.available += c.delta;
        row.on_hand += c.delta;
      } else if (c.name === "on_hand") row.on_hand += c.delta;
      else row.incoming += c.delta;
    }
    // The last cost given for an item wins, as if the costs were set one after the other.
    const costs = [...new Map(adjustment.itemCosts.map((c) => [c.inventoryItemId, c])).values()];
    // One allocation of change numbers: the levels' first, then the costs'.
    const touched = levels.touched();
    const first = await allocateChanges(trx, storeId, touched.length + costs.length);
    const reported = await writeLevels(trx, clock, storeId, touched, first);
    if (costs.length > 0) {
      const firstCost = first + touched.length;
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
    const last = first + touched.length + costs.length - 1;
    return {
      replayed: false,
      levels: reported,
      ...(last >= first ? { feed: { before: String(first - 1), after: String(last) } } : {}),
    };
  });
}
