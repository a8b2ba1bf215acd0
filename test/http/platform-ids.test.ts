/**
 * Platform ids above 32 bits (issue 19, decisions §12): a Shopify GID's numeric tail reaches 10^14 (the
 * stand-in hands out ids from 10^13, as live shops do). Every input carrying a product, variant,
 * inventory item or location id takes them up to 2^53-1 and answers them exactly; a larger value or a
 * path id not written in plain decimal is refused as before. A property test round-trips ids over the
 * whole range through the mirror's bigint columns.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import type { Client, TestApp } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import { createDraftOrder, createSupplier, eventsOf, idempotencyKey } from "../helpers/factories.ts";
import { attachByToken, standinShop, startShopifyTestApp, storeApi } from "../helpers/shopify.ts";
import type { ShopifyStandin } from "../shopify-standin/index.ts";
import type { ShopState } from "../shopify-standin/state.ts";

const TOO_LARGE = "9007199254740992"; // 2^53: beyond what a JSON number carries exactly

let t: TestApp;
let standin: ShopifyStandin;
let shop: ShopState;
let storeId: number;
let api: Client;
let variants: number[];
let locations: number[];

const itemOf = (variant: number) => shop.variants.get(variant)!.inventoryItemId;
const productOf = (variant: number) => shop.variants.get(variant)!.productId;

before(async () => {
  ({ t, standin } = await startShopifyTestApp());
  const made = standinShop(standin, { products: 3, variantsPerProduct: 2, locations: 2 });
  shop = made.shop;
  storeId = (await attachByToken(t, made.domain, made.accessToken)).id;
  await t.drain();
  api = await storeApi(t, storeId);
  variants = [...shop.variants.keys()];
  locations = [...shop.locations.keys()];
});
after(async () => {
  await t.close();
  await standin.close();
});

describe("a Shopify store's ids above 2^31", () => {
  test("the stand-in's ids are beyond 32 bits", () => {
    for (const id of [...variants, ...variants.map(itemOf), ...variants.map(productOf), ...locations])
      assert.ok(id > 2 ** 31 && Number.isSafeInteger(id), String(id));
  });

  test("GET /v2/products/{id}, /v2/variants/{id}, /v2/locations/{id} find them", async () => {
    const v = variants[0];
    const variant = await api.get(`/v2/variants/${v}`);
    expectStatus(variant, 200);
    assert.equal(variant.body.data.id, v);
    assert.equal(variant.body.data.inventory_item_id, itemOf(v));
    assert.equal(variant.body.data.product_id, productOf(v));

    const product = await api.get(`/v2/products/${productOf(v)}`);
    expectStatus(product, 200);
    assert.equal(product.body.data.id, productOf(v));
    assert.deepEqual(
      product.body.data.variants.map((x: { id: number }) => x.id).sort(),
      variants.filter((x) => productOf(x) === productOf(v)).sort(),
    );

    const location = await api.get(`/v2/locations/${locations[1]}`);
    expectStatus(location, 200);
    assert.equal(location.body.data.id, locations[1]);
  });

  test("list filters take them: variants by product, levels by item and location", async () => {
    const v = variants[2];
    const byProduct = await api.get(`/v2/variants?product_id=${productOf(v)}`);
    expectStatus(byProduct, 200);
    assert.deepEqual(
      byProduct.body.data.map((x: { id: number }) => x.id).sort(),
      variants.filter((x) => productOf(x) === productOf(v)).sort(),
    );

    const levels = await api.get(
      `/v2/inventory_levels?inventory_item_id=${itemOf(v)}&location_id=${locations[0]}`,
    );
    expectStatus(levels, 200);
    assert.equal(levels.body.data.length, 1);
    assert.equal(levels.body.data[0].inventory_item_id, itemOf(v));
    assert.equal(levels.body.data[0].location_id, locations[0]);
    assert.equal(levels.body.data[0].available, 10);

    const byItem = await api.get(`/v2/inventory_levels?inventory_item_id=${itemOf(v)}&limit=1`);
    expectStatus(byItem, 200);
    assert.equal(byItem.body.has_more, true);
    const next = await api.get(
      `/v2/inventory_levels?inventory_item_id=${itemOf(v)}&limit=1&cursor=${encodeURIComponent(byItem.body.next_cursor)}`,
    );
    expectStatus(next, 200);
    assert.deepEqual(
      [byItem.body.data[0].location_id, next.body.data[0].location_id].sort(),
      [...locations].sort(),
    );
  });

  test("a purchase order with lines by variant id at a location, listed by that location", async () => {
    const supplier = await createSupplier(api);
    const v = variants[1];
    const order = await createDraftOrder(api, {
      supplier_id: supplier.id,
      location_id: locations[1],
      lines: [{ variant_id: v, quantity: 3, unit_cost: 2 }],
    });
    assert.equal(order.location.id, locations[1]);
    assert.equal(order.lines[0].variant_id, v);
    assert.equal(order.lines[0].inventory_item_id, itemOf(v));
    assert.equal(order.lines[0].product_id, productOf(v));

    const listed = await api.get(`/v2/purchase_orders?location_id=${locations[1]}`);
    expectStatus(listed, 200);
    assert.deepEqual(
      listed.body.data.map((o: { id: number }) => o.id),
      [order.id],
    );
  });

  test("a supplier catalog item by variant id, removed by its item id", async () => {
    const supplier = await createSupplier(api);
    const v = variants[3];
    const put = await api.put(`/v2/suppliers/${supplier.id}/catalog`, { rows: [{ variant_id: v }] });
    expectStatus(put, 200);
    assert.equal(put.body.data.length, 1);
    assert.equal(put.body.data[0].inventory_item_id, itemOf(v));

    const removed = await api.delete(`/v2/suppliers/${supplier.id}/catalog/${itemOf(v)}`);
    expectStatus(removed, 200);
    assert.deepEqual(removed.body, { data: { inventory_item_id: itemOf(v), deleted: true } });
  });

  test("alert rules on the item and location, and an applied adjustment firing the item's event", async () => {
    const v = variants[4];
    const item = itemOf(v);
    const rules = await t.admin.put(`/admin/stores/${storeId}/alert_rules`, {
      low_stock_threshold: 5,
      items: [{ inventory_item_id: item, location_id: locations[0], reorder_point: 2, max_stock: 100 }],
    });
    expectStatus(rules, 200);
    assert.deepEqual(rules.body.data, {
      low_stock_threshold: 5,
      items: [{ inventory_item_id: item, location_id: locations[0], reorder_point: 2, max_stock: 100 }],
    });

    const draft = await api.post("/v2/stock_adjustments", {
      location_id: locations[0],
      lines: [{ variant_id: v, delta: -10 }],
    });
    expectStatus(draft, 201);
    assert.equal(draft.body.data.location.id, locations[0]);
    assert.equal(draft.body.data.lines[0].variant_id, v);
    assert.equal(draft.body.data.lines[0].inventory_item_id, item);
    const applied = await api.post(
      `/v2/stock_adjustments/${draft.body.data.id}/apply`,
      {},
      idempotencyKey("platform-ids"),
    );
    expectStatus(applied, 200);

    // The event's subject is the inventory item: its id is stored as bigint (migration 015).
    const events = await eventsOf(t, { type: "inventory_item", id: item, storeId });
    assert.deepEqual(events.map((e) => e.name).sort(), [
      "item.low_stock",
      "item.out_of_stock",
      "item.reorder_point",
    ]);
    for (const event of events) {
      assert.equal(event.data.inventory_item_id, item);
      assert.equal(event.data.variant_id, v);
      assert.equal(event.data.location.id, locations[0]);
    }
  });

  test("the admin's location setting hides and shows one", async () => {
    const hide = await t.admin.patch(`/admin/stores/${storeId}/locations/${locations[1]}`, { hidden: true });
    expectStatus(hide, 200);
    assert.equal(hide.body.data.id, locations[1]);
    assert.equal(hide.body.data.hidden, true);
    expectStatus(await api.get(`/v2/locations/${locations[1]}`), 404);
    const show = await t.admin.patch(`/admin/stores/${storeId}/locations/${locations[1]}`, { hidden: false });
    expectStatus(show, 200);
    expectStatus(await api.get(`/v2/locations/${locations[1]}`), 200);
  });

  test("2^53 and ids not written in plain decimal are refused, nothing written", async () => {
    const tooLarge = { field: "id", code: "out_of_range", message: "must be <= 9007199254740991" };
    for (const path of ["variants", "products", "locations"]) {
      const res = await api.get(`/v2/${path}/${TOO_LARGE}`);
      assert.equal(res.status, 422, path);
      assert.deepEqual(res.body.error.details, [tooLarge], path);
    }
    const notDecimal = { field: "id", code: "invalid_type", message: "must be an integer" };
    for (const id of [`0x${variants[0].toString(16)}`, `${variants[0]}.0`, `${variants[0] / 1000}e3`]) {
      const res = await api.get(`/v2/variants/${id}`);
      assert.equal(res.status, 422, id);
      assert.deepEqual(res.body.error.details, [notDecimal], id);
    }
    const filter = await api.get(`/v2/inventory_levels?inventory_item_id=${TOO_LARGE}`);
    assert.equal(filter.status, 422);
    assert.deepEqual(filter.body.error.details, [{ ...tooLarge, field: "inventory_item_id" }]);

    const supplier = await createSupplier(api);
    const before = (await api.get("/v2/purchase_orders")).body.data.length;
    const order = await api.post("/v2/purchase_orders", {
      supplier_id: supplier.id,
      lines: [{ variant_id: Number(TOO_LARGE), quantity: 1, unit_cost: 1 }],
    });
    assert.equal(order.status, 422);
    assert.deepEqual(order.body.error.details, [{ ...tooLarge, field: "lines.0.variant_id" }]);
    assert.equal((await api.get("/v2/purchase_orders")).body.data.length, before);

    const rules = await t.admin.put(`/admin/stores/${storeId}/alert_rules`, {
      low_stock_threshold: null,
      items: [{ inventory_item_id: Number(TOO_LARGE) }],
    });
    assert.equal(rules.status, 422);
    assert.deepEqual(rules.body.error.details, [{ ...tooLarge, field: "items.0.inventory_item_id" }]);
    assert.equal(
      (await t.admin.get(`/admin/stores/${storeId}/alert_rules`)).body.data.low_stock_threshold,
      5,
    );
  });
});

describe("the API description", () => {
  test("platform-id parameters carry 2^53-1, Stockroom's own ids 2^31-1", async () => {
    const doc = (await t.client().get("/v2/openapi.json")).body;
    const param = (path: string, name: string) =>
      doc.paths[path].get.parameters.find((p: { name: string }) => p.name === name).schema;
    for (const [path, name] of [
      ["/v2/variants/{id}", "id"],
      ["/v2/products/{id}", "id"],
      ["/v2/locations/{id}", "id"],
      ["/v2/variants", "product_id"],
      ["/v2/inventory_levels", "inventory_item_id"],
      ["/v2/inventory_levels", "location_id"],
      ["/v2/purchase_orders", "location_id"],
    ]) {
      const schema = param(path, name);
      assert.equal(schema.type, "integer", `${path} ${name}`);
      assert.equal(schema.minimum, 1, `${path} ${name}`);
      assert.equal(schema.maximum, Number.MAX_SAFE_INTEGER, `${path} ${name}`);
    }
    assert.equal(param("/v2/suppliers/{id}", "id").maximum, 2 ** 31 - 1);
    assert.equal(param("/v2/purchase_orders", "supplier_id").maximum, 2 ** 31 - 1);
  });
});

describe("platform ids round-trip over 1..2^53-1", () => {
  test("a variant written with any ids is found, filtered and catalogued by them, exactly", async () => {
    const store = await t.createStore({ seed: "empty" });
    const supplier = await createSupplier(store.api);
    const used = new Set<number>();
    const id = fc.oneof(
      fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
      fc.constantFrom(
        1,
        2 ** 31 - 1,
        2 ** 31,
        2 ** 32,
        10 ** 14,
        Number.MAX_SAFE_INTEGER - 1,
        Number.MAX_SAFE_INTEGER,
      ),
    );
    await fc.assert(
      fc.asyncProperty(id, id, id, async (variant, item, product) => {
        fc.pre(!used.has(variant) && !used.has(item) && variant !== item);
        used.add(variant);
        used.add(item);
        await t.runtime.ctx.db
          .insertInto("variants")
          .values({
            store_id: store.id,
            id: variant,
            product_id: product,
            inventory_item_id: item,
            title: "Round trip",
            product_title: "Round trip",
            sku: null,
            barcode: null,
            compare_at_price: null,
            unit_cost: null,
            unit_cost_currency: null,
            image_url: null,
            platform_updated_at: null,
          })
          .execute();
        const got = await store.api.get(`/v2/variants/${variant}`);
        expectStatus(got, 200);
        assert.deepEqual(
          [got.body.data.id, got.body.data.inventory_item_id, got.body.data.product_id],
          [variant, item, product],
        );
        const byProduct = await store.api.get(`/v2/variants?product_id=${product}`);
        expectStatus(byProduct, 200);
        assert.ok(byProduct.body.data.some((x: { id: number }) => x.id === variant));
        assert.ok(byProduct.body.data.every((x: { product_id: number }) => x.product_id === product));
        const row = await store.api.put(`/v2/suppliers/${supplier.id}/catalog`, {
          rows: [{ variant_id: variant }],
        });
        expectStatus(row, 200);
        assert.equal(row.body.data[0].inventory_item_id, item);
      }),
      { numRuns: 40 },
    );
  });
});
