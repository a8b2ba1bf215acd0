/**
 * The line tables leave room on their pages (migration 035): a receipt's and an apply's updates of
 * their lines then stay on the lines' pages (HOT, no new index entries). What that saves is measured,
 * not asserted here (bench/write-bytes.ts: WAL bytes per request, docs/performance.md); this holds the
 * setting on both databases, as migrated.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { startTestApp, type TestApp } from "../helpers/app.ts";

describe("room on the line tables' pages", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test("order lines keep 30 % of each page free, adjustment lines half", async () => {
    const { rows } = await sql<{ relname: string; reloptions: string[] | null }>`
      select c.relname, c.reloptions from pg_class c
      where c.relnamespace = current_schema()::regnamespace
        and c.relname in ('purchase_order_lines', 'stock_adjustment_lines')
      order by c.relname`.execute(t.runtime.ctx.db);
    assert.deepEqual(
      rows.map((r) => [r.relname, r.reloptions]),
      [
        ["purchase_order_lines", ["fillfactor=70"]],
        ["stock_adjustment_lines", ["fillfactor=50"]],
      ],
    );
  });
});
