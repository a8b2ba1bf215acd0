/**
 * The Shopify stand-in's bulk operations (JSONL with __parentId, at most five running per shop) and its
 * HMAC-signed webhooks (subscriptions, held deliveries reordered, dropped and duplicated), through HTTP.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import * as doc from "../shopify-standin/documents.ts";
import { type ShopifyStandin, startShopifyStandin } from "../shopify-standin/index.ts";
import type { ShopState } from "../shopify-standin/state.ts";

let standin: ShopifyStandin;
let shop: ShopState;
let token: string;
let receiver: Server;
let inbox: { headers: IncomingHttpHeaders; raw: string }[] = [];
let target: string;

async function gql(query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(`${standin.origin}/admin/api/2026-10/graphql.json`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-shopify-access-token": token },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as any;
}

before(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (c) => chunks.push(c));
    request.on("end", () => {
      inbox.push({ headers: request.headers, raw: Buffer.concat(chunks).toString("utf8") });
      response.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  target = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/shopify/webhooks`;
  standin = await startShopifyStandin({ bulkDurationMs: null });
  ({ shop, accessToken: token } = standin.addShop("bulk.myshopify.com"));
  shop.seed({ products: 3, variantsPerProduct: 2, locations: 3, available: 4 });
});
after(async () => {
  await standin.close();
  receiver.close();
});

describe("Shopify stand-in: bulk operations", () => {
  it("runs a catalog query to a JSONL result where variants name their product by __parentId", async () => {
    const run = await gql(doc.BULK_RUN, { query: doc.BULK_CATALOG });
    assert.deepEqual(run.data.bulkOperationRunQuery.userErrors, []);
    const { id, status } = run.data.bulkOperationRunQuery.bulkOperation;
    assert.equal(status, "RUNNING");
    assert.equal((await gql(doc.BULK_BY_ID, { id })).data.node.url, null);

    standin.completeBulkOperations();
    const done = (await gql(doc.BULK_CURRENT)).data.currentBulkOperation;
    assert.deepEqual(
      [done.id, done.status, done.objectCount, done.rootObjectCount],
      [id, "COMPLETED", "9", "3"],
    );
    const response = await fetch(done.url);
    const text = await response.text();
    assert.equal(String(Buffer.byteLength(text)), done.fileSize);
    const lines = text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    const products = lines.filter((l) => !l.__parentId);
    assert.deepEqual(
      products.map((p) => p.title),
      ["Product 1", "Product 2", "Product 3"],
    );
    assert.equal("variants" in products[0], false);
    const variants = lines.filter((l) => l.__parentId === products[1].id);
    assert.deepEqual(
      variants.map((v) => v.sku),
      ["SKU-2-1", "SKU-2-2"],
    );
    assert.deepEqual(Object.keys(variants[0]), [
      "id",
      "sku",
      "title",
      "price",
      "updatedAt",
      "inventoryItem",
      "__parentId",
    ]);
  });

  it("lists each level of each location once, under its location", async () => {
    const run = await gql(doc.BULK_RUN, { query: doc.BULK_LEVELS });
    standin.completeBulkOperations();
    const op = (await gql(doc.BULK_BY_ID, { id: run.data.bulkOperationRunQuery.bulkOperation.id })).data.node;
    const lines = (await (await fetch(op.url)).text())
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    const locations = lines.filter((l) => !l.__parentId);
    assert.equal(locations.length, 3);
    const levels = lines.filter((l) => l.__parentId === locations[2].id);
    assert.equal(levels.length, 6);
    assert.deepEqual(levels[0].quantities[0], { name: "available", quantity: 4 });
  });

  it("refuses a sixth running query, and a query breaking the bulk rules", async () => {
    const runs = [];
    for (let i = 0; i < 6; i++) runs.push(await gql(doc.BULK_RUN, { query: doc.BULK_CATALOG }));
    assert.equal(runs[4].data.bulkOperationRunQuery.userErrors.length, 0);
    assert.deepEqual(
      runs[5].data.bulkOperationRunQuery.userErrors.map((e: any) => e.code),
      ["LIMIT_REACHED"],
    );
    standin.completeBulkOperations();
    const noId = await gql(doc.BULK_RUN, {
      query: "{ products { edges { node { title variants { edges { node { sku } } } } } } }",
    });
    assert.deepEqual(noId.data.bulkOperationRunQuery.userErrors, [
      {
        field: ["query"],
        code: "INVALID",
        message: "The parent 'node' field for a nested connection must select the 'id' field.",
      },
    ]);
    const typo = await gql(doc.BULK_RUN, { query: "{ products { edges { node { id titel } } } }" });
    assert.deepEqual(typo.data.bulkOperationRunQuery.userErrors, [
      { field: ["query"], code: "INVALID", message: "Field 'titel' doesn't exist on type 'Product'" },
    ]);
  });

  it("counts the shop's running queries; a canceled one frees its slot", async () => {
    standin.completeBulkOperations();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        (await gql(doc.BULK_RUN, { query: doc.BULK_LEVELS })).data.bulkOperationRunQuery.bulkOperation.id,
      );
    assert.equal(standin.runningBulkOperations("bulk.myshopify.com"), 5);
    const cancel = `mutation Cancel($id: ID!) { bulkOperationCancel(id: $id) { bulkOperation { id status } userErrors { field message } } }`;
    const canceled = await gql(cancel, { id: ids[0] });
    assert.deepEqual(canceled.data.bulkOperationCancel, {
      bulkOperation: { id: ids[0], status: "CANCELING" },
      userErrors: [],
    });
    assert.equal(standin.runningBulkOperations("bulk.myshopify.com"), 4);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal((await gql(doc.BULK_BY_ID, { id: ids[0] })).data.node.status, "CANCELED");
    const sixth = await gql(doc.BULK_RUN, { query: doc.BULK_LEVELS });
    assert.deepEqual(sixth.data.bulkOperationRunQuery.userErrors, []);
    assert.deepEqual((await gql(cancel, { id: ids[0] })).data.bulkOperationCancel.userErrors, [
      { field: null, message: "A bulk operation cannot be canceled when it is canceled" },
    ]);
    standin.completeBulkOperations();
    assert.equal(standin.runningBulkOperations("bulk.myshopify.com"), 0);
  });
});

describe("Shopify stand-in: webhooks", () => {
  const hmac = (raw: string) => createHmac("sha256", standin.apiSecret).update(raw).digest("base64");

  it("subscribes once per topic and address, and signs what it sends with the app's secret", async () => {
    for (const topic of ["INVENTORY_LEVELS_UPDATE", "BULK_OPERATIONS_FINISH"]) {
      const created = await gql(doc.SUBSCRIBE, { topic, uri: target });
      assert.deepEqual(created.data.webhookSubscriptionCreate.userErrors, []);
    }
    const again = await gql(doc.SUBSCRIBE, { topic: "INVENTORY_LEVELS_UPDATE", uri: target });
    assert.deepEqual(again.data.webhookSubscriptionCreate.userErrors, [
      {
        field: ["webhookSubscription", "callbackUrl"],
        message: "Address for this topic has already been taken",
      },
    ]);

    inbox = [];
    const item = `gid://shopify/InventoryItem/${[...shop.items.keys()][0]}`;
    const location = `gid://shopify/Location/${[...shop.locations.keys()][0]}`;
    await gql(doc.ADJUST, {
      key: "w-1",
      input: {
        name: "available",
        reason: "correction",
        changes: [{ inventoryItemId: item, locationId: location, delta: -1, changeFromQuantity: null }],
      },
    });
    await standin.webhooks.settled();
    assert.equal(inbox.length, 1);
    const [delivery] = inbox;
    assert.equal(delivery.headers["x-shopify-topic"], "inventory_levels/update");
    assert.equal(delivery.headers["x-shopify-shop-domain"], "bulk.myshopify.com");
    assert.equal(delivery.headers["x-shopify-hmac-sha256"], hmac(delivery.raw));
    assert.equal(delivery.headers["x-shopify-api-version"], "2026-10");
    assert.match(String(delivery.headers["x-shopify-event-id"]), /^[0-9a-f-]{36}$/);
    assert.deepEqual(JSON.parse(delivery.raw), {
      inventory_item_id: [...shop.items.keys()][0],
      location_id: [...shop.locations.keys()][0],
      available: 3,
      updated_at: JSON.parse(delivery.raw).updated_at,
      admin_graphql_api_id: `gid://shopify/InventoryLevel/${[...shop.locations.keys()][0]}?inventory_item_id=${[...shop.items.keys()][0]}`,
    });
  });

  it("sends bulk_operations/finish when a bulk query completes", async () => {
    inbox = [];
    await gql(doc.BULK_RUN, { query: doc.BULK_CATALOG });
    standin.completeBulkOperations();
    await standin.webhooks.settled();
    assert.deepEqual(
      inbox.map((d) => [d.headers["x-shopify-topic"], JSON.parse(d.raw).status]),
      [["bulk_operations/finish", "completed"]],
    );
  });

  it("holds deliveries, then sends them reversed, with one dropped and one duplicated under the same ids", async () => {
    standin.webhooks.mode = "hold";
    inbox = [];
    const location = `gid://shopify/Location/${[...shop.locations.keys()][1]}`;
    const changes = [0, 1, 2].map((n) => ({
      inventoryItemId: `gid://shopify/InventoryItem/${[...shop.items.keys()][n]}`,
      locationId: location,
      delta: 1,
      changeFromQuantity: null,
    }));
    await gql(doc.ADJUST, { key: "w-2", input: { name: "available", reason: "correction", changes } });
    assert.equal(inbox.length, 0);
    const events = standin.webhooks.held.map((e) => e.eventId);
    await standin.webhooks.release({ reverse: true, drop: [1], duplicate: [0] });
    standin.webhooks.mode = "auto";
    assert.deepEqual(
      inbox.map((d) => d.headers["x-shopify-event-id"]),
      [events[2], events[0], events[0]],
    );
    assert.equal(inbox[1].headers["x-shopify-webhook-id"], inbox[2].headers["x-shopify-webhook-id"]);
  });

  it("sends products/update with every variant when the merchant edits one, inventory_levels/update for a sale", async () => {
    await gql(doc.SUBSCRIBE, { topic: "PRODUCTS_UPDATE", uri: target });
    inbox = [];
    const [variantId, siblingId] = shop.variants.keys();
    standin.editVariant(shop, variantId, { price: "21.00" });
    const [itemId] = shop.items.keys();
    const locationId = [...shop.locations.keys()][2];
    standin.setQuantity(shop, itemId, locationId, "available", 1);
    await standin.webhooks.settled();
    const byTopic = Object.fromEntries(inbox.map((d) => [d.headers["x-shopify-topic"], JSON.parse(d.raw)]));
    assert.deepEqual(Object.keys(byTopic).sort(), ["inventory_levels/update", "products/update"]);
    assert.deepEqual(
      byTopic["products/update"].variants.map((v: any) => [v.id, v.price, v.inventory_item_id]),
      [
        [variantId, "21.00", itemId],
        [siblingId, "19.99", shop.variants.get(siblingId)!.inventoryItemId],
      ],
    );
    assert.equal(byTopic["inventory_levels/update"].available, 1);
    assert.deepEqual([shop.level(itemId, locationId)!.quantities.on_hand], [1]);
  });

  it("sends app/uninstalled, then the token no longer works", async () => {
    await gql(doc.SUBSCRIBE, { topic: "APP_UNINSTALLED", uri: target });
    inbox = [];
    standin.uninstall("bulk.myshopify.com");
    await standin.webhooks.settled();
    assert.deepEqual(
      inbox.map((d) => d.headers["x-shopify-topic"]),
      ["app/uninstalled"],
    );
    const response = await fetch(`${standin.origin}/admin/api/2026-10/graphql.json`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-shopify-access-token": token },
      body: JSON.stringify({ query: doc.SHOP }),
    });
    assert.equal(response.status, 401);
  });
});
