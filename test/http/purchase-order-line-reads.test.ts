/**
 * Orders' lines read back whole and in position order, however they are read: on the embedded
 * database reads outside a transaction go in chunks of 100 lines (src/domain/purchase-orders/
 * loading.ts, issue 18 item 2), keyed on order, position and id. Two orders of 250 and 150 lines, the
 * first with its lines reversed by a PATCH (positions then run against ids), read one at a time and as
 * a page: every line once, in position order.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { createDraftOrder, createSupplier } from "../helpers/factories.ts";

const linesOf = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    product_title: `Part ${i + 1}`,
    sku: `${prefix}-${i + 1}`,
    quantity: 1,
    unit_cost: "2.00",
  }));

describe("an order's lines read back", () => {
  let t: TestApp;
  let store: TestStore;
  let reversed: { id: number; skus: string[] };
  let plain: { id: number; skus: string[] };
  before(async () => {
    t = await startTestApp();
    store = await t.createStore();
    const supplier = await createSupplier(store.api);
    const first = await createDraftOrder(store.api, { supplier_id: supplier.id, lines: linesOf("R", 250) });
    const kept = [...first.lines].reverse().map((l: { id: number }) => ({ id: l.id }));
    const patched = await store.api.patch(`/v2/purchase_orders/${first.id}`, { lines: kept });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    reversed = {
      id: first.id,
      skus: linesOf("R", 250)
        .map((l) => l.sku)
        .reverse(),
    };
    const second = await createDraftOrder(store.api, { supplier_id: supplier.id, lines: linesOf("P", 150) });
    plain = { id: second.id, skus: linesOf("P", 150).map((l) => l.sku) };
  });
  after(() => t.close());

  test("one order at a time: every line once, in position order", async () => {
    for (const order of [reversed, plain]) {
      const res = await store.api.get(`/v2/purchase_orders/${order.id}`);
      assert.equal(res.status, 200);
      const lines = res.body.data.lines as Array<{ sku: string; position: number }>;
      assert.deepEqual(
        lines.map((l) => l.sku),
        order.skus,
      );
      assert.deepEqual(
        lines.map((l) => l.position),
        order.skus.map((_, i) => i + 1),
      );
    }
  });

  test("a page of both: each order's lines whole, in position order", async () => {
    const res = await store.api.get("/v2/purchase_orders?limit=50");
    assert.equal(res.status, 200);
    const byId = new Map(
      (res.body.data as Array<{ id: number; lines: Array<{ sku: string }> }>).map((o) => [
        o.id,
        o.lines.map((l) => l.sku),
      ]),
    );
    assert.deepEqual([...byId.keys()].sort(), [reversed.id, plain.id].sort());
    assert.deepEqual(byId.get(reversed.id), reversed.skus);
    assert.deepEqual(byId.get(plain.id), plain.skus);
  });
});
