import type { AppContext } from "../context.ts";
import type { Db } from "../db/database.ts";

/** The job that pulls a store's platform changes into the mirror (platform/catalog-sync.ts). */
export const SYNC_JOB = "catalog.sync";
export const SYNC_MAX_ATTEMPTS = 5;

/** Asks for a mirror sync of the store (deduplicated: at most one waits per store). */
export async function requestCatalogSync(ctx: AppContext, trx: Db, storeId: number): Promise<void> {
  await ctx.jobs.enqueue(trx, SYNC_JOB, { store_id: storeId }, syncJobOptions(storeId));
}

/** How a sync job of the store is queued (one waiting per store). */
export function syncJobOptions(storeId: number) {
  return { storeId, dedupeKey: `${SYNC_JOB}:${storeId}`, maxAttempts: SYNC_MAX_ATTEMPTS };
}
