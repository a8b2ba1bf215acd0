/**
 * How the write path's tables store what a receipt and an apply write (migration 036; what it saves
 * is measured, not asserted: docs/performance.md). Events' payloads are compressed with lz4 where the
 * server has it (PostgreSQL here), the default elsewhere (the embedded database has no lz4); the
 * ledger's movements keep no reference to stores (the store's erasure deletes them: the shop/redact
 * test in test/http/shopify-inbound.test.ts).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { startTestApp, type TestApp } from "../helpers/app.ts";

const postgres = Boolean(process.env.TEST_DATABASE_URL);

describe("the write path's storage", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test("events' payloads compress with lz4 on PostgreSQL, the default on the embedded database", async () => {
    const { rows } = await sql<{ attname: string; method: string }>`
      select attname, attcompression as method from pg_attribute
      where attrelid = 'events'::regclass and attname in ('data', 'extra') order by attname`.execute(
      t.runtime.ctx.db,
    );
    const method = postgres ? "l" : "";
    assert.deepEqual(rows, [
      { attname: "data", method },
      { attname: "extra", method },
    ]);
  });

  test("stock movements reference no store row", async () => {
    const { rows } = await sql<{ name: string }>`select conname as name from pg_constraint
      where conrelid = 'stock_movements'::regclass and contype = 'f'`.execute(t.runtime.ctx.db);
    assert.deepEqual(rows, []);
  });
});
