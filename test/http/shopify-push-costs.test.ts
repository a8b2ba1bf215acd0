/**
 * Item costs on Shopify pushes (issue 19): a receipt sets an item's cost with inventoryItemUpdate (10
 * points each, the larger part of a receipt's query cost) only when it differs from what the mirror
 * last pushed or read; the stand-in charges Shopify's query cost, so the drop is measured in points.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { syncCatalog } from "../../src/platform/catalog-sync.ts";
import type { Client, TestApp } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import { createOrderedOrder, createSupplier, idempotencyKey } from "../helpers/factories.ts";
import { attachByToken, standinShop, startShopifyTestApp, storeApi } from "../helpers/shopify.ts";
import type { ShopifyStandin } from "../shopify-standin/index.ts";
import type { ShopState } from "../shopify-standin/state.ts";

let t: TestApp;
let storeId: number;
let standin: ShopifyStandin;
let shop: ShopState;
let domain: string;
let api: Client;
let supplierId: number;
let location: number;
let variants: number[];
let items: number[];

const LINES = 10;
/** Two inventoryAdjustQuantities calls (available, incoming): 10 points each. */
const ADJUST_POINTS = 20;
/** The read-back of the receipt's 10 levels under their one location: 1 + 2 a level. */
const READ_BACK_POINTS = 1 + 2 * LINES;
/** One inventoryItemUpdate. */
const COST_POINTS = 10;

before(async () => {
  ({ t, standin } = await startShopifyTestApp());
  const made = standinShop(standin, { products: LINES, locations: 1 });
  ({ shop, domain } = made);
  const store = await attachByToken(t, domain, made.accessToken);
  storeId = store.id;
  await t.drain();
  api = await storeApi(t, store.id);
  supplierId = (await createSupplier(api)).id;
  location = [...shop.locations.keys()][0];
  variants = [...shop.variants.keys()];
  items = variants.map((v) => shop.variants.get(v)!.inventoryItemId);
});
after(async () => {
  await t.close();
  await standin.close();
});

type Order = { id: number; lines: Array<{ id: number }> };

/** A receipt of a unit on every line of the order, its push queued (not run): the receipt's id. */
async function booked(order: Order): Promise<number> {
  const res = await api.post(
    `/v2/purchase_orders/${order.id}/receipts`,
    { lines: order.lines.map((l) => ({ line_id: l.id, quantity: 1 })) },
    idempotencyKey("receipt"),
  );
  expectStatus(res, 201);
  return res.body.data.id;
}

/** Every receipt's push ended synced. */
async function assertSynced(order: Order, receipts: readonly number[]): Promise<void> {
  for (const id of receipts) {
    const shown = await api.get(`/v2/purchase_orders/${order.id}/receipts/${id}`);
    assert.deepEqual(shown.body.data.platform_sync.state, "synced");
  }
}

/** The items whose cost the shop was told to set (inventoryItemUpdate) since request `since`, in order. */
function costsSetSince(since: number): number[] {
  return standin.requests
    .slice(since)
    .filter((r) => r.shop === domain && r.query.includes("inventoryItemUpdate"))
    .flatMap((r) => Object.entries(r.variables).filter(([name]) => name.startsWith("id")))
    .map(([, gid]) => Number(String(gid).split("/").pop()));
}

/** What one receipt of a unit on every line cost on Shopify: points, and the items whose cost it set. */
async function receive(order: Order) {
  const spentBefore = standin.bucketOf(domain)!.spent;
  const requestsBefore = standin.requests.length;
  const receipt = await booked(order);
  await t.drain();
  await assertSynced(order, [receipt]);
  return { points: standin.bucketOf(domain)!.spent - spentBefore, costsSet: costsSetSince(requestsBefore) };
}

/** An ordered order of a unit cost on every line, its push done. */
async function orderAt(unitCost: number): Promise<Order> {
  const order = await createOrderedOrder(api, {
    supplier_id: supplierId,
    location_id: location,
    lines: variants
      .map((id) => ({ variant_id: id, quantity: 20 }))
      .map((l) => ({ ...l, unit_cost: unitCost })),
  });
  await t.drain();
  return order;
}

/** Shopify's cost of every item, as numbers. */
const shopCosts = () => items.map((item) => Number(shop.items.get(item)!.cost));

describe("item costs on pushes", () => {
  test("only changed costs are set: unchanged ones cost nothing, a cost pushed once is not pushed again", async () => {
    // Shopify holds 7.50 for every item (the mirror read it at the import); half the lines cost 9.
    const order = await createOrderedOrder(api, {
      supplier_id: supplierId,
      location_id: location,
      lines: variants.map((id, i) => ({ variant_id: id, quantity: 3, unit_cost: i < LINES / 2 ? 7.5 : 9 })),
    });
    await t.drain();
    const changed = items.slice(LINES / 2);

    const first = await receive(order);
    assert.deepEqual(first.costsSet, changed, "the five changed costs, in one mutation");
    assert.equal(first.points, ADJUST_POINTS + READ_BACK_POINTS + changed.length * COST_POINTS);
    for (const [i, item] of items.entries())
      assert.equal(Number(shop.items.get(item)!.cost), i < LINES / 2 ? 7.5 : 9);

    // The mirror adopted the pushed costs: the next receipt at the same costs sets none.
    const second = await receive(order);
    assert.deepEqual(second.costsSet, []);
    assert.equal(second.points, ADJUST_POINTS + READ_BACK_POINTS);
    // Before, every line's cost went out on every receipt.
    const everyCost = ADJUST_POINTS + READ_BACK_POINTS + LINES * COST_POINTS;
    assert.ok(second.points * 3 < everyCost, `${second.points} points instead of ${everyCost}`);
  });

  test("receipts pushed while one carrying the same cost is out set the cost once; a changed cost still goes", async () => {
    const order = await orderAt(2.5);
    const since = standin.requests.length;
    // The first receipt's push is out: Shopify applied its first call and holds the answer, so its
    // costs (set after its calls) have not gone yet and nothing of it is acknowledged.
    const first = await booked(order);
    const hold = standin.holdNextAdjust();
    const draining = t.drain();
    await hold.reached;
    // Three more receipts at the same cost, pushed meanwhile: none sets it.
    const more = [await booked(order), await booked(order), await booked(order)];
    await t.drain();
    assert.deepEqual(costsSetSince(since), []);
    hold.release();
    await draining;
    await assertSynced(order, [first, ...more]);
    assert.deepEqual(costsSetSince(since), items, "the costs set once, by the first receipt's push");
    assert.deepEqual(
      shopCosts(),
      items.map(() => 2.5),
    );

    // Another cost goes, and so does the first again after it, each time it changes.
    const other = await orderAt(3);
    assert.deepEqual((await receive(other)).costsSet, items);
    assert.deepEqual(
      shopCosts(),
      items.map(() => 3),
    );
    assert.deepEqual((await receive(order)).costsSet, items);
    assert.deepEqual(
      shopCosts(),
      items.map(() => 2.5),
    );
    assert.deepEqual((await receive(order)).costsSet, []);
  });

  test("a cost changed by a receipt pushed while another is out goes, after the one out", async () => {
    const order = await orderAt(2.5);
    await receive(order);
    const other = await orderAt(4);
    const since = standin.requests.length;
    const first = await booked(order);
    const hold = standin.holdNextAdjust();
    const draining = t.drain();
    await hold.reached;
    // The one out sets nothing (2.50 is held); the next one's 4.00 goes while it is out.
    const next = await booked(other);
    await t.drain();
    assert.deepEqual(costsSetSince(since), items);
    hold.release();
    await draining;
    await assertSynced(order, [first]);
    await assertSynced(other, [next]);
    assert.deepEqual(costsSetSince(since), items);
    assert.deepEqual(
      shopCosts(),
      items.map(() => 4),
    );
    assert.deepEqual((await receive(other)).costsSet, []);
  });

  test("a sync that read the items before a push set their cost leaves the pushed cost in the mirror", async () => {
    const order = await orderAt(2.5);
    await receive(order);
    const other = await orderAt(5);
    // A sync reads the items while Shopify holds 2.50; its answer arrives after a push set 5.00.
    const slow = standin.holdNextAnswer("page: inventoryItems");
    const syncing = syncCatalog(t.runtime.ctx, storeId);
    await slow.reached;
    assert.deepEqual((await receive(other)).costsSet, items);
    slow.release();
    await syncing;
    assert.deepEqual(
      await mirrorCosts(),
      items.map(() => "5.00"),
    );
    // So the next receipt of that cost sets nothing, with another sync between them.
    await syncCatalog(t.runtime.ctx, storeId);
    assert.deepEqual((await receive(other)).costsSet, []);
    await syncCatalog(t.runtime.ctx, storeId);
    assert.deepEqual((await receive(other)).costsSet, []);

    // A cost the merchant sets in Shopify afterwards (in the push's second or later) is adopted, and
    // the next receipt's cost goes again.
    standin.editCost(shop, items[0], "6.00");
    await syncCatalog(t.runtime.ctx, storeId);
    assert.deepEqual(await mirrorCosts(), ["6.00", ...items.slice(1).map(() => "5.00")]);
    assert.deepEqual((await receive(other)).costsSet, [items[0]]);
    assert.deepEqual(
      shopCosts(),
      items.map(() => 5),
    );
  });
});

/** The mirror's cost of every variant, as GET /v2/variants/{id} shows it. */
async function mirrorCosts(): Promise<string[]> {
  const costs: string[] = [];
  for (const id of variants) {
    const res = await api.get(`/v2/variants/${id}`);
    expectStatus(res, 200);
    costs.push(res.body.data.unit_cost);
  }
  return costs;
}
