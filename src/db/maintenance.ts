import { sql } from "kysely";
import type { PeriodicTask } from "../jobs/worker.ts";
import type { Db } from "./database.ts";

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

export const embeddedMaintenanceTask: PeriodicTask = {
  name: "embedded-maintenance",
  intervalMs: EMBEDDED_MAINTENANCE_INTERVAL_MS,
  async run(ctx) {
    await maintainEmbeddedTables(ctx.db);
  },
};
