import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { MAX_LINES_PER_ORDER } from "../../src/domain/purchase-orders/line-cap.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import {
  createDraftOrder,
  createOrderedOrder,
  createSupplier,
  customLine,
  getOrder,
  idempotencyKey,
} from "../helpers/factories.ts";

const lines = (n: number) => Array.from({ length: n }, () => customLine(2, "3.50"));

function assertLimitReached(res: { status: number; body: any }, field: string, count: number): void {
  assert.equal(res.status, 422, JSON.stringify(res.body));
  assert.equal(res.body.error.code, "limit_reached");
  assert.deepEqual(res.body.error.details, [
    {
      field,
      code: "limit_reached",
      message: `an order holds at most ${MAX_LINES_PER_ORDER} lines; this would make ${count}`,
    },
  ]);
}

// One app for the file, a store of its own for each story: what one story reads is its store's, so
// none sees another's records.
let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

describe(`an order holds at most ${MAX_LINES_PER_ORDER} lines`, () => {
  let store: TestStore;
  let supplierId: number;
  let full: any;
  before(async () => {
    store = await t.createStore({ seed: "demo" });
    supplierId = (await createSupplier(store.api)).id;
    full = await createOrderedOrder(store.api, {
      supplier_id: supplierId,
      lines: lines(MAX_LINES_PER_ORDER),
    });
  });

  test(`create takes ${MAX_LINES_PER_ORDER} lines and refuses one more with 422 limit_reached, creating nothing`, async () => {
    assert.equal(full.lines.length, MAX_LINES_PER_ORDER);
    const before = (await store.api.get("/v2/purchase_orders?limit=250&archived=all")).body.data.length;
    const res = await store.api.post("/v2/purchase_orders", {
      supplier_id: supplierId,
      lines: lines(MAX_LINES_PER_ORDER + 1),
    });
    assertLimitReached(res, "lines", MAX_LINES_PER_ORDER + 1);
    assert.equal(
      (await store.api.get("/v2/purchase_orders?limit=250&archived=all")).body.data.length,
      before,
    );
  });

  test("POST lines beyond the cap is refused and the order keeps its lines", async () => {
    const res = await store.api.post(`/v2/purchase_orders/${full.id}/lines`, { lines: lines(1) });
    assertLimitReached(res, "lines", MAX_LINES_PER_ORDER + 1);
    const order = await getOrder(store.api, full.id);
    assert.equal(order.lines.length, MAX_LINES_PER_ORDER);
    assert.equal(order.updated_at, full.updated_at);
  });

  test("PATCH with more lines than the cap is refused; up to it is accepted", async () => {
    const draft = await createDraftOrder(store.api, { supplier_id: supplierId, lines: lines(2) });
    const refused = await store.api.patch(`/v2/purchase_orders/${draft.id}`, {
      lines: lines(MAX_LINES_PER_ORDER + 1),
    });
    assertLimitReached(refused, "lines", MAX_LINES_PER_ORDER + 1);
    assert.equal((await getOrder(store.api, draft.id)).lines.length, 2);
    const accepted = await store.api.patch(`/v2/purchase_orders/${draft.id}`, {
      lines: lines(MAX_LINES_PER_ORDER),
    });
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.equal(accepted.body.data.lines.length, MAX_LINES_PER_ORDER);
  });

  test("a receipt (and its preview) whose unordered entries would take the order beyond the cap is refused and records nothing", async () => {
    const body = { unordered: [{ product_title: "Extra", quantity: 1, unit_cost: "1.00" }] };
    const preview = await store.api.post(`/v2/purchase_orders/${full.id}/receipts/preview`, body);
    assertLimitReached(preview, "unordered", MAX_LINES_PER_ORDER + 1);
    const res = await store.api.post(`/v2/purchase_orders/${full.id}/receipts`, body, idempotencyKey());
    assertLimitReached(res, "unordered", MAX_LINES_PER_ORDER + 1);
    assert.deepEqual((await store.api.get(`/v2/purchase_orders/${full.id}/receipts`)).body.data, []);
    assert.equal((await getOrder(store.api, full.id)).lines.length, MAX_LINES_PER_ORDER);
  });
});

describe("a page of orders ends before its lines pass 5,000", () => {
  let store: TestStore;
  before(async () => {
    store = await t.createStore({ seed: "demo" });
    const supplierId = (await createSupplier(store.api)).id;
    // 11 full orders (5,500 lines) between two small ones.
    await createDraftOrder(store.api, { supplier_id: supplierId, lines: lines(1) });
    for (let i = 0; i < 11; i++)
      await createDraftOrder(store.api, { supplier_id: supplierId, lines: lines(MAX_LINES_PER_ORDER) });
    await createDraftOrder(store.api, { supplier_id: supplierId, lines: lines(1) });
  });

  test("limit=50 gives 10 orders (4,501 lines) with has_more, then the other 3 from the cursor", async () => {
    const first = await store.api.get("/v2/purchase_orders?limit=50");
    assert.equal(first.status, 200);
    assert.deepEqual(
      first.body.data.map((o: any) => o.lines.length),
      [1, ...Array(9).fill(MAX_LINES_PER_ORDER)],
    );
    assert.equal(first.body.has_more, true);
    const second = await store.api.get(`/v2/purchase_orders?limit=50&cursor=${first.body.next_cursor}`);
    assert.deepEqual(
      second.body.data.map((o: any) => o.lines.length),
      [MAX_LINES_PER_ORDER, MAX_LINES_PER_ORDER, 1],
    );
    assert.equal(second.body.has_more, false);
    assert.equal(second.body.next_cursor, null);
  });
});
