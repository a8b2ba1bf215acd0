/**
 * The ceiling: a bare Fastify server answering `GET /v2/whoami` with the same shape as the service,
 * from one primary-key query on the same database, and nothing else (no auth, rate limit, request
 * log, hooks or logging). What the service achieves is reported as a fraction of this, measured in
 * the same run, on the same machine, at the same moment.
 *
 * PostgreSQL (`DATABASE_URL`): a pg Pool of 10 (the service's pool size) on the benchmark database,
 * reading the service's own `stores` table. PGlite (`CEILING_PGLITE_DIR`): a PGlite of its own in that
 * directory (one PGlite can't be opened by two processes), with the service's `stores` table created
 * from the service's migration and one row.
 */
import { PGlite } from "@electric-sql/pglite";
import Fastify from "fastify";
import pg from "pg";
import { foundationMigration } from "../src/db/migrations/001_foundation.ts";

type Query = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

const SQL = "select id, name, domain, currency, timezone from stores where id = $1";

async function openQuery(): Promise<{ query: Query; storeId: number; close(): Promise<void> }> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    pool.on("error", () => {});
    const storeId = Number(process.env.CEILING_STORE_ID ?? "1");
    return {
      query: async (sql, params) => (await pool.query(sql, params)).rows,
      storeId,
      close: () => pool.end(),
    };
  }
  const dir = process.env.CEILING_PGLITE_DIR;
  if (!dir) throw new Error("set DATABASE_URL or CEILING_PGLITE_DIR");
  const db = new PGlite({ dataDir: dir });
  await db.waitReady;
  const createStores = foundationMigration.find((s) => s.startsWith("create table stores"));
  if (!createStores) throw new Error("the foundation migration has no stores table");
  await db.exec(createStores.replace("create table stores", "create table if not exists stores"));
  const row = await db.query<{ id: number }>(
    `insert into stores (name, domain, currency, timezone) values ('Ceiling', 'ceiling.example', 'USD', 'UTC')
     on conflict (domain) do update set name = excluded.name returning id`,
  );
  return {
    query: async (sql, params) => (await db.query<Record<string, unknown>>(sql, params)).rows,
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
  const { query, storeId, close } = await openQuery();
  const app = Fastify({ logger: false });
  app.get("/healthz", async () => ({ ok: true }));
  app.get("/v2/whoami", { schema: { response: { 200: WhoamiShape } } }, async () => {
    const [shop] = await query(SQL, [storeId]);
    return {
      shop,
      key: { id: 1, name: "ceiling", prefix: "sr2_ceiling0", scopes: ["read"], expires_at: null },
      api_version: "2",
    };
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
