import { sql } from "kysely";
import type { AppContext } from "../context.ts";
import type { Db } from "../db/database.ts";
import { maintainAfterBulkSync } from "../db/maintenance.ts";
import { inTransaction } from "../db/transaction.ts";
import { applyCatalogChanges } from "../domain/catalog/index.ts";
import { dropLevelsAt, refreshLevels } from "../domain/stock/index.ts";
import { connectorForStore } from "./registry.ts";

/**
 * The mirror sync: pulls the platform's changes after the store's watermark and hands each batch to
 * its owners (products, variants, locations and item costs to the catalog, inventory levels to the
 * stock module). Each batch and its new watermark commit together, so a sync that dies resumes where
 * the last batch ended, and a batch applied twice changes nothing.
 */

export const SYNC_BATCH = 5000;

export interface SyncResult {
  batches: number;
  changes: number;
}

/**
 * Pulls every change after the store's watermark, batch by batch. With `trx` (store creation) the
 * whole import runs inside that transaction; otherwise each batch commits on its own. A batch is
 * applied only if the store's state is still the one it was read from: its watermark and the
 * generation every commit of the state adds one to. A second worker syncing the same store at the
 * same time loses the race and re-reads instead of applying twice, or applying a read older than the
 * one committed meanwhile: two reads that find nothing past the watermark (a change in its own
 * second) leave it as it was, so the watermark alone would let the older read commit last.
 */
export async function syncCatalog(
  ctx: AppContext,
  storeId: number,
  options: { trx?: Db; batchSize?: number } = {},
): Promise<SyncResult> {
  const db = options.trx ?? ctx.db;
  const connector = await connectorForStore(ctx, db, storeId);
  const result: SyncResult = { batches: 0, changes: 0 };
  for (let round = 0; round < 100_000; round++) {
    const state = await db
      .selectFrom("mirror_sync_states")
      .select(["watermark", "generation"])
      .where("store_id", "=", storeId)
      .executeTakeFirst();
    const watermark = state?.watermark ?? null;
    const generation = state?.generation ?? 0;
    const changes = await connector.listChanges(watermark, options.batchSize ?? SYNC_BATCH);
    const applied = await inTransaction(db, async (trx) => {
      const now = ctx.clock.now();
      await trx
        .insertInto("mirror_sync_states")
        .values({ store_id: storeId, watermark: null, updated_at: now })
        .onConflict((oc) => oc.column("store_id").doNothing())
        .execute();
      const locked = await trx
        .selectFrom("mirror_sync_states")
        .select(["watermark", "generation"])
        .where("store_id", "=", storeId)
        .forUpdate()
        .executeTakeFirstOrThrow();
      if (locked.watermark !== watermark || locked.generation !== generation) return false;
      const { locationsGone } = await applyCatalogChanges(ctx, trx, storeId, changes);
      if (changes.levels.length > 0) await refreshLevels(ctx, trx, storeId, [], changes.levels);
      // A location deleted on the platform took its levels with it.
      await dropLevelsAt(trx, storeId, locationsGone, now);
      await trx
        .updateTable("mirror_sync_states")
        .set({
          watermark: changes.watermark,
          generation: sql<number>`generation + 1`,
          synced_at: now,
          last_error: null,
          updated_at: now,
        })
        .where("store_id", "=", storeId)
        .execute();
      return true;
    });
    if (applied) {
      result.batches++;
      result.changes +=
        changes.products.length + changes.variants.length + changes.locations.length + changes.levels.length;
      if (!changes.hasMore) break;
    }
  }
  // Statistics for what a bulk import wrote before the store is reported imported (PGlite only);
  // inside store creation's transaction VACUUM cannot run, the periodic task takes it then.
  if (!options.trx) await maintainAfterBulkSync(db, result.changes);
  return result;
}

/**
 * Moves the store's watermark past changes the caller's transaction has already adopted (a push's
 * acknowledgement adopts the levels and costs the platform reported for its adjustment), when the
 * mirror stands right before them: the sync then has nothing of them to read back. A mirror anywhere
 * else (behind, or already past) is left to the sync, and so is one whose row another transaction
 * holds: a sync batch locks it before the levels, an acknowledgement holds levels already, so waiting
 * for it here could deadlock on PostgreSQL. Answers whether it moved.
 */
export async function advanceMirrorPast(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  feed: { before: string; after: string },
): Promise<boolean> {
  const now = ctx.clock.now();
  const { numAffectedRows } = await sql`
    update mirror_sync_states
    set watermark = ${feed.after}, generation = generation + 1, synced_at = ${now}, updated_at = ${now}
    where store_id = ${storeId} and watermark = ${feed.before}
      and store_id in (select store_id from mirror_sync_states
        where store_id = ${storeId} and watermark = ${feed.before} for update skip locked)`.execute(trx);
  return Number(numAffectedRows ?? 0) > 0;
}

/** Records why the last sync attempt failed (shown by the admin sync status). */
export async function recordSyncError(ctx: AppContext, storeId: number, error: string): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db
    .insertInto("mirror_sync_states")
    .values({ store_id: storeId, watermark: null, last_error: error.slice(0, 2000), updated_at: now })
    .onConflict((oc) =>
      oc.column("store_id").doUpdateSet({ last_error: error.slice(0, 2000), updated_at: now }),
    )
    .execute();
}

/** Where the store's mirror sync stands (the admin sync status). */
export async function mirrorSyncStatus(
  db: Db,
  storeId: number,
): Promise<{ watermark: string | null; synced_at: string | null; last_error: string | null }> {
  const mirror = await db
    .selectFrom("mirror_sync_states")
    .select(["watermark", "synced_at", "last_error"])
    .where("store_id", "=", storeId)
    .executeTakeFirst();
  return {
    watermark: mirror?.watermark ?? null,
    synced_at: mirror?.synced_at?.toISOString() ?? null,
    last_error: mirror?.last_error ?? null,
  };
}
