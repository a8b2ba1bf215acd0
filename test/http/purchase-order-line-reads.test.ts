/**
 * Orders' lines read back whole and in position order, however they are read: on the embedded
 * database reads outside a transaction go in chunks of 100 lines (src/domain/purchase-orders/
 * loading.ts, issue 18 item 2), keyed on order, position and id. Two orders of 250 and 150 lines, the
 * first with its lines reversed by a PATCH (positions then run against ids), read one at a time and as
 * a page: every line once, in position order. A receipt that commits between two chunks of a read
 * (receipts do not take the store's turn) does not give the read lines from two moments, nor one
 * that commits between a header-only PATCH's read of the order (before its transaction) and its
 * transaction a PATCH answer and event without it.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { CompiledQuery } from "kysely";
import { readsInChunks } from "../../src/db/prepared.ts";
import { type HttpResult, startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import {
  createDraftOrder,
  createOrderedOrder,
  createSupplier,
  eventsOf,
  idempotencyKey,
} from "../helpers/factories.ts";

const linesOf = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    product_title: `Part ${i + 1}`,
    sku: `${prefix}-${i + 1}`,
    quantity: 1,
    unit_cost: "2.00",
  }));

// One app for the file, a store of its own for each story: what one story reads is its store's, so
// none sees another's records.
let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

describe("an order's lines read back", () => {
  let store: TestStore;
  let reversed: { id: number; skus: string[] };
  let plain: { id: number; skus: string[] };
  before(async () => {
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

describe("a receipt committed between two chunks of an order's read", () => {
  let store: TestStore;
  before(async () => {
    store = await t.createStore();
  });

  test("the order's lines are all from before it or all from after it", async () => {
    const supplier = await createSupplier(store.api);
    const order = await createOrderedOrder(store.api, {
      supplier_id: supplier.id,
      lines: linesOf("Q", 250).map((l) => ({ ...l, quantity: 5 })),
    });
    const receipt = { lines: order.lines.map((l: { id: number }) => ({ line_id: l.id, quantity: 1 })) };

    // The receipt is sent (and answered) right after the first chunk of the order's lines was read,
    // before the second is asked for: on the embedded database nothing else holds its connection then.
    const { db } = t.runtime.ctx;
    const executor = db.getExecutor();
    const execute = executor.executeQuery.bind(executor);
    const mid: { receipt?: Promise<HttpResult> } = {};
    executor.executeQuery = (async (query: CompiledQuery) => {
      const result = await execute(query);
      if (!mid.receipt && /from "purchase_order_lines"/.test(query.sql) && /limit \$\d+$/.test(query.sql)) {
        mid.receipt = store.api.post(
          `/v2/purchase_orders/${order.id}/receipts`,
          receipt,
          idempotencyKey("mid"),
        );
        await mid.receipt;
      }
      return result;
    }) as typeof executor.executeQuery;
    // The operator's read of an order is the full read outside a transaction (loadPurchaseOrder): the
    // one that still goes in chunks on the embedded database. The API's GET of a big order is one
    // statement of the lines' JSON text on both databases (text-read.ts) and has nothing between.
    let res: HttpResult;
    try {
      res = await t.admin.get(`/admin/stores/${store.id}/purchase_orders/${order.id}`);
    } finally {
      delete (executor as Partial<typeof executor>).executeQuery;
    }
    assert.equal(res.status, 200);
    // Only the embedded database reads in chunks; on PostgreSQL one statement reads the lines.
    assert.equal(mid.receipt !== undefined, readsInChunks(db), "a receipt was sent between two chunks");
    if (mid.receipt) assert.equal((await mid.receipt).status, 201);
    else
      assert.equal(
        (await store.api.post(`/v2/purchase_orders/${order.id}/receipts`, receipt, idempotencyKey("after")))
          .status,
        201,
      );

    const counts = (res.body.data.lines as Array<{ received_quantity: number }>).map(
      (l) => l.received_quantity,
    );
    assert.equal(counts.length, 250);
    assert.deepEqual(
      [...new Set(counts)],
      readsInChunks(db) ? [1] : [0],
      "every line received once (read after the receipt) or none (before)",
    );
    // And the order read afterwards shows the receipt on every line.
    const again = await store.api.get(`/v2/purchase_orders/${order.id}`);
    assert.deepEqual(
      [...new Set(again.body.data.lines.map((l: { received_quantity: number }) => l.received_quantity))],
      [1],
    );
  });
});

describe("a receipt committed between a header-only PATCH's read of the order and its transaction", () => {
  let store: TestStore;
  before(async () => {
    store = await t.createStore();
  });

  test("the answer and the event show the order with the receipt", async () => {
    const supplier = await createSupplier(store.api);
    const order = await createOrderedOrder(store.api, {
      supplier_id: supplier.id,
      lines: linesOf("H", 150).map((l) => ({ ...l, quantity: 5 })),
    });
    const receipt = { lines: order.lines.map((l: { id: number }) => ({ line_id: l.id, quantity: 1 })) };

    // The PATCH has read the order (outside a transaction) when its transaction is asked for: the
    // receipt is sent and answered then, before that transaction starts.
    const { db } = t.runtime.ctx;
    const transaction = db.transaction.bind(db);
    const mid: { receipt?: Promise<HttpResult> } = {};
    db.transaction = (() => {
      const builder = transaction();
      if (mid.receipt) return builder;
      mid.receipt = store.api.post(`/v2/purchase_orders/${order.id}/receipts`, receipt, idempotencyKey("rh"));
      const execute: typeof builder.execute = async (work) => {
        await mid.receipt;
        return builder.execute(work);
      };
      return Object.assign(Object.create(builder), { execute });
    }) as typeof db.transaction;
    let res: HttpResult;
    try {
      res = await store.api.patch(`/v2/purchase_orders/${order.id}`, { notes: "after the receipt" });
    } finally {
      delete (db as Partial<typeof db>).transaction;
    }
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal((await mid.receipt)?.status, 201);
    const data = res.body.data;
    assert.deepEqual(
      [
        data.notes,
        data.status,
        data.receipts.length,
        [...new Set(data.lines.map((l: { received_quantity: number }) => l.received_quantity))],
      ],
      ["after the receipt", "partial", 1, [1]],
    );
    const events = await eventsOf(t, { type: "purchase_order", id: order.id });
    assert.deepEqual([events.at(-1)?.name, events.at(-1)?.data], ["purchase_order.updated", data]);
    assert.deepEqual((await store.api.get(`/v2/purchase_orders/${order.id}`)).body.data, data);
  });
});
