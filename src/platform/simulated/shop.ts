import { sql } from "kysely";
import type { Db } from "../../db/database.ts";
import { PlatformPermanentError } from "../connector.ts";

/**
 * The simulated commerce platform: the "platform side" tables (`sim_*`) and what a platform does with
 * them. Every write locks the shop's `sim_stores` row and takes consecutive `change_seq` values from
 * it, so change numbers are handed out in commit order: a reader that saw change N saw every change
 * before N, and the watermark of the change feed never skips one.
 */

export type FaultMode = "ok" | "down" | "reject";

const INSERT_CHUNK = 1000;

export function chunks<T>(items: readonly T[], size = INSERT_CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export async function ensureSimStore(trx: Db, storeId: number): Promise<void> {
  await trx
    .insertInto("sim_stores")
    .values({ store_id: storeId })
    .onConflict((oc) => oc.column("store_id").doNothing())
    .execute();
}

/** Locks the shop and reserves `count` consecutive change numbers; returns the first. */
export async function allocateChanges(trx: Db, storeId: number, count: number): Promise<number> {
  const row = await trx
    .updateTable("sim_stores")
    .set((eb) => ({ change_seq: eb("change_seq", "+", count) }))
    .where("store_id", "=", storeId)
    .returning("change_seq")
    .executeTakeFirst();
  if (!row) throw new PlatformPermanentError(`the simulated platform has no shop for store ${storeId}`);
  return Number(row.change_seq) - count + 1;
}

export async function newIds(trx: Db, count: number): Promise<number[]> {
  if (count === 0) return [];
  const result = await sql<{ id: number }>`
    select nextval('sim_object_ids')::int8 as id from generate_series(1, ${count}::int)`.execute(trx);
  return result.rows.map((r) => Number(r.id));
}
