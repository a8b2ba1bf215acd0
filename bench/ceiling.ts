/**
 * The ceiling: a bare Fastify server answering `GET /v2/whoami` with the same shape as the service,
 * from one primary-key query on the same database, and nothing else (no auth, rate limit, request
 * log, hooks or logging). What the service achieves is reported as a fraction of this, measured in
 * the same run, on the same machine, at the same moment.
 *
 * The write ceiling, `POST /write/receipt/:order`: in one transaction, the rows a 50-line receipt
 * writes (bench/lib/write-ceiling.ts), in tables of their own, answered with the receipt and its order
 * as the service answers; receipts and applies are reported as a fraction of it (`writeRatio`).
 *
 * PostgreSQL (`DATABASE_URL`): a pg Pool of 10 (the service's pool size) on the benchmark database,
 * reading the service's own `stores` table. PGlite (`CEILING_PGLITE_DIR`): a PGlite of its own in that
 * directory (one PGlite can't be opened by two processes), with the service's `stores` table created
 * from the service's migration and one row.
 */
import { PGlite } from "@electric-sql/pglite";
import Fastify from "fastify";
import { Kysely } from "kysely";
import pg from "pg";
import { foundationMigration } from "../src/db/migrations/001_foundation.ts";
import { migrateToLatest } from "../src/db/migrations/index.ts";
import { ConnectionTurns, PGliteDialect } from "../src/db/pglite-dialect.ts";
import { PGliteStatements } from "../src/db/pglite-statements.ts";
import {
  loadCeilingOrders,
  prepareWriteCeiling,
  type Run,
  WRITE_CEILING_ORDERS,
  writeReceiptRows,
} from "./lib/write-ceiling.ts";

type Query = Run;
/** `CEILING_WRITES=1`: also serve the write ceiling (the bench sets it when a write scenario runs). */
const WRITES = process.env.CEILING_WRITES === "1";
/** Runs `fn` in one transaction on one connection. */
type Transact = <T>(fn: (run: Run) => Promise<T>) => Promise<T>;

const SQL = "select id, name, domain, currency, timezone from stores where id = $1";

interface Opened {
  query: Query;
  transact: Transact;
  storeId: number;
  close(): Promise<void>;
}

async function openQuery(): Promise<Opened> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    pool.on("error", () => {});
    const storeId = Number(process.env.CEILING_STORE_ID ?? "1");
    return {
      query: async (sql, params) => (await pool.query(sql, params)).rows,
      async transact(fn) {
        const client = await pool.connect();
        try {
          await client.query("begin");
          const result = await fn(async (sql, params) => (await client.query(sql, params)).rows);
          await client.query("commit");
          return result;
        } catch (error) {
          await client.query("rollback").catch(() => {});
          throw error;
        } finally {
          client.release();
        }
      },
      storeId,
      close: () => pool.end(),
    };
  }
  const dir = process.env.CEILING_PGLITE_DIR;
  if (!dir) throw new Error("set DATABASE_URL or CEILING_PGLITE_DIR");
  const db = new PGlite({ dataDir: dir });
  await db.waitReady;
  if (WRITES) {
    // Every table of the service, from its migrations: the write ceiling copies a receipt's from them.
    await migrateToLatest(
      new Kysely<unknown>({ dialect: new PGliteDialect(db as never, new ConnectionTurns(), "foreground") }),
    );
  } else {
    // The read ceiling needs only the stores table (a quicker start than every migration).
    const createStores = foundationMigration.find((s) => s.startsWith("create table stores"));
    if (!createStores) throw new Error("the foundation migration has no stores table");
    await db.exec(createStores.replace("create table stores", "create table if not exists stores"));
  }
  const row = await db.query<{ id: number }>(
    `insert into stores (name, domain, currency, timezone) values ('Ceiling', 'ceiling.example', 'USD', 'UTC')
     on conflict (domain) do update set name = excluded.name returning id`,
  );
  // Statements run as the service's embedded thread runs them (named, prepared once: pglite-statements.ts),
  // so the ceiling is no slower per statement than the service it bounds.
  // One session: a transaction has it to itself until it ends, as PGlite's own transaction() does.
  const statements = new PGliteStatements(db);
  const run = async (sql: string, params?: unknown[]) =>
    (await statements.run(sql, params ?? [])).rows as Record<string, unknown>[];
  let turn: Promise<unknown> = Promise.resolve();
  const exclusively = <T>(work: () => Promise<T>): Promise<T> => {
    const result = turn.then(work);
    turn = result.catch(() => {});
    return result;
  };
  return {
    query: (sql, params) => exclusively(() => run(sql, params)),
    transact: (fn) =>
      exclusively(async () => {
        await run("begin");
        try {
          const result = await fn(run);
          await run("commit");
          return result;
        } catch (error) {
          await run("rollback").catch(() => {});
          throw error;
        }
      }),
    storeId: row.rows[0].id,
    close: () => db.close(),
  };
}

const WhoamiShape = {
  type: "object",
  properties: {
    shop: {
      type: "object",
      properties: {
        id: { type: "integer" },
        domain: { type: "string" },
        name: { type: "string" },
        currency: { type: "string" },
        timezone: { type: "string" },
      },
    },
    key: {
      type: "object",
      properties: {
        id: { type: "integer" },
        name: { type: "string" },
        prefix: { type: "string" },
        scopes: { type: "array", items: { type: "string" } },
        expires_at: { type: ["string", "null"] },
      },
    },
    api_version: { type: "string" },
  },
} as const;

async function main(): Promise<void> {
  const { query, transact, storeId, close } = await openQuery();
  if (WRITES) await prepareWriteCeiling(query);
  const orders = WRITES ? await loadCeilingOrders(query) : new Map();
  const app = Fastify({ logger: false });
  app.get("/healthz", async () => ({ ok: true }));
  // The engine's version for the report (bench/lib/database.ts, pgliteVersion); never under load.
  app.get("/version", async () => ({ version: String((await query("select version() as v", []))[0].v) }));
  app.get("/v2/whoami", { schema: { response: { 200: WhoamiShape } } }, async () => {
    const [shop] = await query(SQL, [storeId]);
    return {
      shop,
      key: { id: 1, name: "ceiling", prefix: "sr2_ceiling0", scopes: ["read"], expires_at: null },
      api_version: "2",
    };
  });
  app.post<{ Params: { order: string } }>("/write/receipt/:order", async (request, reply) => {
    const orderId = Number(request.params.order);
    const order = orders.get(orderId);
    if (!order)
      return reply.code(404).send({
        error: WRITES ? `orders are 1 to ${WRITE_CEILING_ORDERS}` : "started without CEILING_WRITES=1",
      });
    // The answer the service would send: the receipt and its order, as stored.
    const body = await transact((run) => writeReceiptRows(run, orderId, order));
    return reply.code(201).type("application/json; charset=utf-8").send(body);
  });
  await app.listen({ host: "127.0.0.1", port: Number(process.env.PORT ?? "0") });
  const stop = async () => {
    await app.close();
    await close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
