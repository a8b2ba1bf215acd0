import type { AppContext } from "../../../context.ts";
import { inTransaction } from "../../../db/transaction.ts";
import { dropLevels, type LevelKey } from "../../../domain/stock/index.ts";
import { type JobHandler, PermanentJobError } from "../../../jobs/worker.ts";
import { readLevels } from "../levels.ts";
import { shopifyClientFor } from "../shop-client.ts";
import { findShopByStore } from "../shops.ts";
import { LEVEL_DISCONNECTED_JOB } from "./job-types.ts";

/**
 * inventory_levels/disconnect: the item is no longer stocked at the location, and the incremental
 * read cannot see a level that is gone. Unlike products/delete the delivery is not final (the item
 * can be stocked there again, and the two deliveries come in any order), so it only names the level
 * to look at: the level is read from Shopify and dropped from the mirror only if Shopify has it no
 * longer (domain/stock/level-drops.ts). An item found gone is left to its product's deletion and to
 * reconciliation. Reconciliation finds the drops whose delivery was lost.
 */

/** The pair a disconnect body names (`{"inventory_item_id": 1, "location_id": 2}`), or null. */
export function disconnectedLevel(body: Buffer): LevelKey | null {
  try {
    const parsed = JSON.parse(body.toString("utf8")) as {
      inventory_item_id?: unknown;
      location_id?: unknown;
    };
    const ok = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v > 0;
    return ok(parsed.inventory_item_id) && ok(parsed.location_id)
      ? { inventoryItemId: parsed.inventory_item_id, locationId: parsed.location_id }
      : null;
  } catch {
    return null;
  }
}

/** Drops the levels among `pairs` that Shopify no longer has; answers how many the mirror dropped. */
export async function dropLevelsShopifyLacks(
  ctx: AppContext,
  storeId: number,
  pairs: readonly LevelKey[],
): Promise<number> {
  const shop = await findShopByStore(ctx.db, storeId);
  if (shop?.status !== "connected" || pairs.length === 0) return 0;
  const absent: LevelKey[] = [];
  await readLevels(shopifyClientFor(ctx, shop), pairs, { absent });
  if (absent.length === 0) return 0;
  return inTransaction(ctx.db, (trx) => dropLevels(trx, storeId, absent, ctx.clock.now()));
}

export const levelDisconnectedJobHandler: JobHandler = {
  type: LEVEL_DISCONNECTED_JOB,
  async run(ctx: AppContext, job) {
    const { store_id: storeId, inventory_item_id: itemId, location_id: locationId } = job.payload;
    const valid = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v > 0;
    if (!valid(storeId) || !valid(itemId) || !valid(locationId))
      throw new PermanentJobError(
        "invalid job payload: store_id, inventory_item_id and location_id are required",
      );
    await dropLevelsShopifyLacks(ctx, storeId, [{ inventoryItemId: itemId, locationId }]);
  },
};
