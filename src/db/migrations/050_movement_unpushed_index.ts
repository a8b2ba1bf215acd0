import type { Statements } from "./index.ts";

/**
 * `stock_movements_unpushed` (store, id where not acknowledged, migration 002) goes: every movement
 * recorded added an entry to it (200 an apply, 50 a receipt), and no statement reads it. The push
 * names its movements by id (the primary key); the statements that ask "not acknowledged" of named
 * movements say it so that the partial indexes are not candidates (stock/pushes.ts,
 * notAcknowledged); those by level walk `stock_movements_unpushed_level`, those by record
 * `stock_movements_subject`. Dropping an index is a catalog change (a brief exclusive lock of the
 * table, as 039's drop), not a build.
 */
export const movementUnpushedIndexMigration: Statements = ["drop index if exists stock_movements_unpushed"];
