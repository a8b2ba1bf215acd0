/**
 * Pushes to a Shopify store through the stand-in (issue 19): an ordered order, a receipt, its void and
 * an applied adjustment each reach Shopify as the right inventoryAdjustQuantities calls (names,
 * deltas, reasons, reference and ledger URIs, keys), exactly once; a userErrors refusal ends failed
 * with Shopify's message; an outage and THROTTLED answers end synced; a disconnected shop pauses pushes (records pending,
 * saying why, no attempt spent, reads working) and a new token resumes them.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { ManualClock } from "../../src/clock.ts";
import { disconnectedMessage, TOKEN_REFUSED_REASON } from "../../src/platform/shopify/index.ts";
import type { Client, TestApp } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import { createOrderedOrder, createSupplier, idempotencyKey } from "../helpers/factories.ts";
import { attachByToken, standinShop, startShopifyTestApp, storeApi } from "../helpers/shopify.ts";
import type { ShopifyStandin } from "../shopify-standin/index.ts";
import type { ShopState } from "../shopify-standin/state.ts";

let t: TestApp;
let standin: ShopifyStandin;
let shop: ShopState;
let domain: string;
let storeId: number;
let api: Client;
let supplierId: number;
let items: number[];
let variants: number[];
let locations: number[];

const itemGid = (id: number) => `gid://shopify/InventoryItem/${id}`;
const locationGid = (id: number) => `gid://shopify/Location/${id}`;
const KEY = /^stockroom-\d+-movements?-[\d-]+:(available|incoming|quality_control)(\.\d+)?:0$/;

before(async () => {
  ({ t, standin } = await startShopifyTestApp());
  const made = standinShop(standin, { products: 3, locations: 2 });
  ({ shop, domain } = made);
  const token = made.accessToken;
  storeId = (await attachByToken(t, domain, token)).id;
  await t.drain();
  api = await storeApi(t, storeId);
  supplierId = (await createSupplier(api)).id;
  variants = [...shop.variants.keys()];
  items = variants.map((v) => shop.variants.get(v)!.inventoryItemId);
  locations = [...shop.locations.keys()];
});
after(async () => {
  await t.close();
  await standin.close();
});

/** The adjust calls the shop received after `since` of them, and how many there are now. */
function callsAfter(since: number) {
  const all = standin.adjustCalls(domain);
  return all.slice(since);
}

function quantities(item: number, location: number) {
  const q = shop.level(item, location)!.quantities;
  return { available: q.available, on_hand: q.on_hand, incoming: q.incoming };
}

async function syncOf(path: string) {
  const res = await api.get(path);
  expectStatus(res, 200);
  return res.body.data.platform_sync;
}

function change(item: number, location: number, delta: number, ledger?: string) {
  return {
    inventoryItemId: itemGid(item),
    locationId: locationGid(location),
    delta,
    changeFromQuantity: null,
    ...(ledger ? { ledgerDocumentUri: ledger } : {}),
  };
}

/**
 * Whether each of a stock adjustment's movements is marked in flight (sent, not acknowledged): a push
 * Shopify certainly did not execute takes its marks off, one that may have been executed keeps them.
 */
async function inFlight(adjustmentId: number): Promise<boolean[]> {
  const rows = await t.runtime.ctx.db
    .selectFrom("stock_movements")
    .select(["push_sent_at", "pushed_at"])
    .where("store_id", "=", storeId)
    .where("subject_type", "=", "stock_adjustment")
    .where("subject_id", "=", adjustmentId)
    .orderBy("id")
    .execute();
  return rows.map((r) => r.push_sent_at !== null && r.pushed_at === null);
}

function stripKeys(calls: Array<{ key: unknown; input: unknown }>) {
  for (const call of calls) assert.match(String(call.key), KEY);
  return calls.map((c) => c.input);
}

describe("pushes to a Shopify store", () => {
  let order: { id: number; lines: Array<{ id: number }> };
  let receiptId: number;

  test("an ordered order: incoming with the order's ledger, movement_created, once", async () => {
    const since = standin.adjustCalls(domain).length;
    const before = quantities(items[0], locations[0]);
    order = await createOrderedOrder(api, {
      supplier_id: supplierId,
      location_id: locations[0],
      lines: [{ variant_id: variants[0], quantity: 5, unit_cost: 4 }],
    });
    await t.drain();
    assert.deepEqual(stripKeys(callsAfter(since)), [
      {
        name: "incoming",
        reason: "movement_created",
        referenceDocumentUri: `gid://stockroom/PurchaseOrder/${order.id}`,
        changes: [change(items[0], locations[0], 5, `stockroom://purchase-orders/${order.id}`)],
      },
    ]);
    assert.deepEqual(quantities(items[0], locations[0]), { ...before, incoming: before.incoming + 5 });
    assert.deepEqual((await syncOf(`/v2/purchase_orders/${order.id}`)).state, "synced");
    await t.drain();
    assert.equal(callsAfter(since).length, 1, "nothing sent twice");
  });

  test("a receipt: available received and incoming taken back, then the cost; once", async () => {
    const since = standin.adjustCalls(domain).length;
    const requestsBefore = standin.requests.length;
    const before = quantities(items[0], locations[0]);
    const res = await api.post(
      `/v2/purchase_orders/${order.id}/receipts`,
      { lines: [{ line_id: order.lines[0].id, quantity: 3 }] },
      idempotencyKey("receipt"),
    );
    expectStatus(res, 201);
    receiptId = res.body.data.id;
    await t.drain();
    assert.deepEqual(stripKeys(callsAfter(since)), [
      {
        name: "available",
        reason: "received",
        referenceDocumentUri: `gid://stockroom/Receipt/${receiptId}`,
        changes: [change(items[0], locations[0], 3)],
      },
      {
        name: "incoming",
        reason: "received",
        referenceDocumentUri: `gid://stockroom/Receipt/${receiptId}`,
        changes: [change(items[0], locations[0], -3, `stockroom://purchase-orders/${order.id}`)],
      },
    ]);
    const costCalls = standin.requests
      .slice(requestsBefore)
      .filter((r) => r.query.includes("inventoryItemUpdate"))
      .map((r) => r.variables);
    assert.deepEqual(costCalls, [{ id0: itemGid(items[0]), cost0: "4.00000000" }]);
    assert.equal(shop.items.get(items[0])?.cost, "4.00000000");
    assert.deepEqual(quantities(items[0], locations[0]), {
      available: before.available + 3,
      on_hand: before.on_hand + 3,
      incoming: before.incoming - 3,
    });
    const sync = await syncOf(`/v2/purchase_orders/${order.id}/receipts/${receiptId}`);
    assert.deepEqual([sync.state, sync.error], ["synced", null]);
    await t.drain();
    assert.equal(callsAfter(since).length, 2, "nothing sent twice");
  });

  test("its void: the same quantities back, reason correction, once", async () => {
    const since = standin.adjustCalls(domain).length;
    const before = quantities(items[0], locations[0]);
    const res = await api.post(
      `/v2/purchase_orders/${order.id}/receipts/${receiptId}/void`,
      { note: "wrong box" },
      idempotencyKey("void"),
    );
    expectStatus(res, 200);
    await t.drain();
    assert.deepEqual(stripKeys(callsAfter(since)), [
      {
        name: "available",
        reason: "correction",
        referenceDocumentUri: `gid://stockroom/Receipt/${receiptId}`,
        changes: [change(items[0], locations[0], -3)],
      },
      {
        name: "incoming",
        reason: "correction",
        referenceDocumentUri: `gid://stockroom/Receipt/${receiptId}`,
        changes: [change(items[0], locations[0], 3, `stockroom://purchase-orders/${order.id}`)],
      },
    ]);
    assert.deepEqual(quantities(items[0], locations[0]), {
      available: before.available - 3,
      on_hand: before.on_hand - 3,
      incoming: before.incoming + 3,
    });
    await t.drain();
    assert.equal(callsAfter(since).length, 2, "nothing sent twice");
  });

  test("an applied adjustment: its reason and reference, available only, once", async () => {
    const since = standin.adjustCalls(domain).length;
    const before = quantities(items[1], locations[1]);
    const draft = await api.post("/v2/stock_adjustments", {
      location_id: locations[1],
      reason: "damaged",
      lines: [{ variant_id: variants[1], delta: -2 }],
    });
    expectStatus(draft, 201);
    const applied = await api.post(
      `/v2/stock_adjustments/${draft.body.data.id}/apply`,
      undefined,
      idempotencyKey("apply"),
    );
    expectStatus(applied, 200);
    await t.drain();
    assert.deepEqual(stripKeys(callsAfter(since)), [
      {
        name: "available",
        reason: "damaged",
        referenceDocumentUri: `gid://stockroom/StockAdjustment/${draft.body.data.id}`,
        changes: [change(items[1], locations[1], -2)],
      },
    ]);
    assert.deepEqual(quantities(items[1], locations[1]), {
      ...before,
      available: before.available - 2,
      on_hand: before.on_hand - 2,
    });
    assert.equal((await syncOf(`/v2/stock_adjustments/${draft.body.data.id}`)).state, "synced");
    await t.drain();
    assert.equal(callsAfter(since).length, 1, "nothing sent twice");
  });

  test("a userErrors refusal ends failed with Shopify's message", async () => {
    standin.refuseNextAdjust("INVALID_INVENTORY_ITEM", "The specified inventory item could not be found.");
    const draft = await api.post("/v2/stock_adjustments", {
      location_id: locations[0],
      lines: [{ variant_id: variants[2], delta: 1 }],
    });
    expectStatus(draft, 201);
    const before = quantities(items[2], locations[0]);
    expectStatus(
      await api.post(`/v2/stock_adjustments/${draft.body.data.id}/apply`, undefined, idempotencyKey("apply")),
      200,
    );
    await t.drain();
    const sync = await syncOf(`/v2/stock_adjustments/${draft.body.data.id}`);
    assert.deepEqual(
      [sync.state, sync.error],
      [
        "failed",
        "Shopify refused inventoryAdjustQuantities (available): The specified inventory item could not be found. (INVALID_INVENTORY_ITEM)",
      ],
    );
    assert.deepEqual(quantities(items[2], locations[0]), before, "nothing moved on Shopify");
  });

  test("an outage: the push waits pending with the error, and ends synced after it", async () => {
    const since = standin.adjustCalls(domain).length;
    const before = quantities(items[2], locations[1]);
    await standin.startOutage("5xx");
    const draft = await api.post("/v2/stock_adjustments", {
      location_id: locations[1],
      lines: [{ variant_id: variants[2], delta: 4 }],
    });
    expectStatus(
      await api.post(`/v2/stock_adjustments/${draft.body.data.id}/apply`, undefined, idempotencyKey("apply")),
      200,
    );
    await t.drain();
    const waiting = await syncOf(`/v2/stock_adjustments/${draft.body.data.id}`);
    assert.deepEqual([waiting.state, waiting.error], ["pending", `Shopify answered 503 for ${domain}`]);
    assert.deepEqual(await inFlight(draft.body.data.id), [true], "a 503 may have been executed");
    await standin.endOutage();
    (t.clock as ManualClock).advance(10_000);
    await t.drain();
    const sync = await syncOf(`/v2/stock_adjustments/${draft.body.data.id}`);
    assert.deepEqual([sync.state, sync.error], ["synced", null]);
    assert.equal(callsAfter(since).length, 1, "sent once, when Shopify answered");
    assert.deepEqual(quantities(items[2], locations[1]), {
      ...before,
      available: before.available + 4,
      on_hand: before.on_hand + 4,
    });
  });

  test("connections refused: the push waits, not in flight, and ends synced after it", async () => {
    const before = quantities(items[1], locations[1]);
    await standin.startOutage("refused");
    let id: number;
    try {
      const draft = await api.post("/v2/stock_adjustments", {
        location_id: locations[1],
        lines: [{ variant_id: variants[1], delta: 2 }],
      });
      id = draft.body.data.id;
      expectStatus(
        await api.post(`/v2/stock_adjustments/${id}/apply`, undefined, idempotencyKey("apply")),
        200,
      );
      await t.drain();
      assert.equal((await syncOf(`/v2/stock_adjustments/${id}`)).state, "pending");
      assert.deepEqual(await inFlight(id), [false], "no byte of it was sent");
    } finally {
      await standin.endOutage();
    }
    (t.clock as ManualClock).advance(10_000);
    await t.drain();
    assert.deepEqual((await syncOf(`/v2/stock_adjustments/${id}`)).state, "synced");
    assert.deepEqual(await inFlight(id), [false]);
    assert.deepEqual(quantities(items[1], locations[1]), {
      ...before,
      available: before.available + 2,
      on_hand: before.on_hand + 2,
    });
  });

  test("THROTTLED: retried in the attempt, and past the retries the push waits and ends synced", async () => {
    const since = standin.adjustCalls(domain).length;
    const before = quantities(items[0], locations[1]);
    const apply = async (delta: number) => {
      const draft = await api.post("/v2/stock_adjustments", {
        location_id: locations[1],
        lines: [{ variant_id: variants[0], delta }],
      });
      expectStatus(
        await api.post(
          `/v2/stock_adjustments/${draft.body.data.id}/apply`,
          undefined,
          idempotencyKey("apply"),
        ),
        200,
      );
      return draft.body.data.id as number;
    };
    // Two THROTTLED answers: the client waits and tries again under the same key, within the attempt.
    standin.throttleNext(2);
    const first = await apply(1);
    await t.drain();
    assert.deepEqual((await syncOf(`/v2/stock_adjustments/${first}`)).state, "synced");
    const firstCalls = callsAfter(since);
    assert.equal(firstCalls.length, 3, "two throttled tries and the one that applied");
    assert.equal(new Set(firstCalls.map((c) => c.key)).size, 1, "one key for the three tries");

    // Throttled beyond the client's retries: the attempt is transient, the record waits, the retry syncs.
    standin.throttleNext(5);
    const second = await apply(2);
    await t.drain();
    const waiting = await syncOf(`/v2/stock_adjustments/${second}`);
    assert.deepEqual(
      [waiting.state, waiting.error],
      ["pending", `Shopify throttled ${domain} 5 times in a row`],
    );
    assert.deepEqual(await inFlight(second), [false], "a throttled call is not executed");
    // It waits for the bucket to refill (the stand-in's is full: the least wait, 1 s), spending no
    // attempt, rather than the 10 s of a failed attempt's backoff.
    const job = await t.runtime.ctx.db
      .selectFrom("jobs")
      .select(["attempts", "run_at"])
      .where("type", "=", "platform.push")
      .where("state", "=", "queued")
      .where("store_id", "=", storeId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(job, { attempts: 0, run_at: new Date(t.clock.now().getTime() + 1_000) });
    (t.clock as ManualClock).advance(1_000);
    await t.drain();
    const sync = await syncOf(`/v2/stock_adjustments/${second}`);
    assert.deepEqual([sync.state, sync.error], ["synced", null]);
    assert.deepEqual(quantities(items[0], locations[1]), {
      ...before,
      available: before.available + 3,
      on_hand: before.on_hand + 3,
    });
  });

  test("a refused token disconnects the shop: pushes wait, reads work, a new token resumes them", async () => {
    standin.tokens.revoke(shop);
    const since = standin.adjustCalls(domain).length;
    const before = quantities(items[1], locations[0]);
    const adjust = async (delta: number) => {
      const draft = await api.post("/v2/stock_adjustments", {
        location_id: locations[0],
        lines: [{ variant_id: variants[1], delta }],
      });
      expectStatus(
        await api.post(
          `/v2/stock_adjustments/${draft.body.data.id}/apply`,
          undefined,
          idempotencyKey("apply"),
        ),
        200,
      );
      return draft.body.data.id as number;
    };
    const first = await adjust(2);
    await t.drain();
    const store = await t.admin.get(`/admin/stores/${storeId}`);
    assert.deepEqual(
      [store.body.data.shopify.status, store.body.data.shopify.disconnected_reason],
      ["disconnected", TOKEN_REFUSED_REASON],
    );
    const message = disconnectedMessage({ shop: domain, disconnected_reason: TOKEN_REFUSED_REASON });
    const waiting = await syncOf(`/v2/stock_adjustments/${first}`);
    assert.deepEqual([waiting.state, waiting.error], ["pending", message]);

    // Another push while disconnected is not even tried; reads keep working.
    const requestsBefore = standin.requests.length;
    const second = await adjust(3);
    await t.drain();
    assert.equal(standin.requests.length, requestsBefore, "nothing sent to a disconnected shop");
    assert.deepEqual(
      [
        (await syncOf(`/v2/stock_adjustments/${second}`)).state,
        (await syncOf(`/v2/stock_adjustments/${second}`)).error,
      ],
      ["pending", message],
    );
    expectStatus(await api.get("/v2/variants?limit=10"), 200);
    const jobs = await t.runtime.ctx.db
      .selectFrom("jobs")
      .select(["state", "attempts"])
      .where("type", "=", "platform.push")
      .where("store_id", "=", storeId)
      .where("state", "=", "queued")
      .execute();
    assert.deepEqual(jobs, [
      { state: "queued", attempts: 0 },
      { state: "queued", attempts: 0 },
    ]);

    const fresh = standin.tokens.issueFixed(
      shop,
      "read_products,read_inventory,write_inventory,read_locations",
    );
    const patched = await t.admin.patch(`/admin/stores/${storeId}`, { shopify: { access_token: fresh } });
    expectStatus(patched, 200);
    assert.deepEqual(
      [patched.body.data.shopify.status, patched.body.data.shopify.disconnected_reason],
      ["connected", null],
    );
    await t.drain();
    for (const id of [first, second]) {
      const sync = await syncOf(`/v2/stock_adjustments/${id}`);
      assert.deepEqual([sync.state, sync.error], ["synced", null]);
    }
    // The stand-in logs only requests whose token it knows: each document went once, after the new token.
    const sent = stripKeys(callsAfter(since)) as Array<{ changes: Array<{ delta: number }> }>;
    assert.deepEqual(sent.map((c) => c.changes[0].delta).sort(), [2, 3]);
    assert.deepEqual(quantities(items[1], locations[0]), {
      ...before,
      available: before.available + 5,
      on_hand: before.on_hand + 5,
    });
  });
});

describe("a push whose key Shopify is still processing", () => {
  test("IDEMPOTENCY_CONCURRENT_REQUEST: sent again under its key within a second, synced in that attempt", async () => {
    const since = standin.adjustCalls(domain).length;
    const before = quantities(items[2], locations[0]);
    const draft = await api.post("/v2/stock_adjustments", {
      location_id: locations[0],
      lines: [{ variant_id: variants[2], delta: 4 }],
    });
    expectStatus(draft, 201);
    const applied = await api.post(
      `/v2/stock_adjustments/${draft.body.data.id}/apply`,
      undefined,
      idempotencyKey("apply"),
    );
    expectStatus(applied, 200);
    // Shopify answers the first send as in progress under its key (another request holds it).
    standin.refuseNextAdjust(
      "IDEMPOTENCY_CONCURRENT_REQUEST",
      "This request is currently in progress, please try again.",
    );
    const started = Date.now();
    await t.drain();
    const calls = callsAfter(since);
    // Was: a failed attempt, the record pending until the push's 10 s backoff (the clock stands still).
    assert.equal(calls.length, 2);
    assert.equal(calls[0].key, calls[1].key);
    assert.ok(Date.now() - started >= 500, "not at once");
    const sync = await syncOf(`/v2/stock_adjustments/${draft.body.data.id}`);
    assert.deepEqual([sync.state, sync.error], ["synced", null]);
    assert.deepEqual(quantities(items[2], locations[0]), {
      ...before,
      available: before.available + 4,
      on_hand: before.on_hand + 4,
    });
  });
});
