import fs from "node:fs";
import path from "node:path";
import { Kysely } from "kysely";
import type pg from "pg";
import { CurrentSchemaPostgresDialect } from "./introspector.ts";
import { pgDriver } from "./pg-driver.ts";
import { queryWithOwnPromise } from "./pg-own-promise.ts";
import { ConnectionTurns, PGliteDialect, registerTurns } from "./pglite-dialect.ts";
import { lockDataDirectory } from "./pglite-lock.ts";
import { PGliteThread } from "./pglite-thread.ts";
import { markOneConnection, preparedNameOf, registerPool, runHotQueriesOn } from "./prepared.ts";
import type { Database } from "./schema.ts";

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  /**
   * The same database for the worker. On PGlite its turns on the single connection alternate with
   * the API's (pglite-dialect.ts); on PostgreSQL it has a pool of its own (WORKER_POOL_SIZE), so the
   * worker's statements never wait behind the API's queue for a connection.
   */
  backgroundDb: Db;
  kind: "pglite" | "postgres";
  close(): Promise<void>;
}

/**
 * Kysely calls `client.query(sql, parameters)`; a text registered in prepared.ts goes out as a named
 * statement instead (pg parses it on the connection's first use and binds it after). Either way the
 * promise is ours, over pg's callback (pg-own-promise.ts: what pg's own promise resolves with lives
 * through the young generation's collections).
 */
function sendHotQueriesPrepared(client: pg.PoolClient): void {
  const query = queryWithOwnPromise(client.query.bind(client) as (...args: unknown[]) => unknown);
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const [text, values] = args;
    const name = typeof text === "string" && args.length === 2 ? preparedNameOf(text) : undefined;
    return name ? query({ name, text, values }) : query(...args);
  };
}

export interface OpenOptions {
  databaseUrl: string | null;
  dataDir: string;
  /** PostgreSQL only: a schema to work in (tests give each file its own). Created when missing. */
  schema?: string;
  poolSize?: number;
  /** Embedded and in memory only: a data directory's tar to start from instead of initdb (tests). */
  embeddedTemplate?: Uint8Array<ArrayBuffer>;
  /** Embedded only: the worker's share of the connection while the API waits too (0.5: even). */
  backgroundShare?: number;
}

/**
 * Connections of the worker's own pool on PostgreSQL, beside the API's 10. When both shared one pool,
 * 32 concurrent receipts kept every connection busy and each of a platform push's statements queued
 * behind the waiting requests for one: in three benchmark runs not one push finished during the
 * receipts (as many were pending after them as receipts had been made); in the one run with a pool
 * of its own some did. The embedded database alternates the two sides' turns for the same reason
 * (pglite-dialect.ts). Four is half the worker's default slots: its jobs spend much of their time
 * off the database (a platform call, a delivery), and each connection is a server process.
 */
export const WORKER_POOL_SIZE = 4;
/** The worker pool's connections' application_name. */
export const BACKGROUND_APPLICATION_NAME = "stockroom-worker";

/**
 * `applicationName` tells the pools' server processes apart (pg_stat_activity): the API's from the
 * worker's, whose CPU the benchmark counts apart (bench/lib/cpu-meter.ts).
 */
function postgresPool(options: OpenOptions, max: number, applicationName: string): pg.Pool {
  const { Pool } = pgDriver();
  const pool = new Pool({
    connectionString: options.databaseUrl ?? undefined,
    application_name: applicationName,
    max,
    options: options.schema ? `-c search_path=${options.schema}` : undefined,
    connectionTimeoutMillis: 5_000,
    // A statement stuck behind a lock or a dead server must not hang a request forever.
    statement_timeout: 30_000,
  });
  // A client losing its server (a restart) must not crash the process. The pool listens only while a
  // client is idle; a checked-out client (between the statements of a transaction) would emit an
  // unhandled 'error'. Every client gets a listener for life: its pending query fails, the pool
  // drops it on release, and the request answers 503.
  pool.on("error", () => {});
  pool.on("connect", (client) => {
    client.on("error", () => {});
    sendHotQueriesPrepared(client);
  });
  return pool;
}

export async function openDatabase(options: OpenOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    const schema = options.schema;
    if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema))
      throw new Error(`bad schema name ${schema}`);
    if (schema) {
      const { Client } = pgDriver();
      const admin = new Client({ connectionString: options.databaseUrl });
      await admin.connect();
      try {
        await admin.query(`create schema if not exists ${schema}`);
      } finally {
        await admin.end();
      }
    }
    const pool = postgresPool(options, options.poolSize ?? 10, "stockroom");
    const db = new Kysely<Database>({ dialect: new CurrentSchemaPostgresDialect({ pool }) });
    // The key lookup and a single-record read go to the server together (prepared.ts).
    registerPool(db, pool);
    const workerPool = postgresPool(options, WORKER_POOL_SIZE, BACKGROUND_APPLICATION_NAME);
    const backgroundDb = new Kysely<Database>({
      dialect: new CurrentSchemaPostgresDialect({ pool: workerPool }),
    });
    registerPool(backgroundDb, workerPool);
    return {
      db,
      backgroundDb,
      kind: "postgres",
      close: async () => {
        await backgroundDb.destroy();
        await db.destroy();
      },
    };
  }
  let dataDir: string | undefined;
  let lock: { release(): void } | undefined;
  if (options.dataDir !== ":memory:") {
    dataDir = path.join(options.dataDir, "pglite");
    fs.mkdirSync(dataDir, { recursive: true });
    // One process at a time on the files (a second one corrupts them): pglite-lock.ts.
    lock = lockDataDirectory(options.dataDir);
  }
  // On a thread of its own (pglite-thread.ts): its queries never hold the API's event loop. The
  // thread is started only when used, so a PostgreSQL deployment never loads the embedded engine.
  const loadDataDir = dataDir === undefined ? options.embeddedTemplate : undefined;
  const pglite = new PGliteThread({ dataDir, loadDataDir });
  try {
    await pglite.waitReady;
  } catch (error) {
    lock?.release();
    throw error;
  }
  const turns = new ConnectionTurns(undefined, undefined, options.backgroundShare);
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite, turns, "foreground") });
  const backgroundDb = new Kysely<Database>({ dialect: new PGliteDialect(pglite, turns, "background") });
  // Authentication's lookup, before every request, goes ahead of queued statements (pglite-dialect.ts).
  const priorityDb = new Kysely<Database>({ dialect: new PGliteDialect(pglite, turns, "priority", true) });
  // The other hot queries wait their turn, but as single statements, several in flight together.
  const singleDb = new Kysely<Database>({ dialect: new PGliteDialect(pglite, turns, "foreground", true) });
  runHotQueriesOn(db, { priority: priorityDb, single: singleDb });
  registerTurns(db, turns);
  registerTurns(backgroundDb, turns);
  markOneConnection(db);
  markOneConnection(backgroundDb);
  return {
    db,
    backgroundDb,
    kind: "pglite",
    close: async () => {
      await backgroundDb.destroy();
      await priorityDb.destroy();
      await singleDb.destroy();
      await db.destroy();
      await pglite.close();
      lock?.release();
    },
  };
}
