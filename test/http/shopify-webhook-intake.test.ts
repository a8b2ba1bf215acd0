/**
 * POST /shopify/webhooks, the intake (issue 19 item 3; docs/decisions.md, "Shopify webhooks and
 * reconciliation"): the signature over the raw body decides (401 and no trace otherwise), a delivery is
 * remembered by its event id so a repeat does nothing, the work is queued (never done in the request),
 * app/uninstalled disconnects the shop, shop/redact erases a disconnected shop's store, the customers
 * topics find nothing. The shops here are stored rows on simulated stores: what the stand-in's own
 * deliveries change in the mirror is test/http/shopify-inbound.test.ts.
 */
import assert from "node:assert/strict";
import { createHmac, randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { ManualClock } from "../../src/clock.ts";
import { bulkWaitFor } from "../../src/platform/shopify/bulk-wait.ts";
import { SHOP_REDACT_JOB, WEBHOOK_EVENTS_PRUNE_TASK } from "../../src/platform/shopify/inbound/index.ts";
import {
  findShopByStore,
  insertShop,
  type ShopifyShopStatus,
  setShopStatus,
} from "../../src/platform/shopify/index.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectError, expectStatus } from "../helpers/assertions.ts";
import { createOrderedOrder, createSupplier, customLine, idempotencyKey } from "../helpers/factories.ts";

const APP_SECRET = "app-secret-of-the-test-app";
const OWN_SECRET = "a-custom-apps-own-webhook-secret";
const DAY = 24 * 60 * 60 * 1000;

let t: TestApp;
let clock: ManualClock;

before(async () => {
  t = await startTestApp({ env: { SHOPIFY_API_SECRET: APP_SECRET } });
  clock = t.clock as ManualClock;
});
after(() => t.close());

let shopCounter = 0;

/** A store with a Shopify shop row (signed with the app's secret unless `webhookSecret`). */
async function storeWithShop(
  options: { status?: ShopifyShopStatus; webhookSecret?: string; seed?: "demo" | "empty" } = {},
) {
  const store = await t.createStore({ seed: options.seed ?? "empty" });
  const shop = `intake-${++shopCounter}.myshopify.com`;
  await insertShop(t.runtime.ctx.db, t.runtime.ctx, {
    storeId: store.id,
    shop,
    apiVersion: "2026-10",
    scopes: ["read_products", "read_inventory", "write_inventory", "read_locations"],
    tokens: {
      accessToken: `shpat_${shop}`,
      accessTokenExpiresAt: null,
      refreshToken: null,
      refreshTokenExpiresAt: null,
    },
    webhookSecret: options.webhookSecret ?? null,
    status: options.status ?? "connected",
  });
  return { store, shop };
}

const sign = (body: string, secret = APP_SECRET) =>
  createHmac("sha256", secret).update(body, "utf8").digest("base64");

interface Delivery {
  topic: string;
  shop: string;
  body?: string;
  eventId?: string;
  /** The header as sent; default: the body signed with the app's secret. */
  hmac?: string | null;
}

async function deliver(d: Delivery) {
  const body = d.body ?? JSON.stringify({ id: 1 });
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-shopify-topic": d.topic,
    "x-shopify-shop-domain": d.shop,
    "x-shopify-event-id": d.eventId ?? randomUUID(),
    "x-shopify-api-version": "2026-10",
  };
  const hmac = d.hmac === undefined ? sign(body) : d.hmac;
  if (hmac !== null) headers["x-shopify-hmac-sha256"] = hmac;
  return t.client().post("/shopify/webhooks", body, headers);
}

function expectTaken(res: Awaited<ReturnType<typeof deliver>>) {
  expectStatus(res, 200);
  assert.equal(res.raw.body, "");
}

/** The store's queued jobs of `type` (the intake's work). */
async function queued(storeId: number, type: string) {
  return t.runtime.ctx.db
    .selectFrom("jobs")
    .select(["id", "payload"])
    .where("type", "=", type)
    .where("state", "=", "queued")
    .where("store_id", "=", storeId)
    .execute();
}

async function rememberedEvents(eventId: string) {
  return t.runtime.ctx.db
    .selectFrom("shopify_webhook_events")
    .select(["shop", "topic"])
    .where("event_id", "=", eventId)
    .execute();
}

describe("Shopify webhook intake", () => {
  test("a delivery whose signature does not match its body is 401 and leaves no trace", async () => {
    const { store, shop } = await storeWithShop();
    const eventId = randomUUID();
    const body = JSON.stringify({ inventory_item_id: 5, location_id: 6, available: 3 });
    const canonical = sign(body);
    const refusals: Array<[string, Delivery]> = [
      ["no header", { topic: "inventory_levels/update", shop, body, eventId, hmac: null }],
      ["another secret", { topic: "inventory_levels/update", shop, body, eventId, hmac: sign(body, "x") }],
      [
        "the body re-serialized",
        {
          topic: "inventory_levels/update",
          shop,
          body: JSON.stringify(JSON.parse(body), null, 1),
          eventId,
          hmac: canonical,
        },
      ],
      [
        "hex instead of base64",
        {
          topic: "inventory_levels/update",
          shop,
          body,
          eventId,
          hmac: Buffer.from(canonical, "base64").toString("hex"),
        },
      ],
      [
        "stray characters",
        {
          topic: "inventory_levels/update",
          shop,
          body,
          eventId,
          hmac: `${canonical.slice(0, 20)}*${canonical.slice(20)}`,
        },
      ],
      ["empty", { topic: "inventory_levels/update", shop, body, eventId, hmac: "" }],
    ];
    for (const [why, delivery] of refusals) {
      const res = await deliver(delivery);
      expectError(res, 401, "unauthorized");
      assert.equal(
        res.body.error.message,
        "The webhook's X-Shopify-Hmac-Sha256 does not match its body.",
        why,
      );
    }
    assert.equal((await findShopByStore(t.runtime.ctx.db, store.id))?.last_webhook_at, null);
    assert.deepEqual(await rememberedEvents(eventId), []);
    assert.deepEqual(await queued(store.id, "catalog.sync"), []);

    // The same event, signed, is taken: the refusals recorded nothing.
    expectTaken(await deliver({ topic: "inventory_levels/update", shop, body, eventId, hmac: canonical }));
    assert.deepEqual(await rememberedEvents(eventId), [{ shop, topic: "inventory_levels/update" }]);
    assert.equal((await queued(store.id, "catalog.sync")).length, 1);
    assert.equal(
      (await findShopByStore(t.runtime.ctx.db, store.id))?.last_webhook_at?.toISOString(),
      clock.now().toISOString(),
    );
  });

  test("a shop with its own webhook secret is verified with it, not with the app's", async () => {
    const { store, shop } = await storeWithShop({ webhookSecret: OWN_SECRET });
    const body = JSON.stringify({ id: 7 });
    expectError(
      await deliver({ topic: "products/update", shop, body, hmac: sign(body) }),
      401,
      "unauthorized",
    );
    assert.deepEqual(await queued(store.id, "catalog.sync"), []);
    expectTaken(await deliver({ topic: "products/update", shop, body, hmac: sign(body, OWN_SECRET) }));
    assert.equal((await queued(store.id, "catalog.sync")).length, 1);
  });

  test("every catalog and level topic queues the store's one catalog sync", async () => {
    const { store, shop } = await storeWithShop();
    const topics = [
      "products/create",
      "products/update",
      "products/delete",
      "inventory_items/create",
      "inventory_items/update",
      "inventory_items/delete",
      "inventory_levels/connect",
      "inventory_levels/update",
      "inventory_levels/disconnect",
      "locations/create",
      "locations/update",
      "locations/delete",
      "locations/activate",
      "locations/deactivate",
    ];
    for (const topic of topics) {
      await t.drain();
      assert.deepEqual(await queued(store.id, "catalog.sync"), [], topic);
      expectTaken(await deliver({ topic, shop }));
      assert.deepEqual(
        (await queued(store.id, "catalog.sync")).map((j) => j.payload),
        [{ store_id: store.id }],
        topic,
      );
    }
  });

  test("a repeated event id is 200 and does nothing again", async () => {
    const { store, shop } = await storeWithShop();
    const eventId = randomUUID();
    expectTaken(await deliver({ topic: "app/uninstalled", shop, eventId }));
    assert.equal((await findShopByStore(t.runtime.ctx.db, store.id))?.status, "disconnected");
    // The merchant installs again before Shopify redelivers the old event: it must not disconnect.
    await setShopStatus(t.runtime.ctx.db, store.id, "connected");
    clock.advance(60_000);
    expectTaken(await deliver({ topic: "app/uninstalled", shop, eventId }));
    const row = await findShopByStore(t.runtime.ctx.db, store.id);
    assert.equal(row?.status, "connected");
    // A repeat still says the shop is talking to us.
    assert.equal(row?.last_webhook_at?.toISOString(), clock.now().toISOString());
    assert.deepEqual(await rememberedEvents(eventId), [{ shop, topic: "app/uninstalled" }]);
  });

  test("app/uninstalled disconnects the shop at once, with the reason", async () => {
    const { store, shop } = await storeWithShop();
    expectTaken(await deliver({ topic: "app/uninstalled", shop }));
    const row = await findShopByStore(t.runtime.ctx.db, store.id);
    assert.deepEqual(
      [row?.status, row?.disconnected_reason],
      ["disconnected", "The app was uninstalled from the Shopify shop."],
    );
  });

  test("bulk_operations/finish moves a sync waiting out a retry delay to now", async () => {
    const { store, shop } = await storeWithShop();
    await t.runtime.ctx.jobs.enqueue(
      t.runtime.ctx.db,
      "catalog.sync",
      { store_id: store.id },
      {
        storeId: store.id,
        dedupeKey: `catalog.sync:${store.id}`,
        runAt: new Date(clock.now().getTime() + 60_000),
      },
    );
    expectTaken(await deliver({ topic: "bulk_operations/finish", shop }));
    const [job] = await t.runtime.ctx.db
      .selectFrom("jobs")
      .select("run_at")
      .where("dedupe_key", "=", `catalog.sync:${store.id}`)
      .where("state", "=", "queued")
      .execute();
    assert.equal(job.run_at.toISOString(), clock.now().toISOString());
  });

  test("an unknown shop, an unknown topic and the customers topics are 200 and change nothing", async () => {
    const { store, shop } = await storeWithShop();
    expectTaken(await deliver({ topic: "products/update", shop: "nobody.myshopify.com" }));
    for (const topic of ["orders/create", "customers/data_request", "customers/redact", ""]) {
      expectTaken(await deliver({ topic, shop }));
    }
    const jobs = await t.runtime.ctx.db
      .selectFrom("jobs")
      .select("type")
      .where("state", "=", "queued")
      .where((eb) => eb.or([eb("store_id", "=", store.id), eb("type", "=", SHOP_REDACT_JOB)]))
      .execute();
    assert.deepEqual(jobs, []);
    assert.equal((await findShopByStore(t.runtime.ctx.db, store.id))?.status, "connected");
  });

  test("an event id is remembered for a week, then forgotten", async () => {
    const { store, shop } = await storeWithShop();
    const eventId = randomUUID();
    expectTaken(await deliver({ topic: "products/update", shop, eventId }));
    await t.drain();
    clock.advance(7 * DAY - 1);
    await t.runtime.worker.runPeriodic(WEBHOOK_EVENTS_PRUNE_TASK);
    expectTaken(await deliver({ topic: "products/update", shop, eventId }));
    assert.deepEqual(await queued(store.id, "catalog.sync"), [], "still a repeat");
    clock.advance(2);
    await t.runtime.worker.runPeriodic(WEBHOOK_EVENTS_PRUNE_TASK);
    assert.deepEqual(await rememberedEvents(eventId), []);
    expectTaken(await deliver({ topic: "products/update", shop, eventId }));
    assert.equal((await queued(store.id, "catalog.sync")).length, 1);
  });
});

describe("shop/redact", () => {
  async function storeWithHistory(status: ShopifyShopStatus) {
    const { store, shop } = await storeWithShop({ status });
    const supplier = await createSupplier(store.api);
    const order = await createOrderedOrder(store.api, {
      supplier_id: supplier.id,
      lines: [customLine(4, 2)],
    });
    const receipt = await store.api.post(
      `/v2/purchase_orders/${order.id}/receipts`,
      { lines: [{ line_id: order.lines[0].id, quantity: 4 }] },
      idempotencyKey(),
    );
    expectStatus(receipt, 201);
    return { store, shop };
  }

  async function storeRows(store: TestStore) {
    const { db } = t.runtime.ctx;
    const count = async (
      table: "purchase_orders" | "receipts" | "idempotency_keys" | "suppliers" | "events",
    ) =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("store_id", "=", store.id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      suppliers: await count("suppliers"),
      purchase_orders: await count("purchase_orders"),
      receipts: await count("receipts"),
      idempotency_keys: await count("idempotency_keys"),
      events: await count("events"),
    };
  }

  test("erases the store of a disconnected shop and everything it holds", async () => {
    const { store, shop } = await storeWithHistory("disconnected");
    const other = await storeWithHistory("connected");
    const otherBefore = await storeRows(other.store);
    const held = await storeRows(store);
    assert.ok(
      Object.values(held).every((n) => n > 0),
      JSON.stringify(held),
    );
    // The key is in use just before (the embedded database keeps keys in use: the erasure must end that).
    expectStatus(await store.api.get("/v2/whoami"), 200);
    expectTaken(await deliver({ topic: "shop/redact", shop, body: JSON.stringify({ shop_domain: shop }) }));
    await t.drain();
    expectError(await t.admin.get(`/admin/stores/${store.id}`), 404, "not_found");
    expectError(await store.api.get("/v2/suppliers"), 401, "unauthorized");
    assert.deepEqual(await storeRows(store), {
      suppliers: 0,
      purchase_orders: 0,
      receipts: 0,
      idempotency_keys: 0,
      events: 0,
    });
    assert.equal(await findShopByStore(t.runtime.ctx.db, store.id), undefined);
    assert.deepEqual(await storeRows(other.store), otherBefore);
    // A late repeat finds no shop: 200, nothing.
    expectTaken(await deliver({ topic: "shop/redact", shop }));
  });

  test("keeps the store of a shop connected again since the uninstall", async () => {
    const { store, shop } = await storeWithHistory("connected");
    const before = await storeRows(store);
    expectTaken(await deliver({ topic: "shop/redact", shop }));
    await t.drain();
    expectStatus(await t.admin.get(`/admin/stores/${store.id}`), 200);
    assert.deepEqual(await storeRows(store), before);
  });
});

describe("bulk_operations/finish ends an import's wait between two polls of its bulk operation", () => {
  const waitFor = (shop: string, sleep: (ms: number) => Promise<void>) =>
    bulkWaitFor({ db: t.runtime.ctx.db, clock: t.clock, shop, sleep });

  test("the wait ends at the first look after the shop's delivery; another shop's or another topic's does not end it", async () => {
    const { shop } = await storeWithShop();
    const { shop: other } = await storeWithShop();
    const sleeps: number[] = [];
    await waitFor(shop, async (ms) => {
      sleeps.push(ms);
      if (sleeps.length === 2) expectTaken(await deliver({ topic: "bulk_operations/finish", shop: other }));
      if (sleeps.length === 3) expectTaken(await deliver({ topic: "products/update", shop }));
      if (sleeps.length === 5) expectTaken(await deliver({ topic: "bulk_operations/finish", shop }));
    })(7);
    assert.deepEqual(sleeps, [250, 250, 250, 250, 250], "a one-minute wait ended at the fifth look");
  });

  test("without a delivery the waits grow from 1 s, doubling, to a minute; a delivery from before the wait does not end it", async () => {
    const { shop } = await storeWithShop();
    expectTaken(await deliver({ topic: "bulk_operations/finish", shop }));
    const waited = async (polls: number) => {
      let total = 0;
      await waitFor(shop, async (ms) => {
        total += ms;
      })(polls);
      return total;
    };
    assert.deepEqual(
      [await waited(1), await waited(2), await waited(3), await waited(6), await waited(7), await waited(40)],
      [1000, 2000, 4000, 32000, 60000, 60000],
    );
  });
});
