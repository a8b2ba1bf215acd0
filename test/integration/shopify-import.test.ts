/**
 * The Shopify connector's initial import against the stand-in (issue 19 items 1 and 5): a bulk query
 * over a 2,000-variant, 3-location catalog whose JSONL comes children first, handed out in batches of
 * whole products and mapped field by field.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Dispatcher } from "undici";
import type { CatalogChanges } from "../../src/platform/connector.ts";
import { InProcessCostBudget } from "../../src/platform/shopify/budget.ts";
import { importCatalogBatch } from "../../src/platform/shopify/catalog-import.ts";
import { ShopifyClient } from "../../src/platform/shopify/client.ts";
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
let client: ShopifyClient;
let polls = 0;
const deps = () => ({
  dispatcher: agent,
  timeoutMs: 10_000,
  pollWait: async () => {
    polls++;
    clock += 1000;
    standin.completeBulkOperations();
  },
});

before(async () => {
  agent = createShopifyAgent(10_000);
  standin = await startShopifyStandin({ now, bulkDurationMs: null, bulkOrder: "children-first" });
  const added = standin.addShop("big.myshopify.com", { currency: "CAD" });
  shop = added.shop;
  shop.seed({ products: 500, variantsPerProduct: 4, locations: 3 });
  // Some variety the mapping must carry: an unlisted, a draft and an archived product, a barcode, an
  // item without a cost and one untracked, and every quantity name at one level.
  const [p1, p2, p3] = [...shop.products.values()];
  p1.status = "UNLISTED";
  p2.status = "DRAFT";
  p3.status = "ARCHIVED";
  p2.productType = "Shoes";
  const firstVariant = [...shop.variants.values()][0];
  standin.editVariant(shop, firstVariant.id, { barcode: "0123456789012", price: "24.50" });
  const items = [...shop.items.values()];
  items[1].cost = null;
  items[2].tracked = false;
  const location = [...shop.locations.keys()][2];
  for (const [name, quantity] of [
    ["available", 4],
    ["committed", 2],
    ["incoming", 9],
  ] as const)
    standin.setQuantity(shop, items[0].id, location, name, quantity);
  client = new ShopifyClient({
    shop: "big.myshopify.com",
    accessToken: added.accessToken,
    settings: shopifyEndpointSettings({ SHOPIFY_ADMIN_ORIGIN: standin.origin }),
    budget: new InProcessCostBudget(now),
    dispatcher: agent,
    sleep: async (ms) => {
      clock += ms;
    },
  });
});

after(async () => {
  await agent.close();
  await standin.close();
});

describe("the initial import", () => {
  const batches: CatalogChanges[] = [];
  let startedAt: string;

  before(async () => {
    let watermark: string | null = null;
    do {
      const parsed = watermark === null ? null : JSON.parse(watermark);
      const batch = await importCatalogBatch(client, deps(), parsed, 800);
      batches.push(batch);
      watermark = batch.watermark;
    } while (batches[batches.length - 1].hasMore && batches.length < 10);
    startedAt = shopifyDateTime([...standin.bulk.operations.values()][0].createdAt);
  });

  it("runs one bulk operation, polled until done, and hands it out in batches of whole products", () => {
    assert.equal(standin.bulk.operations.size, 1);
    assert.equal(polls, 1);
    assert.deepEqual(
      batches.map((b) => [
        b.products.length,
        b.variants.length,
        b.locations.length,
        b.levels.length,
        b.hasMore,
      ]),
      [
        [200, 800, 3, 2400, true],
        [200, 800, 0, 2400, true],
        [100, 400, 0, 1200, false],
      ],
    );
    const operation = `gid://shopify/BulkOperation/${[...standin.bulk.operations.keys()][0]}`;
    assert.deepEqual(
      batches.map((b) => JSON.parse(b.watermark)),
      [
        { import: { operation, after: batches[0].products[199].id } },
        { import: { operation, after: batches[1].products[199].id } },
        {
          since: {
            products: startedAt,
            variants: startedAt,
            inventoryItems: startedAt,
            locations: startedAt,
            levels: startedAt,
          },
        },
      ],
    );
  });

  it("maps every product field by field", () => {
    const products = batches.flatMap((b) => b.products);
    assert.deepEqual(
      products.map((p) => p.id),
      [...shop.products.keys()].sort((a, b) => a - b),
    );
    const statuses: Record<string, string> = {
      ACTIVE: "active",
      UNLISTED: "active",
      DRAFT: "draft",
      ARCHIVED: "archived",
    };
    for (const product of products) {
      const source = shop.products.get(product.id)!;
      assert.deepEqual(product, {
        id: source.id,
        title: source.title,
        handle: source.handle,
        vendor: source.vendor,
        productType: source.productType === "" ? null : source.productType,
        status: statuses[source.status],
        tags: source.tags,
        options: source.options.map((o, i) => ({ name: o.name, position: i + 1, values: o.values })),
        imageUrl: source.image?.url ?? null,
        createdAt: source.createdAt,
        updatedAt: source.updatedAt,
      });
    }
    assert.deepEqual(
      products.slice(0, 3).map((p) => [p.status, p.productType]),
      [
        ["active", null],
        ["draft", "Shoes"],
        ["archived", null],
      ],
    );
  });

  it("maps every variant and its inventory item field by field, positions by id within the product", () => {
    const variants = batches.flatMap((b) => b.variants);
    assert.equal(variants.length, 2000);
    assert.equal(new Set(variants.map((v) => v.id)).size, 2000);
    for (const variant of variants) {
      const source = shop.variants.get(variant.id)!;
      const item = shop.items.get(source.inventoryItemId)!;
      const siblings = shop.variantsByProduct
        .get(source.productId)!
        .map((v) => v.id)
        .sort((a, b) => a - b);
      assert.deepEqual(variant, {
        id: source.id,
        productId: source.productId,
        title: source.title,
        sku: source.sku,
        barcode: source.barcode,
        position: siblings.indexOf(source.id) + 1,
        price: source.price,
        compareAtPrice: null,
        weightGrams: 0,
        inventoryPolicy: source.inventoryPolicy.toLowerCase(),
        taxable: source.taxable,
        imageUrl: source.image?.url ?? null,
        inventoryItem: {
          id: item.id,
          tracked: item.tracked,
          unitCost: item.cost,
          unitCostCurrency: item.cost === null ? null : "CAD",
          updatedAt: item.updatedAt,
        },
        createdAt: source.createdAt,
        updatedAt: source.updatedAt,
      });
    }
    const first = variants[0];
    assert.deepEqual(
      [first.barcode, first.price, first.position, first.inventoryItem.unitCost],
      ["0123456789012", "24.50", 1, "7.50"],
    );
    assert.deepEqual([variants[1].inventoryItem.unitCost, variants[2].inventoryItem.tracked], [null, false]);
  });

  it("maps the locations and every level, each batch with its own items' levels", () => {
    assert.deepEqual(
      batches[0].locations.map((l) => ({ id: l.id, name: l.name, active: l.active, createdAt: l.createdAt })),
      [...shop.locations.values()].map((l) => ({
        id: l.id,
        name: l.name,
        active: true,
        createdAt: l.createdAt,
      })),
    );
    for (const batch of batches) {
      const items = new Set(batch.variants.map((v) => v.inventoryItem.id));
      assert.ok(batch.levels.every((l) => items.has(l.inventoryItemId)));
    }
    const levels = batches.flatMap((b) => b.levels);
    assert.equal(levels.length, 6000);
    for (const level of levels) {
      const source = shop.level(level.inventoryItemId, level.locationId)!;
      assert.deepEqual(level, {
        inventoryItemId: source.itemId,
        locationId: source.locationId,
        available: source.quantities.available,
        onHand: source.quantities.on_hand,
        committed: source.quantities.committed,
        incoming: source.quantities.incoming,
        version: source.updatedAt.getTime(),
        updatedAt: source.updatedAt,
      });
    }
    const moved = levels.find((l) => l.incoming === 9)!;
    assert.deepEqual([moved.available, moved.onHand, moved.committed], [4, 4, 2]);
  });

  it("goes on after the last product handed out with a new bulk operation when its own is gone", async () => {
    const [operation] = standin.bulk.operations.values();
    const status = operation.status;
    operation.status = "FAILED"; // as an expired or failed operation answers
    try {
      const resumed = await importCatalogBatch(client, deps(), JSON.parse(batches[0].watermark), 800);
      assert.equal(standin.bulk.operations.size, 2);
      assert.deepEqual(
        resumed.products.map((p) => p.id),
        batches[1].products.map((p) => p.id),
      );
      assert.deepEqual(resumed.levels, batches[1].levels);
      assert.deepEqual(resumed.locations, []);
      const second = `gid://shopify/BulkOperation/${[...standin.bulk.operations.keys()][1]}`;
      assert.deepEqual(JSON.parse(resumed.watermark), {
        import: { operation: second, after: batches[1].products[199].id },
      });
    } finally {
      operation.status = status;
    }
  });
});
