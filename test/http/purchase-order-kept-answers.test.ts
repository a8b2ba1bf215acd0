/**
 * A small order read again is answered from the text kept at its last read when the version of every
 * row it shows has not moved (src/domain/purchase-orders/answer-cache.ts): one statement that reads
 * the versions and writes no JSON. Each kind of row the answer shows, changed behind the API's back
 * (as another process would), makes the next read answer what the full read presents.
 */
import "../helpers/statements.ts";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import { createOrderedOrder, createSupplier, idempotencyKey, listLocations } from "../helpers/factories.ts";
import { countStatements } from "../helpers/statements.ts";

const line = (n: number) => ({
  product_title: `Part ${n}`,
  sku: `K-${n}`,
  quantity: 2 + n,
  unit_cost: "1.25",
});

describe("GET of a small order whose answer is kept", () => {
  let t: TestApp;
  let store: TestStore;

  before(async () => {
    t = await startTestApp();
    store = await t.createStore({ seed: "demo" });
    await t.drain();
  });
  after(() => t.close());

  /** An ordered order of three lines at the store's first location, from a supplier of its own. */
  async function newOrder() {
    const supplier = await createSupplier(store.api);
    const [location] = await listLocations(store.api);
    return createOrderedOrder(store.api, {
      supplier_id: supplier.id,
      location_id: location.id,
      lines: [line(1), line(2), line(3)],
    });
  }

  /** GET's raw body and the statements that read the order. */
  async function read(id: number) {
    await t.runtime.ctx.requestLog.flush();
    const counted = await countStatements(() => store.api.get(`/v2/purchase_orders/${id}`));
    expectStatus(counted.result, 200);
    return {
      body: counted.result.raw.body,
      reads: counted.statements.filter((s) => s.includes("from purchase_orders po")),
    };
  }

  /** The order as the full read presents it (a PATCH without fields answers it so). */
  async function fullRead(id: number): Promise<string> {
    const patched = await store.api.patch(`/v2/purchase_orders/${id}`, {});
    expectStatus(patched, 200);
    return patched.raw.body;
  }

  const writesJson = (statement: string) => statement.includes('"sequential_id":');

  test("read again unchanged: one statement that writes no JSON, the same bytes", async () => {
    const order = await newOrder();
    const first = await read(order.id);
    assert.deepEqual(first.reads.map(writesJson), [true]);
    const again = await read(order.id);
    assert.deepEqual(again.reads.map(writesJson), [false]);
    assert.equal(again.body, first.body);
    assert.equal(again.body, await fullRead(order.id));
  });

  const changes: Array<
    [string, (order: { id: number; supplier: { id: number }; location: { id: number } }) => Promise<unknown>]
  > = [
    [
      "the order's row",
      (o) =>
        sql`update purchase_orders set reference = 'changed' where id = ${o.id}`.execute(t.runtime.ctx.db),
    ],
    [
      "one of its lines",
      (o) =>
        sql`update purchase_order_lines set supplier_note = 'changed' where purchase_order_id = ${o.id}
          and position = 2`.execute(t.runtime.ctx.db),
    ],
    [
      "its lines (one deleted)",
      (o) =>
        sql`delete from purchase_order_lines where purchase_order_id = ${o.id} and position = 3`.execute(
          t.runtime.ctx.db,
        ),
    ],
    [
      "its supplier's name",
      (o) => sql`update suppliers set name = 'Renamed' where id = ${o.supplier.id}`.execute(t.runtime.ctx.db),
    ],
    [
      "its location's name",
      (o) =>
        sql`update locations set name = ${`Renamed ${o.id}`} where id = ${o.location.id} and store_id = ${store.id}`.execute(
          t.runtime.ctx.db,
        ),
    ],
    [
      "its platform_sync",
      (o) =>
        sql`insert into platform_sync_states (store_id, subject_type, subject_id, state, error)
          values (${store.id}, 'purchase_order', ${o.id}, 'failed', 'refused')
          on conflict (store_id, subject_type, subject_id) do update set state = 'failed', error = 'refused'`.execute(
          t.runtime.ctx.db,
        ),
    ],
  ];

  for (const [what, change] of changes)
    test(`a change made elsewhere to ${what} shows in the next read`, async () => {
      const order = await newOrder();
      const kept = await read(order.id);
      await change(order);
      const next = await read(order.id);
      assert.notEqual(next.body, kept.body);
      assert.equal(next.body, await fullRead(order.id));
    });

  /**
   * An ordered order of three lines with a charge, a receipt of one unit at another location than the
   * order's, and a payment.
   */
  async function newOrderWithParts() {
    const supplier = await createSupplier(store.api);
    const [location, elsewhere] = await listLocations(store.api);
    const order = await createOrderedOrder(store.api, {
      supplier_id: supplier.id,
      location_id: location.id,
      lines: [line(1), line(2), line(3)],
      charges: [{ label: "Freight", amount: "5.50", currency: "USD" }],
    });
    const receipt = await store.api.post(
      `/v2/purchase_orders/${order.id}/receipts`,
      { location_id: elsewhere.id, lines: [{ line_id: order.lines[0].id, quantity: 1 }] },
      idempotencyKey("kept-parts"),
    );
    expectStatus(receipt, 201);
    expectStatus(await store.api.post(`/v2/purchase_orders/${order.id}/payments`, { amount: "1.00" }), 201);
    await t.drain();
    return { id: order.id as number, receipt: receipt.body.data.id as number, elsewhere: elsewhere.id };
  }

  test("an order with parts read again unchanged: one statement that writes no JSON, the same bytes", async () => {
    const order = await newOrderWithParts();
    const first = await read(order.id);
    // The lean statement finds parts; the full one writes the answer.
    assert.deepEqual(first.reads.map(writesJson), [true, true]);
    const again = await read(order.id);
    assert.deepEqual(again.reads.map(writesJson), [false]);
    assert.equal(again.body, first.body);
    const body = JSON.parse(again.body).data;
    assert.deepEqual(
      [body.charges.length, body.receipts.length, body.receipts[0].lines.length, body.payments.length],
      [1, 1, 1, 1],
    );
    assert.equal(again.body, await fullRead(order.id));
  });

  const partChanges: Array<
    [string, (order: Awaited<ReturnType<typeof newOrderWithParts>>) => Promise<unknown>]
  > = [
    [
      "its charge",
      (o) =>
        sql`update purchase_order_charges set label = 'Changed' where purchase_order_id = ${o.id}`.execute(
          t.runtime.ctx.db,
        ),
    ],
    [
      "its charges (one deleted)",
      (o) =>
        sql`delete from purchase_order_charges where purchase_order_id = ${o.id}`.execute(t.runtime.ctx.db),
    ],
    [
      "its receipt",
      (o) => sql`update receipts set note = 'changed' where id = ${o.receipt}`.execute(t.runtime.ctx.db),
    ],
    [
      "its receipt's line",
      (o) =>
        sql`update receipt_lines set unit_cost = 2.5 where receipt_id = ${o.receipt}`.execute(
          t.runtime.ctx.db,
        ),
    ],
    [
      "its receipt's location's name",
      (o) =>
        sql`update locations set name = ${`Moved ${o.id}`} where id = ${o.elsewhere} and store_id = ${store.id}`.execute(
          t.runtime.ctx.db,
        ),
    ],
    [
      "its receipt's platform_sync",
      (o) =>
        sql`insert into platform_sync_states (store_id, subject_type, subject_id, state, error)
          values (${store.id}, 'receipt', ${o.receipt}, 'failed', 'refused')
          on conflict (store_id, subject_type, subject_id) do update set state = 'failed', error = 'refused'`.execute(
          t.runtime.ctx.db,
        ),
    ],
    [
      "its payments (one added)",
      (o) =>
        sql`insert into payments (store_id, purchase_order_id, amount, currency, paid_on)
            values (${store.id}, ${o.id}, 2, 'USD', '2030-01-02')`.execute(t.runtime.ctx.db),
    ],
  ];

  for (const [what, change] of partChanges)
    test(`an order with parts: a change made elsewhere to ${what} shows in the next read`, async () => {
      const order = await newOrderWithParts();
      await read(order.id);
      const kept = await read(order.id);
      assert.deepEqual(kept.reads.map(writesJson), [false], "read from its kept answer");
      await change(order);
      const next = await read(order.id);
      assert.notEqual(next.body, kept.body);
      assert.equal(next.body, await fullRead(order.id));
    });

  test("another store's order stays 404 not_found after its answer was kept", async () => {
    const order = await newOrder();
    await read(order.id);
    const other = await t.createStore();
    const res = await other.api.get(`/v2/purchase_orders/${order.id}`);
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, "not_found");
  });
});
