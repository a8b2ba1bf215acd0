/**
 * The initial import of a Shopify store through the admin API and the stand-in (issue 19): a catalog
 * of 2,000 variants at 3 locations, some of it varied (statuses, a barcode, an item without a cost,
 * one untracked, every quantity name at one level; tags, options and images, weights in every unit,
 * a variant that sells on when out of stock and one not taxed, a location without an address and one
 * a fulfillment service runs), attached by token and imported by a bulk
 * operation; then the mirror the API reads matches the shop field by field.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Client, TestApp } from "../helpers/app.ts";
import { allPages } from "../helpers/paging.ts";
import { attachByToken, standinShop, startShopifyTestApp, storeApi } from "../helpers/shopify.ts";
import type { ShopifyStandin } from "../shopify-standin/index.ts";
import type { Location, ShopState } from "../shopify-standin/state.ts";

let t: TestApp;
let standin: ShopifyStandin;
let shop: ShopState;
let api: Client;
let second: Location;
let third: Location;

const STATUS = { ACTIVE: "active", UNLISTED: "active", DRAFT: "draft", ARCHIVED: "archived" } as const;
// Shopify's weights as the mirror's whole grams (a pound is 453.59237 g, an ounce 28.349523125 g).
const GRAMS: Record<string, number> = {
  "1.5 KILOGRAMS": 1500,
  "2 POUNDS": 907,
  "3.5 OUNCES": 99,
  "250 GRAMS": 250,
  "0 KILOGRAMS": 0,
};
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
  p1.tags = ["summer", "Sale"];
  p1.options = [
    { name: "Size", values: ["S", "M", "L", "XL"] },
    { name: "Colour", values: ["Red"] },
  ];
  p2.image = { url: "https://cdn.shopify.com/s/files/1/shoe.png", altText: "A red shoe" };
  const variants = [...shop.variants.values()];
  standin.editVariant(shop, variants[0].id, { barcode: "0123456789012", price: "24.50" });
  variants[1].inventoryPolicy = "CONTINUE";
  variants[2].taxable = false;
  variants[3].image = { url: "https://cdn.shopify.com/s/files/1/variant.png", altText: null };
  const items = [...shop.items.values()];
  items[1].cost = null;
  items[2].tracked = false;
  items[0].weight = { value: 1.5, unit: "KILOGRAMS" };
  items[1].weight = { value: 2, unit: "POUNDS" };
  items[2].weight = { value: 3.5, unit: "OUNCES" };
  items[3].weight = { value: 250, unit: "GRAMS" };
  items[4].weight = null;
  [, second, third] = [...shop.locations.values()];
  second.address = {
    address1: "",
    address2: null,
    city: null,
    province: null,
    provinceCode: null,
    zip: null,
    country: null,
    countryCode: null,
    phone: null,
  };
  third.address = { ...third.address, address2: "Unit 4", phone: "+1 613 555 0100" };
  third.fulfillmentService = "acme-fulfillment";
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

    const locations = (await allPages(api, "/v2/locations")).map((l) => ({
      id: l.id,
      name: l.name,
      fulfillment_service: l.fulfillment_service,
      address: l.address,
    }));
    const orNull = (value: string | null) => (value === "" ? null : value);
    assert.deepEqual(
      locations.sort(byId),
      [...shop.locations.values()]
        .map((l) => ({
          id: l.id,
          name: l.name,
          fulfillment_service: l.fulfillmentService ?? "manual",
          address: {
            line1: orNull(l.address.address1),
            line2: l.address.address2,
            city: l.address.city,
            province_code: l.address.provinceCode,
            zip: l.address.zip,
            country: l.address.country,
            country_code: l.address.countryCode,
            phone: l.address.phone,
          },
        }))
        .sort(byId),
    );
    assert.deepEqual(locations.find((l) => l.id === second.id)?.address, {
      line1: null,
      line2: null,
      city: null,
      province_code: null,
      zip: null,
      country: null,
      country_code: null,
      phone: null,
    });
    assert.deepEqual(
      locations.find((l) => l.id === third.id),
      {
        id: third.id,
        name: third.name,
        fulfillment_service: "acme-fulfillment",
        address: {
          line1: "1 Main Street",
          line2: "Unit 4",
          city: "Ottawa",
          province_code: "ON",
          zip: "K1A 0A1",
          country: "Canada",
          country_code: "CA",
          phone: "+1 613 555 0100",
        },
      },
    );

    const products = (await allPages(api, "/v2/products")).map((p) => ({
      id: p.id,
      title: p.title,
      handle: p.handle,
      vendor: p.vendor,
      product_type: p.product_type,
      status: p.status,
      tags: p.tags,
      options: p.options,
      image_url: p.image_url,
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
          tags: p.tags,
          options: p.options.map((o, i) => ({ name: o.name, position: i + 1, values: o.values })),
          image_url: p.image?.url ?? null,
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
      weight_grams: v.weight_grams,
      inventory_policy: v.inventory_policy,
      taxable: v.taxable,
      image_url: v.image_url,
    }));
    assert.equal(variants.length, 2000);
    const variant = (i: number) => variants.find((v) => v.id === [...shop.variants.values()][i].id)!;
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((i) => variant(i).weight_grams),
      [1500, 907, 99, 250, 0],
    );
    assert.deepEqual(
      [1, 2, 3].map((i) => [variant(i).inventory_policy, variant(i).taxable, variant(i).image_url]),
      [
        ["continue", true, null],
        ["deny", false, null],
        ["deny", true, "https://cdn.shopify.com/s/files/1/variant.png"],
      ],
    );
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
            weight_grams: GRAMS[`${item.weight?.value} ${item.weight?.unit}`] ?? 0,
            inventory_policy: v.inventoryPolicy.toLowerCase(),
            taxable: v.taxable,
            image_url: v.image?.url ?? null,
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
