import { sql } from "kysely";
import type { PeriodicTask } from "../jobs/worker.ts";
import type { Db } from "./database.ts";
import { apiWaitingOn } from "./pglite-dialect.ts";
import { readsInChunks } from "./prepared.ts";

/**
 * Autovacuum for the embedded database. PostgreSQL's autovacuum daemon keeps planner statistics
 * current and clears dead row versions; PGlite runs a single backend with no daemon, so neither ever
 * happens there. Without statistics the planner takes `store_id = $1` for a handful of rows and scans
 * a store's whole table where an index lookup of a few rows was due (a 200-line level update took
 * 100 ms on a 30,000-level catalog); without vacuum, tables updated in place (inventory levels, jobs)
 * only grow.
 *
 * Every interval this finds the tables never analysed, or grown by a fifth since their last vacuum
 * (new rows, or dead versions left by updates), and runs VACUUM ANALYZE on each: a few milliseconds
 * for a small table, so the single connection is held only briefly.
 */
export const EMBEDDED_MAINTENANCE_INTERVAL_MS = 30_000;

interface TableSize {
  table: string;
  pages_now: number;
  pages_seen: number;
  tuples_seen: number;
}

export async function tablesDueForMaintenance(db: Db): Promise<string[]> {
  const { rows } = await sql<TableSize>`
    select c.relname as table, (pg_relation_size(c.oid) / 8192)::int as pages_now,
      c.relpages as pages_seen, c.reltuples::float8 as tuples_seen
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind = 'r' and n.nspname = current_schema()
    order by c.relname`.execute(db);
  return rows
    .filter((r) => r.pages_now > 0 && (r.tuples_seen < 0 || r.pages_now > r.pages_seen * 1.2 + 8))
    .map((r) => r.table);
}

/** VACUUM ANALYZE of every table due; returns their names. */
export async function maintainEmbeddedTables(db: Db): Promise<string[]> {
  const due = await tablesDueForMaintenance(db);
  for (const table of due) await sql`vacuum analyze ${sql.table(table)}`.execute(db);
  return due;
}

/**
 * Ticks in a row the maintenance lets pass while API requests wait for the connection (5 minutes).
 * A VACUUM ANALYZE is one statement: in a burst of 200-line applies those of the tables the burst grew
 * held the one connection 160-670 ms each, with up to 31 requests queued behind it, 20 ms of the
 * connection per apply (docs/history/performance-journal.md, "PGlite writes per request"). A quiet tick does
 * them; a load that never lets up still gets them after this many.
 */
export const MAINTENANCE_DEFERRED_AT_MOST = 10;

/** Ticks let pass in a row, by database handle. */
const deferredTicks = new WeakMap<object, number>();

/** Whether this tick lets the maintenance pass, counting it if so. */
export function deferMaintenance(db: Db): boolean {
  const deferred = deferredTicks.get(db) ?? 0;
  if (apiWaitingOn(db) > 0 && deferred < MAINTENANCE_DEFERRED_AT_MOST) {
    deferredTicks.set(db, deferred + 1);
    return true;
  }
  deferredTicks.delete(db);
  return false;
}

export const embeddedMaintenanceTask: PeriodicTask = {
  name: "embedded-maintenance",
  intervalMs: EMBEDDED_MAINTENANCE_INTERVAL_MS,
  async run(ctx) {
    if (deferMaintenance(ctx.db)) return;
    await maintainEmbeddedTables(ctx.db);
  },
};

/** Rows a catalog sync must change for its tables to be analysed as it ends (a bulk import). */
export const ANALYSE_AFTER_SYNCED_ROWS = 1000;

/**
 * Right after a bulk import on the embedded database, VACUUM ANALYZE of the tables it grew, instead of
 * at the next tick (up to 30 s later). Until then the planner reads a store's 10,000 new variants
 * with the statistics of an emptier table: after the benchmark's two imports GET /v2/variants/{id}
 * held the connection 0.8 ms at the median (p99 5.5 ms) against 0.4 (1.3) analysed at once, and
 * served 873 req/s at 32 connections against 2,163 (docs/history/performance-journal.md, h22a). PostgreSQL's
 * autovacuum daemon does this there.
 */
export async function maintainAfterBulkSync(db: Db, changedRows: number): Promise<string[]> {
  // The one-connection handles are exactly the embedded database's (database.ts marks them).
  if (!readsInChunks(db) || changedRows < ANALYSE_AFTER_SYNCED_ROWS) return [];
  return maintainEmbeddedTables(db);
}
