/**
 * Attaching a store to Shopify by a custom app's token (issue 19 item 2, decisions section 12), through
 * the admin API against the stand-in: the token is checked first (refused: 422 on
 * shopify.access_token and nothing written), the store takes the shop's name, currency and time zone,
 * its response carries the shop's state and never the token, the webhook subscriptions are created
 * and the initial import runs until the shop is `connected`.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { HttpResult, TestApp } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import {
  attachByToken,
  standinShop,
  startShopifyTestApp,
  storeApi,
  TEST_APP_URL,
} from "../helpers/shopify.ts";
import type { ShopifyStandin } from "../shopify-standin/index.ts";

let t: TestApp;
let standin: ShopifyStandin;

before(async () => {
  ({ t, standin } = await startShopifyTestApp());
});
after(async () => {
  await t.close();
  await standin.close();
});

const SUBSCRIBED = [
  "APP_UNINSTALLED",
  "BULK_OPERATIONS_FINISH",
  "INVENTORY_ITEMS_CREATE",
  "INVENTORY_ITEMS_DELETE",
  "INVENTORY_ITEMS_UPDATE",
  "INVENTORY_LEVELS_CONNECT",
  "INVENTORY_LEVELS_DISCONNECT",
  "INVENTORY_LEVELS_UPDATE",
  "LOCATIONS_ACTIVATE",
  "LOCATIONS_CREATE",
  "LOCATIONS_DEACTIVATE",
  "LOCATIONS_DELETE",
  "LOCATIONS_UPDATE",
  "PRODUCTS_CREATE",
  "PRODUCTS_DELETE",
  "PRODUCTS_UPDATE",
];

/** 422 validation_failed with exactly these details (messages included), in this order. */
function assertValidationError(
  res: HttpResult,
  details: Array<{ field: string; code: string; message: string }>,
) {
  expectStatus(res, 422);
  assert.equal(res.body.error.code, "validation_failed");
  assert.deepEqual(res.body.error.details, details);
}

async function counts() {
  const stores = await t.admin.get("/admin/stores");
  const shops = await t.runtime.ctx.db
    .selectFrom("shopify_shops")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .executeTakeFirstOrThrow();
  const jobs = await t.runtime.ctx.db
    .selectFrom("jobs")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .executeTakeFirstOrThrow();
  return { stores: stores.body.data.length, shops: Number(shops.n), jobs: Number(jobs.n) };
}

describe("attach a store to Shopify by token", () => {
  test("201: the shop's name, currency and zone, its state without the token; subscribed and imported", async () => {
    const { shop, domain, accessToken } = standinShop(
      standin,
      { products: 3, variantsPerProduct: 2, locations: 2 },
      { name: "Maple Goods", currency: "CAD", timezone: "America/Toronto" },
    );
    const res = await t.admin.post("/admin/stores", {
      platform: "shopify",
      shopify: { shop: domain, access_token: accessToken },
      owner_email: "owner@example.com",
    });
    assert.equal(res.status, 201);
    const store = res.body.data;
    assert.ok(!JSON.stringify(res.body).includes(accessToken), "the token is never shown");
    assert.deepEqual(
      {
        name: store.name,
        domain: store.domain,
        currency: store.currency,
        timezone: store.timezone,
        owner_email: store.owner_email,
        platform: store.platform,
        api_access: store.api_access,
      },
      {
        name: "Maple Goods",
        domain,
        currency: "CAD",
        timezone: "America/Toronto",
        owner_email: "owner@example.com",
        platform: "shopify",
        api_access: true,
      },
    );
    assert.deepEqual(store.shopify, {
      shop: domain,
      api_version: "2026-10",
      scopes: ["read_products", "read_inventory", "write_inventory", "read_locations"],
      status: "importing",
      disconnected_reason: null,
      import_error: null,
      imported_at: null,
      last_webhook_at: null,
      last_reconciled_at: null,
    });

    await t.drain();
    assert.deepEqual(
      shop.subscriptions.map((s) => s.topic).sort(),
      SUBSCRIBED,
      "every topic subscribed once",
    );
    assert.ok(shop.subscriptions.every((s) => s.uri === `${TEST_APP_URL}/shopify/webhooks`));

    const after = await t.admin.get(`/admin/stores/${store.id}`);
    assert.equal(after.status, 200);
    assert.deepEqual(
      [
        after.body.data.shopify.status,
        after.body.data.shopify.imported_at,
        after.body.data.shopify.import_error,
      ],
      ["connected", t.clock.now().toISOString(), null],
    );
    const list = await t.admin.get("/admin/stores");
    const listed = list.body.data.find((s: { id: number }) => s.id === store.id);
    assert.deepEqual(listed, after.body.data);
    const api = await storeApi(t, store.id);
    const variants = await api.get("/v2/variants?limit=250");
    assert.equal(variants.status, 200);
    assert.deepEqual(
      variants.body.data.map((v: { id: number }) => v.id).sort((a: number, b: number) => a - b),
      [...shop.variants.keys()].sort((a, b) => a - b),
    );
  });

  test("subscriptions made again find them existing and count them as created", async () => {
    const { shop, domain, accessToken } = standinShop(standin);
    const store = await attachByToken(t, domain, accessToken);
    await t.drain();
    const { requestSubscriptions } = await import("../../src/platform/shopify/index.ts");
    await requestSubscriptions(t.runtime.ctx, t.runtime.ctx.db, store.id);
    await t.drain();
    assert.equal(shop.subscriptions.length, SUBSCRIBED.length);
    const failed = await t.runtime.ctx.db
      .selectFrom("jobs")
      .select("id")
      .where("type", "=", "shopify.subscribe")
      .where("state", "=", "failed")
      .execute();
    assert.deepEqual(failed, []);
  });

  test("a token Shopify refuses: 422 on shopify.access_token, nothing written", async () => {
    const { domain } = standinShop(standin);
    const before = await counts();
    const res = await t.admin.post("/admin/stores", {
      platform: "shopify",
      shopify: { shop: domain, access_token: "shpat_not-a-token" },
    });
    assertValidationError(res, [
      {
        field: "shopify.access_token",
        code: "invalid_value",
        message: `was refused by Shopify for ${domain}`,
      },
    ]);
    assert.deepEqual(await counts(), before);
  });

  test("a shop Shopify cannot be reached for: 422 on shopify.access_token, nothing written", async () => {
    const { domain, accessToken } = standinShop(standin);
    const before = await counts();
    await standin.startOutage("5xx", 1);
    const res = await t.admin.post("/admin/stores", {
      platform: "shopify",
      shopify: { shop: domain, access_token: accessToken },
    });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, "validation_failed");
    assert.deepEqual(
      res.body.error.details.map((d: { field: string; code: string }) => [d.field, d.code]),
      [["shopify.access_token", "invalid_value"]],
    );
    assert.match(
      res.body.error.details[0].message,
      /^could not be checked with Shopify: Shopify answered 503/,
    );
    assert.deepEqual(await counts(), before);
  });

  test("seed is refused for a Shopify store; shop, currency and a second attach are checked", async () => {
    const { domain, accessToken } = standinShop(standin, { products: 1 }, { currency: "EUR" });
    const before = await counts();
    const seeded = await t.admin.post("/admin/stores", {
      platform: "shopify",
      seed: "demo",
      shopify: { shop: domain, access_token: accessToken },
    });
    assertValidationError(seeded, [
      {
        field: "seed",
        code: "not_allowed",
        message: "is not taken for a Shopify store: its catalog is the shop's",
      },
    ]);
    const badShop = await t.admin.post("/admin/stores", {
      platform: "shopify",
      shopify: { shop: "https://evil.example/x", access_token: accessToken },
    });
    assertValidationError(badShop, [
      {
        field: "shopify.shop",
        code: "invalid_value",
        message: "must be the shop's <name>.myshopify.com domain",
      },
    ]);
    const currency = await t.admin.post("/admin/stores", {
      platform: "shopify",
      currency: "USD",
      shopify: { shop: domain, access_token: accessToken },
    });
    assertValidationError(currency, [
      { field: "currency", code: "invalid_value", message: "must be the shop's currency (EUR) or left out" },
    ]);
    const missing = await t.admin.post("/admin/stores", { name: "No shop", platform: "shopify" });
    assertValidationError(missing, [{ field: "shopify", code: "required", message: "is required" }]);
    const onSimulated = await t.admin.post("/admin/stores", {
      name: "Sim",
      currency: "USD",
      timezone: "UTC",
      shopify: { shop: domain, access_token: accessToken },
    });
    assertValidationError(onSimulated, [
      { field: "shopify", code: "not_allowed", message: 'is only taken with platform "shopify"' },
    ]);
    assert.deepEqual(await counts(), before);

    await attachByToken(t, domain, accessToken);
    const again = await t.admin.post("/admin/stores", {
      platform: "shopify",
      shopify: { shop: domain, access_token: accessToken },
    });
    assertValidationError(again, [
      { field: "shopify.shop", code: "taken", message: "is already attached to another store" },
    ]);
  });

  test("a simulated store still needs its name, currency and time zone", async () => {
    const res = await t.admin.post("/admin/stores", {});
    assertValidationError(res, [
      { field: "name", code: "required", message: "is required" },
      { field: "currency", code: "required", message: "is required" },
      { field: "timezone", code: "required", message: "is required" },
    ]);
  });

  test("PATCH shopify.access_token: a refused token changes nothing, a good one is used from then on", async () => {
    const { domain, accessToken } = standinShop(standin);
    const store = await attachByToken(t, domain, accessToken);
    const { findShopByStore } = await import("../../src/platform/shopify/index.ts");
    const sealedBefore = (await findShopByStore(t.runtime.ctx.db, store.id))?.access_token_sealed;
    const refused = await t.admin.patch(`/admin/stores/${store.id}`, {
      name: "Renamed",
      shopify: { access_token: "shpat_wrong" },
    });
    assertValidationError(refused, [
      {
        field: "shopify.access_token",
        code: "invalid_value",
        message: `was refused by Shopify for ${domain}`,
      },
    ]);
    const unchanged = await t.admin.get(`/admin/stores/${store.id}`);
    assert.equal(unchanged.body.data.name, store.name);
    assert.equal((await findShopByStore(t.runtime.ctx.db, store.id))?.access_token_sealed, sealedBefore);

    const second = standin.tokens.issueFixed(standin.shops.get(domain)!, "read_products,write_inventory");
    const res = await t.admin.patch(`/admin/stores/${store.id}`, {
      name: "Renamed",
      shopify: { access_token: second },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.name, "Renamed");
    assert.ok(!JSON.stringify(res.body).includes(second));
    const { openShopTokens } = await import("../../src/platform/shopify/index.ts");
    const row = await findShopByStore(t.runtime.ctx.db, store.id);
    assert.ok(row);
    assert.equal(openShopTokens(t.runtime.ctx, row).accessToken, second);

    const simulated = await t.createStore();
    const notShopify = await t.admin.patch(`/admin/stores/${simulated.id}`, {
      shopify: { access_token: second },
    });
    assertValidationError(notShopify, [
      { field: "shopify", code: "not_allowed", message: "is only taken for a store attached to Shopify" },
    ]);
  });
});
