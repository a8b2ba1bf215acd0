/**
 * Item costs on Shopify pushes (issue 19): a receipt sets an item's cost with inventoryItemUpdate (10
 * points each, the larger part of a receipt's query cost) only when it differs from what the mirror
 * last pushed or read; the stand-in charges Shopify's query cost, so the drop is measured in points.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
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

/** What one receipt of a unit on every line cost on Shopify: points, and the items whose cost it set. */
async function receive(order: { id: number; lines: Array<{ id: number }> }) {
  const spentBefore = standin.bucketOf(domain)!.spent;
  const requestsBefore = standin.requests.length;
  const res = await api.post(
    `/v2/purchase_orders/${order.id}/receipts`,
    { lines: order.lines.map((l) => ({ line_id: l.id, quantity: 1 })) },
    idempotencyKey("receipt"),
  );
  expectStatus(res, 201);
  await t.drain();
  const shown = await api.get(`/v2/purchase_orders/${order.id}/receipts/${res.body.data.id}`);
  assert.deepEqual(shown.body.data.platform_sync.state, "synced");
  const costsSet = standin.requests
    .slice(requestsBefore)
    .filter((r) => r.shop === domain && r.query.includes("inventoryItemUpdate"))
    .flatMap((r) => Object.entries(r.variables).filter(([name]) => name.startsWith("id")))
    .map(([, gid]) => Number(String(gid).split("/").pop()));
  return { points: standin.bucketOf(domain)!.spent - spentBefore, costsSet };
}

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
});
