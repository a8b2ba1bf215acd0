import type { Db } from "../../db/database.ts";
import type { SyncSubjectType } from "./ledger.ts";

/** Where a stock-moving record stands with the platform (its `platform_sync` field). */
export interface SyncState {
  state: "pending" | "synced" | "failed";
  attempted_at: string | null;
  error: string | null;
}

/** platform_sync of a record that never moved stock: nothing waits to reach the platform. */
export const NEVER_MOVED: SyncState = { state: "synced", attempted_at: null, error: null };

/** platform_sync that recordStockMovements leaves on a record: queued, not yet attempted. */
export const JUST_RECORDED: SyncState = { state: "pending", attempted_at: null, error: null };

/** platform_sync for many records of one type in one query (lists must not query per row). */
export async function platformSyncOf(
  db: Db,
  storeId: number,
  subjectType: SyncSubjectType,
  subjectIds: readonly number[],
): Promise<Map<number, SyncState>> {
  const result = new Map<number, SyncState>();
  if (subjectIds.length === 0) return result;
  const rows = await db
    .selectFrom("platform_sync_states")
    .select(["subject_id", "state", "attempted_at", "error"])
    .where("store_id", "=", storeId)
    .where("subject_type", "=", subjectType)
    .where("subject_id", "in", [...subjectIds])
    .execute();
  for (const row of rows) {
    result.set(row.subject_id, {
      state: row.state,
      attempted_at: row.attempted_at?.toISOString() ?? null,
      error: row.error,
    });
  }
  for (const id of subjectIds) if (!result.has(id)) result.set(id, NEVER_MOVED);
  return result;
}

/** How many records of the store stand in each platform_sync state. */
export async function syncStateCounts(
  db: Db,
  storeId: number,
): Promise<{ pending: number; synced: number; failed: number }> {
  const counts = { pending: 0, synced: 0, failed: 0 };
  const rows = await db
    .selectFrom("platform_sync_states")
    .select((eb) => ["state", eb.fn.countAll<number>().as("n")])
    .where("store_id", "=", storeId)
    .groupBy("state")
    .execute();
  for (const r of rows) counts[r.state] = Number(r.n);
  return counts;
}

/** A record whose failed push is retried is pending again. */
export async function markSyncPending(
  trx: Db,
  storeId: number,
  subject: { type: string; id: number },
  now: Date,
): Promise<void> {
  await trx
    .updateTable("platform_sync_states")
    .set({ state: "pending", updated_at: now })
    .where("store_id", "=", storeId)
    .where("subject_type", "=", subject.type)
    .where("subject_id", "=", subject.id)
    .execute();
}

/** Records where a push left the record (every attempt sets attempted_at and error). */
export async function writeSyncState(
  db: Db,
  subject: { storeId: number; subjectType: SyncSubjectType; subjectId: number },
  state: "pending" | "synced" | "failed",
  error: string | null,
  now: Date,
): Promise<void> {
  await db
    .insertInto("platform_sync_states")
    .values({
      store_id: subject.storeId,
      subject_type: subject.subjectType,
      subject_id: subject.subjectId,
      state,
      attempted_at: now,
      error,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc
        .columns(["store_id", "subject_type", "subject_id"])
        .doUpdateSet({ state, attempted_at: now, error, updated_at: now }),
    )
    .execute();
}
