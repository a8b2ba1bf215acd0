/**
 * What the in-process harnesses (bench/queries.ts: statements per request; bench/write-bytes.ts: WAL
 * bytes per request) share: requests injected into a runtime made in the same process, and a store
 * with the demo seed, no rate limits and a generated catalog of bulk variants to drive them at.
 */
import type { FastifyInstance } from "fastify";
import { loadConfig } from "../../src/config.ts";
import { createRuntime, type Runtime } from "../../src/runtime.ts";
import { createBenchDatabase, DEFAULT_DATABASE_URL } from "./database.ts";

export type Call = <T = any>(
  method: string,
  url: string,
  token: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<T>;

/**
 * The service in this process on a fresh benchmark database (workers off, no demo store, silent): of
 * the PostgreSQL server at `DATABASE_URL`, or an embedded one in a directory of its own with
 * `kind: "pglite"`. `close` stops it and drops the database.
 */
export async function serviceInProcess(
  admin: string,
  kind: "postgres" | "pglite" = "postgres",
): Promise<{ runtime: Runtime; close(): Promise<void> }> {
  const database =
    kind === "pglite"
      ? await createBenchDatabase("pglite", "")
      : await createBenchDatabase("postgres", process.env.DATABASE_URL || DEFAULT_DATABASE_URL);
  const config = loadConfig({
    DATA_DIR: database.dataDir,
    ...(kind === "postgres" ? { DATABASE_URL: database.databaseUrl } : {}),
    ADMIN_TOKEN: admin,
    BOOTSTRAP: "none",
    WORKERS: "off",
    LOG_LEVEL: "silent",
  });
  const runtime = await createRuntime(config, { logger: false });
  return {
    runtime,
    async close() {
      await runtime.close();
      await database.drop();
    },
  };
}

/** A call through `app.inject` with a bearer token; a JSON answer parsed, any other as text; ≥ 300 throws. */
export function injectCaller(app: FastifyInstance): Call {
  return async (method, url, token, body, headers = {}) => {
    const res = await app.inject({
      method: method as "GET",
      url,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      ...(body === undefined ? {} : { payload: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    if (res.statusCode >= 300)
      throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res.headers["content-type"]?.toString().includes("json") ? JSON.parse(res.body) : res.body;
  };
}

export interface BenchStore {
  store: { id: number };
  key: string;
  /** The generated catalog's variants (SKU `BULK-…`), in the API's order. */
  variants: Array<{ id: number; sku: string }>;
}

/**
 * A demo store without rate limits, a key with `scopes`, and `products` × 50 generated variants
 * mirrored (the platform's catalog sync drained) and listed.
 */
export async function storeWithBulkCatalog(
  call: Call,
  drain: () => Promise<unknown>,
  options: { admin: string; name: string; scopes: string[]; products: number },
): Promise<BenchStore> {
  const { admin } = options;
  const store = (
    await call("POST", "/admin/stores", admin, {
      name: options.name,
      currency: "USD",
      timezone: "UTC",
      seed: "demo",
    })
  ).data;
  await call("PATCH", `/admin/stores/${store.id}`, admin, {
    rate_limits: { per_key_per_minute: 1e7, per_store_per_minute: 1e7, writes_per_store_per_minute: 1e7 },
  });
  const key = (
    await call("POST", `/admin/stores/${store.id}/keys`, admin, {
      name: options.name.toLowerCase(),
      scopes: options.scopes,
    })
  ).data.key as string;
  await call("POST", `/admin/stores/${store.id}/platform/catalog/generate`, admin, {
    products: options.products,
    variants_per_product: 50,
  });
  await drain();
  const variants: BenchStore["variants"] = [];
  for (let cursor: string | null = null; ; ) {
    const page: { data: BenchStore["variants"]; next_cursor: string | null } = await call(
      "GET",
      `/v2/variants?limit=250${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      key,
    );
    variants.push(...page.data.filter((v) => v.sku?.startsWith("BULK-")));
    if (!page.next_cursor) break;
    cursor = page.next_cursor;
  }
  return { store, key, variants };
}
