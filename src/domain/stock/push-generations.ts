import { sql } from "kysely";
import type { Db } from "../../db/database.ts";

/**
 * The attempt generations of a pushed document's calls (docs/decisions.md, "Shopify connector", Keys).
 * Only calls whose key was burned have a row; a call absent from the map is at generation 0.
 */
export async function pushGenerationsOf(
  db: Db,
  storeId: number,
  documentKey: string,
): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom("platform_push_generations")
    .select(["call", "generation"])
    .where("store_id", "=", storeId)
    .where("document_key", "=", documentKey)
    .execute();
  return new Map(rows.map((row) => [row.call, row.generation]));
}

/** A call's generation and the items its input leaves out (the platform no longer has them). */
export interface PushCallState {
  generation: number;
  skippedItems: number[];
}

/** The stored state of a pushed document's calls; a call absent from the map is generation 0, nothing left out. */
export async function pushCallStatesOf(
  db: Db,
  storeId: number,
  documentKey: string,
): Promise<Map<string, PushCallState>> {
  const rows = await db
    .selectFrom("platform_push_generations")
    .select(["call", "generation", "skipped_items"])
    .where("store_id", "=", storeId)
    .where("document_key", "=", documentKey)
    .execute();
  return new Map(
    rows.map((row) => [
      row.call,
      { generation: row.generation, skippedItems: row.skipped_items.map(Number).sort((a, b) => a - b) },
    ]),
  );
}

/**
 * Moves one call to its next generation and answers it. With `skippedItems`, the new generation
 * leaves those items out of the call's input (else it keeps what the previous one left out). The new key must be durable before it is
 * sent (a crash after sending it must not lead to sending yet another key that moves stock twice),
 * so this refuses a caller's transaction: the one upsert statement commits on its own.
 */
export async function advancePushGeneration(
  db: Db,
  storeId: number,
  documentKey: string,
  call: string,
  skippedItems?: readonly number[],
): Promise<number> {
  if (db.isTransaction) throw new Error("advancePushGeneration must commit before the call is sent");
  const skipped = skippedItems === undefined ? [] : [...skippedItems];
  const row = await db
    .insertInto("platform_push_generations")
    .values({
      store_id: storeId,
      document_key: documentKey,
      call,
      generation: 1,
      skipped_items: sql<number[]>`${skipped}::bigint[]`,
    })
    .onConflict((oc) =>
      oc.columns(["store_id", "document_key", "call"]).doUpdateSet({
        generation: sql`platform_push_generations.generation + 1`,
        skipped_items:
          skippedItems === undefined
            ? sql`platform_push_generations.skipped_items`
            : sql`excluded.skipped_items`,
        updated_at: sql`date_trunc('milliseconds', now())`,
      }),
    )
    .returning("generation")
    .executeTakeFirstOrThrow();
  return row.generation;
}
