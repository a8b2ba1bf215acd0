import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { PGlite } from "@electric-sql/pglite";
import { Kysely } from "kysely";
import {
  loadCeilingOrders,
  prepareWriteCeiling,
  type Run,
  WRITE_CEILING_LINES,
  WRITE_CEILING_ORDERS,
  writeReceiptRows,
} from "../../bench/lib/write-ceiling.ts";
import { migrateToLatest } from "../../src/db/migrations/index.ts";
import { ConnectionTurns, PGliteDialect } from "../../src/db/pglite-dialect.ts";

/**
 * The write ceiling (bench/ceiling.ts) writes the rows of a 50-line receipt: checked here row by row on
 * an embedded database migrated as the service migrates it, so the ceiling cannot quietly write less
 * (and look faster) than the receipt it is compared with.
 */
describe("bench write ceiling", () => {
  let db: PGlite;
  let run: Run;
  const count = async (table: string) =>
    Number((await run(`select count(*)::int as n from ceiling.${table}`, []))[0].n);

  before(async () => {
    db = new PGlite();
    await migrateToLatest(
      new Kysely<unknown>({ dialect: new PGliteDialect(db as never, new ConnectionTurns(), "foreground") }),
    );
    run = async (sql, params) => (await db.query<Record<string, unknown>>(sql, params)).rows;
    await prepareWriteCeiling(run);
  });
  after(() => db.close());

  test("prepares orders of 50 lines with a level per item, in tables of its own", async () => {
    const orders = await loadCeilingOrders(run);
    assert.equal(orders.size, WRITE_CEILING_ORDERS);
    assert.deepEqual(
      [...orders.values()].map((lines) => lines.length),
      Array.from({ length: WRITE_CEILING_ORDERS }, () => WRITE_CEILING_LINES),
    );
    assert.equal(await count("inventory_levels"), WRITE_CEILING_ORDERS * WRITE_CEILING_LINES);
    assert.equal(await count("receipts"), 0);
    // The service's own tables are untouched.
    assert.equal(
      Number((await run("select count(*)::int as n from public.purchase_order_lines", []))[0].n),
      0,
    );
  });

  test("one receipt writes a receipt, 50 lines, 50 movements, 50 levels, sync state, job, history, event, stored response", async () => {
    const orders = await loadCeilingOrders(run);
    const lines = orders.get(7);
    assert.ok(lines);
    const presented = await db.transaction((tx) =>
      writeReceiptRows(
        async (sql, params) => (await tx.query<Record<string, unknown>>(sql, params)).rows,
        7,
        lines,
      ),
    );
    assert.equal((presented.lines as unknown[]).length, 50);
    assert.equal(await count("receipts"), 1);
    assert.equal(await count("receipt_lines"), 50);
    assert.equal(await count("stock_movements"), 50);
    assert.equal(await count("platform_sync_states"), 1);
    assert.equal(await count("jobs"), 1);
    assert.equal(await count("purchase_order_history"), 1);
    assert.equal(await count("events"), 1);
    assert.equal(await count("idempotency_keys"), 1);
    const received = await run(
      "select sum(received_quantity)::int as r, count(*) filter (where received_quantity = 1)::int as one from ceiling.purchase_order_lines where purchase_order_id = 7",
      [],
    );
    assert.deepEqual(received[0], { r: 50, one: 50 });
    const levels = await run(
      "select count(*)::int as n from ceiling.inventory_levels where available = 1 and on_hand = 1 and incoming = 999",
      [],
    );
    assert.equal(levels[0].n, 50);
    const status = await run("select status from ceiling.purchase_orders where id = 7", []);
    assert.deepEqual(status, [{ status: "partial" }]);
    const stored = await run("select response_body from ceiling.idempotency_keys", []);
    assert.deepEqual(JSON.parse(String(stored[0].response_body)).data.lines.length, 50);
  });
});
