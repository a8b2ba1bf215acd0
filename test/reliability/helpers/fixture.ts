/**
 * A populated store for the in-process reliability tests (fuzz, tenancy): every kind of record the API
 * has, in several states, made through the API itself, with the ids of each kind collected.
 */
import assert from "node:assert/strict";
import { MAX_LINES_PER_ORDER } from "../../../src/domain/purchase-orders/line-cap.ts";
import type { HttpResult, TestApp, TestStore } from "../../helpers/app.ts";
import { createDraftOrder, createSupplier } from "../../helpers/factories.ts";

export interface Populated {
  store: TestStore;
  /** Ids by kind (path parameter or body field family). */
  ids: {
    supplier: number[];
    purchase_order: number[];
    line: number[];
    receipt: Array<{ order: number; id: number }>;
    payment: Array<{ order: number; id: number }>;
    stock_adjustment: number[];
    webhook: number[];
    delivery: Array<{ webhook: number; id: number }>;
    product: number[];
    variant: number[];
    inventory_item: number[];
    location: number[];
    tax_rate: number[];
    event: string[];
  };
  /** A word that appears in this store's records only (names, notes), to spot leaks. */
  marker: string;
}

function ok(res: HttpResult, status: number, what: string): HttpResult {
  assert.equal(res.status, status, `${what}: ${JSON.stringify(res.body).slice(0, 500)}`);
  return res;
}

let keyCounter = 0;
const key = () => ({ "idempotency-key": `fixture-${process.pid}-${++keyCounter}` });

export async function populate(t: TestApp, marker: string): Promise<Populated> {
  const store = await t.createStore({ seed: "demo", name: `Shop ${marker}` });
  const api = store.api;
  // A webhook whose deliveries fail at once (nothing listens on port 1), so the log has rows.
  const webhook = ok(
    await api.post("/v2/webhooks", { url: "https://localhost:1/hook", events: ["*"], description: marker }),
    201,
    "webhook",
  ).body.data;
  const variants = ok(await api.get("/v2/variants?limit=250"), 200, "variants").body.data as Array<{
    id: number;
    product_id: number;
    inventory_item_id: number;
    inventory_tracked: boolean;
  }>;
  const tracked = variants.filter((v) => v.inventory_tracked);
  const locations = ok(await api.get("/v2/locations"), 200, "locations").body.data as Array<{ id: number }>;
  const taxes = ok(
    await t.admin.put(`/admin/stores/${store.id}/tax_rates`, {
      rates: [{ name: `VAT ${marker}`, rate_percent: 20 }],
    }),
    200,
    "tax rates",
  ).body.data as Array<{ id: number }>;

  const suppliers: number[] = [];
  for (const name of ["Main", "Second", "Archived"]) {
    suppliers.push(
      ok(
        await api.post("/v2/suppliers", { name: `${name} ${marker}`, currency: "USD", notes: marker }),
        201,
        "supplier",
      ).body.data.id,
    );
  }
  ok(await api.post(`/v2/suppliers/${suppliers[2]}/archive`, {}), 200, "archive supplier");
  ok(
    await api.put(`/v2/suppliers/${suppliers[0]}/catalog`, {
      rows: tracked.slice(0, 3).map((v, i) => ({
        inventory_item_id: v.inventory_item_id,
        supplier_sku: `${marker}-${i}`,
        tiers: [{ min_qty: 1, price: 3 + i }],
      })),
    }),
    200,
    "supplier catalog",
  );

  const order = async (lines: typeof tracked, extra: Record<string, unknown> = {}) =>
    ok(
      await api.post("/v2/purchase_orders", {
        supplier_id: suppliers[0],
        notes: marker,
        tax_rate_id: taxes[0].id,
        lines: lines.map((v) => ({ variant_id: v.id, quantity: 10, unit_cost: 4.5 })),
        charges: [{ kind: "shipping", label: `Freight ${marker}`, amount: 12 }],
        ...extra,
      }),
      201,
      "purchase order",
    ).body.data;
  const draft = await order(tracked.slice(0, 2));
  const placed = await order(tracked.slice(2, 5));
  ok(await api.post(`/v2/purchase_orders/${placed.id}/mark_ordered`, {}), 200, "mark_ordered");
  const received = ok(
    await api.post(
      `/v2/purchase_orders/${placed.id}/receipts`,
      { lines: [{ line_id: placed.lines[0].id, quantity: 4 }], note: marker },
      key(),
    ),
    201,
    "receipt",
  ).body;
  const receivedAgain = ok(
    await api.post(
      `/v2/purchase_orders/${placed.id}/receipts`,
      { lines: [{ line_id: placed.lines[1].id, quantity: 1 }] },
      key(),
    ),
    201,
    "second receipt",
  ).body;
  const payment = ok(
    await api.post(`/v2/purchase_orders/${placed.id}/payments`, { amount: "10.00", note: marker }),
    201,
    "payment",
  ).body.data;
  const closed = await order(tracked.slice(5, 6));
  ok(await api.post(`/v2/purchase_orders/${closed.id}/mark_ordered`, {}), 200, "mark_ordered");
  ok(await api.post(`/v2/purchase_orders/${closed.id}/close`, {}), 200, "close");

  const adjustment = (delta: number) =>
    api.post("/v2/stock_adjustments", {
      location_id: locations[0].id,
      reason: "correction",
      note: marker,
      lines: [{ variant_id: tracked[6].id, delta }],
    });
  const draftAdjustment = ok(await adjustment(2), 201, "adjustment").body.data;
  const appliedAdjustment = ok(await adjustment(-1), 201, "adjustment").body.data;
  ok(await api.post(`/v2/stock_adjustments/${appliedAdjustment.id}/apply`, {}, key()), 200, "apply");

  ok(await api.post(`/v2/webhooks/${webhook.id}/test`), 202, "webhook test");
  await t.drain();
  const deliveries = ok(await api.get(`/v2/webhooks/${webhook.id}/deliveries`), 200, "deliveries").body
    .data as Array<{
    id: number;
  }>;
  const events = await t.runtime.ctx.db
    .selectFrom("events")
    .select("id")
    .where("store_id", "=", store.id)
    .orderBy("seq")
    .execute();

  return {
    store,
    marker,
    ids: {
      supplier: suppliers,
      purchase_order: [draft.id, placed.id, closed.id],
      line: [...draft.lines, ...placed.lines, ...closed.lines].map((l: { id: number }) => l.id),
      receipt: [
        { order: placed.id, id: received.data.id },
        { order: placed.id, id: receivedAgain.data.id },
      ],
      payment: [{ order: placed.id, id: payment.id }],
      stock_adjustment: [draftAdjustment.id, appliedAdjustment.id],
      webhook: [webhook.id],
      delivery: deliveries.map((d) => ({ webhook: webhook.id, id: d.id })),
      product: [...new Set(variants.map((v) => v.product_id))],
      variant: variants.map((v) => v.id),
      inventory_item: variants.map((v) => v.inventory_item_id),
      location: locations.map((l) => l.id),
      tax_rate: taxes.map((r) => r.id),
      event: events.map((e) => e.id),
    },
  };
}

/**
 * The noisy key's heaviest orders, the same in the noisy-neighbour test and bench/loop-stretches.ts:
 * `count` drafts at the line cap (long titles, varied costs and quantities) from one supplier; their ids.
 */
export async function createHeavyOrders(store: TestStore, count: number): Promise<number[]> {
  const supplier = await createSupplier(store.api, { address_line1: "1 Quay", city: "Brest" });
  const lines = Array.from({ length: MAX_LINES_PER_ORDER }, (_, i) => ({
    product_title: `Part ${i + 1} with a long enough title to wrap in its column`,
    sku: `PART-${i + 1}`,
    quantity: 1 + (i % 7),
    unit_cost: `${(i % 90) + 1}.25`,
  }));
  const ids: number[] = [];
  for (let i = 0; i < count; i++)
    ids.push((await createDraftOrder(store.api, { supplier_id: supplier.id, lines, notes: "n" })).id);
  return ids;
}
