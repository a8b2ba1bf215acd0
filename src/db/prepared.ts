import { type Compilable, CompiledQuery, type InferResult } from "kysely";
import type pg from "pg";
import type { Db } from "./database.ts";
import { queryTogether } from "./pipelined.ts";

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
    async run(db, ...params) {
      const text = textOf(db);
      const result = await (priorityLanes.get(db) ?? db).executeQuery<InferResult<Q>[number]>(
        CompiledQuery.raw(text, params),
      );
      return result.rows;
    },
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
    async run(db, ...params) {
      const target = options.priority ? (priorityLanes.get(db) ?? db) : db;
      const result = await target.executeQuery<Row>(CompiledQuery.raw(text, params));
      return result.rows;
    },
    statement: () => ({ name, text }),
  };
}

/**
 * A single-record read that can go to the server together with the key lookup (issue 22 item 2): the
 * record's hot query, whose parameters are the store's id ($1) and the record's id ($2), turned into
 * one that takes the API key's hash instead of the store's id and finds the store through the key
 * (`api_keys.key_hash` is unique). Authentication sends the key lookup and this statement in one
 * write on one pool checkout (`runWithKeyLookup`), and PostgreSQL answers both in one write: one round
 * trip per request where there were two. Its rows are used only once the key lookup has let the
 * request in (auth.ts); a key refused for any reason leaves them unread.
 */
export interface ReadAhead<Row> {
  readonly query: HotQuery<[keyHash: string, id: string], Row>;
  /** The record's largest id (its column's range): a bigger one in the path is not read ahead. */
  readonly maxId: number;
}

export function readAheadOf<Row>(
  record: HotQuery<[storeId: number, id: number], Row>,
  maxId: number,
): ReadAhead<Row> {
  let text: string | null = null;
  let name = "";
  const textOf = (db: Db): string => {
    if (text === null) {
      const inner = record.statement(db);
      name = `${inner.name}_by_key`;
      // $1 is the store's id in the record's statement: there it becomes the key's store.
      const body = inner.text.replace(/\$1(?!\d)/g, "ahead_key.store_id");
      // (A newline before the parenthesis: the body may end in a `--` comment.)
      text = `select ahead_record.* from api_keys ahead_key cross join lateral (${body}\n) ahead_record where ahead_key.key_hash = $1`;
      namesBySql.set(text, name);
    }
    return text;
  };
  return {
    maxId,
    query: {
      async run(db, ...params) {
        const result = await db.executeQuery<Row>(CompiledQuery.raw(textOf(db), params));
        return result.rows;
      },
      statement: (db) => {
        const sqlText = textOf(db);
        return { name, text: sqlText };
      },
    },
  };
}

/** The PostgreSQL pool behind a database handle (database.ts), for statements sent together. */
const pools = new WeakMap<Db, pg.Pool>();

export function registerPool(db: Db, pool: pg.Pool): void {
  pools.set(db, pool);
}

/** Whether `db` can send a statement together with another (PostgreSQL; the embedded database runs in process). */
export function sendsTogether(db: Db): boolean {
  return pools.has(db);
}

/**
 * Two hot queries on one pool checkout, written to the server together and answered together (one
 * Sync: one implicit transaction, one round trip). Null when `db` cannot (see sendsTogether).
 */
export async function runTogether<P1 extends unknown[], R1, P2 extends unknown[], R2>(
  db: Db,
  first: HotQuery<P1, R1>,
  firstParams: P1,
  second: HotQuery<P2, R2>,
  secondParams: P2,
): Promise<[R1[], R2[]] | null> {
  const pool = pools.get(db);
  if (!pool) return null;
  const [a, b] = await queryTogether(pool, [
    { ...first.statement(db), values: firstParams },
    { ...second.statement(db), values: secondParams },
  ]);
  return [a as R1[], b as R2[]];
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
