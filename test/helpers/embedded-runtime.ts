import assert from "node:assert/strict";
import { sql } from "kysely";
import { loadConfig } from "../../src/config.ts";
import { createRuntime, type Runtime } from "../../src/runtime.ts";
import { migratedTemplate } from "./embedded-template.ts";

/** The admin token of embeddedRuntimeWithStore's runtime, as a request header. */
export const EMBEDDED_ADMIN = { authorization: "Bearer test-admin-token-0123456789abcdef" };

/**
 * A runtime on an in-memory embedded database with its job workers off (the test drains them), and one
 * store created through the admin API with the given seed: for tests of the embedded database's own
 * upkeep, which reach into the runtime rather than through a TestApp.
 */
export async function embeddedRuntimeWithStore(
  name: string,
  seed: "demo" | "empty",
): Promise<{ runtime: Runtime; storeId: number }> {
  const config = loadConfig({
    DATA_DIR: ":memory:",
    DATABASE_URL: "",
    ADMIN_TOKEN: "test-admin-token-0123456789abcdef",
    BOOTSTRAP: "none",
    WORKERS: "off",
    LOG_LEVEL: "silent",
  });
  const runtime = await createRuntime(config, { logger: false, embeddedTemplate: await migratedTemplate() });
  const created = await runtime.app.inject({
    method: "POST",
    url: "/admin/stores",
    headers: EMBEDDED_ADMIN,
    payload: { name, currency: "USD", timezone: "UTC", seed },
  });
  assert.equal(created.statusCode, 201);
  await runtime.worker.drain();
  return { runtime, storeId: created.json().data.id };
}

/** The planner's row estimate of a table (-1: never analysed), as pg_class holds it. */
export async function reltuplesOf(runtime: Runtime, table: string): Promise<number> {
  const { rows } = await sql<{
    n: number;
  }>`select reltuples::float8 as n from pg_class where relname = ${table}
    and relnamespace = current_schema()::regnamespace`.execute(runtime.ctx.db);
  return Number(rows[0].n);
}
