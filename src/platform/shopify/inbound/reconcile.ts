import type { AppContext } from "../../../context.ts";
import { inTransaction } from "../../../db/transaction.ts";
import { liveCatalogIds, markDeleted } from "../../../domain/catalog/index.ts";
import { dropLevels, heldLevelKeys, type LevelKey, repairLevelDrift } from "../../../domain/stock/index.ts";
import { type JobHandler, PermanentJobError } from "../../../jobs/worker.ts";
import { PlatformPermanentError } from "../../connector.ts";
import { requestCatalogSync } from "../../sync-request.ts";
import { bulkWaitFor } from "../bulk-wait.ts";
import { shopifyDispatcherOf } from "../http.ts";
import { readLevels } from "../levels.ts";
import { shopifyClientFor } from "../shop-client.ts";
import { findShopByStore } from "../shops.ts";
import { RECONCILE_JOB } from "./job-types.ts";
import { dropLevelsShopifyLacks } from "./level-dropped.ts";
import {
  recordReconciliation,
  recordReconciliationFailure,
  rememberBulkOperation,
  unfinishedBulkOperation,
} from "./reconcile-state.ts";
import { readShopLevels } from "./shop-levels.ts";
import { readRemovals } from "./shop-removals.ts";

// As drift repair commits: one transaction per this many levels.
const LEVELS_PER_BATCH = 1000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface ReconcileResult {
  checked: number;
  repaired: number;
  /** Levels the mirror held that Shopify no longer has (not in the bulk read, absent when read again). */
  dropped?: number;
}

/**
 * One reconciliation pass of a connected shop, so a lost webhook costs minutes, not forever: every
 * level Shopify has is read (one bulk operation, any number of levels) and compared with the
 * mirror's, the drift adopted batch by batch as the result streams in; the mirror's live
 * products and variants that Shopify no longer has are marked deleted; and the catalog's
 * incremental read is asked for (it finds whatever changed after its watermark, webhook or not).
 * A pass that died while its bulk operation ran (worker killed, job failed) left it running in the
 * shop, holding one of Shopify's five bulk slots: the next pass cancels it before starting its own
 * (its result would be older than a new one, and adopting it would need its start time to be safe).
 * Answers null when the shop is not connected (importing: nothing to compare yet; disconnected: the
 * token no longer reads).
 */
export async function reconcileShop(ctx: AppContext, storeId: number): Promise<ReconcileResult | null> {
  const shop = await findShopByStore(ctx.db, storeId);
  if (shop?.status !== "connected") return null;
  const client = shopifyClientFor(ctx, shop);
  const result: ReconcileResult = { checked: 0, repaired: 0 };
  const tied: LevelKey[] = [];
  // Every level the bulk read brought, as keys (a string a level, not the levels themselves).
  const seen = new Set<string>();
  const deps = {
    dispatcher: shopifyDispatcherOf(ctx),
    pollWait: bulkWaitFor({ db: ctx.db, clock: ctx.clock, shop: shop.shop, sleep }),
    bulkOperations: {
      unfinished: () => unfinishedBulkOperation(ctx.db, storeId),
      started: (operationId: string) => rememberBulkOperation(ctx.db, storeId, operationId),
      // Cleared with the pass's record, once its removals and drift are written too.
      ended: async () => {},
    },
  };
  await readShopLevels(client, deps, LEVELS_PER_BATCH, async (levels) => {
    for (const level of levels) seen.add(`${level.inventoryItemId}:${level.locationId}`);
    const repair = await repairLevelDrift(ctx, storeId, levels);
    result.checked += repair.checked;
    result.repaired += repair.repaired;
    tied.push(...repair.tied);
  });
  // Levels the bulk read reports otherwise at the version the mirror holds (a change in the second
  // the mirror last read: Shopify's times have whole seconds) are read again as a push reads back,
  // at a known time, which orders the tie. One gone meanwhile: its item's (with its variant) is marked
  // by the removals below; a level deactivated or at a deleted location, whose item stays, is answered
  // absent (not refused) and dropped from the mirror.
  let dropped = 0;
  if (tied.length > 0) {
    const absent: LevelKey[] = [];
    const again = await readLevels(client, tied, { absent });
    result.repaired += (await repairLevelDrift(ctx, storeId, again)).repaired;
    if (absent.length > 0)
      dropped += await inTransaction(ctx.db, (trx) => dropLevels(trx, storeId, absent, ctx.clock.now()));
  }
  // Levels the mirror holds that the bulk read did not bring (the item no longer stocked there, its
  // inventory_levels/disconnect lost, or a location deleted after it was deactivated) are read again
  // by key: one created after the operation's snapshot is there and stays; one still missing is
  // dropped (its levels in flight stay listed until acknowledged: domain/stock/level-drops.ts).
  const unseen = (await heldLevelKeys(ctx.db, storeId)).filter(
    (k) => !seen.has(`${k.inventoryItemId}:${k.locationId}`),
  );
  dropped += await dropLevelsShopifyLacks(ctx, storeId, unseen);
  if (dropped > 0) result.dropped = dropped;
  const removals = await readRemovals(client, await liveCatalogIds(ctx.db, storeId));
  if (removals.productIds.length > 0 || removals.variantIds.length > 0)
    await inTransaction(ctx.db, (trx) => markDeleted(trx, storeId, removals, ctx.clock.now()));
  await requestCatalogSync(ctx, ctx.db, storeId);
  await recordReconciliation(ctx.db, storeId, { at: ctx.clock.now(), ...result });
  return result;
}

/** How a reconciliation of the store is queued (one waiting per store). */
export function reconcileJobOptions(storeId: number) {
  return { storeId, dedupeKey: `${RECONCILE_JOB}:${storeId}`, maxAttempts: 3 };
}

export const reconcileJobHandler: JobHandler = {
  type: RECONCILE_JOB,
  retryDelayMs: (attempts) => Math.min(300_000, 30_000 * 2 ** Math.max(0, attempts - 1)),
  async run(ctx, job) {
    const storeId = job.payload.store_id;
    if (typeof storeId !== "number" || !Number.isSafeInteger(storeId) || storeId < 1)
      throw new PermanentJobError("invalid job payload: store_id is not a positive integer");
    try {
      await reconcileShop(ctx, storeId);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await recordReconciliationFailure(ctx.db, storeId, { at: ctx.clock.now(), error: message }).catch(
        () => {},
      );
      if (error instanceof PlatformPermanentError) throw new PermanentJobError(message);
      throw error;
    }
  },
};
