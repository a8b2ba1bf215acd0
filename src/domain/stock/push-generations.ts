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

/**
 * A call's generation, the items its input leaves out and the locations it leaves the take-off
 * changes of (the platform no longer has them).
 */
export interface PushCallState {
  generation: number;
  skippedItems: number[];
  skippedLocations: number[];
}

/** The stored state of a pushed document's calls; a call absent from the map is generation 0, nothing left out. */
export async function pushCallStatesOf(
  db: Db,
  storeId: number,
  documentKey: string,
): Promise<Map<string, PushCallState>> {
  const rows = await db
    .selectFrom("platform_push_generations")
    .select(["call", "generation", "skipped_items", "skipped_locations"])
    .where("store_id", "=", storeId)
    .where("document_key", "=", documentKey)
    .execute();
  return new Map(
    rows.map((row) => [
      row.call,
      {
        generation: row.generation,
        skippedItems: row.skipped_items.map(Number).sort((a, b) => a - b),
        skippedLocations: row.skipped_locations.map(Number).sort((a, b) => a - b),
      },
    ]),
  );
}

/**
 * Moves one call to its next generation and answers it. With `skippedItems` (and `skippedLocations`),
 * the new generation leaves those items out of the call's input, and the take-off changes at those
 * locations (else it keeps what the previous one left out). The new key must be durable before it is
 * sent (a crash after sending it must not lead to sending yet another key that moves stock twice),
 * so this refuses a caller's transaction: the one upsert statement commits on its own.
 */
export async function advancePushGeneration(
  db: Db,
  storeId: number,
  documentKey: string,
  call: string,
  skippedItems?: readonly number[],
  skippedLocations: readonly number[] = [],
): Promise<number> {
  if (db.isTransaction) throw new Error("advancePushGeneration must commit before the call is sent");
  const skipped = skippedItems === undefined ? [] : [...skippedItems];
  const locations = skippedItems === undefined ? [] : [...skippedLocations];
  const row = await db
    .insertInto("platform_push_generations")
    .values({
      store_id: storeId,
      document_key: documentKey,
      call,
      generation: 1,
      skipped_items: sql<number[]>`${skipped}::bigint[]`,
      skipped_locations: sql<number[]>`${locations}::bigint[]`,
    })
    .onConflict((oc) =>
      oc.columns(["store_id", "document_key", "call"]).doUpdateSet({
        generation: sql`platform_push_generations.generation + 1`,
        skipped_items:
          skippedItems === undefined
            ? sql`platform_push_generations.skipped_items`
            : sql`excluded.skipped_items`,
        skipped_locations:
          skippedItems === undefined
            ? sql`platform_push_generations.skipped_locations`
            : sql`excluded.skipped_locations`,
        updated_at: sql`date_trunc('milliseconds', now())`,
      }),
    )
    .returning("generation")
    .executeTakeFirstOrThrow();
  return row.generation;
}
