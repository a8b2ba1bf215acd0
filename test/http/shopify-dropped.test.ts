/**
 * What Shopify drops, the mirror drops (docs/decisions.md, "Shopify webhooks and reconciliation"): a
 * location deleted there becomes inactive here (out of GET /v2/locations, `active: false` by id) and
 * its levels leave the lists; a level deactivated there (the item no longer stocked at the location)
 * leaves /v2/inventory_levels, by its webhook or, the webhook lost, by reconciliation, but not while
 * a push of it is in flight; a receipt or an adjustment naming what is gone is a 422, and nothing is
 * sent to Shopify. The level stocked again comes back.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../src/clock.ts";
import { reconcileShop } from "../../src/platform/shopify/inbound/index.ts";
import { dropLevelsShopifyLacks } from "../../src/platform/shopify/inbound/level-dropped.ts";
import type { Client, TestApp } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import { freePort } from "../helpers/child-server.ts";
import {
  createDraftOrder,
  createOrderedOrder,
  createSupplier,
  idempotencyKey,
} from "../helpers/factories.ts";
import { attachByToken, standinShop, startShopifyTestApp, storeApi } from "../helpers/shopify.ts";
import { mirrorLevelRow } from "../helpers/stock.ts";
import type { ShopifyStandin } from "../shopify-standin/index.ts";
import type { ShopState } from "../shopify-standin/state.ts";

let t: TestApp;
let standin: ShopifyStandin;
let clock: ManualClock;

before(async () => {
  const port = await freePort();
  clock = new ManualClock();
  ({ t, standin } = await startShopifyTestApp({
    app: { env: { SHOPIFY_APP_URL: `http://127.0.0.1:${port}` }, clock },
  }));
  await t.runtime.app.listen({ port, host: "127.0.0.1" });
});
after(async () => {
  await standin.close();
  await t.close();
});

/** Waits for the stand-in's deliveries in flight, then runs the jobs they queued. */
async function settle(): Promise<void> {
  await standin.webhooks.settled();
  clock.advance(1000);
  await t.drain();
}

interface Attached {
  shop: ShopState;
  domain: string;
  storeId: number;
  api: Client;
  supplierId: number;
  /** Variant ids and their items, in the shop's order. */
  variants: number[];
  items: number[];
  locations: number[];
}

/** A shop of 2 products at 2 locations, attached, imported, with a supplier. */
async function attached(): Promise<Attached> {
  const { shop, domain, accessToken } = standinShop(standin, { products: 2, locations: 2 });
  const store = await attachByToken(t, domain, accessToken);
  await t.drain();
  const api = await storeApi(t, store.id);
  const variants = [...shop.variants.keys()];
  return {
    shop,
    domain,
    storeId: store.id,
    api,
    supplierId: (await createSupplier(api)).id,
    variants,
    items: variants.map((v) => shop.variants.get(v)!.inventoryItemId),
    locations: [...shop.locations.keys()],
  };
}

const levelsAt = async (api: Client, query: string) => {
  const res = await api.get(`/v2/inventory_levels?limit=250&${query}`);
  expectStatus(res, 200);
  return res.body.data as Array<{ inventory_item_id: number; location_id: number; available: number }>;
};

async function receive(a: Attached, orderId: number, lines: Array<{ line_id: number; quantity: number }>) {
  return a.api.post(`/v2/purchase_orders/${orderId}/receipts`, { lines }, idempotencyKey("receipt"));
}

async function preview(a: Attached, orderId: number, lines: Array<{ line_id: number; quantity: number }>) {
  return a.api.post(`/v2/purchase_orders/${orderId}/receipts/preview`, { lines });
}

async function draftAdjustment(a: Attached, locationId: number, variantId: number) {
  const res = await a.api.post("/v2/stock_adjustments", {
    location_id: locationId,
    lines: [{ variant_id: variantId, delta: 2 }],
  });
  expectStatus(res, 201);
  return res.body.data.id as number;
}

describe("a location deleted in Shopify", () => {
  test("becomes inactive, its levels leave the list, a receipt or an adjustment there is a 422", async () => {
    const a = await attached();
    const [kept, gone] = a.locations;
    const order = await createOrderedOrder(a.api, {
      supplier_id: a.supplierId,
      location_id: gone,
      lines: [{ variant_id: a.variants[0], quantity: 5, unit_cost: 4 }],
    });
    const draft = await draftAdjustment(a, gone, a.variants[1]);
    await t.drain();
    assert.equal((await levelsAt(a.api, `location_id=${gone}`)).length, 2);

    standin.deleteLocation(a.shop, gone);
    await settle();

    const listed = await a.api.get("/v2/locations");
    expectStatus(listed, 200);
    assert.deepEqual(
      listed.body.data.map((l: { id: number }) => l.id),
      [kept],
    );
    const byId = await a.api.get(`/v2/locations/${gone}`);
    expectStatus(byId, 200);
    assert.equal(byId.body.data.active, false);
    assert.deepEqual(await levelsAt(a.api, `location_id=${gone}`), []);
    assert.equal((await levelsAt(a.api, `location_id=${kept}`)).length, 2);

    const calls = standin.adjustCalls(a.domain).length;
    const received = await receive(a, order.id, [{ line_id: order.lines[0].id, quantity: 2 }]);
    expectStatus(received, 422);
    assert.equal(received.body.error.code, "validation_failed");
    assert.deepEqual(
      received.body.error.details.map((d: { field: string; code: string }) => [d.field, d.code]),
      [["location_id", "inactive"]],
    );
    // The preview refuses exactly what the receipt refuses.
    const previewed = await preview(a, order.id, [{ line_id: order.lines[0].id, quantity: 2 }]);
    expectStatus(previewed, 422);
    assert.deepEqual(previewed.body.error, received.body.error);
    const applied = await a.api.post(`/v2/stock_adjustments/${draft}/apply`, {}, idempotencyKey("apply"));
    expectStatus(applied, 422);
    assert.deepEqual(
      applied.body.error.details.map((d: { field: string; code: string }) => [d.field, d.code]),
      [["location_id", "inactive"]],
    );
    const still = await a.api.get(`/v2/stock_adjustments/${draft}`);
    assert.equal(still.body.data.status, "draft");
    await t.drain();
    assert.equal(standin.adjustCalls(a.domain).length, calls, "nothing was pushed");
  });
});

describe("a location deactivated in Shopify, then deleted", () => {
  test("its levels leave the list at the deletion, not at the next reconciliation", async () => {
    const a = await attached();
    const [kept, gone] = a.locations;
    standin.deactivateLocation(a.shop, gone);
    await settle();
    const byId = await a.api.get(`/v2/locations/${gone}`);
    expectStatus(byId, 200);
    assert.equal(byId.body.data.active, false);

    standin.deleteLocation(a.shop, gone);
    await settle();
    assert.deepEqual(await levelsAt(a.api, `location_id=${gone}`), []);
    assert.equal((await levelsAt(a.api, `location_id=${kept}`)).length, 2);
  });
});

/** A refusal's (field, code) pairs. */
const detailsOf = (res: { body: { error: { details: Array<{ field: string; code: string }> } } }) =>
  res.body.error.details.map((d) => [d.field, d.code]);

describe("a location deleted in Shopify, named in a request", () => {
  test("is `inactive` wherever a body names it (receipt and its preview, order, line, adjustment); an id the store never had stays `not_found`", async () => {
    const a = await attached();
    const [kept, gone] = a.locations;
    const order = await createOrderedOrder(a.api, {
      supplier_id: a.supplierId,
      location_id: kept,
      lines: [{ variant_id: a.variants[0], quantity: 5, unit_cost: 4 }],
    });
    standin.deleteLocation(a.shop, gone);
    await settle();
    const calls = standin.adjustCalls(a.domain).length;

    const lines = [{ line_id: order.lines[0].id, quantity: 2 }];
    const received = await a.api.post(
      `/v2/purchase_orders/${order.id}/receipts`,
      { location_id: gone, lines },
      idempotencyKey("receipt"),
    );
    expectStatus(received, 422);
    assert.equal(received.body.error.code, "validation_failed");
    assert.deepEqual(detailsOf(received), [["location_id", "inactive"]]);
    const previewed = await a.api.post(`/v2/purchase_orders/${order.id}/receipts/preview`, {
      location_id: gone,
      lines,
    });
    expectStatus(previewed, 422);
    assert.deepEqual(previewed.body.error, received.body.error);
    const unordered = await a.api.post(
      `/v2/purchase_orders/${order.id}/receipts`,
      { unordered: [{ variant_id: a.variants[1], quantity: 1, unit_cost: 4, location_id: gone }] },
      idempotencyKey("receipt"),
    );
    expectStatus(unordered, 422);
    assert.deepEqual(detailsOf(unordered), [["unordered.0.location_id", "inactive"]]);
    const unknown = await a.api.post(
      `/v2/purchase_orders/${order.id}/receipts`,
      { location_id: 424242, lines },
      idempotencyKey("receipt"),
    );
    expectStatus(unknown, 422);
    assert.deepEqual(detailsOf(unknown), [["location_id", "not_found"]]);

    const newOrder = await a.api.post("/v2/purchase_orders", {
      supplier_id: a.supplierId,
      location_id: gone,
      lines: [{ variant_id: a.variants[0], quantity: 1, unit_cost: 4, location_id: gone }],
    });
    expectStatus(newOrder, 422);
    assert.deepEqual(detailsOf(newOrder), [
      ["location_id", "inactive"],
      ["lines.0.location_id", "inactive"],
    ]);
    const adjustment = await a.api.post("/v2/stock_adjustments", {
      location_id: gone,
      lines: [{ variant_id: a.variants[1], delta: 2 }],
    });
    expectStatus(adjustment, 422);
    assert.deepEqual(detailsOf(adjustment), [["location_id", "inactive"]]);

    const shown = await a.api.get(`/v2/purchase_orders/${order.id}`);
    assert.deepEqual([shown.body.data.status, shown.body.data.lines[0].received_quantity], ["ordered", 0]);
    await t.drain();
    assert.equal(standin.adjustCalls(a.domain).length, calls, "nothing was pushed");
  });

  test("an order's incoming there (mark_ordered) is 422 `inactive`, the order still a draft, nothing pushed", async () => {
    const a = await attached();
    const [, gone] = a.locations;
    const draft = await createDraftOrder(a.api, {
      supplier_id: a.supplierId,
      location_id: gone,
      lines: [{ variant_id: a.variants[0], quantity: 5, unit_cost: 4 }],
    });
    standin.deleteLocation(a.shop, gone);
    await settle();
    const calls = standin.adjustCalls(a.domain).length;

    const marked = await a.api.post(`/v2/purchase_orders/${draft.id}/mark_ordered`, {});
    expectStatus(marked, 422);
    assert.equal(marked.body.error.code, "validation_failed");
    assert.deepEqual(detailsOf(marked), [["location_id", "inactive"]]);
    assert.equal((await a.api.get(`/v2/purchase_orders/${draft.id}`)).body.data.status, "draft");
    await t.drain();
    assert.equal(standin.adjustCalls(a.domain).length, calls, "nothing was pushed");
  });

  test("a void of a receipt there is 422 `inactive`, the receipt still booked, nothing pushed", async () => {
    const a = await attached();
    const [, gone] = a.locations;
    const ordered = await createOrderedOrder(a.api, {
      supplier_id: a.supplierId,
      location_id: gone,
      lines: [{ variant_id: a.variants[1], quantity: 5, unit_cost: 4 }],
    });
    const receipt = await receive(a, ordered.id, [{ line_id: ordered.lines[0].id, quantity: 2 }]);
    expectStatus(receipt, 201);
    await t.drain();
    standin.deleteLocation(a.shop, gone);
    await settle();
    const calls = standin.adjustCalls(a.domain).length;

    const receiptId = receipt.body.data.id;
    const voided = await a.api.post(
      `/v2/purchase_orders/${ordered.id}/receipts/${receiptId}/void`,
      {},
      idempotencyKey("void"),
    );
    expectStatus(voided, 422);
    assert.deepEqual(detailsOf(voided), [["location_id", "inactive"]]);
    const shown = await a.api.get(`/v2/purchase_orders/${ordered.id}/receipts/${receiptId}`);
    expectStatus(shown, 200);
    assert.equal(shown.body.data.voided_at, null);
    const after = await a.api.get(`/v2/purchase_orders/${ordered.id}`);
    assert.deepEqual([after.body.data.status, after.body.data.lines[0].received_quantity], ["partial", 2]);
    await t.drain();
    assert.equal(standin.adjustCalls(a.domain).length, calls, "nothing was pushed");
  });
});

describe("a level deactivated in Shopify (the item no longer stocked at the location)", () => {
  test("leaves the list by its webhook; a receipt or an adjustment of it is a 422; stocked again, it is back", async () => {
    const a = await attached();
    const [at] = a.locations;
    const order = await createOrderedOrder(a.api, {
      supplier_id: a.supplierId,
      location_id: at,
      lines: [
        { variant_id: a.variants[0], quantity: 5, unit_cost: 4 },
        { variant_id: a.variants[1], quantity: 5, unit_cost: 4 },
      ],
    });
    const draft = await draftAdjustment(a, at, a.variants[0]);
    await t.drain();

    standin.deactivateLevel(a.shop, a.items[0], at);
    await settle();

    assert.equal(await mirrorLevelRow(a.api, a.items[0], at), undefined);
    assert.notEqual(await mirrorLevelRow(a.api, a.items[1], at), undefined);
    assert.notEqual(await mirrorLevelRow(a.api, a.items[0], a.locations[1]), undefined);

    const calls = standin.adjustCalls(a.domain).length;
    const received = await receive(a, order.id, [
      { line_id: order.lines[0].id, quantity: 2 },
      { line_id: order.lines[1].id, quantity: 2 },
    ]);
    expectStatus(received, 422);
    assert.deepEqual(
      received.body.error.details.map((d: { field: string; code: string }) => [d.field, d.code]),
      [["lines.0", "not_stocked"]],
    );
    const previewed = await preview(a, order.id, [
      { line_id: order.lines[0].id, quantity: 2 },
      { line_id: order.lines[1].id, quantity: 2 },
    ]);
    expectStatus(previewed, 422);
    assert.deepEqual(previewed.body.error, received.body.error);
    const applied = await a.api.post(`/v2/stock_adjustments/${draft}/apply`, {}, idempotencyKey("apply"));
    expectStatus(applied, 422);
    assert.deepEqual(
      applied.body.error.details.map((d: { field: string; code: string }) => [d.field, d.code]),
      [["lines.0.variant_id", "not_stocked"]],
    );
    await t.drain();
    assert.equal(standin.adjustCalls(a.domain).length, calls, "nothing was pushed");

    // Stocked there again (Shopify's inventoryActivate: a new level, a new updatedAt): the sync its
    // webhook queues brings it, and it takes stock again.
    clock.advance(2000);
    a.shop.stock(a.items[0], at, 0);
    standin.setQuantity(a.shop, a.items[0], at, "available", 3);
    await settle();
    assert.equal((await mirrorLevelRow(a.api, a.items[0], at))?.available, 3);
    expectStatus(await preview(a, order.id, [{ line_id: order.lines[0].id, quantity: 2 }]), 200);
    const again = await receive(a, order.id, [{ line_id: order.lines[0].id, quantity: 2 }]);
    expectStatus(again, 201);
  });

  test("its webhook lost: the reconciliation pass drops it", async () => {
    const a = await attached();
    const [at] = a.locations;
    standin.webhooks.mode = "hold";
    standin.deactivateLevel(a.shop, a.items[1], at);
    standin.webhooks.mode = "auto";
    assert.deepEqual(await standin.webhooks.release({ drop: [0] }), []);
    assert.notEqual(await mirrorLevelRow(a.api, a.items[1], at), undefined);

    const pass = await reconcileShop(t.runtime.ctx, a.storeId);
    assert.equal(pass?.dropped, 1);
    assert.equal(await mirrorLevelRow(a.api, a.items[1], at), undefined);
    // Every other level stays.
    assert.equal((await levelsAt(a.api, "")).length, 3);
  });

  test("a push of it in flight keeps it listed until the push is acknowledged", async () => {
    const a = await attached();
    const [at] = a.locations;
    const draft = await draftAdjustment(a, at, a.variants[0]);
    const applied = await a.api.post(`/v2/stock_adjustments/${draft}/apply`, {}, idempotencyKey("apply"));
    expectStatus(applied, 200);
    // Shopify applies the adjustment's one call and holds its answer: the push is in flight.
    const hold = standin.holdNextAdjust();
    const draining = t.drain();
    await hold.reached;
    standin.webhooks.mode = "hold";
    standin.deactivateLevel(a.shop, a.items[0], at);
    standin.webhooks.mode = "auto";
    assert.equal(
      await dropLevelsShopifyLacks(t.runtime.ctx, a.storeId, [
        { inventoryItemId: a.items[0], locationId: at },
      ]),
      1,
    );
    // Dropped, but its push is out: still listed, with the adjustment's units.
    assert.equal((await mirrorLevelRow(a.api, a.items[0], at))?.available, 12);
    hold.release();
    await draining;
    // Acknowledged (its level read back absent: gone after the call applied), then forgotten.
    const shown = await a.api.get(`/v2/stock_adjustments/${draft}`);
    assert.deepEqual(
      [shown.body.data.platform_sync.state, shown.body.data.platform_sync.error],
      ["synced", null],
    );
    assert.equal(await mirrorLevelRow(a.api, a.items[0], at), undefined);
    await standin.webhooks.release();
    await settle();
  });
});

/** A record's platform_sync, as GET shows it. */
async function syncOf(a: Attached, path: string): Promise<[string, string | null]> {
  const shown = await a.api.get(path);
  expectStatus(shown, 200);
  return [shown.body.data.platform_sync.state, shown.body.data.platform_sync.error];
}

/** The stand-in's adjust calls since `since`: each key with the (location, delta) pairs it carried. */
function callsSince(a: Attached, since: number) {
  return standin
    .adjustCalls(a.domain)
    .slice(since)
    .map((c) => {
      const input = c.input as { changes: Array<{ locationId: string; delta: number }> };
      return [
        String(c.key).replace(/^.*:(\w+:\d+)$/, "$1"),
        input.changes.map((ch) => [Number(ch.locationId.split("/").pop()), ch.delta]),
      ];
    });
}

const incomingAt = (a: Attached, item: number, location: number) =>
  a.shop.level(item, location)?.quantities.incoming;

/**
 * An ordered order of `lines` at `locationId`, its push delivered; then `gone` deleted in Shopify and
 * the mirror told. Answers the order and how many adjustment calls the shop had by then.
 */
async function orderedThenLocationDeleted(
  a: Attached,
  gone: number,
  locationId: number,
  lines: Record<string, unknown>[],
) {
  const order = await createOrderedOrder(a.api, {
    supplier_id: a.supplierId,
    location_id: locationId,
    lines,
  });
  await t.drain();
  standin.deleteLocation(a.shop, gone);
  await settle();
  return { order, since: standin.adjustCalls(a.domain).length };
}

describe("a change taking incoming off a location deleted in Shopify", () => {
  test("closing the order: 200, synced, nothing sent for that location, the other location's retraction arrived", async () => {
    const a = await attached();
    const [kept, gone] = a.locations;
    const { order, since } = await orderedThenLocationDeleted(a, gone, kept, [
      { variant_id: a.variants[0], quantity: 5, unit_cost: 4 },
      { variant_id: a.variants[1], quantity: 3, unit_cost: 4, location_id: gone },
    ]);
    assert.equal(incomingAt(a, a.items[0], kept), 5);

    const closed = await a.api.post(`/v2/purchase_orders/${order.id}/close`, {});
    expectStatus(closed, 200);
    assert.equal(closed.body.data.status, "closed");
    await t.drain();

    assert.deepEqual(await syncOf(a, `/v2/purchase_orders/${order.id}`), ["synced", null]);
    // The first call (both retractions) is refused, Shopify having no such location: the next
    // generation sends the kept location's alone, and it applies.
    assert.deepEqual(callsSince(a, since), [
      [
        "incoming:0",
        [
          [kept, -5],
          [gone, -3],
        ],
      ],
      ["incoming:1", [[kept, -5]]],
    ]);
    assert.equal(incomingAt(a, a.items[0], kept), 0);
  });

  test("a PATCH moving the order's line to another location: 200, synced, the new location's incoming arrived", async () => {
    const a = await attached();
    const [kept, gone] = a.locations;
    const { order, since } = await orderedThenLocationDeleted(a, gone, gone, [
      { variant_id: a.variants[0], quantity: 5, unit_cost: 4 },
    ]);
    const before = incomingAt(a, a.items[0], kept);

    // An ordered order keeps its location; its line moves (the line's own location_id).
    const moved = await a.api.patch(`/v2/purchase_orders/${order.id}`, {
      lines: [{ id: order.lines[0].id, location_id: kept }],
    });
    expectStatus(moved, 200);
    assert.equal(moved.body.data.lines[0].location_id, kept);
    await t.drain();

    assert.deepEqual(await syncOf(a, `/v2/purchase_orders/${order.id}`), ["synced", null]);
    assert.deepEqual(callsSince(a, since), [
      [
        "incoming:0",
        [
          [gone, -5],
          [kept, 5],
        ],
      ],
      ["incoming:1", [[kept, 5]]],
    ]);
    assert.equal(incomingAt(a, a.items[0], kept), (before ?? 0) + 5);
  });

  test("a receipt elsewhere of an order there: 201, synced, the stock arrived, the incoming call's changes there left out", async () => {
    const a = await attached();
    const [kept, gone] = a.locations;
    const { order, since } = await orderedThenLocationDeleted(a, gone, gone, [
      { variant_id: a.variants[0], quantity: 5, unit_cost: 4 },
      { variant_id: a.variants[1], quantity: 4, unit_cost: 4 },
    ]);
    const before = a.items.map((item) => a.shop.level(item, kept)!.quantities.available);

    const received = await a.api.post(
      `/v2/purchase_orders/${order.id}/receipts`,
      {
        location_id: kept,
        lines: [
          { line_id: order.lines[0].id, quantity: 2 },
          { line_id: order.lines[1].id, quantity: 4 },
        ],
      },
      idempotencyKey("receipt"),
    );
    expectStatus(received, 201);
    await t.drain();

    const receiptPath = `/v2/purchase_orders/${order.id}/receipts/${received.body.data.id}`;
    assert.deepEqual(await syncOf(a, receiptPath), ["synced", null]);
    // Nothing is left to send under the incoming call's next generation: its changes were all there.
    assert.deepEqual(callsSince(a, since), [
      [
        "available:0",
        [
          [kept, 2],
          [kept, 4],
        ],
      ],
      [
        "incoming:0",
        [
          [gone, -2],
          [gone, -4],
        ],
      ],
    ]);
    assert.deepEqual(
      a.items.map((item) => a.shop.level(item, kept)!.quantities.available),
      [before[0] + 2, before[1] + 4],
    );
  });

  test("its push retried after an outage sends each key with the input it was first sent with; stock moves once", async () => {
    const a = await attached();
    const [kept, gone] = a.locations;
    const { order, since } = await orderedThenLocationDeleted(a, gone, gone, [
      { variant_id: a.variants[0], quantity: 5, unit_cost: 4 },
    ]);
    const before = incomingAt(a, a.items[0], kept) ?? 0;

    const moved = await a.api.patch(`/v2/purchase_orders/${order.id}`, {
      lines: [{ id: order.lines[0].id, location_id: kept }],
    });
    expectStatus(moved, 200);
    // The first generation is refused (the deleted location); Shopify applies the next one and holds
    // its answer; the outage then fails the attempt (the levels' read-back gets a 503).
    const hold = standin.holdNextAdjust();
    const draining = t.drain();
    const held = await Promise.race([hold.reached.then(() => true), draining.then(() => false)]);
    assert.ok(held, "the next generation was sent");
    await standin.startOutage("5xx");
    hold.release();
    await draining;
    assert.equal((await syncOf(a, `/v2/purchase_orders/${order.id}`))[0], "pending");
    await standin.endOutage();
    clock.advance(3_600_000);
    await t.drain();

    assert.deepEqual(await syncOf(a, `/v2/purchase_orders/${order.id}`), ["synced", null]);
    // The retry reads the generation and the location it leaves out, and sends the same key with the
    // same input (another input under that key: Shopify's parameter mismatch, failed for good).
    assert.deepEqual(callsSince(a, since), [
      [
        "incoming:0",
        [
          [gone, -5],
          [kept, 5],
        ],
      ],
      ["incoming:1", [[kept, 5]]],
      ["incoming:1", [[kept, 5]]],
    ]);
    assert.equal(incomingAt(a, a.items[0], kept), before + 5);
  });

  test("incoming added there before the mirror learnt of the deletion is not left out: Shopify's refusal stands", async () => {
    const a = await attached();
    const [kept, gone] = a.locations;
    const draft = await createDraftOrder(a.api, {
      supplier_id: a.supplierId,
      location_id: gone,
      lines: [{ variant_id: a.variants[0], quantity: 5, unit_cost: 4 }],
    });
    // The deletion's delivery held: the mirror still has the location, so mark_ordered passes.
    standin.webhooks.mode = "hold";
    standin.deleteLocation(a.shop, gone);
    standin.webhooks.mode = "auto";
    expectStatus(await a.api.post(`/v2/purchase_orders/${draft.id}/mark_ordered`, {}), 200);
    const since = standin.adjustCalls(a.domain).length;
    await t.drain();

    assert.deepEqual(await syncOf(a, `/v2/purchase_orders/${draft.id}`), [
      "failed",
      "Shopify refused inventoryAdjustQuantities (incoming): The specified location could not be found. (INVALID_LOCATION)",
    ]);
    assert.deepEqual(callsSince(a, since), [["incoming:0", [[gone, 5]]]]);
    assert.equal(incomingAt(a, a.items[0], kept), 0);
    await standin.webhooks.release();
    await settle();
  });
});
