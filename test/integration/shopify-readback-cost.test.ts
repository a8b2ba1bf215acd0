/**
 * What reading levels back after a push costs on Shopify (issue 19): only the touched levels, under the
 * parent that makes fewer objects, charged by the stand-in as Shopify charges (object 1, the level's
 * quantities 1) and reported in each answer's `extensions.cost`.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Dispatcher } from "undici";
import type { InventoryAdjustment } from "../../src/platform/connector.ts";
import { adjustShopifyInventory } from "../../src/platform/shopify/adjust.ts";
import { InProcessCostBudget } from "../../src/platform/shopify/budget.ts";
import { ShopifyClient } from "../../src/platform/shopify/client.ts";
import { InMemoryAttemptGenerations } from "../../src/platform/shopify/generations.ts";
import { createShopifyAgent } from "../../src/platform/shopify/http.ts";
import { readLevels } from "../../src/platform/shopify/levels.ts";
import { shopifyEndpointSettings } from "../../src/platform/shopify/settings.ts";
import { type ShopifyStandin, startShopifyStandin } from "../shopify-standin/index.ts";

let clock = Date.parse("2026-11-02T10:00:00Z");
const now = () => clock;
let agent: Dispatcher;
let standin: ShopifyStandin;
let shopCount = 0;

function newShop(products: number, locations: number) {
  const domain = `readback${++shopCount}.myshopify.com`;
  const { shop, accessToken } = standin.addShop(domain, { currency: "USD" });
  shop.seed({ products, locations });
  const client = new ShopifyClient({
    shop: domain,
    accessToken,
    settings: shopifyEndpointSettings({ SHOPIFY_ADMIN_ORIGIN: standin.origin }),
    budget: new InProcessCostBudget(now),
    dispatcher: agent,
    sleep: async (ms) => {
      clock += ms;
    },
  });
  return { domain, shop, client, items: [...shop.items.keys()], places: [...shop.locations.keys()] };
}

/** The points the stand-in's bucket gave while `work` ran (requested, less what the answer gave back). */
async function pointsSpent(domain: string, work: () => Promise<unknown>): Promise<number> {
  const before = standin.bucketOf(domain)?.spent ?? 0;
  await work();
  return standin.bucketOf(domain)!.spent - before;
}

before(async () => {
  agent = createShopifyAgent(5_000);
  standin = await startShopifyStandin({ now });
});

after(async () => {
  await agent.close();
  await standin.close();
});

describe("levels read back after a push", () => {
  it("50 levels at one location are one query of 101 points, with Shopify's quantities", async () => {
    const s = newShop(50, 3);
    standin.setQuantity(s.shop, s.items[7], s.places[1], "available", 42);
    const pairs = s.items.map((inventoryItemId) => ({ inventoryItemId, locationId: s.places[1] }));
    const sentBefore = standin.requests.length;
    let levels: Awaited<ReturnType<typeof readLevels>> = [];
    const spent = await pointsSpent(s.domain, async () => {
      levels = await readLevels(s.client, pairs);
    });
    const sent = standin.requests.slice(sentBefore);
    assert.equal(sent.length, 1);
    assert.match(sent[0].query, /^query Levels\(\$p0: ID!, \$p0l0: ID!/);
    assert.match(sent[0].query, /g0: location\(id: \$p0\) \{ l0: inventoryLevel\(inventoryItemId: \$p0l0\)/);
    assert.equal(spent, 101);
    assert.equal(levels.length, 50);
    for (const level of levels) {
      const held = s.shop.level(level.inventoryItemId, level.locationId)!;
      assert.deepEqual(
        {
          inventoryItemId: level.inventoryItemId,
          locationId: level.locationId,
          available: level.available,
          onHand: level.onHand,
          committed: level.committed,
          incoming: level.incoming,
          version: level.version,
        },
        {
          inventoryItemId: held.itemId,
          locationId: held.locationId,
          available: held.quantities.available,
          onHand: held.quantities.on_hand,
          committed: held.quantities.committed,
          incoming: held.quantities.incoming,
          version: held.updatedAt.getTime(),
        },
      );
    }
    assert.equal(levels.find((l) => l.inventoryItemId === s.items[7])?.available, 42);
  });

  it("one item at three locations is read under the item: 7 points", async () => {
    const s = newShop(2, 3);
    const pairs = s.places.map((locationId) => ({ inventoryItemId: s.items[1], locationId }));
    const sentBefore = standin.requests.length;
    const spent = await pointsSpent(s.domain, () => readLevels(s.client, pairs));
    assert.match(
      standin.requests[sentBefore].query,
      /g0: inventoryItem\(id: \$p0\) \{ l0: inventoryLevel\(locationId: \$p0l0\)/,
    );
    assert.equal(spent, 7);
  });

  it("250 levels at two locations are three queries of at most 100 levels", async () => {
    const s = newShop(125, 2);
    const pairs = s.places.flatMap((locationId) =>
      s.items.map((inventoryItemId) => ({ inventoryItemId, locationId })),
    );
    const sentBefore = standin.requests.length;
    let count = 0;
    const spent = await pointsSpent(s.domain, async () => {
      count = (await readLevels(s.client, pairs)).length;
    });
    assert.equal(count, 250);
    assert.equal(standin.requests.length - sentBefore, 3);
    // 100 + 100 + 50 levels at 2 points, each chunk under one or two locations.
    assert.equal(spent, 500 + 1 + 2 + 1);
  });

  it("a missing level is a permanent error naming it", async () => {
    const s = newShop(1, 1);
    await assert.rejects(readLevels(s.client, [{ inventoryItemId: s.items[0], locationId: 999_999 }]), {
      name: "PlatformPermanentError",
      message: `Shopify has no level of inventory item ${s.items[0]} at location 999999`,
    });
  });
});

describe("a 50-line receipt on Shopify", () => {
  it("costs 621 points: two adjust calls (20), 50 item costs (500), the levels read back (101)", async () => {
    const s = newShop(50, 3);
    const place = s.places[0];
    for (const item of s.items) standin.setQuantity(s.shop, item, place, "incoming", 8);
    const document: InventoryAdjustment = {
      idempotencyKey: "stockroom-1-movements-1-100-1",
      reason: "received",
      referenceDocumentUri: "stockroom://purchase_orders/7/receipts/12",
      changes: s.items.flatMap((item) => [
        { name: "available" as const, inventoryItemId: item, locationId: place, delta: 1 },
        { name: "incoming" as const, inventoryItemId: item, locationId: place, delta: -1 },
      ]),
      itemCosts: s.items.map((item) => ({ inventoryItemId: item, unitCost: "4.00000000", currency: "USD" })),
    };
    let levels = 0;
    const spent = await pointsSpent(s.domain, async () => {
      const result = await adjustShopifyInventory(
        s.client,
        { shopCurrency: "USD", generations: new InMemoryAttemptGenerations() },
        document,
      );
      levels = result.levels.length;
    });
    assert.equal(levels, 50);
    assert.equal(spent, 621);
  });
});
