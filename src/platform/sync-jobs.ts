import type { AppContext } from "../context.ts";
import type { PeriodicTask } from "../jobs/worker.ts";
import { type JobHandler, PermanentJobError } from "../jobs/worker.ts";
import { mirrorSyncStatus, recordSyncError, syncCatalog } from "./catalog-sync.ts";
import { PlatformPermanentError } from "./connector.ts";
import { parseSyncPayload } from "./job-payloads.ts";
import { driverOfStore, platformDrivers } from "./registry.ts";
import { SYNC_JOB, syncJobOptions } from "./sync-request.ts";

export const SYNC_SCAN_TASK = "catalog.sync-scan";
export const SYNC_SCAN_INTERVAL_MS = 1000;

export const catalogSyncJobHandler: JobHandler = {
  type: SYNC_JOB,
  retryDelayMs(attempts) {
    return Math.min(60_000, 1000 * 2 ** Math.max(0, attempts - 1));
  },
  async run(ctx, job) {
    const storeId = parseSyncPayload(job.payload).store_id;
    try {
      await syncCatalog(ctx, storeId);
      await syncSettled(ctx, storeId, null);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await recordSyncError(ctx, storeId, message).catch(() => {});
      await syncSettled(ctx, storeId, message).catch(() => {});
      if (error instanceof PlatformPermanentError) throw new PermanentJobError(message);
      throw error;
    }
  },
};

/** Tells the store's platform how its sync ended (Shopify: the initial import's status). */
async function syncSettled(ctx: AppContext, storeId: number, error: string | null): Promise<void> {
  const driver = await driverOfStore(ctx.db, storeId);
  if (!driver?.syncSettled) return;
  const { watermark } = await mirrorSyncStatus(ctx.db, storeId);
  await driver.syncSettled(ctx, storeId, { error, watermark });
}

/**
 * Every second: a sync job for each store whose platform has changes the mirror has not pulled yet
 * (the simulated platform tells by its change counter; a real platform's change notifications would
 * enqueue the same job).
 */
export const catalogSyncScanTask: PeriodicTask = {
  name: SYNC_SCAN_TASK,
  intervalMs: SYNC_SCAN_INTERVAL_MS,
  async run(ctx) {
    for (const driver of platformDrivers) {
      if (!driver.storesWithChanges) continue;
      const storeIds = await driver.storesWithChanges(ctx.db);
      if (storeIds.length === 0) continue;
      await ctx.jobs.enqueueMany(
        ctx.db,
        storeIds.map((storeId) => ({
          type: SYNC_JOB,
          payload: { store_id: storeId },
          options: syncJobOptions(storeId),
        })),
      );
    }
  },
};
