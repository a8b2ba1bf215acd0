import { type Kysely, sql } from "kysely";

/**
 * An index that a live store's writes must not wait for: built with `create index concurrently`,
 * outside any transaction, where a plain `create index` would hold a SHARE lock on the table (every
 * insert, update and delete of it waiting) for the whole build. Migration 046 built the in-flight
 * indexes the plain way, on `stock_movements`, the largest table (docs/decisions.md, "Migrations").
 */
export interface IndexBuild {
  name: string;
  unique?: boolean;
  /** What follows `on`: the table, its columns and any predicate (`stock_movements (store_id) where …`). */
  on: string;
}

/**
 * A migration made only of index builds and drops, each outside a transaction (runner.ts records it
 * after them). A drop is `drop index concurrently`: a plain `drop index` takes an ACCESS EXCLUSIVE lock
 * of its table, and while it waits for the transactions already reading the table (a long report, a
 * page walk), every new read and write of the table queues behind it.
 */
export interface IndexBuilds {
  readonly indexBuilds: readonly IndexBuild[];
  /** Names of indexes to drop (after the builds); one already gone is no error. */
  readonly indexDrops?: readonly string[];
}

/** The plain forms, for a fresh schema built in one transaction (no table has rows to wait for). */
export function plainIndexStatements(steps: IndexBuilds): string[] {
  return [
    ...steps.indexBuilds.map(
      (build) => `create ${build.unique ? "unique " : ""}index ${build.name} on ${build.on}`,
    ),
    ...(steps.indexDrops ?? []).map((name) => `drop index if exists ${name}`),
  ];
}

/** Drops the index, waiting for the transactions using its table without holding up new ones. */
export async function dropIndex(connection: Kysely<unknown>, name: string): Promise<void> {
  await sql.raw(`drop index concurrently if exists ${name}`).execute(connection);
}

/**
 * Builds the index unless a valid one of that name is there. A concurrent build that failed (a
 * duplicate for a unique index, a cancelled statement, a process killed during it) leaves its index
 * behind marked INVALID: never used by a read, yet kept up by every write. Such a one is dropped
 * (concurrently too) and built again. A valid one means an earlier run built it and stopped before
 * the migration was recorded: nothing to do. Both databases take the concurrent form: PGlite 0.5
 * runs it (one connection, so nothing to wait for), and the same path is tested on both.
 */
export async function buildIndex(connection: Kysely<unknown>, build: IndexBuild): Promise<void> {
  const found = await sql<{ valid: boolean }>`
    select i.indisvalid as valid from pg_index i
    join pg_class c on c.oid = i.indexrelid
    where c.relname = ${build.name} and c.relnamespace = current_schema()::regnamespace`.execute(connection);
  const existing = found.rows[0];
  if (existing?.valid) return;
  if (existing) await sql.raw(`drop index concurrently ${build.name}`).execute(connection);
  await sql
    .raw(`create ${build.unique ? "unique " : ""}index concurrently ${build.name} on ${build.on}`)
    .execute(connection);
}
