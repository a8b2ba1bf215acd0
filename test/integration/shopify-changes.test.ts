/**
 * The Shopify connector as a PlatformConnector against the stand-in (issue 19 items 1 and 5): the
 * import, then incremental `updated_at:>` reads with an overlap window and a watermark per resource,
 * and pushes through the same object.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Dispatcher } from "undici";
import type { CatalogChanges } from "../../src/platform/connector.ts";
import { InProcessCostBudget } from "../../src/platform/shopify/budget.ts";
import { OVERLAP_MS } from "../../src/platform/shopify/catalog-incremental.ts";
import { ShopifyClient } from "../../src/platform/shopify/client.ts";
import { ShopifyConnector } from "../../src/platform/shopify/connector.ts";
import { InMemoryAttemptGenerations } from "../../src/platform/shopify/generations.ts";
import { createShopifyAgent } from "../../src/platform/shopify/http.ts";
import { shopifyEndpointSettings } from "../../src/platform/shopify/settings.ts";
import { type ShopifyStandin, startShopifyStandin } from "../shopify-standin/index.ts";
import type { ShopState } from "../shopify-standin/state.ts";
import { shopifyDateTime } from "../shopify-standin/time.ts";

let clock = Date.parse("2026-11-02T10:00:00Z");
const now = () => clock;
let agent: Dispatcher;
let standin: ShopifyStandin;
let shop: ShopState;
let connector: ShopifyConnector;

const summary = (c: CatalogChanges) => ({
  locations: c.locations.map((l) => l.id),
  products: c.products.map((p) => p.id),
  variants: c.variants.map((v) => v.id),
  // When each read began differs between reads of the same rows; asserted on its own.
  itemCosts: c.itemCosts.map(({ readAt: _, ...cost }) => cost),
  levels: c.levels.map((l) => [l.inventoryItemId, l.locationId, l.available, l.onHand]),
  hasMore: c.hasMore,
});

before(async () => {
  agent = createShopifyAgent(10_000);
  standin = await startShopifyStandin({ now, bulkDurationMs: null });
  const added = standin.addShop("changes.myshopify.com", { currency: "USD" });
  shop = added.shop;
  shop.seed({ products: 3, variantsPerProduct: 2, locations: 2 });
  const client = new ShopifyClient({
    shop: "changes.myshopify.com",
    accessToken: added.accessToken,
    settings: shopifyEndpointSettings({ SHOPIFY_ADMIN_ORIGIN: standin.origin }),
    budget: new InProcessCostBudget(now),
    // The test's clock, which stands still during a read: a watermark is the newest updatedAt read
    // less the read's own length by this clock (nextWatermark), here the newest exactly.
    now: () => new Date(clock),
    dispatcher: agent,
    sleep: async (ms) => {
      clock += ms;
    },
  });
  connector = new ShopifyConnector({
    client,
    shopCurrency: "USD",
    generations: new InMemoryAttemptGenerations(),
    dispatcher: agent,
    timeoutMs: 10_000,
    pollWait: async () => {
      standin.completeBulkOperations();
    },
  });
});

after(async () => {
  await agent.close();
  await standin.close();
});

describe("the change feed after the import", () => {
  let t0: string;
  let watermark: string;
  let first: CatalogChanges;
  const products = () => [...shop.products.values()];
  const variantsOf = (n: number) => shop.variantsByProduct.get(products()[n].id)!;
  const places = () => [...shop.locations.keys()];

  before(async () => {
    clock += 5 * 60_000; // the catalog is older than the overlap window when the import starts
    t0 = shopifyDateTime(new Date(clock));
    const imported = await connector.listChanges(null, 5000);
    assert.equal(imported.hasMore, false);
    assert.equal(imported.variants.length, 6);
    watermark = imported.watermark;
  });

  it("starts where the import's bulk operation started, for every resource", () => {
    assert.deepEqual(JSON.parse(watermark), {
      since: { products: t0, variants: t0, inventoryItems: t0, locations: t0, levels: t0 },
    });
  });

  it("reads each resource changed after its watermark, mapped as the import maps it", async () => {
    clock += 10 * 60_000;
    const t1 = new Date(clock);
    const edited = variantsOf(1)[1];
    standin.editVariant(shop, edited.id, { sku: "NEW-SKU", price: "30.00" });
    const levelItem = variantsOf(2)[0].inventoryItemId;
    standin.setQuantity(shop, levelItem, places()[1], "available", 4);
    const costItem = shop.items.get(variantsOf(0)[0].inventoryItemId)!;
    costItem.cost = "9.99";
    costItem.updatedAt = t1;
    const annex = shop.addLocation("Annex");

    first = await connector.listChanges(watermark, 5000);
    assert.deepEqual(summary(first), {
      locations: [annex.id],
      products: [products()[1].id],
      // The cost item's variant is read again by id: an item's change may be a weight, which lives
      // on the item but is mapped onto its variant (Shopify does not move the variant's updatedAt).
      variants: [variantsOf(0)[0].id, edited.id],
      itemCosts: [{ inventoryItemId: costItem.id, unitCost: "9.99", currency: "USD", updatedAt: t1 }],
      levels: [[levelItem, places()[1], 4, 4]],
      hasMore: false,
    });
    // The items' read began at T1 (the service's clock): a cost a push set before is in it.
    assert.deepEqual(first.itemCosts[0].readAt, t1);
    const variant = first.variants.find((v) => v.id === edited.id)!;
    assert.deepEqual(
      [variant.productId, variant.sku, variant.price, variant.position, variant.updatedAt],
      [products()[1].id, "NEW-SKU", "30.00", 2, t1],
    );
    assert.deepEqual(
      [first.locations[0].name, first.locations[0].active, first.products[0].updatedAt],
      ["Annex", true, t1],
    );
    const iso = shopifyDateTime(t1);
    assert.deepEqual(JSON.parse(first.watermark), {
      since: { products: iso, variants: iso, inventoryItems: iso, locations: iso, levels: iso },
    });
  });

  it("reads rows within the overlap window again, and nothing older", async () => {
    clock += OVERLAP_MS - 1000;
    const again = await connector.listChanges(first.watermark, 5000);
    assert.deepEqual(summary(again), summary(first));
    assert.equal(again.watermark, first.watermark);

    clock += 10 * 60_000;
    const t2 = shopifyDateTime(new Date(clock));
    const item = variantsOf(0)[1].inventoryItemId;
    standin.setQuantity(shop, item, places()[0], "available", 7);
    const later = await connector.listChanges(again.watermark, 5000);
    // Levels read after the T1 watermark less the overlap: the T1 level again, and the new one.
    const t1Level = [variantsOf(2)[0].inventoryItemId, places()[1], 4, 4];
    assert.deepEqual(summary(later), {
      ...summary(first),
      levels: [[item, places()[0], 7, 7], t1Level].sort((a, b) => a[0] - b[0] || a[1] - b[1]),
    });
    const t1 = JSON.parse(first.watermark).since.products;
    assert.deepEqual(JSON.parse(later.watermark), {
      since: { products: t1, variants: t1, inventoryItems: t1, locations: t1, levels: t2 },
    });
    // Now the levels' watermark is T2: the T1 level is older than its overlap and is not read again;
    // the other resources' watermarks are still T1, whose rows they keep reading.
    const last = await connector.listChanges(later.watermark, 5000);
    assert.deepEqual(summary(last), { ...summary(first), levels: [[item, places()[0], 7, 7]] });
    assert.equal(last.watermark, later.watermark);
  });

  it("pushes through the same connector", async () => {
    const item = variantsOf(2)[1].inventoryItemId;
    const result = await connector.adjustInventory({
      idempotencyKey: "stockroom-1-movement-77",
      reason: "restock",
      referenceDocumentUri: "stockroom://stock_adjustments/5",
      changes: [{ name: "available", inventoryItemId: item, locationId: places()[0], delta: 2 }],
      itemCosts: [],
    });
    assert.deepEqual(
      result.levels.map((l) => [l.inventoryItemId, l.locationId, l.available, l.onHand]),
      [[item, places()[0], 12, 12]],
    );
    assert.equal(connector.platform, "shopify");
  });
});

describe("an incremental read past Shopify's paging cutoff", () => {
  // Shopify stops paging at 25,000 objects; this shop (and the connector told so) stops at 20.
  const CUTOFF = 20;
  let bulkShop: ShopState;
  let bulkConnector: ShopifyConnector;
  let watermark: string;
  const domain = "bulk-edit.myshopify.com";
  const bulkRuns = () =>
    standin.requests
      .filter((r) => r.shop === domain && r.query.includes("bulkOperationRunQuery"))
      .map((r) => String(r.variables.query).replace(/\s+/g, " "));

  before(async () => {
    const added = standin.addShop(domain, { currency: "USD" });
    bulkShop = added.shop;
    bulkShop.seed({ products: 10, variantsPerProduct: 3, locations: 1 });
    bulkShop.pagingLimit = CUTOFF;
    bulkConnector = new ShopifyConnector({
      client: new ShopifyClient({
        shop: domain,
        accessToken: added.accessToken,
        settings: shopifyEndpointSettings({ SHOPIFY_ADMIN_ORIGIN: standin.origin }),
        budget: new InProcessCostBudget(now),
        now: () => new Date(clock),
        dispatcher: agent,
        sleep: async (ms) => {
          clock += ms;
        },
      }),
      shopCurrency: "USD",
      generations: new InMemoryAttemptGenerations(),
      dispatcher: agent,
      timeoutMs: 10_000,
      pollWait: async () => {
        standin.completeBulkOperations();
      },
      pagingLimit: CUTOFF,
    });
    clock += 5 * 60_000;
    const imported = await bulkConnector.listChanges(null, 5000);
    assert.equal(imported.variants.length, 30);
    watermark = imported.watermark;
    clock += 10 * 60_000;
  });

  it("pages while the changes stay below the cutoff", async () => {
    const runs = bulkRuns().length;
    const [variant] = bulkShop.variants.values();
    standin.editVariant(bulkShop, variant.id, { sku: "ONE-EDIT" });
    const changes = await bulkConnector.listChanges(watermark, 5000);
    assert.deepEqual(
      changes.variants.map((v) => [v.id, v.sku]),
      [[variant.id, "ONE-EDIT"]],
    );
    assert.equal(bulkRuns().length, runs, "no bulk operation for a small read");
  });

  it("reads every change of a bulk edit through a bulk operation, none silently left out", async () => {
    clock += 10 * 60_000;
    const editedAt = shopifyDateTime(new Date(clock));
    const runs = bulkRuns().length;
    const location = [...bulkShop.locations.keys()][0];
    // The merchant bulk-edits every variant's price and every level's available count.
    for (const variant of bulkShop.variants.values()) {
      standin.editVariant(bulkShop, variant.id, { price: "24.00" });
      standin.setQuantity(bulkShop, variant.inventoryItemId, location, "available", 33);
    }
    const changes = await bulkConnector.listChanges(watermark, 5000);
    assert.equal(changes.hasMore, false);
    assert.deepEqual(
      changes.variants.map((v) => [v.id, v.price]),
      [...bulkShop.variants.keys()].sort((a, b) => a - b).map((id) => [id, "24.00"]),
    );
    assert.deepEqual(
      changes.levels.map((l) => [l.inventoryItemId, l.available]),
      [...bulkShop.items.keys()].sort((a, b) => a - b).map((id) => [id, 33]),
    );
    assert.equal(changes.products.length, 10, "the products stay below the cutoff and are paged");
    const started = bulkRuns().slice(runs);
    assert.equal(started.length, 2);
    assert.match(started[0], /^\{ productVariants\(query: "updated_at:>'[^']+'"\) \{ edges \{ node \{ id /);
    assert.match(
      started[1],
      /^\{ locations\(includeInactive: true\) \{ edges \{ node \{ id inventoryLevels\(query: /,
    );
    assert.equal(standin.bulk.runningCount(bulkShop), 0);
    const next = JSON.parse(changes.watermark).since;
    assert.deepEqual([next.variants, next.levels], [editedAt, editedAt]);
  });
});
