import { type Insertable, sql, type Updateable } from "kysely";
import type { Db } from "../../db/database.ts";
import type { ApiKeysTable, StoresTable } from "../../db/tables/foundation.ts";
import { authRowsWritten } from "./auth-rows.ts";
import type { KeyRow, StoreRow } from "./presenter.ts";

/**
 * SQL for stores and their API keys. No rules here. Each write of what authentication reads is counted
 * once it has run (auth-rows.ts), so the embedded database's authentication cache forgets it.
 */

export async function findStore(db: Db, id: number): Promise<StoreRow | undefined> {
  return db.selectFrom("stores").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function anyStoreExists(db: Db): Promise<boolean> {
  return (await db.selectFrom("stores").select("id").limit(1).executeTakeFirst()) !== undefined;
}

export async function allStores(db: Db): Promise<StoreRow[]> {
  return db.selectFrom("stores").selectAll().orderBy("id").execute();
}

export async function isDomainTaken(db: Db, domain: string): Promise<boolean> {
  const row = await db.selectFrom("stores").select("id").where("domain", "=", domain).executeTakeFirst();
  return row !== undefined;
}

/** Runs a write of an authentication row and counts it, whether it succeeded or failed. */
async function counted<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } finally {
    authRowsWritten();
  }
}

export async function insertStore(db: Db, values: Insertable<StoresTable>): Promise<StoreRow> {
  return counted(db.insertInto("stores").values(values).returningAll().executeTakeFirstOrThrow());
}

export async function updateStoreRow(db: Db, id: number, set: Updateable<StoresTable>): Promise<StoreRow> {
  return counted(
    db.updateTable("stores").set(set).where("id", "=", id).returningAll().executeTakeFirstOrThrow(),
  );
}

export async function insertKey(db: Db, values: Insertable<ApiKeysTable>): Promise<KeyRow> {
  return counted(db.insertInto("api_keys").values(values).returningAll().executeTakeFirstOrThrow());
}

export async function keysOfStore(db: Db, storeId: number): Promise<KeyRow[]> {
  return db.selectFrom("api_keys").selectAll().where("store_id", "=", storeId).orderBy("id").execute();
}

/** Revokes a key of the store; a key revoked before keeps its first `revoked_at`. */
export async function revokeKeyRow(
  db: Db,
  storeId: number,
  keyId: number,
  now: Date,
): Promise<KeyRow | undefined> {
  return counted(
    db
      .updateTable("api_keys")
      .set((eb) => ({ revoked_at: eb.fn.coalesce("revoked_at", eb.val(now)) }))
      .where("id", "=", keyId)
      .where("store_id", "=", storeId)
      .returningAll()
      .executeTakeFirst(),
  );
}

/**
 * Records when keys were last used (the request log's buffered flush), every key of the flush in one
 * statement: a flush after a busy moment names dozens of keys, and a statement each held the flush
 * (and the log rows behind it) for as many round trips. A key's `last_used_at` only moves forward, so
 * flushes that land out of order never set it back. The ids go sorted, so concurrent flushes of
 * several processes meet the rows in one order. Not counted (auth-rows.ts): authentication does not
 * read it.
 */
export async function recordKeysUsed(db: Db, lastUsed: ReadonlyMap<number, Date>): Promise<void> {
  if (lastUsed.size === 0) return;
  const keys = [...lastUsed].sort(([a], [b]) => a - b);
  // Two array parameters whatever the number of keys, as the log rows' insert.
  await sql`update api_keys as k set last_used_at = u.at
    from unnest(${keys.map(([id]) => id)}::int[], ${keys.map(([, at]) => at.toISOString())}::timestamptz[])
      as u(id, at)
    where k.id = u.id and (k.last_used_at is null or k.last_used_at < u.at)`.execute(db);
}
