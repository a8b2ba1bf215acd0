/**
 * The initial import of a Shopify store through the admin API and the stand-in (issue 19): a catalog
 * of 2,000 variants at 3 locations, some of it varied (statuses, a barcode, an item without a cost,
 * one untracked, every quantity name at one level), attached by token and imported by a bulk
 * operation; then the mirror the API reads matches the shop field by field.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Client, TestApp } from "../helpers/app.ts";
import { allPages } from "../helpers/paging.ts";
import { attachByToken, standinShop, startShopifyTestApp, storeApi } from "../helpers/shopify.ts";
import type { ShopifyStandin } from "../shopify-standin/index.ts";
import type { ShopState } from "../shopify-standin/state.ts";

let t: TestApp;
let standin: ShopifyStandin;
let shop: ShopState;
let api: Client;

const STATUS = { ACTIVE: "active", UNLISTED: "active", DRAFT: "draft", ARCHIVED: "archived" } as const;
const byId = (a: { id: number }, b: { id: number }) => a.id - b.id;

before(async () => {
  ({ t, standin } = await startShopifyTestApp());
  const made = standinShop(standin, { products: 500, variantsPerProduct: 4, locations: 3 });
  shop = made.shop;
  const [p1, p2, p3] = [...shop.products.values()];
  p1.status = "UNLISTED";
  p2.status = "DRAFT";
  p3.status = "ARCHIVED";
  p2.productType = "Shoes";
  const variants = [...shop.variants.values()];
  standin.editVariant(shop, variants[0].id, { barcode: "0123456789012", price: "24.50" });
  const items = [...shop.items.values()];
  items[1].cost = null;
  items[2].tracked = false;
  const place = [...shop.locations.keys()][2];
  standin.setQuantity(shop, items[0].id, place, "available", 4);
  standin.setQuantity(shop, items[0].id, place, "committed", 2);
  standin.setQuantity(shop, items[0].id, place, "incoming", 9);
  const store = await attachByToken(t, made.domain, made.accessToken);
  await t.drain();
  api = await storeApi(t, store.id);
});
after(async () => {
  await t.close();
  await standin.close();
});

describe("the initial import of a Shopify store", () => {
  test("2,000 variants at 3 locations: the store is connected and the mirror is the shop's", async () => {
    const stores = await t.admin.get("/admin/stores");
    assert.equal(stores.body.data.at(-1).shopify.status, "connected");

    const locations = (await allPages(api, "/v2/locations")).map((l) => ({ id: l.id, name: l.name }));
    assert.deepEqual(
      locations.sort(byId),
      [...shop.locations.values()].map((l) => ({ id: l.id, name: l.name })).sort(byId),
    );

    const products = (await allPages(api, "/v2/products")).map((p) => ({
      id: p.id,
      title: p.title,
      handle: p.handle,
      vendor: p.vendor,
      product_type: p.product_type,
      status: p.status,
      variants_count: p.variants_count,
    }));
    assert.equal(products.length, 500);
    assert.deepEqual(
      products.sort(byId),
      [...shop.products.values()]
        .map((p) => ({
          id: p.id,
          title: p.title,
          handle: p.handle,
          vendor: p.vendor,
          product_type: p.productType === "" ? null : p.productType,
          status: STATUS[p.status],
          variants_count: shop.variantsByProduct.get(p.id)?.length ?? 0,
        }))
        .sort(byId),
    );

    const variants = (await allPages(api, "/v2/variants")).map((v) => ({
      id: v.id,
      product_id: v.product_id,
      inventory_item_id: v.inventory_item_id,
      title: v.title,
      sku: v.sku,
      barcode: v.barcode,
      price: v.price,
      unit_cost: v.unit_cost,
      inventory_tracked: v.inventory_tracked,
    }));
    assert.equal(variants.length, 2000);
    assert.deepEqual(
      variants.sort(byId),
      [...shop.variants.values()]
        .map((v) => {
          const item = shop.items.get(v.inventoryItemId)!;
          return {
            id: v.id,
            product_id: v.productId,
            inventory_item_id: v.inventoryItemId,
            title: v.title,
            sku: v.sku,
            barcode: v.barcode,
            price: v.price,
            unit_cost: item.cost,
            inventory_tracked: item.tracked,
          };
        })
        .sort(byId),
    );

    const levels = (await allPages(api, "/v2/inventory_levels")).map((l) => ({
      item: l.inventory_item_id,
      location: l.location_id,
      available: l.available,
      on_hand: l.on_hand,
      committed: l.committed,
      incoming: l.incoming,
    }));
    assert.equal(levels.length, 6000);
    const key = (l: { item: number; location: number }) => `${l.item}:${l.location}`;
    assert.deepEqual(
      levels.sort((a, b) => key(a).localeCompare(key(b))),
      [...shop.levels.values()]
        .map((l) => ({
          item: l.itemId,
          location: l.locationId,
          available: l.quantities.available,
          on_hand: l.quantities.on_hand,
          committed: l.quantities.committed,
          incoming: l.quantities.incoming,
        }))
        .sort((a, b) => key(a).localeCompare(key(b))),
    );
  });
});
