/**
 * Products and variants deleted in Shopify (issue 19): products/delete marks the product deleted
 * (archived, its variants out of the lists), a variant removed in products/update leaves the lists,
 * reconciliation finds the deletions whose deliveries were lost, and an open order with a line on a
 * deleted variant is still received, its other lines reaching Shopify (the receipt failed, naming the
 * deleted item).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { ManualClock } from "../../src/clock.ts";
import { skippedMessage } from "../../src/platform/push.ts";
import { reconcileShop } from "../../src/platform/shopify/inbound/index.ts";
import type { Client, TestApp } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import { freePort } from "../helpers/child-server.ts";
import { createOrderedOrder, createSupplier, idempotencyKey } from "../helpers/factories.ts";
import { allPages } from "../helpers/paging.ts";
import { attachByToken, standinShop, startShopifyTestApp, storeApi } from "../helpers/shopify.ts";
import type { ShopifyStandin } from "../shopify-standin/index.ts";
import type { ShopState } from "../shopify-standin/state.ts";

let t: TestApp;
let standin: ShopifyStandin;

before(async () => {
  const port = await freePort();
  ({ t, standin } = await startShopifyTestApp({
    app: { env: { SHOPIFY_APP_URL: `http://127.0.0.1:${port}` } },
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
  const store = await attachByToken(t, domain, accessToken);
  await t.drain();
  return { shop, domain, storeId: store.id, api: await storeApi(t, store.id) };
}

async function settle(): Promise<void> {
  await standin.webhooks.settled();
  await t.drain();
}

type Row = Record<string, unknown> & { id: number };

const products = async (api: Client) =>
  (await allPages(api, "/v2/products?include=variants")) as unknown as Row[];
const variantIds = async (api: Client) =>
  ((await allPages(api, "/v2/variants")) as unknown as Row[]).map((v) => v.id).sort((a, b) => a - b);
const idsOf = (shop: ShopState) => [...shop.variants.keys()].sort((a, b) => a - b);
/** The inventory items whose levels a list shows ([item, location] pairs, sorted). */
const levelKeys = async (api: Client, path: string) =>
  ((await allPages(api, path)) as unknown as LevelRow[]).map(keyOfRow).sort();
/** /v2/inventory_levels names the location by `location_id`, /v2/stock_levels by `location.id`. */
type LevelRow = { inventory_item_id: number; location_id?: number; location?: { id: number } };
const keyOfRow = (l: LevelRow) => `${l.inventory_item_id}@${l.location_id ?? l.location?.id}`;
/** The shop's levels as the same pairs, leaving out the given items. */
const shopLevelKeys = (shop: ShopState, without: readonly number[] = []) =>
  [...shop.levels.values()]
    .filter((l) => !without.includes(l.itemId))
    .map((l) => `${l.itemId}@${l.locationId}`)
    .sort();

/** The store's item.* events, oldest first. */
const itemEvents = (storeId: number) =>
  t.runtime.ctx.db
    .selectFrom("events")
    .select(["name", "subject_id"])
    .where("store_id", "=", storeId)
    .where("name", "like", "item.%")
    .orderBy("seq")
    .execute();

describe("deleted in Shopify", () => {
  test("products/delete: the product is archived, its variants leave the lists; a repeat changes nothing", async () => {
    const { shop, storeId, api } = await attached();
    const [gone, kept] = [...shop.products.values()];
    const goneVariants = shop.variantsByProduct.get(gone.id)!.map((v) => v.id);
    const goneItems = shop.variantsByProduct.get(gone.id)!.map((v) => v.inventoryItemId);
    const before = (await products(api)).find((p) => p.id === gone.id)!;
    assert.equal(before.status, "active");
    const allLevels = shopLevelKeys(shop);
    assert.equal(allLevels.length, 12);
    assert.deepEqual(await levelKeys(api, "/v2/inventory_levels"), allLevels);
    assert.deepEqual(await levelKeys(api, "/v2/stock_levels"), allLevels);

    (t.clock as ManualClock).advance(60_000);
    standin.webhooks.mode = "hold";
    standin.deleteProduct(shop, gone.id);
    standin.webhooks.mode = "auto";
    const deliveries = await standin.webhooks.release({ duplicate: [0] });
    assert.deepEqual(
      deliveries.map((d) => [d.event.topic, d.status]),
      [
        ["products/delete", 200],
        ["products/delete", 200],
      ],
    );
    await t.drain();

    const after = (await products(api)).find((p) => p.id === gone.id)!;
    assert.deepEqual(
      { status: after.status, variants_count: after.variants_count, variants: after.variants },
      { status: "archived", variants_count: 0, variants: [] },
    );
    assert.ok(String(after.updated_at) > String(before.updated_at), "updated_at moves");
    const archived = await api.get("/v2/products?status=archived");
    expectStatus(archived, 200);
    assert.deepEqual(
      archived.body.data.map((p: Row) => p.id),
      [gone.id],
    );
    assert.deepEqual(await variantIds(api), idsOf(shop));
    assert.ok(goneVariants.every((id) => !shop.variants.has(id)));
    const keptRow = (await products(api)).find((p) => p.id === kept.id)!;
    assert.deepEqual([keptRow.status, keptRow.variants_count], ["active", 2]);

    // Its items' levels no longer count: out of both level lists, the item filter and low stock too.
    const remaining = shopLevelKeys(shop, goneItems);
    assert.equal(remaining.length, 8);
    assert.deepEqual(await levelKeys(api, "/v2/inventory_levels"), remaining);
    assert.deepEqual(await levelKeys(api, "/v2/stock_levels"), remaining);
    const byItem = await api.get(`/v2/stock_levels?inventory_item_id=${goneItems.join(",")}`);
    expectStatus(byItem, 200);
    assert.deepEqual(byItem.body.data, []);
    const rules = { low_stock_threshold: 100_000, items: [] };
    expectStatus(await t.admin.put(`/admin/stores/${storeId}/alert_rules`, rules), 200);
    assert.deepEqual(await levelKeys(api, "/v2/stock_levels?low_stock=true"), remaining);

    const jobs = await t.runtime.ctx.db
      .selectFrom("jobs")
      .select("payload")
      .where("type", "=", "shopify.product-deleted")
      .where("store_id", "=", storeId)
      .execute();
    assert.deepEqual(
      jobs.map((j) => j.payload),
      [{ store_id: storeId, product_id: gone.id }],
      "the duplicate queued nothing",
    );
  });

  test("products/update after a variant was deleted: that variant leaves the lists, its sibling stays", async () => {
    const { shop, api } = await attached();
    const product = [...shop.products.values()][1];
    const [gone, sibling] = shop.variantsByProduct.get(product.id)!.map((v) => v.id);
    standin.deleteVariant(shop, gone);
    await settle();
    const ids = await variantIds(api);
    assert.deepEqual(ids, idsOf(shop));
    assert.ok(!ids.includes(gone) && ids.includes(sibling));
    const row = (await products(api)).find((p) => p.id === product.id)!;
    assert.deepEqual(
      [row.status, row.variants_count, (row.variants as Row[]).map((v) => v.id)],
      ["active", 1, [sibling]],
    );
  });

  test("reconciliation finds a deleted product and a deleted variant whose deliveries were lost", async () => {
    const { shop, storeId, api } = await attached();
    const [first, second] = [...shop.products.values()];
    const [goneVariant] = shop.variantsByProduct.get(second.id)!.map((v) => v.id);
    standin.webhooks.mode = "hold";
    standin.deleteProduct(shop, first.id);
    standin.deleteVariant(shop, goneVariant);
    standin.webhooks.mode = "auto";
    const held = standin.webhooks.held.length;
    assert.ok(held >= 2);
    assert.deepEqual(await standin.webhooks.release({ drop: [...Array(held).keys()] }), []);
    await t.drain();
    assert.equal((await variantIds(api)).length, 6, "nothing known yet");

    await reconcileShop(t.runtime.ctx, storeId);
    await t.drain();
    assert.deepEqual(await variantIds(api), idsOf(shop));
    const rows = await products(api);
    assert.deepEqual(
      rows.map((p) => [p.id, p.status, p.variants_count]).sort((a, b) => Number(a[0]) - Number(b[0])),
      [...shop.products.keys(), first.id]
        .sort((a, b) => a - b)
        .map((id) => [
          id,
          id === first.id ? "archived" : "active",
          id === first.id ? 0 : id === second.id ? 1 : 2,
        ]),
    );
  });

  test("an open order with a line on a deleted variant is received; its other line reaches Shopify, the receipt fails naming the deleted item", async () => {
    const { shop, domain, storeId, api } = await attached();
    const supplierId = (await createSupplier(api)).id;
    const location = [...shop.locations.keys()][0];
    const [doomed, kept] = [...shop.products.values()].map((p) => shop.variantsByProduct.get(p.id)![0]);
    const order = await createOrderedOrder(api, {
      supplier_id: supplierId,
      location_id: location,
      lines: [
        { variant_id: doomed.id, quantity: 4, unit_cost: 3 },
        { variant_id: kept.id, quantity: 6, unit_cost: 5 },
      ],
    });
    await t.drain();
    // Both items would cross their max stock with this delivery: only the one still in Shopify alerts.
    const maxStock = (v: typeof kept) => ({
      inventory_item_id: v.inventoryItemId,
      location_id: location,
      max_stock: shop.level(v.inventoryItemId, location)!.quantities.available + 1,
    });
    const rules = { low_stock_threshold: null, items: [maxStock(doomed), maxStock(kept)] };
    expectStatus(await t.admin.put(`/admin/stores/${storeId}/alert_rules`, rules), 200);
    standin.deleteProduct(shop, doomed.productId);
    await settle();
    const eventsBefore = await itemEvents(storeId);

    const since = standin.adjustCalls(domain).length;
    const keptBefore = shop.level(kept.inventoryItemId, location)!.quantities.available;
    const res = await api.post(
      `/v2/purchase_orders/${order.id}/receipts`,
      {
        lines: order.lines.map((l: { id: number; quantity: number }) => ({
          line_id: l.id,
          quantity: l.quantity,
        })),
      },
      idempotencyKey("receipt"),
    );
    expectStatus(res, 201);
    await t.drain();
    const receiptId = res.body.data.id;
    const shown = await api.get(`/v2/purchase_orders/${order.id}/receipts/${receiptId}`);
    expectStatus(shown, 200);
    // Shopify refused each call for the deleted item (nothing applied); each went again without it.
    assert.deepEqual(
      [shown.body.data.platform_sync.state, shown.body.data.platform_sync.error],
      ["failed", skippedMessage([doomed.inventoryItemId])],
    );
    assert.equal(shop.level(kept.inventoryItemId, location)!.quantities.available, keptBefore + 6);
    const applied = standin
      .adjustCalls(domain)
      .slice(since)
      .filter((c) => String(c.key).endsWith(":1"));
    assert.deepEqual(
      applied.map((c) => JSON.stringify(c.input).includes(`InventoryItem/${doomed.inventoryItemId}`)),
      [false, false],
      "available and incoming went without the deleted item",
    );
    const alerts = (await itemEvents(storeId)).slice(eventsBefore.length);
    assert.deepEqual(
      alerts.map((e) => [e.name, e.subject_id]),
      [["item.overstock", kept.inventoryItemId]],
      "the deleted item raises no alert",
    );

    // The order keeps the deleted item's line and what was received (below); its levels are no longer listed.
    const listed = await levelKeys(api, "/v2/stock_levels");
    assert.deepEqual(listed, await levelKeys(api, "/v2/inventory_levels"));
    assert.ok(listed.includes(`${kept.inventoryItemId}@${location}`));
    assert.ok(
      !listed.some((k) => k.startsWith(`${doomed.inventoryItemId}@`)),
      "the deleted item is not listed",
    );

    const shownOrder = await api.get(`/v2/purchase_orders/${order.id}`);
    expectStatus(shownOrder, 200);
    assert.equal(shownOrder.body.data.status, "received");
    assert.deepEqual(
      shownOrder.body.data.lines.map((l: Row) => [l.variant_id, l.received_quantity, l.sku]),
      [
        [doomed.id, 4, doomed.sku],
        [kept.id, 6, kept.sku],
      ],
    );
  });

  test("a push that finds its variant gone (the deletion's delivery lost): the variant is marked deleted, so it leaves the lists and alerts; the receipt fails naming it, nothing is retried", async () => {
    const { shop, domain, storeId, api } = await attached();
    const supplierId = (await createSupplier(api)).id;
    const location = [...shop.locations.keys()][0];
    const product = [...shop.products.values()][0];
    const [doomed, sibling] = shop.variantsByProduct.get(product.id)!;
    const kept = shop.variantsByProduct.get([...shop.products.keys()][1])![0];
    const order = await createOrderedOrder(api, {
      supplier_id: supplierId,
      location_id: location,
      lines: [
        { variant_id: doomed.id, quantity: 4, unit_cost: 3 },
        { variant_id: kept.id, quantity: 6, unit_cost: 5 },
      ],
    });
    await t.drain();
    // The doomed item crosses its max stock with the second delivery, not the first.
    const available = shop.level(doomed.inventoryItemId, location)!.quantities.available;
    const rules = {
      low_stock_threshold: null,
      items: [{ inventory_item_id: doomed.inventoryItemId, location_id: location, max_stock: available + 3 }],
    };
    expectStatus(await t.admin.put(`/admin/stores/${storeId}/alert_rules`, rules), 200);
    // Deliveries already sent land first, while the variant still exists: one arriving after the
    // deletion would queue the catalog sync that finds it (this raced on a loaded CI run).
    await standin.webhooks.settled();
    await t.drain();
    // The variant is deleted in Shopify and its products/update never arrives: the mirror still lists
    // it. Every later delivery is held too (the pushes' inventory_levels/update would queue the
    // catalog sync, whose read of the product would find the deletion): only the push can tell.
    standin.webhooks.mode = "hold";
    standin.deleteVariant(shop, doomed.id);
    await t.drain();
    assert.ok((await variantIds(api)).includes(doomed.id), "the mirror does not know yet");

    const [doomedLine, keptLine] = order.lines as Array<{ id: number; quantity: number }>;
    const receive = async (lines: Array<{ line_id: number; quantity: number }>) => {
      const res = await api.post(
        `/v2/purchase_orders/${order.id}/receipts`,
        { lines },
        idempotencyKey("receipt"),
      );
      expectStatus(res, 201);
      await t.drain();
      const shown = await api.get(`/v2/purchase_orders/${order.id}/receipts/${res.body.data.id}`);
      expectStatus(shown, 200);
      return shown.body.data.platform_sync;
    };
    const first = await receive([
      { line_id: doomedLine.id, quantity: 2 },
      { line_id: keptLine.id, quantity: keptLine.quantity },
    ]);
    assert.deepEqual([first.state, first.error], ["failed", skippedMessage([doomed.inventoryItemId])]);

    // The push told the mirror: the variant left the lists and its product's variants, its sibling stays.
    const ids = await variantIds(api);
    assert.deepEqual(ids, idsOf(shop));
    assert.ok(!ids.includes(doomed.id) && ids.includes(sibling.id));
    const row = (await products(api)).find((p) => p.id === product.id)!;
    assert.deepEqual(
      [row.status, row.variants_count, (row.variants as Row[]).map((v) => v.id)],
      ["active", 1, [sibling.id]],
    );
    assert.deepEqual(await levelKeys(api, "/v2/stock_levels"), shopLevelKeys(shop));

    // The rest of the deleted item's line arrives: its level moves past max stock, no alert.
    const eventsBefore = (await itemEvents(storeId)).length;
    const second = await receive([{ line_id: doomedLine.id, quantity: 2 }]);
    assert.deepEqual([second.state, second.error], ["failed", skippedMessage([doomed.inventoryItemId])]);
    assert.deepEqual((await itemEvents(storeId)).slice(eventsBefore), []);

    standin.webhooks.mode = "auto";
    const held = standin.webhooks.held.length;
    assert.deepEqual(await standin.webhooks.release({ drop: [...Array(held).keys()] }), []);

    // Ended, not retried: a later drain sends nothing, and no push job is left failed.
    const calls = standin.adjustCalls(domain).length;
    (t.clock as ManualClock).advance(3_600_000);
    await t.drain();
    assert.equal(standin.adjustCalls(domain).length, calls);
    const admin = await t.admin.get(`/admin/stores/${storeId}/sync`);
    expectStatus(admin, 200);
    assert.deepEqual(admin.body.data.failed, []);
  });

  test("a push that finds every variant of a product gone (the product's deletion delivery lost): the product is archived too, as products/delete would leave it", async () => {
    const { shop, api } = await attached();
    const supplierId = (await createSupplier(api)).id;
    const location = [...shop.locations.keys()][0];
    const [product, other] = [...shop.products.values()];
    const [first, second] = shop.variantsByProduct.get(product.id)!;
    const kept = shop.variantsByProduct.get(other.id)![0];
    const order = await createOrderedOrder(api, {
      supplier_id: supplierId,
      location_id: location,
      lines: [
        { variant_id: first.id, quantity: 4, unit_cost: 3 },
        { variant_id: second.id, quantity: 5, unit_cost: 3 },
        { variant_id: kept.id, quantity: 6, unit_cost: 5 },
      ],
    });
    await t.drain();
    const before = (await products(api)).find((p) => p.id === product.id)!;
    assert.deepEqual([before.status, before.variants_count], ["active", 2]);

    // Deliveries already sent land first, while the variant still exists: one arriving after the
    // deletion would queue the catalog sync that finds it (this raced on a loaded CI run).
    await standin.webhooks.settled();
    await t.drain();
    // The product is deleted in Shopify and every delivery is held (then dropped): only the push can tell.
    (t.clock as ManualClock).advance(60_000);
    standin.webhooks.mode = "hold";
    standin.deleteProduct(shop, product.id);
    const res = await api.post(
      `/v2/purchase_orders/${order.id}/receipts`,
      {
        lines: (order.lines as Array<{ id: number; quantity: number }>).map((l) => ({
          line_id: l.id,
          quantity: l.quantity,
        })),
      },
      idempotencyKey("receipt"),
    );
    expectStatus(res, 201);
    await t.drain();
    const shown = await api.get(`/v2/purchase_orders/${order.id}/receipts/${res.body.data.id}`);
    expectStatus(shown, 200);
    assert.equal(shown.body.data.platform_sync.state, "failed");

    const after = (await products(api)).find((p) => p.id === product.id)!;
    assert.deepEqual(
      { status: after.status, variants_count: after.variants_count, variants: after.variants },
      { status: "archived", variants_count: 0, variants: [] },
    );
    assert.ok(String(after.updated_at) > String(before.updated_at), "updated_at moves");
    const archived = await api.get("/v2/products?status=archived");
    expectStatus(archived, 200);
    assert.deepEqual(
      archived.body.data.map((p: Row) => p.id),
      [product.id],
    );
    const otherRow = (await products(api)).find((p) => p.id === other.id)!;
    assert.deepEqual([otherRow.status, otherRow.variants_count], ["active", 2]);
    assert.deepEqual(await variantIds(api), idsOf(shop));

    standin.webhooks.mode = "auto";
    const held = standin.webhooks.held.length;
    assert.deepEqual(await standin.webhooks.release({ drop: [...Array(held).keys()] }), []);
  });
});
