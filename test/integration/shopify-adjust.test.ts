/**
 * The Shopify connector's pushes against the stand-in (issue 19 items 1 and 5): the exact calls a
 * document makes, retries that repeat keys and never double, burned keys, THROTTLED, refusals.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import type { Dispatcher } from "undici";
import {
  type InventoryAdjustment,
  nothingMoved,
  PlatformPermanentError,
  PlatformTransientError,
} from "../../src/platform/connector.ts";
import { adjustShopifyInventory, CONCURRENT_RETRIES } from "../../src/platform/shopify/adjust.ts";
import { InProcessCostBudget } from "../../src/platform/shopify/budget.ts";
import { ShopifyClient, type ShopifyClientOptions } from "../../src/platform/shopify/client.ts";
import { InMemoryAttemptGenerations } from "../../src/platform/shopify/generations.ts";
import { createShopifyAgent } from "../../src/platform/shopify/http.ts";
import { shopifyEndpointSettings } from "../../src/platform/shopify/settings.ts";
import { type ShopifyStandin, startShopifyStandin } from "../shopify-standin/index.ts";
import type { ShopState } from "../shopify-standin/state.ts";

let clock = Date.parse("2026-11-02T10:00:00Z");
const now = () => clock;
let agent: Dispatcher;
let standin: ShopifyStandin;

interface Sent {
  document: string;
  variables: Record<string, any>;
}

/** A client that records what it sends and can run a fault switch before its n-th request. */
class RecordingClient extends ShopifyClient {
  readonly sent: Sent[] = [];
  beforeRequest: ((n: number) => Promise<void> | void) | null = null;
  override async graphql<T>(document: string, variables: Record<string, unknown>, cost: number) {
    await this.beforeRequest?.(this.sent.length + 1);
    this.sent.push({ document, variables: variables as Record<string, any> });
    return super.graphql<T>(document, variables, cost);
  }
  adjustCalls() {
    return this.sent
      .filter((s) => s.document.includes("inventoryAdjustQuantities"))
      .map((s) => ({ key: s.variables.key, input: s.variables.input }));
  }
}

function clientFor(
  target: ShopifyStandin,
  domain: string,
  token: string,
  extra: Partial<ShopifyClientOptions> = {},
) {
  return new RecordingClient({
    shop: domain,
    accessToken: token,
    settings: shopifyEndpointSettings({ SHOPIFY_ADMIN_ORIGIN: target.origin }),
    budget: new InProcessCostBudget(now),
    dispatcher: agent,
    sleep: async (ms) => {
      clock += ms;
    },
    ...extra,
  });
}

let shopCount = 0;
/** A fresh shop of `products` single-variant products at `locations` locations, 10 available each. */
function newShop(products: number, locations = 2) {
  const domain = `shop${++shopCount}.myshopify.com`;
  const { shop, accessToken } = standin.addShop(domain, { currency: "USD" });
  shop.seed({ products, locations });
  const items = [...shop.items.keys()];
  const places = [...shop.locations.keys()];
  return { shop, domain, client: clientFor(standin, domain, accessToken), items, places };
}

const levelOf = (shop: ShopState, item: number, location: number) => ({
  ...shop.level(item, location)!.quantities,
});

before(async () => {
  agent = createShopifyAgent(5_000);
  standin = await startShopifyStandin({ now });
});

after(async () => {
  await agent.close();
  await standin.close();
});

describe("a receipt's document", () => {
  let s: ReturnType<typeof newShop>;
  let document: InventoryAdjustment;
  beforeEach(() => {
    s = newShop(2);
    for (const item of s.items) standin.setQuantity(s.shop, item, s.places[0], "incoming", 8);
    document = {
      idempotencyKey: "stockroom-1-movements-41-42-2",
      reason: "received",
      referenceDocumentUri: "stockroom://purchase_orders/7/receipts/12",
      changes: [
        { name: "available", inventoryItemId: s.items[0], locationId: s.places[0], delta: 5 },
        { name: "incoming", inventoryItemId: s.items[0], locationId: s.places[0], delta: -5 },
        { name: "available", inventoryItemId: s.items[1], locationId: s.places[0], delta: 3 },
        { name: "incoming", inventoryItemId: s.items[1], locationId: s.places[0], delta: -3 },
      ],
      itemCosts: [{ inventoryItemId: s.items[0], unitCost: "12.34500000", currency: "USD" }],
    };
  });

  it("is one call per quantity name, keyed from the document, then the costs, then the levels read back", async () => {
    const generations = new InMemoryAttemptGenerations();
    const asked = Date.now();
    const result = await adjustShopifyInventory(s.client, { shopCurrency: "USD", generations }, document);
    // The read-back's levels carry when it was read (its request's start by the service's clock).
    const readAt = result.levels[0]?.readAt as Date;
    assert.ok(readAt.getTime() >= asked && readAt.getTime() <= Date.now(), String(readAt));
    const at = (item: number) => ({
      inventoryItemId: `gid://shopify/InventoryItem/${item}`,
      locationId: `gid://shopify/Location/${s.places[0]}`,
    });
    assert.deepEqual(s.client.adjustCalls(), [
      {
        key: "stockroom-1-movements-41-42-2:available:0",
        input: {
          name: "available",
          reason: "received",
          referenceDocumentUri: "gid://stockroom/Receipt/12",
          changes: [
            { ...at(s.items[0]), delta: 5, changeFromQuantity: null },
            { ...at(s.items[1]), delta: 3, changeFromQuantity: null },
          ],
        },
      },
      {
        key: "stockroom-1-movements-41-42-2:incoming:0",
        input: {
          name: "incoming",
          reason: "received",
          referenceDocumentUri: "gid://stockroom/Receipt/12",
          changes: [
            {
              ...at(s.items[0]),
              delta: -5,
              changeFromQuantity: null,
              ledgerDocumentUri: "stockroom://purchase-orders/7",
            },
            {
              ...at(s.items[1]),
              delta: -3,
              changeFromQuantity: null,
              ledgerDocumentUri: "stockroom://purchase-orders/7",
            },
          ],
        },
      },
    ]);
    assert.equal(s.client.sent.length, 4);
    assert.match(s.client.sent[2].document, /^mutation ItemCosts\(\$id0: ID!, \$cost0: Decimal!\)/);
    assert.deepEqual(s.client.sent[2].variables, {
      id0: `gid://shopify/InventoryItem/${s.items[0]}`,
      cost0: "12.34500000",
    });
    assert.match(s.client.sent[3].document, /^query Levels/);
    assert.equal(s.shop.items.get(s.items[0])!.cost, "12.34500000");

    const first = levelOf(s.shop, s.items[0], s.places[0]);
    assert.deepEqual([first.available, first.on_hand, first.incoming], [15, 15, 3]);
    const second = levelOf(s.shop, s.items[1], s.places[0]);
    assert.deepEqual([second.available, second.on_hand, second.incoming], [13, 13, 5]);
    const updatedAt = s.shop.level(s.items[0], s.places[0])!.updatedAt;
    // The cost's version as the mutation answered it, and when the answer came (after the calls).
    const costAnswered = result.costVersions?.[0]?.readAt as Date;
    assert.ok(costAnswered.getTime() >= readAt.getTime() - 1000 && costAnswered.getTime() <= Date.now());
    assert.deepEqual(result, {
      replayed: false,
      costVersions: [
        {
          inventoryItemId: s.items[0],
          updatedAt: s.shop.items.get(s.items[0])!.updatedAt,
          readAt: costAnswered,
        },
      ],
      levels: [
        {
          inventoryItemId: s.items[0],
          locationId: s.places[0],
          available: 15,
          onHand: 15,
          committed: 0,
          incoming: 3,
          version: updatedAt.getTime(),
          updatedAt,
          readAt,
        },
        {
          inventoryItemId: s.items[1],
          locationId: s.places[0],
          available: 13,
          onHand: 13,
          committed: 0,
          incoming: 5,
          version: updatedAt.getTime(),
          updatedAt,
          readAt,
        },
      ],
    });
    assert.equal(generations.stored.size, 0);
  });

  it("retried after a failure between its two calls, repeats the same keys and never doubles", async () => {
    const generations = new InMemoryAttemptGenerations();
    s.client.beforeRequest = async (n) => {
      if (n === 2) await standin.startOutage("5xx", 1); // the incoming call meets a 503
    };
    await assert.rejects(
      adjustShopifyInventory(s.client, { shopCurrency: "USD", generations }, document),
      (error: Error) => error instanceof PlatformTransientError && /503/.test(error.message),
    );
    assert.equal(levelOf(s.shop, s.items[0], s.places[0]).available, 15, "the first call went through");
    assert.equal(levelOf(s.shop, s.items[0], s.places[0]).incoming, 8);
    s.client.beforeRequest = null;

    await adjustShopifyInventory(s.client, { shopCurrency: "USD", generations }, document);
    assert.deepEqual(
      s.client.adjustCalls().map((c) => c.key),
      [
        "stockroom-1-movements-41-42-2:available:0",
        "stockroom-1-movements-41-42-2:incoming:0",
        "stockroom-1-movements-41-42-2:available:0",
        "stockroom-1-movements-41-42-2:incoming:0",
      ],
    );
    const level = levelOf(s.shop, s.items[0], s.places[0]);
    assert.deepEqual([level.available, level.on_hand, level.incoming], [15, 15, 3]);
    // A third run (the acknowledgement was lost) moves nothing either.
    await adjustShopifyInventory(s.client, { shopCurrency: "USD", generations }, document);
    assert.deepEqual(levelOf(s.shop, s.items[0], s.places[0]), level);
  });

  it("after IDEMPOTENCY_PREVIOUS_ATTEMPT_FAILED stores a new generation and sends that call under it", async () => {
    const generations = new InMemoryAttemptGenerations();
    standin.refuseNextAdjust("IDEMPOTENCY_PREVIOUS_ATTEMPT_FAILED");
    await adjustShopifyInventory(s.client, { shopCurrency: "USD", generations }, document);
    assert.deepEqual(
      s.client.adjustCalls().map((c) => c.key),
      [
        "stockroom-1-movements-41-42-2:available:0",
        "stockroom-1-movements-41-42-2:available:1",
        "stockroom-1-movements-41-42-2:incoming:0",
      ],
    );
    assert.deepEqual([...generations.stored], [["stockroom-1-movements-41-42-2 available", 1]]);
    await adjustShopifyInventory(s.client, { shopCurrency: "USD", generations }, document);
    assert.deepEqual(
      s.client
        .adjustCalls()
        .slice(3)
        .map((c) => c.key),
      ["stockroom-1-movements-41-42-2:available:1", "stockroom-1-movements-41-42-2:incoming:0"],
    );
    const level = levelOf(s.shop, s.items[0], s.places[0]);
    assert.deepEqual([level.available, level.on_hand, level.incoming], [15, 15, 3]);
  });

  it("sent twice at once, the second meets IDEMPOTENCY_CONCURRENT_REQUEST: sent again soon under its key; stock moves once", async () => {
    const generations = new InMemoryAttemptGenerations();
    // The first send's available call applied, its request still in progress at Shopify.
    const hold = standin.holdNextAdjust();
    const first = adjustShopifyInventory(s.client, { shopCurrency: "USD", generations }, document);
    await hold.reached;
    const second = adjustShopifyInventory(s.client, { shopCurrency: "USD", generations }, document);
    // Waited for at the stand-in, which answers a request as it records it: the client records its
    // call before sending it, so releasing then could let the first request end before the second
    // arrived, which would then be answered the result without a refusal (4 calls, not 5).
    while (standin.adjustCalls(s.domain).length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    // Refused as in progress; the first request ends, and the second's call goes again under its key
    // half a second to a second on, answered that request's result without moving stock again.
    hold.release();
    await first;
    await second;
    assert.deepEqual(
      s.client.adjustCalls().map((c) => c.key),
      [
        "stockroom-1-movements-41-42-2:available:0",
        "stockroom-1-movements-41-42-2:available:0",
        "stockroom-1-movements-41-42-2:incoming:0",
        "stockroom-1-movements-41-42-2:available:0",
        "stockroom-1-movements-41-42-2:incoming:0",
      ],
    );
    assert.equal(generations.stored.size, 0, "no key burned");
    const level = levelOf(s.shop, s.items[0], s.places[0]);
    assert.deepEqual([level.available, level.on_hand, level.incoming], [15, 15, 3]);
  });

  it("IDEMPOTENCY_CONCURRENT_REQUEST past its retries: transient, under the same key, not 'moved nothing'", async () => {
    const generations = new InMemoryAttemptGenerations();
    const sent = s.client.adjustCalls().length;
    for (let i = 0; i <= CONCURRENT_RETRIES; i++)
      standin.refuseNextAdjust(
        "IDEMPOTENCY_CONCURRENT_REQUEST",
        "This request is currently in progress, please try again.",
      );
    await assert.rejects(
      adjustShopifyInventory(s.client, { shopCurrency: "USD", generations }, document),
      (error: Error) =>
        error instanceof PlatformTransientError &&
        /still processing another request of available/.test(error.message) &&
        !nothingMoved(error),
    );
    const keys = s.client
      .adjustCalls()
      .slice(sent)
      .map((c) => c.key);
    assert.equal(keys.length, CONCURRENT_RETRIES + 1);
    assert.equal(new Set(keys).size, 1);
  });

  it("a userErrors refusal is permanent with Shopify's message", async () => {
    const generations = new InMemoryAttemptGenerations();
    // An item Shopify has (nodes answers it): INVALID_INVENTORY_ITEM stands as Shopify's refusal.
    standin.refuseNextAdjust("INVALID_INVENTORY_ITEM", "The specified inventory item could not be found.");
    await assert.rejects(
      adjustShopifyInventory(s.client, { shopCurrency: "USD", generations }, document),
      (error: Error) =>
        error instanceof PlatformPermanentError &&
        error.message ===
          "Shopify refused inventoryAdjustQuantities (available): The specified inventory item could not be found. (INVALID_INVENTORY_ITEM)",
    );
    standin.refuseNextAdjust("INVALID_REASON", "The specified reason is invalid.");
    await assert.rejects(
      adjustShopifyInventory(s.client, { shopCurrency: "USD", generations }, document),
      (error: Error) =>
        error instanceof PlatformPermanentError &&
        error.message ===
          "Shopify refused inventoryAdjustQuantities (available): The specified reason is invalid. (INVALID_REASON)",
    );
    assert.equal(levelOf(s.shop, s.items[0], s.places[0]).available, 10);
  });

  it("an item Shopify does not have is left out, the rest sent under the next generation", async () => {
    const generations = new InMemoryAttemptGenerations();
    const before = levelOf(s.shop, s.items[0], s.places[0]).available;
    const withUnknown = {
      ...document,
      changes: [
        document.changes[0],
        { ...document.changes[0], inventoryItemId: 987654321 },
        ...document.changes.slice(1),
      ],
    };
    const result = await adjustShopifyInventory(s.client, { shopCurrency: "USD", generations }, withUnknown);
    assert.deepEqual(result.skippedItems, [987654321]);
    assert.deepEqual([...generations.skipped], [[`${document.idempotencyKey} available`, [987654321]]]);
    assert.equal(levelOf(s.shop, s.items[0], s.places[0]).available, before + document.changes[0].delta);
  });

  it("a cost in another currency than the shop's is refused, not converted", async () => {
    const generations = new InMemoryAttemptGenerations();
    const euros = {
      ...document,
      itemCosts: [{ inventoryItemId: s.items[0], unitCost: "4.00", currency: "EUR" }],
    };
    await assert.rejects(
      adjustShopifyInventory(s.client, { shopCurrency: "USD", generations }, euros),
      (error: Error) =>
        error instanceof PlatformPermanentError &&
        error.message ===
          `the unit cost of inventory item ${s.items[0]} is in EUR, the shop's currency is USD`,
    );
    assert.equal(s.shop.items.get(s.items[0])!.cost, "7.50");
  });
});

describe("other documents", () => {
  it("an adjustment: its own reason, on_hand alone as quality_control with the adjustment as ledger", async () => {
    const s = newShop(1);
    await adjustShopifyInventory(
      s.client,
      { shopCurrency: "USD", generations: new InMemoryAttemptGenerations() },
      {
        idempotencyKey: "stockroom-1-movement-9",
        reason: "damaged",
        referenceDocumentUri: "stockroom://stock_adjustments/3",
        changes: [
          { name: "available", inventoryItemId: s.items[0], locationId: s.places[1], delta: -4 },
          { name: "on_hand", inventoryItemId: s.items[0], locationId: s.places[1], delta: 4 },
        ],
        itemCosts: [],
      },
    );
    const at = {
      inventoryItemId: `gid://shopify/InventoryItem/${s.items[0]}`,
      locationId: `gid://shopify/Location/${s.places[1]}`,
    };
    assert.deepEqual(s.client.adjustCalls(), [
      {
        key: "stockroom-1-movement-9:available:0",
        input: {
          name: "available",
          reason: "damaged",
          referenceDocumentUri: "gid://stockroom/StockAdjustment/3",
          changes: [{ ...at, delta: -4, changeFromQuantity: null }],
        },
      },
      {
        key: "stockroom-1-movement-9:quality_control:0",
        input: {
          name: "quality_control",
          reason: "damaged",
          referenceDocumentUri: "gid://stockroom/StockAdjustment/3",
          changes: [
            {
              ...at,
              delta: 4,
              changeFromQuantity: null,
              ledgerDocumentUri: "stockroom://stock-adjustments/3",
            },
          ],
        },
      },
    ]);
    const level = levelOf(s.shop, s.items[0], s.places[1]);
    assert.deepEqual([level.available, level.on_hand, level.quality_control], [6, 10, 4]);
  });

  it("an order's incoming: created, cancelled or updated by the signs, the order as ledger and reference", async () => {
    const s = newShop(2);
    const generations = new InMemoryAttemptGenerations();
    const incoming = (key: string, deltas: number[]): InventoryAdjustment => ({
      idempotencyKey: key,
      reason: "purchase_order_incoming",
      referenceDocumentUri: "stockroom://purchase_orders/7",
      changes: deltas.map((delta, i) => ({
        name: "incoming" as const,
        inventoryItemId: s.items[i],
        locationId: s.places[0],
        delta,
      })),
      itemCosts: [],
    });
    await adjustShopifyInventory(s.client, { shopCurrency: "USD", generations }, incoming("k1", [6, 2]));
    await adjustShopifyInventory(s.client, { shopCurrency: "USD", generations }, incoming("k2", [-1, 3]));
    await adjustShopifyInventory(s.client, { shopCurrency: "USD", generations }, incoming("k3", [-5, -5]));
    assert.deepEqual(
      s.client
        .adjustCalls()
        .map((c) => [
          c.key,
          c.input.reason,
          c.input.referenceDocumentUri,
          c.input.changes[0].ledgerDocumentUri,
        ]),
      [
        [
          "k1:incoming:0",
          "movement_created",
          "gid://stockroom/PurchaseOrder/7",
          "stockroom://purchase-orders/7",
        ],
        [
          "k2:incoming:0",
          "movement_updated",
          "gid://stockroom/PurchaseOrder/7",
          "stockroom://purchase-orders/7",
        ],
        [
          "k3:incoming:0",
          "movement_canceled",
          "gid://stockroom/PurchaseOrder/7",
          "stockroom://purchase-orders/7",
        ],
      ],
    );
    assert.deepEqual(
      s.items.map((item) => levelOf(s.shop, item, s.places[0]).incoming),
      [0, 0],
    );
  });

  it("a void is a correction; more than 250 changes of a name are split in parts with keys of their own", async () => {
    const s = newShop(260, 1);
    const generations = new InMemoryAttemptGenerations();
    await adjustShopifyInventory(
      s.client,
      { shopCurrency: "USD", generations },
      {
        idempotencyKey: "big",
        reason: "receipt_voided",
        referenceDocumentUri: "stockroom://purchase_orders/7/receipts/12",
        changes: s.items.map((item) => ({
          name: "available" as const,
          inventoryItemId: item,
          locationId: s.places[0],
          delta: -1,
        })),
        itemCosts: [],
      },
    );
    const calls = s.client.adjustCalls();
    assert.deepEqual(
      calls.map((c) => [c.key, c.input.reason, c.input.changes.length]),
      [
        ["big:available.1:0", "correction", 250],
        ["big:available.2:0", "correction", 10],
      ],
    );
    assert.deepEqual([...new Set(s.items.map((item) => levelOf(s.shop, item, s.places[0]).available))], [9]);
    // 260 levels read back in queries of 100.
    assert.equal(s.client.sent.filter((c) => c.document.startsWith("query Levels")).length, 3);
  });

  it("THROTTLED ends applied, each retry after the wait the budget computes", async () => {
    const small = await startShopifyStandin({ now, bucket: { maximumAvailable: 30, restoreRate: 5 } });
    try {
      const { shop, accessToken } = small.addShop("tiny.myshopify.com");
      shop.seed({ products: 1, locations: 1 });
      const sleeps: number[] = [];
      const client = clientFor(small, "tiny.myshopify.com", accessToken, {
        sleep: async (ms) => {
          sleeps.push(ms);
          clock += ms;
        },
      });
      const item = [...shop.items.keys()][0];
      const location = [...shop.locations.keys()][0];
      const generations = new InMemoryAttemptGenerations();
      const doc = (key: string): InventoryAdjustment => ({
        idempotencyKey: key,
        reason: "received",
        referenceDocumentUri: "stockroom://purchase_orders/7/receipts/12",
        changes: [
          { name: "available", inventoryItemId: item, locationId: location, delta: 1 },
          { name: "incoming", inventoryItemId: item, locationId: location, delta: -1 },
        ],
        itemCosts: [],
      });
      // 30 points: two mutations (10 each) and the read of one level (3: its location, the level and
      // its quantities) leave 7.
      await adjustShopifyInventory(client, { shopCurrency: "USD", generations }, doc("t1"));
      assert.equal(sleeps.length, 0);
      // The budget knows 7 remain: the next mutation waits (10 - 7) / 5 s, the next (10 - 0) / 5 s, the
      // read 3 / 5 s; none is throttled.
      await adjustShopifyInventory(client, { shopCurrency: "USD", generations }, doc("t2"));
      assert.deepEqual(sleeps, [600, 2000, 600]);
      // A budget that knows nothing (another process without Redis) meets THROTTLED once, retries after
      // the wait computed from that answer (0 available), then waits before each call instead. A blind
      // budget asks for no wait before its first call: the first 2,000 ms is the THROTTLED retry's.
      const blind = clientFor(small, "tiny.myshopify.com", accessToken, {
        sleep: async (ms) => {
          sleeps.push(ms);
          clock += ms;
        },
      });
      await adjustShopifyInventory(blind, { shopCurrency: "USD", generations }, doc("t3"));
      assert.deepEqual(sleeps.slice(3), [2000, 2000, 600]);
      assert.deepEqual(
        blind.adjustCalls().map((c) => c.key),
        ["t3:available:0", "t3:incoming:0"],
      );
      const level = shop.level(item, location)!.quantities;
      assert.deepEqual([level.available, level.on_hand, level.incoming], [13, 13, -3]);
    } finally {
      await small.close();
    }
  });
});
