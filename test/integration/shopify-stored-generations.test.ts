/**
 * Attempt generations kept in the database (issue 19): a key burned by
 * IDEMPOTENCY_PREVIOUS_ATTEMPT_FAILED stays burned for a new connector over the same database (a
 * restart), and the calls applied before it keep their keys, so nothing moves twice.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import type { Dispatcher } from "undici";
import { advancePushGeneration, pushGenerationsOf } from "../../src/domain/stock/index.ts";
import { type InventoryAdjustment, PlatformTransientError } from "../../src/platform/connector.ts";
import { InProcessCostBudget } from "../../src/platform/shopify/budget.ts";
import { ShopifyClient } from "../../src/platform/shopify/client.ts";
import { ShopifyConnector } from "../../src/platform/shopify/connector.ts";
import { createShopifyAgent } from "../../src/platform/shopify/http.ts";
import { shopifyEndpointSettings } from "../../src/platform/shopify/settings.ts";
import { StoredAttemptGenerations } from "../../src/platform/shopify/stored-generations.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { type ShopifyStandin, startShopifyStandin } from "../shopify-standin/index.ts";
import type { ShopState } from "../shopify-standin/state.ts";

let clock = Date.parse("2026-11-02T10:00:00Z");
const now = () => clock;
let agent: Dispatcher;
let standin: ShopifyStandin;
let t: TestApp;
let storeId: number;

/** Records the keys of its inventoryAdjustQuantities calls; can run a fault switch before its n-th request. */
class KeyRecordingClient extends ShopifyClient {
  readonly keys: string[] = [];
  private requests = 0;
  beforeRequest: ((n: number) => Promise<void> | void) | null = null;
  override async graphql<T>(document: string, variables: Record<string, unknown>, cost: number) {
    await this.beforeRequest?.(++this.requests);
    if (document.includes("inventoryAdjustQuantities")) this.keys.push(String(variables.key));
    return super.graphql<T>(document, variables, cost);
  }
}

let shopCount = 0;
let shop: ShopState;
let domain: string;
let accessToken: string;
let items: number[];
let place: number;

/** A connector as a fresh process would build it: its own client, generations read from the database. */
function startConnector() {
  const client = new KeyRecordingClient({
    shop: domain,
    accessToken,
    settings: shopifyEndpointSettings({ SHOPIFY_ADMIN_ORIGIN: standin.origin }),
    budget: new InProcessCostBudget(now),
    dispatcher: agent,
    sleep: async (ms) => {
      clock += ms;
    },
  });
  const connector = new ShopifyConnector({
    client,
    shopCurrency: "USD",
    generations: new StoredAttemptGenerations(t.runtime.database.db, storeId),
    dispatcher: agent,
    timeoutMs: 10_000,
    pollWait: async () => {},
  });
  return { client, connector };
}

const KEY = "stockroom-1-movements-41-42-2";
function receiptDocument(): InventoryAdjustment {
  return {
    idempotencyKey: KEY,
    reason: "received",
    referenceDocumentUri: "stockroom://purchase_orders/7/receipts/12",
    changes: [
      { name: "available", inventoryItemId: items[0], locationId: place, delta: 5 },
      { name: "incoming", inventoryItemId: items[0], locationId: place, delta: -5 },
    ],
    itemCosts: [],
  };
}

const quantities = () => {
  const q = shop.level(items[0], place)!.quantities;
  return [q.available, q.on_hand, q.incoming];
};
const storedGenerations = async () => [...(await pushGenerationsOf(t.runtime.database.db, storeId, KEY))];

before(async () => {
  agent = createShopifyAgent(5_000);
  standin = await startShopifyStandin({ now });
  t = await startTestApp();
  storeId = (await t.createStore({ seed: "empty" })).id;
});

after(async () => {
  await t.close();
  await agent.close();
  await standin.close();
});

beforeEach(async () => {
  await t.runtime.database.db.deleteFrom("platform_push_generations").execute();
  domain = `stored${++shopCount}.myshopify.com`;
  const added = standin.addShop(domain, { currency: "USD" });
  shop = added.shop;
  accessToken = added.accessToken;
  shop.seed({ products: 1, locations: 1 });
  items = [...shop.items.keys()];
  place = [...shop.locations.keys()][0];
  standin.setQuantity(shop, items[0], place, "incoming", 8);
});

describe("stored attempt generations", () => {
  it("a key burned on the first call stays burned after a restart, and that call does not apply twice", async () => {
    const first = startConnector();
    standin.refuseNextAdjust("IDEMPOTENCY_PREVIOUS_ATTEMPT_FAILED");
    first.client.beforeRequest = async (n) => {
      if (n === 3) await standin.startOutage("5xx", 1); // the incoming call meets a 503
    };
    await assert.rejects(
      first.connector.adjustInventory(receiptDocument()),
      (error: Error) => error instanceof PlatformTransientError && /503/.test(error.message),
    );
    assert.deepEqual(first.client.keys, [`${KEY}:available:0`, `${KEY}:available:1`, `${KEY}:incoming:0`]);
    assert.deepEqual(quantities(), [15, 15, 8]);
    assert.deepEqual(await storedGenerations(), [["available", 1]]);

    const restarted = startConnector();
    await restarted.connector.adjustInventory(receiptDocument());
    assert.deepEqual(restarted.client.keys, [`${KEY}:available:1`, `${KEY}:incoming:0`]);
    assert.deepEqual(quantities(), [15, 15, 3]);
    assert.deepEqual(await storedGenerations(), [["available", 1]]);
  });

  it("a key burned on a later call is advanced before it is sent; the calls applied before keep theirs", async () => {
    const first = startConnector();
    first.client.beforeRequest = async (n) => {
      if (n === 2) standin.refuseNextAdjust("IDEMPOTENCY_PREVIOUS_ATTEMPT_FAILED");
      if (n === 3) await standin.startOutage("5xx", 1); // the process dies before incoming:1 lands
    };
    await assert.rejects(
      first.connector.adjustInventory(receiptDocument()),
      (error: Error) => error instanceof PlatformTransientError && /503/.test(error.message),
    );
    assert.deepEqual(first.client.keys, [`${KEY}:available:0`, `${KEY}:incoming:0`, `${KEY}:incoming:1`]);
    assert.deepEqual(quantities(), [15, 15, 8]);
    assert.deepEqual(await storedGenerations(), [["incoming", 1]]);

    const restarted = startConnector();
    await restarted.connector.adjustInventory(receiptDocument());
    assert.deepEqual(restarted.client.keys, [`${KEY}:available:0`, `${KEY}:incoming:1`]);
    assert.deepEqual(quantities(), [15, 15, 3]);
  });

  it("advancing counts up per call and refuses a caller's transaction", async () => {
    const db = t.runtime.database.db;
    assert.equal(await advancePushGeneration(db, storeId, KEY, "available.2"), 1);
    assert.equal(await advancePushGeneration(db, storeId, KEY, "available.2"), 2);
    assert.equal(await advancePushGeneration(db, storeId, `${KEY}-other`, "available.2"), 1);
    await assert.rejects(
      db.transaction().execute((trx) => advancePushGeneration(trx, storeId, KEY, "incoming")),
      /must commit before the call is sent/,
    );
    assert.deepEqual(await storedGenerations(), [["available.2", 2]]);
  });
});
