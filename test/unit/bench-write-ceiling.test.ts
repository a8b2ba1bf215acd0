import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, sql } from "kysely";
import {
  loadCeilingOrders,
  openCeilingAnswer,
  prepareWriteCeiling,
  type Run,
  WRITE_CEILING_LINES,
  WRITE_CEILING_ORDERS,
  writeReceiptRows,
} from "../../bench/lib/write-ceiling.ts";
import { migrateToLatest } from "../../src/db/migrations/index.ts";
import { ConnectionTurns, PGliteDialect } from "../../src/db/pglite-dialect.ts";
import { startTestApp } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import { migratedTemplate } from "../helpers/embedded-template.ts";
import { createOrderedOrder, createSupplier, idempotencyKey, listLocations } from "../helpers/factories.ts";

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
    // The tests' migrated template (initdb and every migration, as the service runs them), so the file
    // does not pay an initdb of its own; migrateToLatest then finds nothing left to run.
    db = new PGlite({ loadDataDir: new Blob([await migratedTemplate()]) });
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
      [...orders.values()].map((order) => order.lines.length),
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
    const order = orders.get(7);
    assert.ok(order);
    const answer = await db.transaction((tx) =>
      writeReceiptRows(
        async (sql, params) => (await tx.query<Record<string, unknown>>(sql, params)).rows,
        7,
        order,
      ),
    );
    assert.equal(JSON.parse(answer).data.lines.length, 50);
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
    assert.equal(openCeilingAnswer(String(stored[0].response_body)), answer);
  });

  test("its event and stored answer are a real receipt's size, receipt after receipt", async () => {
    // The service: a 50-line order received three times as the bench's receipt scenario does.
    const t = await startTestApp();
    try {
      const store = await t.createStore();
      expectStatus(
        await t.admin.post(`/admin/stores/${store.id}/platform/catalog/generate`, {
          products: 1,
          variants_per_product: 50,
        }),
        201,
      );
      await t.drain();
      const variants = (await store.api.get("/v2/variants?limit=250")).body.data.filter(
        (v: { sku: string | null }) => v.sku?.startsWith("BULK-"),
      );
      assert.equal(variants.length, 50);
      const order = await createOrderedOrder(store.api, {
        supplier_id: (await createSupplier(store.api)).id,
        location_id: (await listLocations(store.api))[0].id,
        reference: "BENCH-RECEIPT-1",
        lines: variants.map((v: { id: number }) => ({ variant_id: v.id, quantity: 1000 })),
      });
      const body = {
        note: "bench",
        lines: order.lines.map((l: { id: number }) => ({ line_id: l.id, quantity: 1 })),
      };
      const ceilingOrder = (await loadCeilingOrders(run)).get(9);
      assert.ok(ceilingOrder);
      for (let k = 1; k <= 3; k++) {
        const real = await store.api.post(`/v2/purchase_orders/${order.id}/receipts`, body, idempotencyKey());
        expectStatus(real, 201);
        const realEvent = (
          await sql<{ data: number; extra: number }>`
            select octet_length(data::text) as data, octet_length(extra::text) as extra from events
            where name = 'purchase_order.receipt_recorded' order by seq desc limit 1`.execute(
            t.runtime.ctx.db,
          )
        ).rows[0];
        const answer = await db.transaction((tx) =>
          writeReceiptRows(
            async (q, params) => (await tx.query<Record<string, unknown>>(q, params)).rows,
            9,
            ceilingOrder,
          ),
        );
        const [ceilingEvent] = await run(
          `select octet_length(data::text) as data, octet_length(extra::text) as extra from ceiling.events
           where subject_id = 9 order by seq desc limit 1`,
          [],
        );
        const within = (what: string, ceiling: number, service: number) =>
          assert.ok(
            Math.abs(ceiling / service - 1) <= 0.05,
            `receipt ${k}: the ceiling's ${what} is ${ceiling} bytes, the service's ${service}`,
          );
        within("answer", answer.length, real.raw.body.length);
        within("event data", Number(ceilingEvent.data), Number(realEvent.data));
        within("event extra", Number(ceilingEvent.extra), Number(realEvent.extra));
      }
    } finally {
      await t.close();
    }
  });
});
