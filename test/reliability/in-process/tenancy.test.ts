/**
 * Tenancy: every route of GET /v2/openapi.json probed by one store's key with another store's ids and
 * cursors. Another store's id in a path is 404 not_found; in a body, 422 validation_failed with detail
 * code not_found on that field; in a list filter, an empty page; its cursor, 400 invalid_cursor. No
 * answer carries the other store's data (its marker word never appears), and no refused probe writes.
 * A route missing from the probe table fails the test, so new routes get probed too.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestApp, type TestApp } from "../../helpers/app.ts";
import { changedTables, fingerprinter } from "../helpers/fingerprint.ts";
import { type Populated, populate } from "../helpers/fixture.ts";

type Expect =
  | { kind: "not_found" }
  | { kind: "details"; fields: string[] }
  | { kind: "invalid_cursor" }
  | { kind: "empty" }
  | { kind: "own_data" };

interface Probe {
  op: string;
  url: string;
  body?: unknown;
  key?: boolean;
  expect: Expect;
}

const notFound: Expect = { kind: "not_found" };
const details = (...fields: string[]): Expect => ({ kind: "details", fields });

describe("tenancy: another store's ids and cursors on every route", () => {
  let t: TestApp;
  let a: Populated;
  let b: Populated;
  let documented: string[];

  before(async () => {
    t = await startTestApp();
    a = await populate(t, "ALPHA");
    b = await populate(t, "BRAVO");
    const doc = (await a.store.api.get("/v2/openapi.json")).body;
    documented = Object.entries<Record<string, unknown>>(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
    );
  });
  after(() => t.close());

  /** B's cursor for a list (its first page of one row), read with B's own key. */
  async function cursorOf(url: string): Promise<string> {
    const res = await b.store.api.get(`${url}${url.includes("?") ? "&" : "?"}limit=1`);
    assert.equal(res.status, 200, `${url}: ${JSON.stringify(res.body)}`);
    assert.ok(res.body.next_cursor, `${url} has a single page in store B`);
    return res.body.next_cursor;
  }

  function probes(cursors: Record<string, string>): Probe[] {
    const A = a.ids;
    const B = b.ids;
    const [aDraft, aPlaced] = A.purchase_order;
    const [bDraft, bPlaced] = B.purchase_order;
    const bReceipt = B.receipt[0];
    const bPayment = B.payment[0];
    const bDelivery = B.delivery[0];
    const [aDraftAdjustment] = A.stock_adjustment;
    const [bDraftAdjustment] = B.stock_adjustment;
    const aSupplier = A.supplier[0];
    const bSupplier = B.supplier[0];
    const bLine = B.line[2]; // a line of B's placed order
    const bVariant = B.variant[0];
    const bItem = B.inventory_item[0];
    const bLocation = B.location[0];
    const aVariant = A.variant[0];
    const line = (extra: Record<string, unknown>) => ({ quantity: 1, unit_cost: 1, ...extra });
    return [
      { op: "GET /v2/whoami", url: "/v2/whoami", expect: { kind: "own_data" } },
      // Catalog
      {
        op: "GET /v2/products",
        url: `/v2/products?cursor=${cursors.products}`,
        expect: { kind: "invalid_cursor" },
      },
      { op: "GET /v2/products/{id}", url: `/v2/products/${B.product[0]}`, expect: notFound },
      { op: "GET /v2/variants", url: `/v2/variants?product_id=${B.product[0]}`, expect: { kind: "empty" } },
      {
        op: "GET /v2/variants",
        url: `/v2/variants?cursor=${cursors.variants}`,
        expect: { kind: "invalid_cursor" },
      },
      { op: "GET /v2/variants/{id}", url: `/v2/variants/${bVariant}`, expect: notFound },
      {
        op: "GET /v2/locations",
        url: `/v2/locations?cursor=${cursors.locations}`,
        expect: { kind: "invalid_cursor" },
      },
      { op: "GET /v2/locations/{id}", url: `/v2/locations/${bLocation}`, expect: notFound },
      {
        op: "GET /v2/inventory_levels",
        url: `/v2/inventory_levels?inventory_item_id=${bItem}`,
        expect: { kind: "empty" },
      },
      {
        op: "GET /v2/inventory_levels",
        url: `/v2/inventory_levels?location_id=${bLocation}`,
        expect: { kind: "empty" },
      },
      {
        op: "GET /v2/inventory_levels",
        url: `/v2/inventory_levels?cursor=${cursors.inventory_levels}`,
        expect: { kind: "invalid_cursor" },
      },
      {
        op: "GET /v2/stock_levels",
        url: `/v2/stock_levels?inventory_item_id=${bItem}`,
        expect: { kind: "empty" },
      },
      {
        op: "GET /v2/stock_levels",
        url: `/v2/stock_levels?location_id=${bLocation}`,
        expect: { kind: "empty" },
      },
      {
        op: "GET /v2/stock_levels",
        url: `/v2/stock_levels?cursor=${cursors.stock_levels}`,
        expect: { kind: "invalid_cursor" },
      },
      // Suppliers
      {
        op: "GET /v2/suppliers",
        url: `/v2/suppliers?cursor=${cursors.suppliers}`,
        expect: { kind: "invalid_cursor" },
      },
      {
        op: "POST /v2/suppliers",
        url: "/v2/suppliers",
        body: { name: "Tenancy probe", unexpected: 1 },
        expect: details("unexpected"),
      },
      {
        op: "POST /v2/suppliers/merge",
        url: "/v2/suppliers/merge",
        body: { target_id: aSupplier, source_ids: [bSupplier] },
        expect: details("source_ids.0"),
      },
      {
        op: "POST /v2/suppliers/merge",
        url: "/v2/suppliers/merge",
        body: { target_id: bSupplier, source_ids: [A.supplier[1]] },
        expect: details("target_id"),
      },
      {
        op: "POST /v2/suppliers/merge/preview",
        url: "/v2/suppliers/merge/preview",
        body: { target_id: aSupplier, source_ids: [bSupplier] },
        expect: details("source_ids.0"),
      },
      {
        op: "POST /v2/suppliers/merge/preview",
        url: "/v2/suppliers/merge/preview",
        body: { target_id: bSupplier, source_ids: [A.supplier[1]] },
        expect: details("target_id"),
      },
      { op: "GET /v2/suppliers/{id}", url: `/v2/suppliers/${bSupplier}`, expect: notFound },
      {
        op: "PATCH /v2/suppliers/{id}",
        url: `/v2/suppliers/${bSupplier}`,
        body: { notes: "x" },
        expect: notFound,
      },
      { op: "POST /v2/suppliers/{id}/archive", url: `/v2/suppliers/${bSupplier}/archive`, expect: notFound },
      {
        op: "POST /v2/suppliers/{id}/unarchive",
        url: `/v2/suppliers/${B.supplier[2]}/unarchive`,
        expect: notFound,
      },
      { op: "GET /v2/suppliers/{id}/catalog", url: `/v2/suppliers/${bSupplier}/catalog`, expect: notFound },
      {
        op: "PUT /v2/suppliers/{id}/catalog",
        url: `/v2/suppliers/${bSupplier}/catalog`,
        body: { rows: [{ inventory_item_id: A.inventory_item[0] }] },
        expect: notFound,
      },
      {
        op: "PUT /v2/suppliers/{id}/catalog",
        url: `/v2/suppliers/${aSupplier}/catalog`,
        body: { rows: [{ inventory_item_id: bItem }, { variant_id: bVariant }] },
        expect: details("rows.0.inventory_item_id", "rows.1.variant_id"),
      },
      {
        op: "DELETE /v2/suppliers/{id}/catalog/{inventory_item_id}",
        url: `/v2/suppliers/${bSupplier}/catalog/${bItem}`,
        expect: notFound,
      },
      {
        op: "DELETE /v2/suppliers/{id}/catalog/{inventory_item_id}",
        url: `/v2/suppliers/${aSupplier}/catalog/${bItem}`,
        expect: notFound,
      },
      // Purchase orders
      {
        op: "GET /v2/purchase_orders",
        url: `/v2/purchase_orders?supplier_id=${bSupplier}`,
        expect: { kind: "empty" },
      },
      {
        op: "GET /v2/purchase_orders",
        url: `/v2/purchase_orders?cursor=${cursors.purchase_orders}`,
        expect: { kind: "invalid_cursor" },
      },
      {
        op: "POST /v2/purchase_orders",
        url: "/v2/purchase_orders",
        body: {
          supplier_id: bSupplier,
          location_id: bLocation,
          tax_rate_id: B.tax_rate[0],
          return_source_po_id: bPlaced,
          lines: [
            line({ variant_id: bVariant }),
            line({ inventory_item_id: bItem }),
            line({ variant_id: aVariant, location_id: bLocation, tax_rate_id: B.tax_rate[0] }),
          ],
        },
        expect: details(
          "supplier_id",
          "location_id",
          "tax_rate_id",
          "return_source_po_id",
          "lines.0.variant_id",
          "lines.1.inventory_item_id",
          "lines.2.location_id",
          "lines.2.tax_rate_id",
        ),
      },
      { op: "GET /v2/purchase_orders/{id}", url: `/v2/purchase_orders/${bPlaced}`, expect: notFound },
      {
        op: "PATCH /v2/purchase_orders/{id}",
        url: `/v2/purchase_orders/${bDraft}`,
        body: { notes: "x" },
        expect: notFound,
      },
      {
        op: "PATCH /v2/purchase_orders/{id}",
        url: `/v2/purchase_orders/${aDraft}`,
        body: {
          supplier_id: bSupplier,
          lines: [{ id: B.line[0], quantity: 2 }, line({ variant_id: bVariant })],
        },
        expect: details("supplier_id", "lines.0.id", "lines.1.variant_id"),
      },
      { op: "DELETE /v2/purchase_orders/{id}", url: `/v2/purchase_orders/${bDraft}`, expect: notFound },
      {
        op: "GET /v2/purchase_orders/{id}/history",
        url: `/v2/purchase_orders/${bPlaced}/history`,
        expect: notFound,
      },
      {
        op: "GET /v2/purchase_orders/{id}/history",
        url: `/v2/purchase_orders/${aPlaced}/history?cursor=${cursors.history}`,
        expect: { kind: "invalid_cursor" },
      },
      ...[
        "mark_ordered",
        "mark_in_transit",
        "close",
        "reopen",
        "archive",
        "unarchive",
        "duplicate",
        "mark_paid",
        "mark_unpaid",
      ].map(
        (action): Probe => ({
          op: `POST /v2/purchase_orders/{id}/${action}`,
          url: `/v2/purchase_orders/${action === "mark_ordered" ? bDraft : bPlaced}/${action}`,
          body: {},
          expect: notFound,
        }),
      ),
      {
        op: "POST /v2/purchase_orders/{id}/lines",
        url: `/v2/purchase_orders/${bDraft}/lines`,
        body: { lines: [line({ product_title: "x" })] },
        expect: notFound,
      },
      {
        op: "POST /v2/purchase_orders/{id}/lines",
        url: `/v2/purchase_orders/${aPlaced}/lines`,
        body: { lines: [line({ variant_id: bVariant }), line({ inventory_item_id: bItem })] },
        expect: details("lines.0.variant_id", "lines.1.inventory_item_id"),
      },
      {
        op: "POST /v2/purchase_orders/{id}/lines/{line_id}/cancel_remaining",
        url: `/v2/purchase_orders/${bPlaced}/lines/${bLine}/cancel_remaining`,
        body: {},
        expect: notFound,
      },
      {
        op: "POST /v2/purchase_orders/{id}/lines/{line_id}/cancel_remaining",
        url: `/v2/purchase_orders/${aPlaced}/lines/${bLine}/cancel_remaining`,
        body: {},
        expect: notFound,
      },
      { op: "GET /v2/purchase_orders/{id}/pdf", url: `/v2/purchase_orders/${bPlaced}/pdf`, expect: notFound },
      {
        op: "POST /v2/purchase_orders/{id}/send",
        url: `/v2/purchase_orders/${bPlaced}/send`,
        body: { to: ["probe@example.com"] },
        expect: notFound,
      },
      // Receipts
      {
        op: "GET /v2/purchase_orders/{id}/receipts",
        url: `/v2/purchase_orders/${bPlaced}/receipts`,
        expect: notFound,
      },
      {
        op: "GET /v2/purchase_orders/{id}/receipts",
        url: `/v2/purchase_orders/${aPlaced}/receipts?cursor=${cursors.receipts}`,
        expect: { kind: "invalid_cursor" },
      },
      {
        op: "POST /v2/purchase_orders/{id}/receipts",
        url: `/v2/purchase_orders/${bPlaced}/receipts`,
        body: { lines: [{ line_id: bLine, quantity: 1 }] },
        key: true,
        expect: notFound,
      },
      {
        op: "POST /v2/purchase_orders/{id}/receipts",
        url: `/v2/purchase_orders/${aPlaced}/receipts`,
        body: {
          location_id: bLocation,
          lines: [{ line_id: bLine, quantity: 1 }],
          unordered: [
            { variant_id: bVariant, quantity: 1 },
            { inventory_item_id: bItem, quantity: 1 },
          ],
        },
        key: true,
        expect: details(
          "location_id",
          "lines.0.line_id",
          "unordered.0.variant_id",
          "unordered.1.inventory_item_id",
        ),
      },
      {
        op: "POST /v2/purchase_orders/{id}/receipts/preview",
        url: `/v2/purchase_orders/${bPlaced}/receipts/preview`,
        body: { lines: [{ line_id: bLine, quantity: 1 }] },
        expect: notFound,
      },
      {
        op: "POST /v2/purchase_orders/{id}/receipts/preview",
        url: `/v2/purchase_orders/${aPlaced}/receipts/preview`,
        body: { lines: [{ line_id: bLine, quantity: 1 }] },
        expect: details("lines.0.line_id"),
      },
      {
        op: "GET /v2/purchase_orders/{id}/receipts/{receipt_id}",
        url: `/v2/purchase_orders/${bReceipt.order}/receipts/${bReceipt.id}`,
        expect: notFound,
      },
      {
        op: "GET /v2/purchase_orders/{id}/receipts/{receipt_id}",
        url: `/v2/purchase_orders/${aPlaced}/receipts/${bReceipt.id}`,
        expect: notFound,
      },
      {
        op: "POST /v2/purchase_orders/{id}/receipts/{receipt_id}/void",
        url: `/v2/purchase_orders/${aPlaced}/receipts/${bReceipt.id}/void`,
        body: {},
        expect: notFound,
      },
      {
        op: "POST /v2/purchase_orders/{id}/receipts/{receipt_id}/void",
        url: `/v2/purchase_orders/${bReceipt.order}/receipts/${bReceipt.id}/void`,
        body: {},
        expect: notFound,
      },
      // Payments
      {
        op: "GET /v2/purchase_orders/{id}/payments",
        url: `/v2/purchase_orders/${bPlaced}/payments`,
        expect: notFound,
      },
      {
        op: "POST /v2/purchase_orders/{id}/payments",
        url: `/v2/purchase_orders/${bPlaced}/payments`,
        body: { amount: 1 },
        expect: notFound,
      },
      {
        op: "DELETE /v2/purchase_orders/{id}/payments/{payment_id}",
        url: `/v2/purchase_orders/${bPayment.order}/payments/${bPayment.id}`,
        expect: notFound,
      },
      {
        op: "DELETE /v2/purchase_orders/{id}/payments/{payment_id}",
        url: `/v2/purchase_orders/${aPlaced}/payments/${bPayment.id}`,
        expect: notFound,
      },
      // Stock adjustments
      {
        op: "GET /v2/stock_adjustments",
        url: `/v2/stock_adjustments?location_id=${bLocation}`,
        expect: { kind: "empty" },
      },
      {
        op: "GET /v2/stock_adjustments",
        url: `/v2/stock_adjustments?cursor=${cursors.stock_adjustments}`,
        expect: { kind: "invalid_cursor" },
      },
      {
        op: "POST /v2/stock_adjustments",
        url: "/v2/stock_adjustments",
        body: {
          location_id: bLocation,
          lines: [
            { variant_id: bVariant, delta: 1 },
            { inventory_item_id: bItem, delta: 1 },
          ],
        },
        expect: details("location_id", "lines.0.variant_id", "lines.1.inventory_item_id"),
      },
      {
        op: "GET /v2/stock_adjustments/{id}",
        url: `/v2/stock_adjustments/${bDraftAdjustment}`,
        expect: notFound,
      },
      {
        op: "PATCH /v2/stock_adjustments/{id}",
        url: `/v2/stock_adjustments/${bDraftAdjustment}`,
        body: { note: "x" },
        expect: notFound,
      },
      {
        op: "PATCH /v2/stock_adjustments/{id}",
        url: `/v2/stock_adjustments/${aDraftAdjustment}`,
        body: { location_id: bLocation, lines: [{ variant_id: bVariant, delta: 1 }] },
        expect: details("location_id", "lines.0.variant_id"),
      },
      {
        op: "POST /v2/stock_adjustments/{id}/apply",
        url: `/v2/stock_adjustments/${bDraftAdjustment}/apply`,
        body: {},
        key: true,
        expect: notFound,
      },
      {
        op: "POST /v2/stock_adjustments/{id}/cancel",
        url: `/v2/stock_adjustments/${bDraftAdjustment}/cancel`,
        body: {},
        expect: notFound,
      },
      // Webhooks
      { op: "GET /v2/webhooks", url: "/v2/webhooks", expect: { kind: "own_data" } },
      {
        op: "POST /v2/webhooks",
        url: "/v2/webhooks",
        body: { url: "https://localhost:1/probe", events: ["*"], status: "active" },
        expect: details("status"),
      },
      { op: "GET /v2/webhooks/{id}", url: `/v2/webhooks/${B.webhook[0]}`, expect: notFound },
      {
        op: "PATCH /v2/webhooks/{id}",
        url: `/v2/webhooks/${B.webhook[0]}`,
        body: { description: "x" },
        expect: notFound,
      },
      { op: "DELETE /v2/webhooks/{id}", url: `/v2/webhooks/${B.webhook[0]}`, expect: notFound },
      {
        op: "GET /v2/webhooks/{id}/deliveries",
        url: `/v2/webhooks/${B.webhook[0]}/deliveries`,
        expect: notFound,
      },
      {
        op: "GET /v2/webhooks/{id}/deliveries",
        url: `/v2/webhooks/${A.webhook[0]}/deliveries?event_id=${B.event[0]}`,
        expect: { kind: "empty" },
      },
      {
        op: "GET /v2/webhooks/{id}/deliveries",
        url: `/v2/webhooks/${A.webhook[0]}/deliveries?cursor=${cursors.deliveries}`,
        expect: { kind: "invalid_cursor" },
      },
      {
        op: "POST /v2/webhooks/{id}/deliveries/{delivery_id}/redeliver",
        url: `/v2/webhooks/${bDelivery.webhook}/deliveries/${bDelivery.id}/redeliver`,
        expect: notFound,
      },
      {
        op: "POST /v2/webhooks/{id}/deliveries/{delivery_id}/redeliver",
        url: `/v2/webhooks/${A.webhook[0]}/deliveries/${bDelivery.id}/redeliver`,
        expect: notFound,
      },
      {
        op: "POST /v2/webhooks/{id}/redeliver",
        url: `/v2/webhooks/${B.webhook[0]}/redeliver`,
        body: { event_id: B.event[0] },
        expect: notFound,
      },
      {
        op: "POST /v2/webhooks/{id}/redeliver",
        url: `/v2/webhooks/${A.webhook[0]}/redeliver`,
        body: { event_id: B.event[0] },
        expect: details("event_id"),
      },
      { op: "POST /v2/webhooks/{id}/test", url: `/v2/webhooks/${B.webhook[0]}/test`, expect: notFound },
    ];
  }

  test("every route refuses another store's ids and cursors and never shows its data", async (tt) => {
    const cursors = {
      products: await cursorOf("/v2/products"),
      variants: await cursorOf("/v2/variants"),
      locations: await cursorOf("/v2/locations"),
      inventory_levels: await cursorOf("/v2/inventory_levels"),
      stock_levels: await cursorOf("/v2/stock_levels"),
      suppliers: await cursorOf("/v2/suppliers"),
      purchase_orders: await cursorOf("/v2/purchase_orders"),
      history: await cursorOf(`/v2/purchase_orders/${b.ids.purchase_order[1]}/history`),
      receipts: await cursorOf(`/v2/purchase_orders/${b.ids.purchase_order[1]}/receipts`),
      stock_adjustments: await cursorOf("/v2/stock_adjustments"),
      deliveries: await cursorOf(`/v2/webhooks/${b.ids.webhook[0]}/deliveries`),
    };
    const fingerprint = await fingerprinter(t.runtime.ctx.db);
    const list = probes(
      Object.fromEntries(Object.entries(cursors).map(([k, v]) => [k, encodeURIComponent(v)])),
    );
    const problems: string[] = [];
    let keys = 0;
    for (const probe of list) {
      const [method] = probe.op.split(" ");
      const before = await fingerprint();
      const headers: Record<string, string> = { authorization: `Bearer ${a.store.key}` };
      if (probe.key) headers["idempotency-key"] = `tenancy-${++keys}`;
      const body = probe.body;
      const res = await t.runtime.app.inject({
        method: method as "GET",
        url: probe.url,
        headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
        ...(body !== undefined && { payload: JSON.stringify(body) }),
      });
      const text = res.body;
      const parsed = res.headers["content-type"]?.toString().includes("json") ? JSON.parse(text) : null;
      const where = `${probe.op} ${probe.url}: ${res.statusCode} ${text.slice(0, 300)}`;
      if (text.includes(b.marker)) problems.push(`leaks store B's data: ${where}`);
      const e = probe.expect;
      if (e.kind === "not_found" && !(res.statusCode === 404 && parsed?.error?.code === "not_found"))
        problems.push(`expected 404 not_found: ${where}`);
      if (
        e.kind === "invalid_cursor" &&
        !(res.statusCode === 400 && parsed?.error?.code === "invalid_cursor")
      )
        problems.push(`expected 400 invalid_cursor: ${where}`);
      if (
        e.kind === "empty" &&
        !(res.statusCode === 200 && Array.isArray(parsed?.data) && parsed.data.length === 0)
      )
        problems.push(`expected an empty page: ${where}`);
      if (e.kind === "own_data" && res.statusCode !== 200) problems.push(`expected 200: ${where}`);
      if (e.kind === "details") {
        const got = new Set(
          (parsed?.error?.details ?? [])
            .filter((d: { code: string }) => d.code === "not_found" || d.code === "unknown_field")
            .map((d: { field: string }) => d.field),
        );
        const missing = e.fields.filter((f) => !got.has(f));
        if (res.statusCode !== 422 || parsed?.error?.code !== "validation_failed" || missing.length > 0)
          problems.push(`expected 422 not_found on ${missing.join(", ") || e.fields.join(", ")}: ${where}`);
      }
      if (res.statusCode >= 400) {
        const changed = changedTables(before, await fingerprint());
        if (changed.length > 0) problems.push(`refused but wrote to ${changed.join(", ")}: ${where}`);
      }
    }
    const probed = new Set(list.map((p) => p.op));
    const unprobed = documented.filter((op) => !probed.has(op));
    assert.deepEqual(unprobed, [], "routes without a tenancy probe");
    assert.deepEqual(problems, []);
    tt.diagnostic(`figures ${JSON.stringify({ routes: documented.length, probes: list.length })}`);
  });
});
