import type { AppContext } from "../context.ts";
import type { Db } from "../db/database.ts";
import { type JobHandler, type PeriodicTask, PermanentJobError } from "../jobs/worker.ts";
import { recordSyncError, SYNC_JOB, syncCatalog } from "./catalog-sync.ts";
import { PlatformPermanentError } from "./connector.ts";
import { simStoresWithChanges } from "./simulated/platform.ts";

export const SYNC_SCAN_TASK = "catalog.sync-scan";
export const SYNC_SCAN_INTERVAL_MS = 1000;

/** Asks for a mirror sync of the store (deduplicated: at most one waits per store). */
export async function requestCatalogSync(ctx: AppContext, trx: Db, storeId: number): Promise<void> {
  await ctx.jobs.enqueue(
    trx,
    SYNC_JOB,
    { store_id: storeId },
    { storeId, dedupeKey: `${SYNC_JOB}:${storeId}`, maxAttempts: 5 },
  );
}

export const catalogSyncJobHandler: JobHandler = {
  type: SYNC_JOB,
  retryDelayMs(attempts) {
    return Math.min(60_000, 1000 * 2 ** Math.max(0, attempts - 1));
  },
  async run(ctx, job) {
    const storeId = Number(job.payload.store_id);
    try {
      await syncCatalog(ctx, storeId);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await recordSyncError(ctx, storeId, message).catch(() => {});
      if (error instanceof PlatformPermanentError) throw new PermanentJobError(message);
      throw error;
    }
  },
};

/**
 * Every second: a sync job for each store whose platform has changes the mirror has not pulled yet
 * (the simulated platform tells by its change counter; a real platform's change notifications would
 * enqueue the same job).
 */
export const catalogSyncScanTask: PeriodicTask = {
  name: SYNC_SCAN_TASK,
  intervalMs: SYNC_SCAN_INTERVAL_MS,
  async run(ctx) {
    const storeIds = await simStoresWithChanges(ctx.db);
    if (storeIds.length === 0) return;
    await ctx.jobs.enqueueMany(
      ctx.db,
      storeIds.map((storeId) => ({
        type: SYNC_JOB,
        payload: { store_id: storeId },
        options: { storeId, dedupeKey: `${SYNC_JOB}:${storeId}`, maxAttempts: 5 },
      })),
    );
  },
};

/** The simulated platform forgets push idempotency keys after 30 days (as real platforms do, sooner). */
export const simRetentionTask: PeriodicTask = {
  name: "platform.sim-retention",
  intervalMs: 60 * 60 * 1000,
  async run(ctx) {
    const cutoff = new Date(ctx.clock.now().getTime() - 30 * 24 * 60 * 60 * 1000);
    await ctx.db.deleteFrom("sim_push_keys").where("created_at", "<", cutoff).execute();
  },
};
