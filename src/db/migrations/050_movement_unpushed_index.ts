import type { IndexBuilds } from "./index-builds.ts";

/**
 * `stock_movements_unpushed` (store, id where not acknowledged, migration 002) goes: every movement
 * recorded added an entry to it (200 an apply, 50 a receipt), and no statement reads it. The push
 * names its movements by id (the primary key); the statements that ask "not acknowledged" of named
 * movements say it so that the partial indexes are not candidates (stock/pushes.ts,
 * notAcknowledged); those by level walk `stock_movements_unpushed_level`, those by record
 * `stock_movements_subject`. Dropped concurrently (index-builds.ts): the ledger is the table every
 * write touches, and a plain drop's exclusive lock, queued behind a long reader, would hold them all.
 */
export const movementUnpushedIndexMigration: IndexBuilds = {
  indexBuilds: [],
  indexDrops: ["stock_movements_unpushed"],
};
