import { randomBytes } from "node:crypto";
import type { LightMyRequestResponse } from "fastify";
import { type Clock, ManualClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { migrateFreshSchemaInOneBatch } from "../../src/db/migrations/index.ts";
import { pgDriver } from "../../src/db/pg-driver.ts";
import type { SchemaCompilation } from "../../src/http/schema-compilers.ts";
import type { Module } from "../../src/modules/module.ts";
import { createRuntime, type Runtime } from "../../src/runtime.ts";
import { migratedTemplate } from "./embedded-template.ts";

export const ADMIN_TOKEN = "test-admin-token-0123456789abcdef";
export const ALL_SCOPES = [
  "read",
  "write:purchase_orders",
  "write:suppliers",
  "write:inventory",
  "write:manufacturing",
  "webhooks",
];

export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
  raw: LightMyRequestResponse;
}

export interface Client {
  get<T = any>(url: string, headers?: Record<string, string>): Promise<HttpResult<T>>;
  post<T = any>(url: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResult<T>>;
  put<T = any>(url: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResult<T>>;
  patch<T = any>(url: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResult<T>>;
  delete<T = any>(url: string, headers?: Record<string, string>): Promise<HttpResult<T>>;
}

export interface TestStore {
  id: number;
  key: string;
  api: Client;
  /** A client whose key has only the given scopes. */
  keyWithScopes(scopes: string[]): Promise<Client>;
}

export interface TestApp {
  runtime: Runtime;
  clock: Clock;
  admin: Client;
  /** A client with an arbitrary Authorization header (or none). */
  client(authorization?: string): Client;
  /** Creates a store through the admin API (seed "demo" fills the simulated platform) with a full-scope key. */
  createStore(options?: {
    seed?: "demo" | "empty";
    currency?: string;
    name?: string;
    timezone?: string;
  }): Promise<TestStore>;
  /** Runs every due background job now. */
  drain(): Promise<number>;
  close(): Promise<void>;
}

let counter = 0;

export interface TestAppOptions {
  clock?: Clock;
  env?: Record<string, string>;
  modules?: readonly Module[];
  /** Start the in-process worker loop (default off: tests call drain()). */
  workers?: boolean;
  /**
   * When route schemas are compiled. Tests default to `first-use`: a test file calls a few of the
   * hundreds of routes, and compiling them all cost ~0.9 s of CPU per app. Production compiles at
   * `start`; test/http/schema-compilation.test.ts proves every route's schemas compile that way.
   */
  schemaCompilation?: SchemaCompilation;
}

/**
 * A fresh service on a fresh database: PGlite in memory, or, when TEST_DATABASE_URL is set, a
 * PostgreSQL schema of its own that is dropped at close. The same buildApp production runs.
 */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const databaseUrl = process.env.TEST_DATABASE_URL ?? "";
  const schema = databaseUrl ? `t_${process.pid}_${++counter}_${randomBytes(3).toString("hex")}` : undefined;
  const config = loadConfig({
    DATA_DIR: ":memory:",
    DATABASE_URL: databaseUrl,
    ADMIN_TOKEN,
    BOOTSTRAP: "none",
    WORKERS: options.workers ? "on" : "off",
    LOG_LEVEL: "silent",
    WEBHOOK_ALLOW_PRIVATE: "true",
    ...options.env,
  });
  const clock = options.clock ?? new ManualClock();
  const runtime = await createRuntime(config, {
    clock,
    schema,
    modules: options.modules,
    workerPollMs: 50,
    schemaCompilation: options.schemaCompilation ?? "first-use",
    // PostgreSQL: a fresh schema of its own, migrated with every statement in one round trip.
    migrate: databaseUrl ? migrateFreshSchemaInOneBatch : undefined,
    // PGlite: a copy of a migrated database instead of initdb and migrations (embedded-template.ts).
    embeddedTemplate: databaseUrl ? undefined : await migratedTemplate(),
  });
  if (options.workers) runtime.worker.start();
  const { app } = runtime;

  const makeClient = (authorization?: string): Client => {
    const call = async (
      method: string,
      url: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ) => {
      const allHeaders: Record<string, string> = { ...headers };
      if (authorization) allHeaders.authorization = authorization;
      const res = await app.inject({
        method: method as "GET",
        url,
        headers: allHeaders,
        ...(body !== undefined && { payload: typeof body === "string" ? body : JSON.stringify(body) }),
        ...(body !== undefined &&
          !allHeaders["content-type"] && { headers: { ...allHeaders, "content-type": "application/json" } }),
      });
      let parsed: unknown = res.body;
      if ((res.headers["content-type"] ?? "").toString().includes("application/json") && res.body !== "")
        parsed = JSON.parse(res.body);
      return { status: res.statusCode, body: parsed, headers: res.headers, raw: res } as HttpResult;
    };
    return {
      get: (url, headers) => call("GET", url, undefined, headers),
      post: (url, body, headers) => call("POST", url, body, headers),
      put: (url, body, headers) => call("PUT", url, body, headers),
      patch: (url, body, headers) => call("PATCH", url, body, headers),
      delete: (url, headers) => call("DELETE", url, undefined, headers),
    };
  };
  const admin = makeClient(`Bearer ${ADMIN_TOKEN}`);

  return {
    runtime,
    clock,
    admin,
    client: makeClient,
    async createStore(storeOptions = {}) {
      const created = await admin.post("/admin/stores", {
        name: storeOptions.name ?? `Store ${++counter}`,
        currency: storeOptions.currency ?? "USD",
        timezone: storeOptions.timezone ?? "UTC",
        owner_email: "owner@example.com",
        seed: storeOptions.seed ?? "empty",
      });
      if (created.status !== 201) throw new Error(`store creation failed: ${JSON.stringify(created.body)}`);
      const id = created.body.data.id as number;
      const keyFor = async (scopes: string[]) => {
        const key = await admin.post(`/admin/stores/${id}/keys`, { name: `key ${scopes.join(" ")}`, scopes });
        if (key.status !== 201) throw new Error(`key creation failed: ${JSON.stringify(key.body)}`);
        return key.body.data.key as string;
      };
      // Tests exercise behaviour, not the default plan: lift the limits unless a test sets them.
      await admin.patch(`/admin/stores/${id}`, {
        rate_limits: {
          per_key_per_minute: 100_000,
          per_store_per_minute: 100_000,
          writes_per_store_per_minute: 100_000,
        },
      });
      const key = await keyFor(ALL_SCOPES);
      return {
        id,
        key,
        api: makeClient(`Bearer ${key}`),
        keyWithScopes: async (scopes) => makeClient(`Bearer ${await keyFor(scopes)}`),
      };
    },
    drain: () => runtime.worker.drain(),
    async close() {
      await runtime.close();
      if (schema) {
        const { Client } = pgDriver();
        const client = new Client({ connectionString: databaseUrl });
        await client.connect();
        await client.query(`drop schema if exists ${schema} cascade`);
        await client.end();
      }
    },
  };
}
