import type { Db } from "./database.ts";

/** Runs `work` in the given transaction, or in a new one when `db` is not a transaction. */
export async function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db);
  return db.transaction().execute(work);
}
