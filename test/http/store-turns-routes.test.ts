/**
 * Which requests take their store's turn (src/http/plugins/store-turns.ts, issue 18 item 2): while
 * store A's turn is held, A's line-heavy requests (an order's page, the order, its history, its PATCH)
 * wait for it and answer once it is given back; A's light requests and other stores' requests do not
 * wait. One order is line-heavy only when it is big: a small one (at most SMALL_ORDER_LINES lines) is
 * read in one statement without the turn (issue 22 item 2), a big one in the turn. The history was the one order route outside the turns: a lines PATCH's history row names every
 * line it added, removed or updated, so a page of them is as heavy as the order. An order's PDF takes
 * the turn whether it renders or comes from the cache.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { SMALL_ORDER_LINES } from "../../src/domain/purchase-orders/index.ts";
import { type HttpResult, startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { createDraftOrder, createSupplier } from "../helpers/factories.ts";

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    if (condition()) return;
    await new Promise<void>((resolve) => setTimeout(resolve, 5));
  }
  assert.fail(`never happened: ${what}`);
}

/** A request and whether it has answered yet. */
function track(request: Promise<HttpResult>) {
  const state = { answered: false, result: request };
  request.then(
    () => {
      state.answered = true;
    },
    () => {
      state.answered = true;
    },
  );
  return state;
}

describe("store turns by route", () => {
  let t: TestApp;
  let a: TestStore;
  let b: TestStore;
  let orderA: number;
  let orderB: number;
  const bigOrder = new Map<TestStore, number>();
  before(async () => {
    t = await startTestApp();
    a = await t.createStore();
    b = await t.createStore();
    const line = { product_title: "Bolt", sku: "B-1", quantity: 2, unit_cost: "1.50" };
    for (const store of [a, b]) {
      const supplier = await createSupplier(store.api);
      const order = await createDraftOrder(store.api, { supplier_id: supplier.id, lines: [line] });
      if (store === a) orderA = order.id;
      else orderB = order.id;
      const lines = Array.from({ length: SMALL_ORDER_LINES + 1 }, (_, i) => ({ ...line, sku: `L-${i}` }));
      bigOrder.set(store, (await createDraftOrder(store.api, { supplier_id: supplier.id, lines })).id);
    }
    // A lines PATCH: the history row that names the lines.
    const patched = await a.api.patch(`/v2/purchase_orders/${orderA}`, {
      lines: [line, { ...line, sku: "B-2" }],
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
  });
  after(() => t.close());

  const heavy: Array<[string, (s: TestStore, id: number) => Promise<HttpResult>]> = [
    ["GET /purchase_orders", (s) => s.api.get("/v2/purchase_orders?limit=250")],
    ["GET /purchase_orders/:id (a big order)", (s) => s.api.get(`/v2/purchase_orders/${bigOrder.get(s)}`)],
    ["GET /purchase_orders/:id/history", (s, id) => s.api.get(`/v2/purchase_orders/${id}/history`)],
    ["PATCH /purchase_orders/:id", (s, id) => s.api.patch(`/v2/purchase_orders/${id}`, { notes: "n" })],
    // Rendered or from the cache (the second time), a PDF is answered in its store's turn: one
    // store's PDFs are answered one at a time, and other stores' go in between (decisions.md).
    ["GET /purchase_orders/:id/pdf", (s, id) => s.api.get(`/v2/purchase_orders/${id}/pdf`)],
    ["GET /purchase_orders/:id/pdf (cached)", (s, id) => s.api.get(`/v2/purchase_orders/${id}/pdf`)],
  ];

  for (const [route, send] of heavy) {
    test(`${route} waits for its store's turn; whoami and another store's do not`, async () => {
      const turns = t.runtime.app.storeTurns;
      const giveBack = await turns.take(a.id);
      let given = false;
      try {
        const waiting = track(send(a, orderA));
        await until(() => turns.heldBy(a.id) === 2 || waiting.answered, "the request queued or answered");
        assert.equal(waiting.answered, false, `${route} answered while its store's turn was held`);
        assert.equal(turns.heldBy(a.id), 2);

        const whoami = await a.api.get("/v2/whoami");
        assert.equal(whoami.status, 200);
        const other = await send(b, orderB);
        assert.equal(other.status, 200, JSON.stringify(other.body));
        assert.equal(waiting.answered, false);

        giveBack();
        given = true;
        const res = await waiting.result;
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(turns.heldBy(a.id), 0);
      } finally {
        if (!given) giveBack();
      }
    });
  }

  test("GET /purchase_orders/:id of a small order does not wait for its store's turn", async () => {
    const turns = t.runtime.app.storeTurns;
    const giveBack = await turns.take(a.id);
    try {
      const read = track(a.api.get(`/v2/purchase_orders/${orderA}`));
      await until(() => read.answered, "the small order answered while its store's turn was held");
      const res = await read.result;
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data.lines.length, 2);
      assert.equal(turns.heldBy(a.id), 1);
    } finally {
      giveBack();
    }
  });
});
