import { type Compilable, CompiledQuery, type InferResult } from "kysely";
import type { Db } from "./database.ts";

/**
 * Queries that run on (nearly) every request, built and compiled once instead of per call, and run on
 * PostgreSQL as named prepared statements: the server parses and plans them once per connection, not
 * once per request. The SQL text is the statement's identity; `database.ts` has every pool client send
 * a registered text under its name.
 */
const namesBySql = new Map<string, string>();

/** The statement name for an SQL text, if it was registered as a hot query. */
export function preparedNameOf(sql: string): string | undefined {
  return namesBySql.get(sql);
}

/**
 * The embedded database's priority lane for a database handle (pglite-dialect.ts): hot queries run
 * there, ahead of the statements queued on its one connection. Absent on PostgreSQL (its pool serves
 * them as soon as a connection is free) and for transactions, which keep their own connection.
 */
const priorityLanes = new WeakMap<Db, Db>();

/** Hot queries run through `db` go to `lane` instead (same database, priority turns). */
export function runHotQueriesOn(db: Db, lane: Db): void {
  priorityLanes.set(db, lane);
}

export interface HotQuery<Params extends unknown[], Row> {
  run(db: Db, ...params: Params): Promise<Row[]>;
}

/**
 * Compiles `build(db)` once (on first use) and runs it with new parameter values after. The builder's
 * parameters must be placeholders in the order `params` gives them.
 */
export function hotQuery<Params extends unknown[], Q extends Compilable>(
  name: string,
  build: (db: Db) => Q,
): HotQuery<Params, InferResult<Q>[number]> {
  let sql: string | null = null;
  return {
    async run(db, ...params) {
      if (sql === null) {
        sql = build(db).compile().sql;
        namesBySql.set(sql, name);
      }
      const result = await (priorityLanes.get(db) ?? db).executeQuery<InferResult<Q>[number]>(
        CompiledQuery.raw(sql, params),
      );
      return result.rows;
    },
  };
}

/**
 * A hot query written as SQL text (placeholders `$1`… in the order `params` gives them), for a
 * statement Kysely's builder cannot say compactly. `priority: false` keeps it off the embedded
 * database's priority lane: that lane is for the one-row lookups every request starts with, and a
 * statement that aggregates an order's parts should wait its turn like the reads it replaces.
 */
export function hotSql<Params extends unknown[], Row>(
  name: string,
  text: string,
  options: { priority: boolean } = { priority: true },
): HotQuery<Params, Row> {
  namesBySql.set(text, name);
  return {
    async run(db, ...params) {
      const target = options.priority ? (priorityLanes.get(db) ?? db) : db;
      const result = await target.executeQuery<Row>(CompiledQuery.raw(text, params));
      return result.rows;
    },
  };
}

/**
 * Handles on the embedded database's one connection outside a transaction (database.ts marks them).
 * There a long statement holds every store's queries (PGlite is one session): big reads are sent in
 * chunks so other stores' statements go in between. Absent on PostgreSQL (the pool serves others
 * meanwhile, and one statement reads a consistent snapshot) and for transactions.
 */
const oneConnection = new WeakSet<Db>();

export function markOneConnection(db: Db): void {
  oneConnection.add(db);
}

/** Whether big reads through `db` should go in chunks (see markOneConnection). */
export function readsInChunks(db: Db): boolean {
  return oneConnection.has(db);
}
