/**
 * How the write path's tables store what a receipt and an apply write (migration 036; what it saves
 * is measured, not asserted: docs/performance.md). Events' payloads are compressed with lz4 where the
 * server has it (PostgreSQL here), the default elsewhere (the embedded database has no lz4); the
 * ledger's movements keep no reference to stores (the store's erasure deletes them: the shop/redact
 * test in test/http/shopify-inbound.test.ts), and a recorded movement is written into three indexes.
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

  test("a movement goes into three indexes when recorded: no index of the store's unacknowledged ids (migration 050)", async () => {
    const { rows } = await sql<{ name: string; partial: boolean }>`select c.relname as name,
        i.indpred is not null as partial from pg_index i join pg_class c on c.oid = i.indexrelid
      where i.indrelid = 'stock_movements'::regclass order by c.relname`.execute(t.runtime.ctx.db);
    // The partial `_sent_alone` takes a movement only when a push sends it alone, never at recording.
    assert.deepEqual(rows, [
      { name: "stock_movements_pkey", partial: false },
      { name: "stock_movements_sent_alone", partial: true },
      { name: "stock_movements_subject", partial: false },
      { name: "stock_movements_unpushed_level", partial: true },
    ]);
  });
});
