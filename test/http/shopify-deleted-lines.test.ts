/**
 * New lines on items Shopify deleted (issue 19): a purchase order line (create, POST lines, a PATCH
 * adding one) and a stock adjustment line (create, PATCH, apply of a draft written before the
 * deletion) naming a deleted variant are refused with 422 validation_failed on the line's own field,
 * and nothing changes; a line already on the order is kept, and still received.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Client, HttpResult, TestApp } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import { freePort } from "../helpers/child-server.ts";
import {
  createDraftOrder,
  createOrderedOrder,
  createSupplier,
  idempotencyKey,
} from "../helpers/factories.ts";
import { attachByToken, standinShop, startShopifyTestApp, storeApi } from "../helpers/shopify.ts";
import type { ShopifyStandin } from "../shopify-standin/index.ts";
import type { ShopState, Variant } from "../shopify-standin/state.ts";

let t: TestApp;
let standin: ShopifyStandin;
let shop: ShopState;
let api: Client;
let supplierId: number;
let location: number;
/** A variant deleted in Shopify before the tests, one deleted after drafts were written, one kept. */
let gone: Variant;
let goneLater: Variant;
let kept: Variant;

const DELETED = "was deleted on the platform: a new line cannot order it";

async function settle(): Promise<void> {
  await standin.webhooks.settled();
  await t.drain();
}

before(async () => {
  const port = await freePort();
  ({ t, standin } = await startShopifyTestApp({
    app: { env: { SHOPIFY_APP_URL: `http://127.0.0.1:${port}` } },
  }));
  await t.runtime.app.listen({ port, host: "127.0.0.1" });
  const made = standinShop(standin, { products: 3, variantsPerProduct: 2, locations: 1 });
  shop = made.shop;
  const store = await attachByToken(t, made.domain, made.accessToken);
  await t.drain();
  api = await storeApi(t, store.id);
  supplierId = (await createSupplier(api)).id;
  location = [...shop.locations.keys()][0];
  [gone, goneLater, kept] = [...shop.products.values()].map((p) => shop.variantsByProduct.get(p.id)![0]);
  standin.deleteVariant(shop, gone.id);
  await settle();
});
after(async () => {
  await standin.close();
  await t.close();
});

async function orderCount(): Promise<number> {
  const res = await api.get("/v2/purchase_orders?limit=250");
  expectStatus(res, 200);
  return res.body.data.length;
}

function refusal(res: HttpResult, field: string, message = DELETED) {
  expectStatus(res, 422);
  assert.deepEqual(res.body.error.code, "validation_failed");
  assert.deepEqual(res.body.error.details, [{ field, code: "deleted", message }]);
}

describe("new lines on a deleted variant", () => {
  test("creating an order: refused on the line's variant_id or inventory_item_id, nothing written", async () => {
    const before = await orderCount();
    refusal(
      await api.post("/v2/purchase_orders", {
        supplier_id: supplierId,
        location_id: location,
        lines: [
          { variant_id: kept.id, quantity: 1, unit_cost: 2 },
          { variant_id: gone.id, quantity: 3, unit_cost: 2 },
        ],
      }),
      "lines.1.variant_id",
    );
    refusal(
      await api.post("/v2/purchase_orders", {
        supplier_id: supplierId,
        lines: [{ inventory_item_id: gone.inventoryItemId, quantity: 3, unit_cost: 2 }],
      }),
      "lines.0.inventory_item_id",
    );
    assert.equal(await orderCount(), before);
    // Still read by id: orders and history point at it.
    expectStatus(await api.get(`/v2/variants/${gone.id}`), 200);
  });

  test("POST lines on an ordered order and a PATCH adding a line: refused, the order unchanged", async () => {
    const order = await createOrderedOrder(api, {
      supplier_id: supplierId,
      location_id: location,
      lines: [{ variant_id: kept.id, quantity: 2, unit_cost: 2 }],
    });
    refusal(
      await api.post(`/v2/purchase_orders/${order.id}/lines`, {
        lines: [{ variant_id: gone.id, quantity: 1, unit_cost: 2 }],
      }),
      "lines.0.variant_id",
    );
    const draft = await createDraftOrder(api, {
      supplier_id: supplierId,
      lines: [{ variant_id: kept.id, quantity: 2, unit_cost: 2 }],
    });
    refusal(
      await api.patch(`/v2/purchase_orders/${draft.id}`, {
        lines: [{ id: draft.lines[0].id }, { variant_id: gone.id, quantity: 1, unit_cost: 2 }],
      }),
      "lines.1.variant_id",
    );
    for (const before of [order, draft]) {
      const now = await api.get(`/v2/purchase_orders/${before.id}`);
      expectStatus(now, 200);
      assert.deepEqual(now.body.data.lines, before.lines);
      assert.equal(now.body.data.updated_at, before.updated_at);
    }
  });

  test("a line already on the order keeps its deleted item: a PATCH keeping it passes, a receipt books it", async () => {
    const draft = await createDraftOrder(api, {
      supplier_id: supplierId,
      location_id: location,
      lines: [
        { variant_id: goneLater.id, quantity: 2, unit_cost: 2 },
        { variant_id: kept.id, quantity: 1, unit_cost: 2 },
      ],
    });
    standin.deleteVariant(shop, goneLater.id);
    await settle();
    const patched = await api.patch(`/v2/purchase_orders/${draft.id}`, {
      lines: [{ id: draft.lines[0].id, variant_id: goneLater.id, quantity: 3 }, { id: draft.lines[1].id }],
    });
    expectStatus(patched, 200);
    assert.deepEqual(
      patched.body.data.lines.map((l: any) => [l.variant_id, l.quantity]),
      [
        [goneLater.id, 3],
        [kept.id, 1],
      ],
    );
    expectStatus(await api.post(`/v2/purchase_orders/${draft.id}/mark_ordered`, {}), 200);
    const receipt = await api.post(
      `/v2/purchase_orders/${draft.id}/receipts`,
      { lines: [{ line_id: draft.lines[0].id, quantity: 3 }] },
      idempotencyKey("deleted-line"),
    );
    expectStatus(receipt, 201);
    assert.deepEqual(
      receipt.body.data.lines.map((l: any) => [l.line_id, l.quantity]),
      [[draft.lines[0].id, 3]],
    );
  });
});

describe("stock adjustment lines on a deleted variant", () => {
  const ADJUST_DELETED = "was deleted on the platform: its stock cannot be adjusted";

  test("creating and PATCHing a draft: refused on the line's field, nothing written", async () => {
    const list = async () => (await api.get("/v2/stock_adjustments?limit=250")).body.data.length;
    const before = await list();
    refusal(
      await api.post("/v2/stock_adjustments", {
        location_id: location,
        lines: [
          { variant_id: kept.id, delta: 1 },
          { inventory_item_id: gone.inventoryItemId, delta: 2 },
        ],
      }),
      "lines.1.inventory_item_id",
      ADJUST_DELETED,
    );
    assert.equal(await list(), before);
    const draft = await api.post("/v2/stock_adjustments", {
      location_id: location,
      lines: [{ variant_id: kept.id, delta: 1 }],
    });
    expectStatus(draft, 201);
    refusal(
      await api.patch(`/v2/stock_adjustments/${draft.body.data.id}`, {
        lines: [{ variant_id: gone.id, delta: 1 }],
      }),
      "lines.0.variant_id",
      ADJUST_DELETED,
    );
    const now = await api.get(`/v2/stock_adjustments/${draft.body.data.id}`);
    assert.deepEqual(now.body.data, draft.body.data);
  });

  test("applying a draft whose item was deleted since: refused, still a draft, no stock moved", async () => {
    const [, , third] = [...shop.products.values()];
    const sibling = shop.variantsByProduct.get(third.id)![1];
    const draft = await api.post("/v2/stock_adjustments", {
      location_id: location,
      lines: [
        { variant_id: kept.id, delta: 4 },
        { variant_id: sibling.id, delta: 5 },
      ],
    });
    expectStatus(draft, 201);
    standin.deleteVariant(shop, sibling.id);
    await settle();
    const levelsBefore = await api.get(`/v2/inventory_levels?inventory_item_id=${kept.inventoryItemId}`);
    refusal(
      await api.post(`/v2/stock_adjustments/${draft.body.data.id}/apply`, undefined, idempotencyKey("apply")),
      "lines.1.variant_id",
      "was deleted on the platform since the draft was written: remove the line to apply",
    );
    const now = await api.get(`/v2/stock_adjustments/${draft.body.data.id}`);
    assert.deepEqual([now.body.data.status, now.body.data.applied_at], ["draft", null]);
    const levelsAfter = await api.get(`/v2/inventory_levels?inventory_item_id=${kept.inventoryItemId}`);
    assert.deepEqual(levelsAfter.body, levelsBefore.body);
    // Without the line it applies.
    const fixed = await api.patch(`/v2/stock_adjustments/${draft.body.data.id}`, {
      lines: [{ variant_id: kept.id, delta: 4 }],
    });
    expectStatus(fixed, 200);
    const applied = await api.post(
      `/v2/stock_adjustments/${draft.body.data.id}/apply`,
      undefined,
      idempotencyKey("apply"),
    );
    expectStatus(applied, 200);
    assert.equal(applied.body.data.status, "applied");
  });
});
