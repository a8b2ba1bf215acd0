/**
 * The receipts list and the stock adjustments list end a page before its lines pass LINES_PER_PAGE
 * (5,000), as the orders list does (test/http/purchase-order-line-cap.test.ts): `has_more` and a cursor,
 * whatever `limit` asked for.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { MAX_LINES_PER_ORDER } from "../../src/domain/purchase-orders/line-cap.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import {
  createOrderedOrder,
  createSupplier,
  customLine,
  FIXTURE_VARIANT_OFFSET,
  idempotencyKey,
  insertFixtureVariants,
  listLocations,
} from "../helpers/factories.ts";

const lineCounts = (body: { data: { lines: unknown[] }[] }) => body.data.map((d) => d.lines.length);

// One app for both lists, a store of its own for each: the pages are a store's, so neither story sees
// the other's records.
let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

describe("a page of an order's receipts ends before its lines pass 5,000", () => {
  let store: TestStore;
  let orderId: number;
  before(async () => {
    store = await t.createStore({ seed: "demo" });
    const supplierId = (await createSupplier(store.api)).id;
    const order = await createOrderedOrder(store.api, {
      supplier_id: supplierId,
      lines: Array.from({ length: MAX_LINES_PER_ORDER }, () => customLine(20, "3.50")),
    });
    orderId = order.id;
    const lineIds: number[] = order.lines.map((l: { id: number }) => l.id);
    const receive = async (ids: number[]) => {
      const res = await store.api.post(
        `/v2/purchase_orders/${orderId}/receipts`,
        { lines: ids.map((line_id) => ({ line_id, quantity: 1 })) },
        idempotencyKey("receipt"),
      );
      assert.equal(res.status, 201, JSON.stringify(res.body).slice(0, 300));
    };
    // 10 full receipts (5,000 lines) between two of one line.
    await receive(lineIds.slice(0, 1));
    for (let i = 0; i < 10; i++) await receive(lineIds);
    await receive(lineIds.slice(0, 1));
  });

  test("limit=50 gives 10 receipts (4,501 lines) with has_more, then the other 2 from the cursor", async () => {
    const first = await store.api.get(`/v2/purchase_orders/${orderId}/receipts?limit=50`);
    assert.equal(first.status, 200);
    assert.deepEqual(lineCounts(first.body), [1, ...Array(9).fill(MAX_LINES_PER_ORDER)]);
    assert.equal(first.body.has_more, true);
    assert.equal(typeof first.body.next_cursor, "string");
    const second = await store.api.get(
      `/v2/purchase_orders/${orderId}/receipts?limit=50&cursor=${first.body.next_cursor}`,
    );
    assert.equal(second.status, 200);
    assert.deepEqual(lineCounts(second.body), [MAX_LINES_PER_ORDER, 1]);
    assert.equal(second.body.has_more, false);
    assert.equal(second.body.next_cursor, null);
  });
});

describe("a page of stock adjustments ends before its lines pass 5,000", () => {
  const BIG = 1_000; // the most lines one adjustment takes
  let store: TestStore;
  before(async () => {
    store = await t.createStore();
    const items = Array.from({ length: BIG }, (_, i) => 70_001 + i);
    await insertFixtureVariants(t, store.id, items);
    const locationId = (await listLocations(store.api))[0].id;
    const draft = async (count: number) => {
      const lines = items
        .slice(0, count)
        .map((item) => ({ variant_id: item + FIXTURE_VARIANT_OFFSET, delta: 1 }));
      const res = await store.api.post("/v2/stock_adjustments", { location_id: locationId, lines });
      assert.equal(res.status, 201, JSON.stringify(res.body).slice(0, 300));
    };
    // 5 drafts of 1,000 lines between two of one line.
    await draft(1);
    for (let i = 0; i < 5; i++) await draft(BIG);
    await draft(1);
  });

  test("limit=50 gives 5 adjustments (4,001 lines) with has_more, then the other 2 from the cursor", async () => {
    const first = await store.api.get("/v2/stock_adjustments?limit=50");
    assert.equal(first.status, 200);
    assert.deepEqual(lineCounts(first.body), [1, BIG, BIG, BIG, BIG]);
    assert.equal(first.body.has_more, true);
    assert.equal(typeof first.body.next_cursor, "string");
    const second = await store.api.get(`/v2/stock_adjustments?limit=50&cursor=${first.body.next_cursor}`);
    assert.equal(second.status, 200);
    assert.deepEqual(lineCounts(second.body), [BIG, 1]);
    assert.equal(second.body.has_more, false);
    assert.equal(second.body.next_cursor, null);
  });
});
