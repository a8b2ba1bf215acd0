/**
 * Shopify's deliveries through the stand-in, end to end (issue 19 items 3 and 4): the service listens
 * at SHOPIFY_APP_URL, the stand-in sends what a merchant's edits send (signed, to the subscriptions
 * the attach created) and the mirror follows; a dropped inventory_levels/update is repaired by
 * reconciliation; app/uninstalled pauses pushes until a new token; shop/redact erases the store.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { ManualClock } from "../../src/clock.ts";
import { platformSyncOf } from "../../src/domain/stock/index.ts";
import { syncCatalog } from "../../src/platform/catalog-sync.ts";
import { RECONCILE_SCAN_TASK, reconcileShop } from "../../src/platform/shopify/inbound/index.ts";
import type { Client, TestApp } from "../helpers/app.ts";
import { expectError, expectStatus } from "../helpers/assertions.ts";
import { freePort } from "../helpers/child-server.ts";
import { listLocations, listVariants } from "../helpers/factories.ts";
import { attachByToken, standinShop, startShopifyTestApp, storeApi } from "../helpers/shopify.ts";
import { recordTestMovements } from "../helpers/stock.ts";
import type { ShopifyStandin } from "../shopify-standin/index.ts";
import type { ShopState } from "../shopify-standin/state.ts";

const MINUTE = 60_000;

let t: TestApp;
let standin: ShopifyStandin;
let clock: ManualClock;
let appUrl: string;

before(async () => {
  const port = await freePort();
  appUrl = `http://127.0.0.1:${port}`;
  // Shopify's clock and the service's agree (X-Shopify-Triggered-At is compared with the installation's
  // time): the stand-in's runs from the app's manual clock, plus real time so its records keep distinct,
  // growing times while the manual clock stands still.
  clock = new ManualClock();
  const realStart = Date.now();
  ({ t, standin } = await startShopifyTestApp({
    app: { env: { SHOPIFY_APP_URL: appUrl }, clock },
    standin: { now: () => clock.now().getTime() + (Date.now() - realStart) },
  }));
  await t.runtime.app.listen({ port, host: "127.0.0.1" });
});
after(async () => {
  await standin.close();
  await t.close();
});

interface Attached {
  shop: ShopState;
  domain: string;
  storeId: number;
  api: Client;
}

/** A shop of 3 products × 2 variants at 2 locations, attached, subscribed and imported. */
async function attached(): Promise<Attached> {
  const { shop, domain, accessToken } = standinShop(standin, {
    products: 3,
    variantsPerProduct: 2,
    locations: 2,
  });
  const store = await attachByToken(t, domain, accessToken, { owner_email: "owner@example.com" });
  tokens.set(domain, accessToken);
  await t.drain();
  // A second passes after the import (the stand-in's clock follows ours), so these tests' changes have
  // a later version than the import read: Shopify's times have whole seconds, and a change in the
  // import's own second is a tie (shopify-same-second.test.ts; a reconciliation pass does not adopt it,
  // the sync it queues does).
  clock.advance(1000);
  const api = await storeApi(t, store.id);
  const state = await t.admin.get(`/admin/stores/${store.id}`);
  assert.equal(state.body.data.shopify.status, "connected");
  assert.equal(shop.subscriptions.length, 16);
  return { shop, domain, storeId: store.id, api };
}

/** Each attached shop's custom-app token. */
const tokens = new Map<string, string>();

/** Waits for the stand-in's deliveries in flight, then runs the jobs they queued. */
async function settle(): Promise<void> {
  await standin.webhooks.settled();
  await t.drain();
}

/**
 * Runs `work`, whose bulk query runs until told to end, and which dies on the first poll (Shopify
 * answers 503) with its own cancel refused too: as a killed worker, it leaves the query running.
 */
async function diesWhileItsBulkQueryRuns(work: () => Promise<unknown>): Promise<void> {
  standin.bulk.setDuration(null);
  const run = standin.bulk.run.bind(standin.bulk);
  standin.bulk.run = (s, query) => {
    standin.bulk.run = run;
    const started = run(s, query);
    void standin.startOutage("5xx", 2);
    return started;
  };
  try {
    await assert.rejects(work(), /Shopify answered 503/);
  } finally {
    standin.bulk.run = run;
    standin.bulk.setDuration(20);
  }
}

const firstLevel = (shop: ShopState) => [...shop.levels.values()][0];

/** A query straight to the stand-in with the shop's token, as a merchant's other app would send it. */
async function standinGraphql(domain: string, query: string) {
  const res = await fetch(`${standin.origin}/admin/api/${standin.apiVersion}/graphql.json`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-shopify-access-token": tokens.get(domain)! },
    body: JSON.stringify({ query }),
  });
  assert.equal(res.status, 200);
  return (await res.json()) as {
    data: { location: { inventoryLevels: { nodes: unknown[]; pageInfo: { hasNextPage: boolean } } } };
  };
}

// Shopify's ids (10^13 and up here) are beyond what /v2 paths and filters accept (an Id is at most
// 2^31 - 1), so these tests find rows in the store's lists.

/** The mirror's level of an item at a location, from the store's levels list. */
async function mirrorLevel(api: Client, itemId: number, locationId: number) {
  const res = await api.get("/v2/inventory_levels?limit=250");
  expectStatus(res, 200);
  const row = res.body.data.find(
    (l: { inventory_item_id: number; location_id: number }) =>
      l.inventory_item_id === itemId && l.location_id === locationId,
  );
  assert.ok(row, `a mirror level of ${itemId} at ${locationId}`);
  return row;
}

async function mirrorVariant(api: Client, variantId: number) {
  const variant = (await listVariants(api)).find((v) => v.id === variantId);
  assert.ok(variant, `variant ${variantId} in the mirror`);
  return variant as unknown as Record<string, unknown>;
}

async function shopifyState(storeId: number) {
  const res = await t.admin.get(`/admin/stores/${storeId}`);
  expectStatus(res, 200);
  return res.body.data.shopify;
}

describe("Shopify deliveries update the mirror", () => {
  test("inventory_levels/update: the level is read again, every quantity", async () => {
    const { shop, storeId, api } = await attached();
    const level = firstLevel(shop);
    standin.setQuantity(shop, level.itemId, level.locationId, "available", 42);
    standin.setQuantity(shop, level.itemId, level.locationId, "damaged", 3);
    await settle();
    const row = await mirrorLevel(api, level.itemId, level.locationId);
    assert.deepEqual(
      { available: row.available, on_hand: row.on_hand },
      { available: 42, on_hand: level.quantities.on_hand },
    );
    assert.equal(level.quantities.on_hand, 45);
    assert.equal((await shopifyState(storeId)).last_webhook_at, clock.now().toISOString());
  });

  test("a delivery Shopify repeats queues no second read", async () => {
    const { shop, storeId, api } = await attached();
    const level = firstLevel(shop);
    standin.webhooks.mode = "hold";
    standin.setQuantity(shop, level.itemId, level.locationId, "available", 7);
    const [event] = standin.webhooks.held;
    standin.webhooks.mode = "auto";
    const syncs = async () =>
      (
        await t.runtime.ctx.db
          .selectFrom("jobs")
          .select("id")
          .where("type", "=", "catalog.sync")
          .where("store_id", "=", storeId)
          .execute()
      ).length;
    const before = await syncs();
    const [first] = await standin.webhooks.release();
    assert.equal(first.status, 200);
    await t.drain();
    assert.equal((await mirrorLevel(api, level.itemId, level.locationId)).available, 7);
    assert.equal(await syncs(), before + 1);
    // Shopify delivers the same event again (same X-Shopify-Event-Id): taken, nothing queued.
    standin.webhooks.held.push(event);
    const [again] = await standin.webhooks.release();
    assert.equal(again.status, 200);
    assert.equal(again.event.eventId, first.event.eventId);
    assert.equal(await syncs(), before + 1);
  });

  test("products/update: a variant's new SKU and title reach the mirror", async () => {
    const { shop, api } = await attached();
    const variant = [...shop.variants.values()][1];
    standin.editVariant(shop, variant.id, { sku: "RENAMED-1", title: "Large" });
    await settle();
    const mirrored = await mirrorVariant(api, variant.id);
    assert.deepEqual([mirrored.sku, mirrored.title], ["RENAMED-1", "Large"]);
  });

  test("products/update: tags, options, image, inventory policy, taxable and weight reach the mirror", async () => {
    const { shop, api } = await attached();
    const [variant, sibling] = [...shop.variants.values()];
    shop.items.get(variant.inventoryItemId)!.weight = { value: 12, unit: "OUNCES" };
    standin.editProduct(shop, variant.productId, {
      tags: ["wool", "winter"],
      options: [{ name: "Size", values: ["Small", "Large"] }],
      image: { url: "https://cdn.shopify.com/s/files/1/jumper.jpg", altText: "Jumper" },
    });
    standin.editVariant(shop, variant.id, {
      inventoryPolicy: "CONTINUE",
      taxable: false,
      image: { url: "https://cdn.shopify.com/s/files/1/jumper-small.jpg", altText: null },
    });
    await settle();
    const product = await api.get("/v2/products?limit=250");
    expectStatus(product, 200);
    const mirroredProduct = product.body.data.find((p: { id: number }) => p.id === variant.productId);
    assert.deepEqual(
      {
        tags: mirroredProduct.tags,
        options: mirroredProduct.options,
        image_url: mirroredProduct.image_url,
      },
      {
        tags: ["wool", "winter"],
        options: [{ name: "Size", position: 1, values: ["Small", "Large"] }],
        image_url: "https://cdn.shopify.com/s/files/1/jumper.jpg",
      },
    );
    const mirrored = await mirrorVariant(api, variant.id);
    assert.deepEqual(
      [mirrored.inventory_policy, mirrored.taxable, mirrored.weight_grams, mirrored.image_url],
      ["continue", false, 340, "https://cdn.shopify.com/s/files/1/jumper-small.jpg"],
    );
    const untouched = await mirrorVariant(api, sibling.id);
    assert.deepEqual(
      [untouched.inventory_policy, untouched.taxable, untouched.weight_grams, untouched.image_url],
      ["deny", true, 0, null],
    );
  });

  test("products/update that only changes a weight: the variant is read again through its inventory item", async () => {
    const { shop, api } = await attached();
    const [variant, sibling] = [...shop.variants.values()];
    // The variant was last edited yesterday (its own updatedAt is outside the incremental read's overlap).
    variant.updatedAt = new Date(variant.updatedAt.getTime() - 24 * 60 * MINUTE);
    const variantUpdatedAt = variant.updatedAt.getTime();
    standin.editWeight(shop, variant.id, { value: 1.5, unit: "KILOGRAMS" });
    assert.equal(variant.updatedAt.getTime(), variantUpdatedAt, "Shopify moves the item, not the variant");
    await settle();
    assert.equal((await mirrorVariant(api, variant.id)).weight_grams, 1500);
    assert.equal((await mirrorVariant(api, sibling.id)).weight_grams, 0);
  });

  test("inventory_items/update: the item's new cost reaches the mirror", async () => {
    const { shop, api } = await attached();
    const variant = [...shop.variants.values()][0];
    const item = shop.items.get(variant.inventoryItemId)!;
    item.cost = "9.25";
    item.updatedAt = standin.now();
    standin.itemChanged(shop, item.id);
    await settle();
    assert.equal((await mirrorVariant(api, variant.id)).unit_cost, "9.25");
  });

  test("locations/update: a renamed location reaches the mirror", async () => {
    const { shop, api } = await attached();
    const location = [...shop.locations.values()][1];
    location.name = "Back room";
    location.updatedAt = standin.now();
    standin.webhooks.emit(shop, "locations/update", { id: location.id, name: location.name });
    await settle();
    const mirrored = (await listLocations(api)).find((l) => l.id === location.id);
    assert.equal(mirrored?.name, "Back room");
  });
});

describe("reconciliation", () => {
  test("repairs a level whose inventory_levels/update was lost, once the interval has passed", async () => {
    const { shop, storeId, api } = await attached();
    const level = firstLevel(shop);
    const before = await mirrorLevel(api, level.itemId, level.locationId);
    standin.webhooks.mode = "hold";
    standin.setQuantity(shop, level.itemId, level.locationId, "available", before.available + 13);
    standin.webhooks.mode = "auto";
    assert.deepEqual(await standin.webhooks.release({ drop: [0] }), []);
    await t.drain();
    assert.equal((await mirrorLevel(api, level.itemId, level.locationId)).available, before.available);

    clock.advance(14 * MINUTE);
    await t.runtime.worker.runPeriodic(RECONCILE_SCAN_TASK);
    await t.drain();
    assert.equal(
      (await mirrorLevel(api, level.itemId, level.locationId)).available,
      before.available,
      "not due yet",
    );

    clock.advance(1 * MINUTE);
    await t.runtime.worker.runPeriodic(RECONCILE_SCAN_TASK);
    await t.drain();
    assert.equal((await mirrorLevel(api, level.itemId, level.locationId)).available, before.available + 13);
    const sync = await t.admin.get(`/admin/stores/${storeId}/sync`);
    expectStatus(sync, 200);
    assert.deepEqual(sync.body.data.reconciliation, {
      last_reconciled_at: clock.now().toISOString(),
      levels_checked: shop.levels.size,
      levels_repaired: 1,
      last_error: null,
      failed_at: null,
    });
    assert.equal((await shopifyState(storeId)).last_reconciled_at, clock.now().toISOString());

    // The next pass finds nothing to repair.
    clock.advance(15 * MINUTE);
    await t.runtime.worker.runPeriodic(RECONCILE_SCAN_TASK);
    await t.drain();
    const next = await t.admin.get(`/admin/stores/${storeId}/sync`);
    assert.equal(next.body.data.reconciliation.levels_repaired, 0);
  });

  test("a location holding more levels than Shopify pages is reconciled whole (a bulk operation)", async () => {
    const { shop, domain, storeId, api } = await attached();
    // Shopify stops a paginated read at 25,000 objects; the stand-in's shop stops at 4 here.
    shop.pagingLimit = 4;
    const [locationId, atLocation] = [...shop.levelsByLocation.entries()][0];
    assert.equal(atLocation.length, 6);
    const paged = await standinGraphql(
      domain,
      `{ location(id: "gid://shopify/Location/${locationId}") {
      inventoryLevels(first: 250) { nodes { id } pageInfo { hasNextPage } } } }`,
    );
    assert.deepEqual(
      {
        read: paged.data.location.inventoryLevels.nodes.length,
        more: paged.data.location.inventoryLevels.pageInfo.hasNextPage,
      },
      { read: 4, more: false },
    );
    // The location's last level (by id, as Shopify pages) drifts, and its delivery is lost.
    const last = atLocation.reduce((a, b) => (a.id > b.id ? a : b));
    const before = await mirrorLevel(api, last.itemId, last.locationId);
    standin.webhooks.mode = "hold";
    standin.setQuantity(shop, last.itemId, last.locationId, "available", before.available + 7);
    standin.webhooks.mode = "auto";
    assert.deepEqual(await standin.webhooks.release({ drop: [0] }), []);
    const bulkRuns = () =>
      standin.requests.filter((r) => r.shop === domain && r.query.includes("bulkOperationRunQuery")).length;
    const runsBefore = bulkRuns();

    // The pass alone, before the catalog sync it queues runs (that sync's updated_at read would find
    // this one change too): every level of the shop is checked, the one beyond the paging limit repaired.
    assert.deepEqual(await reconcileShop(t.runtime.ctx, storeId), { checked: shop.levels.size, repaired: 1 });
    assert.equal(shop.levels.size, 12);
    assert.equal(bulkRuns(), runsBefore + 1);
    assert.equal((await mirrorLevel(api, last.itemId, last.locationId)).available, before.available + 7);
    await t.drain();
  });

  test("movements Shopify has not acknowledged yet are not drift", async () => {
    const { shop, storeId, api } = await attached();
    const level = firstLevel(shop);
    const start = level.quantities.available;
    await recordTestMovements(t, storeId, 800_001, [
      {
        inventoryItemId: level.itemId,
        locationId: level.locationId,
        availableDelta: -4,
        reason: "correction",
      },
    ]);
    // The pass runs before the push does.
    assert.deepEqual(await reconcileShop(t.runtime.ctx, storeId), { checked: shop.levels.size, repaired: 0 });
    assert.equal((await mirrorLevel(api, level.itemId, level.locationId)).available, start - 4);
    await t.drain();
    assert.equal(level.quantities.available, start - 4);
    assert.equal((await mirrorLevel(api, level.itemId, level.locationId)).available, start - 4);
  });

  test("a pass that died while its bulk operation ran: the next pass cancels it (one of the shop's five slots)", async () => {
    const { shop, domain, storeId } = await attached();
    const runs = () =>
      standin.requests.filter((r) => r.shop === domain && r.query.includes("bulkOperationRunQuery")).length;
    const cancels = () =>
      standin.requests
        .filter((r) => r.shop === domain && r.query.includes("bulkOperationCancel"))
        .map((r) => r.variables.id);
    const before = runs();
    await diesWhileItsBulkQueryRuns(() => reconcileShop(t.runtime.ctx, storeId));
    assert.equal(runs(), before + 1);
    assert.equal(standin.runningBulkOperations(domain), 1);
    const [orphan] = [...standin.bulk.operations.values()].filter(
      (o) => o.shop === shop && o.status === "RUNNING",
    );

    // The next pass cancels it, then runs and reads its own.
    assert.deepEqual(await reconcileShop(t.runtime.ctx, storeId), { checked: shop.levels.size, repaired: 0 });
    assert.deepEqual(cancels(), [`gid://shopify/BulkOperation/${orphan.id}`]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(orphan.status, "CANCELED");
    assert.equal(runs(), before + 2);
    assert.equal(standin.runningBulkOperations(domain), 0);

    // A pass after a completed one finds nothing to cancel.
    await reconcileShop(t.runtime.ctx, storeId);
    assert.equal(cancels().length, 1);
    await t.drain();
  });

  test("a pass that fails (Shopify answers 503) is shown in the sync view", async () => {
    const { storeId } = await attached();
    clock.advance(15 * MINUTE);
    await standin.startOutage("5xx");
    try {
      await t.runtime.worker.runPeriodic(RECONCILE_SCAN_TASK);
      await t.drain();
    } finally {
      await standin.endOutage();
    }
    const sync = await t.admin.get(`/admin/stores/${storeId}/sync`);
    assert.equal(sync.body.data.reconciliation.last_reconciled_at, null);
    assert.match(sync.body.data.reconciliation.last_error, /Shopify answered 503/);
    assert.equal(sync.body.data.reconciliation.failed_at, clock.now().toISOString());
  });
});

describe("the catalog sync's bulk reads", () => {
  test("an import that died while its bulk operation ran: the next sync cancels it (one of the shop's five slots)", async () => {
    const { shop, domain, accessToken } = standinShop(standin, {
      products: 3,
      variantsPerProduct: 2,
      locations: 2,
    });
    // Attached, its sync queued but not run: the test runs it.
    const store = await attachByToken(t, domain, accessToken, { owner_email: "owner@example.com" });
    tokens.set(domain, accessToken);
    const runs = () =>
      standin.requests.filter((r) => r.shop === domain && r.query.includes("bulkOperationRunQuery")).length;
    const cancels = () =>
      standin.requests
        .filter((r) => r.shop === domain && r.query.includes("bulkOperationCancel"))
        .map((r) => r.variables.id);
    await diesWhileItsBulkQueryRuns(() => syncCatalog(t.runtime.ctx, store.id));
    assert.equal(runs(), 1);
    assert.equal(standin.runningBulkOperations(domain), 1);
    const [orphan] = [...standin.bulk.operations.values()].filter(
      (o) => o.shop === shop && o.status === "RUNNING",
    );

    // The next sync cancels it, then runs its own import to the end.
    await syncCatalog(t.runtime.ctx, store.id);
    assert.deepEqual(cancels(), [`gid://shopify/BulkOperation/${orphan.id}`]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(orphan.status, "CANCELED");
    assert.equal(runs(), 2);
    assert.equal(standin.runningBulkOperations(domain), 0);
    const api = await storeApi(t, store.id);
    assert.deepEqual(
      (await listVariants(api)).map((v) => v.id).sort((a, b) => a - b),
      [...shop.variants.keys()].sort((a, b) => a - b),
    );

    // The queued sync and later ones find nothing left to cancel.
    await settle();
    await syncCatalog(t.runtime.ctx, store.id);
    assert.equal(cancels().length, 1);
    assert.equal(standin.runningBulkOperations(domain), 0);
  });
});

/** The tables of the schema (every one with a `store_id` column) that hold rows of the store. */
async function storeRowsLeft(storeId: number): Promise<string[]> {
  const db = t.runtime.ctx.db;
  const { rows: tables } = await sql<{ name: string }>`select table_name as name
    from information_schema.columns
    where table_schema = current_schema() and column_name = 'store_id' order by table_name`.execute(db);
  assert.ok(tables.length > 30, `${tables.length} tables with store rows`);
  const left: string[] = [];
  for (const { name } of tables) {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(name)}
      where store_id = ${storeId}`.execute(db);
    if (rows[0].n > 0) left.push(name);
  }
  return left;
}

describe("app/uninstalled and shop/redact", () => {
  let subject = 900_000;

  /** Movements recorded as a stock adjustment would record them; answers its platform_sync. */
  async function recordAdjustment(storeId: number, itemId: number, locationId: number, delta: number) {
    const id = ++subject;
    await recordTestMovements(t, storeId, id, [
      { inventoryItemId: itemId, locationId, availableDelta: delta, reason: "correction" },
    ]);
    return async () => (await platformSyncOf(t.runtime.ctx.db, storeId, "stock_adjustment", [id])).get(id);
  }

  test("pushes wait while the app is uninstalled and go once a new token reconnects the shop", async () => {
    const { shop, domain, storeId, api } = await attached();
    const variant = [...shop.variants.values()][0];
    const level = shop.level(variant.inventoryItemId, [...shop.locations.keys()][0])!;
    const start = level.quantities.available;

    standin.uninstall(domain);
    await settle();
    const state = await shopifyState(storeId);
    assert.deepEqual(
      [state.status, state.disconnected_reason],
      ["disconnected", "The app was uninstalled from the Shopify shop."],
    );

    const syncOf = await recordAdjustment(storeId, level.itemId, level.locationId, 5);
    await t.drain();
    const waiting = await syncOf();
    assert.equal(waiting?.state, "pending");
    assert.match(waiting?.error ?? "", /disconnected/);
    assert.equal(level.quantities.available, start, "nothing reached Shopify");
    // Reads of the mirror keep working.
    assert.equal((await mirrorLevel(api, level.itemId, level.locationId)).available, start + 5);

    const token = standin.tokens.issueFixed(
      shop,
      "read_products,read_inventory,write_inventory,read_locations",
    );
    expectStatus(await t.admin.patch(`/admin/stores/${storeId}`, { shopify: { access_token: token } }), 200);
    await settle();
    await settle();
    assert.equal((await syncOf())?.state, "synced");
    assert.equal(level.quantities.available, start + 5, "moved once");
    assert.equal((await shopifyState(storeId)).status, "connected");
  });

  test("shop/redact after an uninstall erases the store, every row of it", async () => {
    const { shop, domain, storeId, api } = await attached();
    // Rows in the tables that hold them without a reference to stores (migration 036): movements.
    const level = firstLevel(shop);
    await recordAdjustment(storeId, level.itemId, level.locationId, 2);
    const other = await attached();
    await recordAdjustment(
      other.storeId,
      firstLevel(other.shop).itemId,
      firstLevel(other.shop).locationId,
      1,
    );
    assert.ok((await storeRowsLeft(storeId)).includes("stock_movements"), "the store has movements");
    standin.uninstall(domain);
    await settle();
    const [delivery] = await standin.webhooks.sendTo(`${appUrl}/shopify/webhooks`, domain, "shop/redact", {
      shop_id: 1,
      shop_domain: domain,
    });
    assert.equal(delivery.status, 200);
    await t.drain();
    expectError(await t.admin.get(`/admin/stores/${storeId}`), 404, "not_found");
    expectError(await api.get("/v2/variants"), 401, "unauthorized");
    assert.deepEqual(await storeRowsLeft(storeId), [], "no table keeps a row of the erased store");
    assert.ok((await storeRowsLeft(other.storeId)).includes("stock_movements"), "another store's stay");
  });

  test("the customers topics are answered and find nothing to keep or erase", async () => {
    const { domain, storeId } = await attached();
    for (const topic of ["customers/data_request", "customers/redact"]) {
      const [delivery] = await standin.webhooks.sendTo(`${appUrl}/shopify/webhooks`, domain, topic, {
        shop_domain: domain,
        customer: { id: 1, email: "someone@example.com" },
      });
      assert.equal(delivery.status, 200, topic);
    }
    await t.drain();
    expectStatus(await t.admin.get(`/admin/stores/${storeId}`), 200);
  });
});

describe("bulk_operations/finish", () => {
  test("a slow import is not complete while its bulk operation runs; the finish delivery ends it", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    // The stand-in's bulk operations run until the test completes them (as a large shop's take minutes).
    const slow = await startShopifyTestApp({
      app: { env: { SHOPIFY_APP_URL: url } },
      standin: { bulkDurationMs: null },
    });
    try {
      await slow.t.runtime.app.listen({ port, host: "127.0.0.1" });
      const { shop, domain, accessToken } = standinShop(slow.standin, { products: 2, locations: 1 });
      const store = await attachByToken(slow.t, domain, accessToken, { owner_email: "owner@example.com" });
      const api = await storeApi(slow.t, store.id);
      const importing = slow.t.drain();
      const polls = () =>
        slow.standin.requests.filter((r) => r.shop === domain && r.query.includes("bulkOperation(id:"))
          .length;
      const running = () =>
        [...slow.standin.bulk.operations.values()].some((o) => o.shop === shop && o.status === "RUNNING");
      // Subscribed, the bulk operation running, and the import has asked about it twice.
      while (shop.subscriptions.length < 16 || !running() || polls() < 2)
        await new Promise((resolve) => setTimeout(resolve, 20));

      const during = (await slow.t.admin.get(`/admin/stores/${store.id}`)).body.data.shopify;
      assert.deepEqual(
        [during.status, during.imported_at, during.import_error, during.last_webhook_at],
        ["importing", null, null, null],
      );
      const noVariants = await api.get("/v2/variants");
      expectStatus(noVariants, 200);
      assert.deepEqual(noVariants.body.data, [], "nothing is mirrored before the operation ends");

      slow.standin.completeBulkOperations();
      await importing;
      await slow.standin.webhooks.settled();
      await slow.t.drain();
      const finish = slow.standin.webhooks.deliveries.filter(
        (d) => d.event.topic === "bulk_operations/finish",
      );
      assert.deepEqual(
        finish.map((d) => d.status),
        [200],
      );
      const taken = await slow.t.runtime.ctx.db
        .selectFrom("shopify_webhook_events")
        .select("topic")
        .where("shop", "=", domain)
        .where("topic", "=", "bulk_operations/finish")
        .execute();
      assert.equal(taken.length, 1, "the intake took the finish delivery");
      const state = (await slow.t.admin.get(`/admin/stores/${store.id}`)).body.data.shopify;
      const now = slow.t.clock.now().toISOString();
      assert.deepEqual(
        [state.status, state.imported_at, state.import_error, state.last_webhook_at],
        ["connected", now, null, now],
      );
      const mirrored = (await listVariants(api)).map((v) => v.id).sort((a, b) => a - b);
      assert.deepEqual(
        mirrored,
        [...shop.variants.keys()].sort((a, b) => a - b),
      );
    } finally {
      await slow.standin.close();
      await slow.t.close();
    }
  });
});
