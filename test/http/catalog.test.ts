import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { ManualClock } from "../../src/clock.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { allPages } from "../helpers/paging.ts";

/**
 * The read-only catalog mirror through HTTP on the demo store: every endpoint's exact shape, filters,
 * paging and date filters, hidden locations, refused writes, and tenancy (another store's catalog is
 * invisible).
 */

const PRODUCT_FIELDS = [
  "created_at",
  "handle",
  "id",
  "image_url",
  "options",
  "platform_updated_at",
  "product_type",
  "status",
  "tags",
  "title",
  "updated_at",
  "variants",
  "variants_count",
  "vendor",
];
const VARIANT_FIELDS = [
  "barcode",
  "compare_at_price",
  "created_at",
  "id",
  "image_url",
  "inventory_item_id",
  "inventory_policy",
  "inventory_tracked",
  "platform_updated_at",
  "position",
  "price",
  "product_id",
  "product_title",
  "sku",
  "taxable",
  "title",
  "unit_cost",
  "unit_cost_currency",
  "updated_at",
  "weight_grams",
];
const LOCATION_FIELDS = [
  "active",
  "address",
  "created_at",
  "fulfillment_service",
  "id",
  "name",
  "updated_at",
];
const ADDRESS_FIELDS = ["city", "country", "country_code", "line1", "line2", "phone", "province_code", "zip"];
const LEVEL_FIELDS = [
  "available",
  "committed",
  "id",
  "incoming",
  "inventory_item_id",
  "location_id",
  "on_hand",
  "platform_updated_at",
  "updated_at",
];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("catalog mirror", () => {
  let t: TestApp;
  let clock: ManualClock;
  let store: TestStore;
  let other: TestStore;
  let products: any[];
  let variants: any[];
  let adminLocations: any[];

  before(async () => {
    t = await startTestApp();
    clock = t.clock as ManualClock;
    store = await t.createStore({ seed: "demo", currency: "USD" });
    other = await t.createStore({ seed: "demo", currency: "EUR" });
    products = await allPages(store.api, "/v2/products?limit=250&include=variants");
    variants = await allPages(store.api, "/v2/variants?limit=250");
    adminLocations = (await t.admin.get(`/admin/stores/${store.id}/locations`)).body.data;
  });
  after(() => t.close());

  test("the demo catalog is mirrored as soon as the store exists", async () => {
    assert.ok(products.length >= 25, `${products.length} products`);
    assert.ok(variants.length >= 80, `${variants.length} variants`);
    assert.equal(adminLocations.length, 3);
    assert.deepEqual(
      adminLocations.map((l: any) => l.hidden),
      [false, false, true],
    );
    for (const v of variants) {
      assert.ok(v.sku, "every demo variant has a SKU");
      assert.match(v.barcode, /^\d{13}$/);
    }
    assert.equal(new Set(variants.map((v) => v.sku)).size, variants.length);
    const untracked = variants.filter((v) => !v.inventory_tracked);
    assert.ok(untracked.length >= 2 && untracked.length < variants.length / 4);
    // Platform ids are unique across products, variants, inventory items and locations.
    const ids = [
      ...products.map((p) => p.id),
      ...variants.map((v) => v.id),
      ...variants.map((v) => v.inventory_item_id),
      ...adminLocations.map((l: any) => l.id),
    ];
    assert.equal(new Set(ids).size, ids.length);
  });

  test("GET /products: exact shape, variants null unless included", async () => {
    const res = await store.api.get("/v2/products?limit=2");
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ["data", "has_more", "next_cursor"]);
    assert.equal(res.body.data.length, 2);
    assert.equal(res.body.has_more, true);
    assert.equal(typeof res.body.next_cursor, "string");
    const p = res.body.data[0];
    assert.deepEqual(Object.keys(p).sort(), PRODUCT_FIELDS);
    assert.equal(p.variants, null);
    assert.equal(p.title, "Classic Tee");
    assert.equal(p.vendor, "Northwind Apparel");
    assert.equal(p.product_type, "T-Shirts");
    assert.equal(p.status, "active");
    assert.deepEqual(p.tags, ["apparel", "cotton"]);
    assert.deepEqual(p.options, [{ name: "Size", position: 1, values: ["S", "M", "L", "XL"] }]);
    assert.equal(p.variants_count, 4);
    assert.equal(p.image_url, null);
    assert.match(p.handle, /^classic-tee/);
    assert.match(p.created_at, ISO);
    assert.match(p.updated_at, ISO);
    assert.match(p.platform_updated_at, ISO);

    const included = products.find((x) => x.id === p.id);
    assert.equal(included.variants.length, 4);
    assert.deepEqual(
      included.variants.map((v: any) => v.position),
      [1, 2, 3, 4],
    );
    assert.deepEqual(Object.keys(included.variants[0]).sort(), VARIANT_FIELDS);
    for (const product of products) assert.equal(product.variants.length, product.variants_count);
  });

  test("GET /products filters by status and vendor, and paging is stable", async () => {
    const drafts = await store.api.get("/v2/products?status=draft");
    assert.equal(drafts.status, 200);
    assert.ok(drafts.body.data.length >= 1);
    for (const p of drafts.body.data) assert.equal(p.status, "draft");
    const archived = await store.api.get("/v2/products?status=archived");
    assert.ok(archived.body.data.length >= 1);
    for (const p of archived.body.data) assert.equal(p.status, "archived");
    const active = await allPages(store.api, "/v2/products?status=active&limit=7");
    assert.equal(active.length + drafts.body.data.length + archived.body.data.length, products.length);

    const vendor = await allPages(store.api, "/v2/products?vendor=Roastery%20Row&limit=3");
    assert.ok(vendor.length >= 5);
    for (const p of vendor) assert.equal(p.vendor, "Roastery Row");
    assert.equal(vendor.length, products.filter((p) => p.vendor === "Roastery Row").length);

    const paged = await allPages(store.api, "/v2/products?limit=4");
    assert.deepEqual(
      paged.map((p) => p.id),
      products.map((p) => p.id),
    );

    const bad = await store.api.get("/v2/products?status=deleted");
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error.code, "validation_failed");
    const badInclude = await store.api.get("/v2/products?include=images");
    assert.equal(badInclude.status, 422);
    const badLimit = await store.api.get("/v2/products?limit=251");
    assert.equal(badLimit.status, 422);
  });

  test("a cursor is bound to its filters", async () => {
    const first = await store.api.get("/v2/products?limit=2&vendor=Summit%20Gear");
    assert.equal(first.body.has_more, true);
    const misuse = await store.api.get(
      `/v2/products?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`,
    );
    assert.equal(misuse.status, 400);
    assert.equal(misuse.body.error.code, "invalid_cursor");
    const otherList = await store.api.get(
      `/v2/variants?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`,
    );
    assert.equal(otherList.status, 400);
    const garbage = await store.api.get("/v2/variants?cursor=nonsense");
    assert.equal(garbage.status, 400);
    assert.equal(garbage.body.error.code, "invalid_cursor");
  });

  test("GET /products/{id} embeds the variants", async () => {
    const p = products[3];
    const res = await store.api.get(`/v2/products/${p.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body), ["data"]);
    assert.deepEqual(res.body.data, p);
    const missing = await store.api.get("/v2/products/999999");
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, "not_found");
  });

  test("GET /variants: shape, money formatting and exact filters", async () => {
    const tee = variants.find((v) => v.sku === "TEE-S");
    assert.ok(tee);
    assert.equal(tee.title, "S");
    assert.equal(tee.product_title, "Classic Tee");
    assert.equal(tee.price, "24.00");
    assert.equal(tee.compare_at_price, null);
    assert.equal(tee.unit_cost, "8.50");
    assert.equal(tee.unit_cost_currency, "USD");
    assert.equal(tee.weight_grams, 180);
    assert.equal(tee.inventory_tracked, true);
    assert.equal(tee.inventory_policy, "deny");
    assert.equal(tee.taxable, true);
    assert.equal(tee.position, 1);
    const shell = variants.find((v) => v.sku === "SHELL-S");
    assert.equal(shell.compare_at_price, "149.00");

    const bySku = await store.api.get("/v2/variants?sku=TEE-S");
    assert.equal(bySku.status, 200);
    assert.deepEqual(bySku.body, { data: [tee], next_cursor: null, has_more: false });
    const partial = await store.api.get("/v2/variants?sku=TEE");
    assert.deepEqual(partial.body.data, []);
    const byBarcode = await store.api.get(`/v2/variants?barcode=${tee.barcode}`);
    assert.deepEqual(
      byBarcode.body.data.map((v: any) => v.id),
      [tee.id],
    );
    const byProduct = await allPages(store.api, `/v2/variants?product_id=${tee.product_id}&limit=2`);
    assert.deepEqual(
      byProduct.map((v) => v.sku),
      ["TEE-S", "TEE-M", "TEE-L", "TEE-XL"],
    );
    const items = [shell.inventory_item_id, tee.inventory_item_id, tee.inventory_item_id];
    const byItems = await store.api.get(`/v2/variants?inventory_item_id=${items.join(",")}`);
    assert.equal(byItems.status, 200);
    assert.deepEqual(byItems.body.data.map((v: any) => v.sku).sort(), ["SHELL-S", "TEE-S"]);
    const byItemsAndWords = await store.api.get(`/v2/variants?inventory_item_id=${items.join(",")}&q=tee`);
    assert.deepEqual(
      byItemsAndWords.body.data.map((v: any) => v.sku),
      ["TEE-S"],
    );
    for (const bad of ["abc", "1,,2", "0", Array.from({ length: 251 }, (_, i) => i + 1).join(",")]) {
      const refused = await store.api.get(`/v2/variants?inventory_item_id=${bad}`);
      assert.equal(refused.status, 422, bad);
    }
    const one = await store.api.get(`/v2/variants/${tee.id}`);
    assert.deepEqual(one.body, { data: tee });
    const badProduct = await store.api.get("/v2/variants?product_id=abc");
    assert.equal(badProduct.status, 422);
  });

  test("GET /variants with sku repeated: the variants having any of the SKUs, paged, up to 250 SKUs", async () => {
    const wanted = ["TEE-S", "SHELL-S", "TEE-XL", "NO-SUCH-SKU"];
    const several = await store.api.get(`/v2/variants?${wanted.map((s) => `sku=${s}`).join("&")}`);
    assert.equal(several.status, 200);
    // The list's own order and shape, only those variants.
    assert.deepEqual(several.body, {
      data: variants.filter((v) => wanted.includes(v.sku)),
      next_cursor: null,
      has_more: false,
    });
    const tees = "sku=TEE-S&sku=TEE-M&sku=TEE-L";
    const paged = await allPages(store.api, `/v2/variants?${tees}&limit=2`);
    assert.deepEqual(paged.map((v) => v.sku).sort(), ["TEE-L", "TEE-M", "TEE-S"]);
    // The cursor is bound to the SKUs it was given with.
    const first = await store.api.get(`/v2/variants?${tees}&limit=2`);
    const misuse = await store.api.get(
      `/v2/variants?sku=TEE-S&limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`,
    );
    assert.equal(misuse.status, 400);
    assert.equal(misuse.body.error.code, "invalid_cursor");
    const atCap = Array.from({ length: 250 }, (_, i) => `sku=NONE-${i}`);
    const capped = await store.api.get(`/v2/variants?${atCap.join("&")}&sku=TEE-S`);
    assert.equal(capped.status, 422);
    const cap = await store.api.get(`/v2/variants?${atCap.slice(1).join("&")}&sku=TEE-S`);
    assert.deepEqual(
      cap.body.data.map((v: any) => v.sku),
      ["TEE-S"],
    );
    const empty = await store.api.get("/v2/variants?sku=TEE-S&sku=");
    assert.equal(empty.status, 422);
  });

  test("GET /variants in another currency formats with that currency", async () => {
    const res = await other.api.get("/v2/variants?sku=TEE-S");
    assert.equal(res.body.data[0].price, "24.00");
    assert.equal(res.body.data[0].unit_cost_currency, "EUR");
  });

  test("GET /locations lists active locations the store has not hidden", async () => {
    const res = await store.api.get("/v2/locations");
    assert.equal(res.status, 200);
    assert.equal(res.body.data.length, 2);
    const loc = res.body.data[0];
    assert.deepEqual(Object.keys(loc).sort(), LOCATION_FIELDS);
    assert.deepEqual(Object.keys(loc.address).sort(), ADDRESS_FIELDS);
    assert.equal(loc.name, "Main Warehouse");
    assert.equal(loc.active, true);
    assert.equal(loc.fulfillment_service, "manual");
    assert.equal(loc.address.city, "Portland");
    assert.equal(loc.address.line2, null);
    const one = await store.api.get(`/v2/locations/${loc.id}`);
    assert.deepEqual(one.body, { data: loc });
    const hidden = adminLocations.find((l: any) => l.hidden);
    const hiddenRes = await store.api.get(`/v2/locations/${hidden.id}`);
    assert.equal(hiddenRes.status, 404);
    assert.equal(hiddenRes.body.error.code, "not_found");
  });

  test("GET /inventory_levels: one row per item per visible location, with filters", async () => {
    const levels = await allPages(store.api, "/v2/inventory_levels?limit=250");
    const visible = adminLocations.filter((l: any) => !l.hidden).map((l: any) => l.id);
    assert.equal(levels.length, variants.length * visible.length);
    assert.deepEqual(Object.keys(levels[0]).sort(), LEVEL_FIELDS);
    for (const l of levels) assert.ok(visible.includes(l.location_id));
    for (const v of variants.filter((x) => x.inventory_tracked)) {
      for (const loc of visible) {
        const level = levels.find(
          (l) => l.inventory_item_id === v.inventory_item_id && l.location_id === loc,
        );
        assert.ok(level.available > 0, `${v.sku} is stocked at ${loc}`);
        assert.equal(level.on_hand, level.available + level.committed);
        assert.equal(level.incoming, 0);
      }
    }
    const tee = variants.find((v) => v.sku === "TEE-S");
    const byItem = await store.api.get(`/v2/inventory_levels?inventory_item_id=${tee.inventory_item_id}`);
    assert.equal(byItem.body.data.length, 2);
    const byBoth = await store.api.get(
      `/v2/inventory_levels?inventory_item_id=${tee.inventory_item_id}&location_id=${visible[1]}`,
    );
    assert.equal(byBoth.body.data.length, 1);
    assert.equal(byBoth.body.data[0].location_id, visible[1]);
    const byLocation = await allPages(store.api, `/v2/inventory_levels?location_id=${visible[0]}&limit=100`);
    assert.equal(byLocation.length, variants.length);
    const hidden = adminLocations.find((l: any) => l.hidden);
    const atHidden = await store.api.get(`/v2/inventory_levels?location_id=${hidden.id}`);
    assert.deepEqual(atHidden.body.data, []);
  });

  test("date filters narrow every list to the change window", async () => {
    clock.advance(60_000);
    const since = clock.now().toISOString();
    const none = await store.api.get(`/v2/products?updated_at_min=${encodeURIComponent(since)}`);
    assert.deepEqual(none.body.data, []);
    // A platform-side change after `since` shows up in the change feed once synced.
    const tee = variants.find((v) => v.sku === "TEE-S");
    const location = adminLocations[0].id;
    const set = await t.admin.post(`/admin/stores/${store.id}/platform/inventory`, {
      changes: [{ inventory_item_id: tee.inventory_item_id, location_id: location, adjust: -1 }],
    });
    assert.equal(set.status, 200);
    await t.drain();
    const changed = await store.api.get(`/v2/inventory_levels?updated_at_min=${encodeURIComponent(since)}`);
    assert.equal(changed.body.data.length, 1);
    assert.equal(changed.body.data[0].inventory_item_id, tee.inventory_item_id);
    const before = await store.api.get(`/v2/variants?created_at_max=${encodeURIComponent(since)}&limit=1`);
    assert.equal(before.body.data.length, 1);
    const after = await store.api.get(`/v2/variants?created_at_min=${encodeURIComponent(since)}`);
    assert.deepEqual(after.body.data, []);
    const badDate = await store.api.get("/v2/locations?updated_at_min=yesterday");
    assert.equal(badDate.status, 422);
    assert.equal(badDate.body.error.code, "validation_failed");
  });

  test("hiding a location in the store's settings removes it from the API", async () => {
    const second = adminLocations[1];
    const hide = await t.admin.patch(`/admin/stores/${store.id}/locations/${second.id}`, { hidden: true });
    assert.equal(hide.status, 200);
    assert.equal(hide.body.data.hidden, true);
    assert.equal((await store.api.get("/v2/locations")).body.data.length, 1);
    assert.equal((await store.api.get(`/v2/locations/${second.id}`)).status, 404);
    const show = await t.admin.patch(`/admin/stores/${store.id}/locations/${second.id}`, { hidden: false });
    assert.equal(show.body.data.hidden, false);
    assert.equal((await store.api.get("/v2/locations")).body.data.length, 2);
    const foreign = (await t.admin.get(`/admin/stores/${other.id}/locations`)).body.data[0];
    const cross = await t.admin.patch(`/admin/stores/${store.id}/locations/${foreign.id}`, { hidden: true });
    assert.equal(cross.status, 404);
  });

  test("another store's catalog is invisible", async () => {
    const otherProducts = await allPages(other.api, "/v2/products?limit=250");
    const otherVariants = await allPages(other.api, "/v2/variants?limit=250");
    const otherLocations = (await other.api.get("/v2/locations")).body.data;
    const otherLevels = await allPages(other.api, "/v2/inventory_levels?limit=250");
    const mine = new Set(products.map((p) => p.id));
    for (const p of otherProducts) assert.ok(!mine.has(p.id));
    for (const p of otherProducts.slice(0, 3)) {
      const res = await store.api.get(`/v2/products/${p.id}`);
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, "not_found");
    }
    assert.equal((await store.api.get(`/v2/variants/${otherVariants[0].id}`)).status, 404);
    assert.equal((await store.api.get(`/v2/locations/${otherLocations[0].id}`)).status, 404);
    const filtered = await store.api.get(`/v2/variants?product_id=${otherProducts[0].id}`);
    assert.deepEqual(filtered.body.data, []);
    const levels = await store.api.get(
      `/v2/inventory_levels?inventory_item_id=${otherLevels[0].inventory_item_id}`,
    );
    assert.deepEqual(levels.body.data, []);
    const myLevels = await allPages(store.api, "/v2/inventory_levels?limit=250");
    const otherItems = new Set(otherVariants.map((v) => v.inventory_item_id));
    for (const l of myLevels) assert.ok(!otherItems.has(l.inventory_item_id));
  });

  test("the catalog is read-only: writes are 405 with the methods the path offers, in the error envelope", async () => {
    const p = products[0];
    const attempts = [
      store.api.post("/v2/products", { title: "x" }),
      store.api.put(`/v2/products/${p.id}`, { title: "x" }),
      store.api.patch(`/v2/products/${p.id}`, { title: "x" }),
      store.api.delete(`/v2/products/${p.id}`),
      store.api.post("/v2/variants", {}),
      store.api.patch(`/v2/variants/${variants[0].id}`, { sku: "x" }),
      store.api.post("/v2/locations", {}),
      store.api.delete(`/v2/locations/${adminLocations[0].id}`),
      store.api.post("/v2/inventory_levels", { available: 5 }),
      store.api.put("/v2/inventory_levels", { available: 5 }),
    ];
    for (const res of await Promise.all(attempts)) {
      assert.equal(res.status, 405);
      assert.equal(res.body.error.code, "bad_request");
      assert.equal(typeof res.body.error.message, "string");
      // Every catalog path is read-only: GET (and the HEAD Fastify answers with it) is all it offers.
      assert.match(String(res.headers.allow), /^GET\b/);
      assert.doesNotMatch(String(res.headers.allow), /POST|PUT|PATCH|DELETE/);
    }
    const again = await store.api.get(`/v2/products/${p.id}`);
    assert.equal(again.body.data.title, p.title);
  });

  test("reads need a key: any scope can read, no key is refused", async () => {
    const readOnly = await store.keyWithScopes(["read"]);
    assert.equal((await readOnly.get("/v2/variants?limit=1")).status, 200);
    const webhooksOnly = await store.keyWithScopes(["webhooks"]);
    assert.equal((await webhooksOnly.get("/v2/products?limit=1")).status, 200);
    const anonymous = await t.client().get("/v2/products");
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.error.code, "unauthorized");
  });
});
