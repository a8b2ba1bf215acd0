import { type Compilable, CompiledQuery, type InferResult } from "kysely";
import type pg from "pg";
import type { Db } from "./database.ts";
import { isServerError } from "./pg-driver.ts";

/**
 * Queries that run on (nearly) every request, built and compiled once instead of per call, and run on
 * PostgreSQL as named prepared statements: the server parses and plans them once per connection, not
 * once per request. The SQL text is the statement's identity; `database.ts` has every pool client send
 * a registered text under its name.
 */
const namesBySql = new Map<string, string>();

/** Distinct list page statements named at most (each is kept by every pool connection that ran it). */
const MAX_PAGE_STATEMENTS = 32;
let pageStatements = 0;

/**
 * A JSON list page's statement (db/json-text.ts), named on PostgreSQL like the hot queries, so each
 * connection parses and plans its text once. Its text varies with the filters and the cursor given,
 * a few shapes in practice; past MAX_PAGE_STATEMENTS shapes (a client sending SKU lists of every
 * length) the others run unnamed, parsed and planned each time as before.
 */
export function namePageStatement(sql: string): void {
  if (namesBySql.has(sql) || pageStatements >= MAX_PAGE_STATEMENTS) return;
  pageStatements++;
  namesBySql.set(sql, `stockroom_page_${pageStatements}`);
}

/** The statement name for an SQL text, if it was registered as a hot query. */
export function preparedNameOf(sql: string): string | undefined {
  return namesBySql.get(sql);
}

/**
 * The embedded database's handles for hot queries run through a database handle (pglite-dialect.ts):
 * `priority` goes ahead of the statements queued on its one connection, `single` waits its turn like
 * any other statement; both run single statements only, so several go to the database's thread at
 * once (shared turns). Absent on PostgreSQL (its pool serves them as soon as a connection is free) and
 * for transactions, which keep their own connection.
 */
const hotLanes = new WeakMap<Db, { priority: Db; single: Db }>();

/** Hot queries run through `db` go to `lanes` instead (same database; see hotLanes). */
export function runHotQueriesOn(db: Db, lanes: { priority: Db; single: Db }): void {
  hotLanes.set(db, lanes);
}

export interface HotQuery<Params extends unknown[], Row> {
  run(db: Db, ...params: Params): Promise<Row[]>;
  /** The statement's name and SQL text (compiled on first use). */
  statement(db: Db): { name: string; text: string };
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
  const textOf = (db: Db): string => {
    if (sql === null) {
      sql = build(db).compile().sql;
      namesBySql.set(sql, name);
    }
    return sql;
  };
  return {
    run: (db, ...params) => runNamed(hotLanes.get(db)?.priority ?? db, name, textOf(db), params),
    statement: (db) => ({ name, text: textOf(db) }),
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
    run: (db, ...params) =>
      runNamed(hotLanes.get(db)?.[options.priority ? "priority" : "single"] ?? db, name, text, params),
    statement: () => ({ name, text }),
  };
}

/**
 * A single-record read that goes to the server inside the key lookup's own statement (issue 22 item
 * 2; keyLookupBeside below): the record's hot query, written as one JSON text, whose parameters are
 * the store's id ($1) and the record's id ($2). Its JSON is used only once the key lookup has let the
 * request in (auth.ts); a key refused for any reason leaves it unread.
 */
export interface ReadAhead {
  /** The record's own statement (store $1, id $2). */
  readonly record: HotQuery<[storeId: number, id: number], JsonRecord>;
  /** The record's largest id (its column's range): a bigger one in the path is not read ahead. */
  readonly maxId: number;
  /** Another read ahead to use for this id (the path's, as given), if any. */
  readonly instead?: (id: string) => ReadAhead | undefined;
}

export function readAheadOf(
  record: HotQuery<[storeId: number, id: number], JsonRecord>,
  maxId: number,
  instead?: (id: string) => ReadAhead | undefined,
): ReadAhead {
  return { record, maxId, instead };
}

/** A record read as one JSON text (db/json-text.ts): the only column of its statement's row. */
export interface JsonRecord {
  row_json: string;
}

/**
 * The key lookup with a JSON record beside it, in one statement: `key` is the lookup (its hash $1, the
 * key's store as a `store_id` column), the record's statement (store $1, id $2) becomes a scalar
 * subquery on the key's store. A record
 * written as JSON has one column, so it sits beside the key's columns without a clash of names; one
 * statement costs the server one bind and execution, and the API one row to read, where the two
 * statements sent together in one write (before cf1db58) cost two of each. `ahead_json` is null when
 * the store has no such record.
 */
export function keyLookupBeside<Key>(
  key: HotQuery<[keyHash: string], Key>,
  ahead: ReadAhead,
): HotQuery<[keyHash: string, id: string], Key & { ahead_json: string | null }> {
  let statement: { name: string; text: string } | null = null;
  const statementOf = (db: Db) => {
    if (statement === null) {
      const lookup = key.statement(db);
      const record = ahead.record.statement(db);
      const body = record.text.replace(/\$1(?!\d)/g, "ahead_key.store_id");
      const text = `select ahead_key.*, (select ahead_record.row_json from (${body}\n) ahead_record) as ahead_json from (${lookup.text}\n) ahead_key`;
      statement = { name: `${lookup.name}_${record.name}`, text };
      namesBySql.set(text, statement.name);
    }
    return statement;
  };
  return {
    run: (db, ...params) => {
      const { name, text } = statementOf(db);
      return runNamed(db, name, text, params);
    },
    statement: statementOf,
  };
}

/** The PostgreSQL pool behind a database handle (database.ts), for the hot queries run straight on it. */
const pools = new WeakMap<Db, pg.Pool>();

export function registerPool(db: Db, pool: pg.Pool): void {
  pools.set(db, pool);
}

/**
 * Runs a registered statement. On PostgreSQL straight on the pool, as a named statement: the hot
 * queries run on nearly every request (the key lookup on every one), and Kysely's executor (its
 * connection provider, query id and result transform, a few promises deep) added about 2.8 µs of the
 * API's CPU to each, 24 µs through the pool alone (docs/history/performance-journal.md, "Hot queries straight
 * on the pool"). Inside a transaction, and on the embedded database, through Kysely as any other statement.
 */
async function runNamed<Row>(db: Db, name: string, text: string, values: unknown[]): Promise<Row[]> {
  const pool = pools.get(db);
  if (!pool) return (await db.executeQuery<Row>(CompiledQuery.raw(text, values))).rows;
  const client = await pool.connect();
  let result: pg.QueryResult<Row & pg.QueryResultRow>;
  try {
    result = await client.query<Row & pg.QueryResultRow>({ name, text, values });
  } catch (error) {
    // A statement's own error leaves the connection usable (as Kysely releases it); anything else
    // (a lost server) drops it.
    client.release(isServerError(error) ? undefined : (error as Error));
    throw error;
  }
  client.release();
  return result.rows;
}

/** The PostgreSQL pool behind `db`, if it has one (db/copy-binary.ts runs on it). */
export function poolOf(db: Db): pg.Pool | undefined {
  return pools.get(db);
}

/**
 * Whether `db` runs on a PostgreSQL pool (the hot queries go straight to it). The embedded database
 * keeps looked-up keys in process (auth-cache.ts), so a record read with the key lookup would cost it
 * a statement the cache saves.
 */
export function onPool(db: Db): boolean {
  return pools.has(db);
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
