import { sql } from "kysely";
import type { Clock } from "../../clock.ts";
import { arrayParam, unnestRows } from "../../db/bulk.ts";
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
import { addToLevels, levelDeltas } from "./inventory.ts";
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
    // The shop locked first, then the key looked up in a statement of its own: under READ COMMITTED a
    // statement sees what was committed before it began, and a send that waited here for the same
    // document's first send must see the key that send committed. (Looked up in the locking statement,
    // the key stayed as it was before the wait: the document was applied again and the key's primary
    // key failed the send.) The lookup shares its statement with the items' and locations' check.
    const { rows: shops } =
      await sql`select 1 from sim_stores where store_id = ${storeId} for update`.execute(trx);
    if (shops.length === 0)
      throw movedNothing(new PlatformPermanentError(`unknown shop for store ${storeId}`));
    const itemIds = [
      ...adjustment.changes.map((c) => c.inventoryItemId),
      ...adjustment.itemCosts.map((c) => c.inventoryItemId),
    ];
    const locationIds = adjustment.changes.map((c) => c.locationId);
    const known = await keyAndUnknowns(trx, storeId, adjustment.idempotencyKey, itemIds, locationIds);
    if (known.result !== null) {
      const stored = known.result as { levels: Array<PlatformInventoryLevel & { updatedAt: string }> };
      return {
        replayed: true,
        levels: stored.levels.map((l) => ({ ...l, updatedAt: new Date(l.updatedAt) })),
      };
    }
    const missingItem = itemIds.find((id) => known.items.has(id));
    if (missingItem !== undefined)
      throw movedNothing(new PlatformPermanentError(`unknown inventory item ${missingItem}`));
    const missingLocation = locationIds.find((id) => known.locations.has(id));
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

/**
 * In one statement: the result the key was first answered with (null if the shop has not taken it),
 * and the items and locations the document names that the shop does not have.
 */
async function keyAndUnknowns(
  trx: Db,
  storeId: number,
  key: string,
  itemIds: readonly number[],
  locationIds: readonly number[],
): Promise<{ result: unknown; items: Set<number>; locations: Set<number> }> {
  const { rows } = await sql<{
    result: unknown;
    items: Array<number | string>;
    locations: Array<number | string>;
  }>`select
      (select k.result from sim_push_keys k where k.store_id = ${storeId} and k.key = ${key}) as result,
      array(select i from unnest(${arrayParam("bigint", [...new Set(itemIds)])}) i
        where not exists (select 1 from sim_variants v where v.inventory_item_id = i and v.store_id = ${storeId}))
        as items,
      array(select i from unnest(${arrayParam("bigint", [...new Set(locationIds)])}) i
        where not exists (select 1 from sim_locations s where s.id = i and s.store_id = ${storeId}))
        as locations`.execute(trx);
  const [row] = rows;
  return {
    result: row.result ?? null,
    items: new Set(row.items.map(Number)),
    locations: new Set(row.locations.map(Number)),
  };
}
