import { sql } from "kysely";
import type { Db } from "./database.ts";

/** Runs `work` in the given transaction, or in a new one when `db` is not a transaction. */
export async function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db);
  return db.transaction().execute(work);
}

/**
 * The surrounding transaction's COMMIT will not wait for its log to reach the disk (`synchronous_commit`
 * off for this transaction only; PostgreSQL, harmless on the embedded database). Only for writes that
 * may be lost on a crash of the database server because they are redone: the log is written in
 * order, so such a crash loses only the last of them, and any later commit that waits for the disk
 * flushes them with it. Used by the job queue's bookkeeping and a push's acknowledgement (a lost one
 * is a job that runs again, as when its worker dies; a push is keyed and never moves stock twice).
 */
export const WITHOUT_WAITING_FOR_DISK = sql<boolean>`set_config('synchronous_commit', 'off', true) = 'off'`;

export async function commitWithoutWaitingForDisk(trx: Db): Promise<void> {
  await sql`select ${WITHOUT_WAITING_FOR_DISK}`.execute(trx);
}
