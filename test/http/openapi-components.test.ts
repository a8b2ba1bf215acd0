/**
 * The API description's named shapes (issue 21 item 2): printed once in `components.schemas`, used by
 * `$ref`, every reference resolving, and the service's live answers matching the shapes referenced.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { envelopeBody } from "../../src/domain/webhooks/deliver.ts";
import { loadEvents } from "../../src/domain/webhooks/delivery-reads.ts";
import { EVENT_CATALOGUE } from "../../src/domain/webhooks/index.ts";
import { allModules } from "../../src/modules/index.ts";
import { createWebhooksModule, webhooksModule } from "../../src/modules/webhooks.ts";
import { type Client, startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { idempotencyKey } from "../helpers/factories.ts";
import {
  inlineSchema,
  ResponseChecker,
  refsOf,
  resolvePointer,
  SCHEMA_REF_PREFIX,
  strictAjv,
} from "../helpers/openapi.ts";

let t: TestApp;
let doc: any;

before(async () => {
  t = await startTestApp({
    modules: allModules.map((m) =>
      // Webhook URLs resolve to a public address without DNS, so an endpoint can be created here.
      m === webhooksModule ? createWebhooksModule({ resolve: async () => ["203.0.113.7"] }) : m,
    ),
  });
  const res = await t.client().get("/v2/openapi.json");
  assert.equal(res.status, 200);
  doc = res.body;
});
after(() => t.close());

const schemaOf = (method: string, path: string, status?: string) => {
  const op = doc.paths[path][method];
  return status
    ? op.responses[status].content["application/json"].schema
    : op.requestBody.content["application/json"].schema;
};
const ref = (name: string) => ({ $ref: `${SCHEMA_REF_PREFIX}${name}` });

describe("OpenAPI components", () => {
  test("the contract's shapes are named components", () => {
    const names = Object.keys(doc.components.schemas);
    for (const name of [
      "Error",
      "Supplier",
      "SupplierInput",
      "SupplierUpdate",
      "SupplierPage",
      "SupplierCatalogItem",
      "SupplierCatalogItemInput",
      "PurchaseOrder",
      "PurchaseOrderSummary",
      "PurchaseOrderSummaryPage",
      "PurchaseOrderLine",
      "PurchaseOrderLineInput",
      "PurchaseOrderLineUpdate",
      "PurchaseOrderCharge",
      "PurchaseOrderChargeInput",
      "PurchaseOrderInput",
      "PurchaseOrderUpdate",
      "PurchaseOrderHistoryEntry",
      "Receipt",
      "ReceiptInput",
      "Payment",
      "PaymentInput",
      "StockAdjustment",
      "StockAdjustmentInput",
      "StockAdjustmentLine",
      "Product",
      "Variant",
      "Location",
      "InventoryLevel",
      "Webhook",
      "WebhookInput",
      "WebhookDelivery",
      "WebhookDeliveryPage",
    ])
      assert.ok(names.includes(name), `components.schemas.${name}`);
    // No mark of the build is left in the document.
    assert.equal(JSON.stringify(doc).includes("x-component"), false);
  });

  test("operations use the shapes by $ref", () => {
    assert.deepEqual(schemaOf("get", "/v2/suppliers", "200"), ref("SupplierPage"));
    assert.deepEqual(schemaOf("post", "/v2/suppliers"), ref("SupplierInput"));
    assert.deepEqual(schemaOf("patch", "/v2/suppliers/{id}"), ref("SupplierUpdate"));
    assert.deepEqual(schemaOf("post", "/v2/suppliers", "201").properties.data, ref("Supplier"));
    assert.deepEqual(schemaOf("post", "/v2/purchase_orders"), ref("PurchaseOrderInput"));
    assert.deepEqual(schemaOf("get", "/v2/purchase_orders", "200"), ref("PurchaseOrderSummaryPage"));
    assert.deepEqual(
      schemaOf("get", "/v2/purchase_orders/{id}", "200").properties.data,
      ref("PurchaseOrder"),
    );
    assert.deepEqual(schemaOf("post", "/v2/purchase_orders/{id}/receipts"), ref("ReceiptInput"));
    assert.deepEqual(schemaOf("post", "/v2/purchase_orders/{id}/payments"), ref("PaymentInput"));
    assert.deepEqual(schemaOf("post", "/v2/stock_adjustments"), ref("StockAdjustmentInput"));
    assert.deepEqual(schemaOf("get", "/v2/webhooks/{id}/deliveries", "200"), ref("WebhookDeliveryPage"));
    // Shapes inside shapes are references too.
    const order = doc.components.schemas.PurchaseOrder;
    assert.deepEqual(order.properties.lines.items, ref("PurchaseOrderLine"));
    assert.deepEqual(order.properties.charges.items, ref("PurchaseOrderCharge"));
    assert.deepEqual(order.properties.receipts.items, ref("Receipt"));
    assert.deepEqual(order.properties.payments.items, ref("Payment"));
    assert.deepEqual(
      doc.components.schemas.PurchaseOrderInput.properties.lines.items,
      ref("PurchaseOrderLineInput"),
    );
    assert.deepEqual(
      doc.components.schemas.PurchaseOrderUpdate.properties.lines.items,
      ref("PurchaseOrderLineUpdate"),
    );
    // A nullable use is the shape or null.
    assert.deepEqual(order.properties.ship_to_address, { anyOf: [ref("ShipToAddress"), { type: "null" }] });
    // The answer that adds the signing secret extends the Webhook shape.
    assert.deepEqual(schemaOf("post", "/v2/webhooks", "201").properties.data.allOf[0], ref("Webhook"));
  });

  test("every $ref resolves", () => {
    const refs = refsOf(doc);
    assert.ok(refs.length > 1000, `${refs.length} references`);
    const broken = refs.filter(({ ref }) => resolvePointer(doc, ref) === undefined);
    assert.deepEqual(broken, []);
    // Every named shape is used somewhere.
    const used = new Set(refs.map(({ ref }) => ref));
    const unused = Object.keys(doc.components.schemas).filter((n) => !used.has(`${SCHEMA_REF_PREFIX}${n}`));
    assert.deepEqual(unused, []);
  });

  test("the error envelope is printed once: every error answer refers to Error", () => {
    let errorAnswers = 0;
    for (const [path, item] of Object.entries<any>(doc.paths))
      for (const [method, op] of Object.entries<any>(item))
        for (const [status, response] of Object.entries<any>(op.responses))
          if (Number(status) >= 400) {
            errorAnswers++;
            assert.deepEqual(
              response.content["application/json"].schema,
              ref("Error"),
              `${method} ${path} ${status}`,
            );
          }
    assert.ok(errorAnswers >= 600, `${errorAnswers} error answers`);
    // No inline copy of the envelope anywhere in the paths.
    assert.equal(JSON.stringify(doc.paths).includes('"error":{'), false);
    assert.deepEqual(doc.components.schemas.Error.required, ["error"]);
    assert.deepEqual(doc.components.schemas.Error.properties.error.required, ["code", "message"]);
  });

  test("every named shape compiles under Ajv 8 strict", () => {
    const ajv = strictAjv();
    const refused: string[] = [];
    for (const [name, schema] of Object.entries<any>(doc.components.schemas)) {
      try {
        ajv.compile(inlineSchema(doc, schema));
      } catch (error) {
        refused.push(`${name}: ${(error as Error).message}`);
      }
    }
    assert.deepEqual(refused, []);
  });
});

describe("OpenAPI webhooks", () => {
  test("one entry per catalogue event: its payload by $ref, its headers, the receiver contract", () => {
    assert.equal(doc.openapi, "3.1.0");
    assert.deepEqual(Object.keys(doc.webhooks), [...EVENT_CATALOGUE]);
    const payloads: Record<string, string> = {};
    for (const [name, item] of Object.entries<any>(doc.webhooks)) {
      const post = item.post;
      payloads[name] = post.requestBody.content["application/json"].schema.$ref;
      assert.deepEqual(
        post.parameters.map((p: any) => [p.in, p.name, p.required]),
        [
          ["header", "X-Service-Event", true],
          ["header", "X-Service-Event-Id", true],
          ["header", "X-Service-Delivery-Id", true],
          ["header", "X-Service-Webhook-Id", true],
          ["header", "X-Service-Timestamp", true],
          ["header", "X-Service-Signature", true],
        ],
        name,
      );
      assert.deepEqual(Object.keys(post.responses), ["2XX"]);
      assert.match(post.responses["2XX"].description, /2xx answer with an empty body, within 10 seconds/);
      assert.match(post.responses["2XX"].description, /a 2xx with a body \(even `ok`\)/);
    }
    assert.equal(payloads["purchase_order.created"], `${SCHEMA_REF_PREFIX}PurchaseOrderEvent`);
    assert.equal(payloads["purchase_order.receipt_recorded"], `${SCHEMA_REF_PREFIX}ReceiptRecordedEvent`);
    assert.equal(payloads["receipt.voided"], `${SCHEMA_REF_PREFIX}ReceiptVoidedEvent`);
    assert.equal(payloads["supplier.merged"], `${SCHEMA_REF_PREFIX}SupplierEvent`);
    assert.equal(payloads["stock_adjustment.applied"], `${SCHEMA_REF_PREFIX}StockAdjustmentEvent`);
    assert.equal(payloads["item.low_stock"], `${SCHEMA_REF_PREFIX}ItemConditionEvent`);
    assert.equal(payloads["webhook.test"], `${SCHEMA_REF_PREFIX}WebhookTestEvent`);
    const envelope = doc.components.schemas.PurchaseOrderEvent;
    assert.deepEqual(envelope.required, ["id", "event", "api_version", "occurred_at", "shop", "data"]);
    assert.deepEqual(envelope.properties.data, { $ref: `${SCHEMA_REF_PREFIX}PurchaseOrder` });
  });
});

describe("OpenAPI: live answers match the shapes referenced", () => {
  let checker: ResponseChecker;
  let store: TestStore;
  let api: Client;

  before(async () => {
    checker = new ResponseChecker(doc);
    store = await t.createStore({ seed: "demo" });
    api = checker.checking(store.api);
  });

  const ok = (res: { status: number; body: unknown }, status = 200) =>
    assert.equal(res.status, status, JSON.stringify(res.body));

  test("a checked answer that differs from its shape is caught", () => {
    const wrong = checker.problems("GET", "/v2/suppliers/1", 200, { data: { id: "one" } });
    assert.ok(wrong.length > 0);
    assert.match(wrong[0], /^get \/v2\/suppliers\/\{id\} 200: /);
    assert.deepEqual(checker.problems("GET", "/v2/suppliers/1", 418, {}), [
      "get /v2/suppliers/{id} 418 is not a documented status",
    ]);
  });

  test("a merchant's workflow: every answer matches the document", async () => {
    ok(await api.get("/v2/whoami"));
    // The catalog, paged by cursor.
    const first = await api.get("/v2/variants?limit=2");
    ok(first);
    assert.equal(first.body.has_more, true);
    ok(await api.get(`/v2/variants?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`));
    const [variant, other] = first.body.data;
    ok(await api.get(`/v2/variants/${variant.id}`));
    ok(await api.get("/v2/products?include=variants&limit=2"));
    ok(await api.get(`/v2/products/${variant.product_id}`));
    const locations = await api.get("/v2/locations");
    ok(locations);
    const location = locations.body.data[0];
    ok(await api.get(`/v2/locations/${location.id}`));
    ok(await api.get(`/v2/inventory_levels?inventory_item_id=${variant.inventory_item_id}`));

    // A supplier with a catalog of tiered prices.
    const supplier = await api.post("/v2/suppliers", {
      name: "Documented Ltd",
      currency: "USD",
      email: "orders@documented.example",
      min_order_value: "100.00",
    });
    ok(supplier, 201);
    const supplierId = supplier.body.data.id;
    ok(await api.patch(`/v2/suppliers/${supplierId}`, { lead_time_days: 5 }));
    ok(await api.get(`/v2/suppliers/${supplierId}`));
    ok(await api.get("/v2/suppliers?archived=all"));
    ok(
      await api.put(`/v2/suppliers/${supplierId}/catalog`, {
        rows: [
          {
            variant_id: variant.id,
            supplier_sku: "DOC-1",
            tiers: [
              { min_qty: 1, price: "4.00" },
              { min_qty: 10, price: 3.5 },
            ],
          },
          { variant_id: other.id, pack_size: 6 },
        ],
      }),
    );
    ok(await api.get(`/v2/suppliers/${supplierId}/catalog`));
    ok(await api.delete(`/v2/suppliers/${supplierId}/catalog/${other.inventory_item_id}`));

    // An order through its life.
    const order = await api.post("/v2/purchase_orders", {
      supplier_id: supplierId,
      location_id: location.id,
      lines: [{ variant_id: variant.id, quantity: 12 }],
      charges: [{ kind: "shipping", amount: "9.00" }],
    });
    ok(order, 201);
    const orderId = order.body.data.id;
    ok(await api.patch(`/v2/purchase_orders/${orderId}`, { notes: "Documented" }));
    ok(await api.post(`/v2/purchase_orders/${orderId}/mark_ordered`));
    ok(
      await api.post(`/v2/purchase_orders/${orderId}/lines`, {
        lines: [{ product_title: "Extra", quantity: 2, unit_cost: 1 }],
      }),
    );
    ok(await api.post(`/v2/purchase_orders/${orderId}/mark_in_transit`));
    const lineId = (await api.get(`/v2/purchase_orders/${orderId}`)).body.data.lines[0].id;
    const receiptBody = { lines: [{ line_id: lineId, quantity: 5 }] };
    ok(await api.post(`/v2/purchase_orders/${orderId}/receipts/preview`, receiptBody));
    const receipt = await api.post(
      `/v2/purchase_orders/${orderId}/receipts`,
      receiptBody,
      idempotencyKey("doc"),
    );
    ok(receipt, 201);
    const receiptId = receipt.body.data.id;
    ok(await api.get(`/v2/purchase_orders/${orderId}/receipts`));
    ok(await api.get(`/v2/purchase_orders/${orderId}/receipts/${receiptId}`));
    const payment = await api.post(`/v2/purchase_orders/${orderId}/payments`, {
      amount: "10.00",
      paid_on: "2030-01-02",
    });
    ok(payment, 201);
    ok(await api.get(`/v2/purchase_orders/${orderId}/payments`));
    ok(await api.delete(`/v2/purchase_orders/${orderId}/payments/${payment.body.data.id}`));
    ok(await api.post(`/v2/purchase_orders/${orderId}/mark_paid`));
    ok(await api.post(`/v2/purchase_orders/${orderId}/mark_unpaid`));
    ok(await api.post(`/v2/purchase_orders/${orderId}/receipts/${receiptId}/void`));
    ok(await api.post(`/v2/purchase_orders/${orderId}/lines/${lineId}/cancel_remaining`));
    ok(await api.post(`/v2/purchase_orders/${orderId}/close`));
    ok(await api.post(`/v2/purchase_orders/${orderId}/reopen`));
    ok(await api.post(`/v2/purchase_orders/${orderId}/archive`, { close: true }));
    ok(await api.post(`/v2/purchase_orders/${orderId}/unarchive`));
    ok(await api.get(`/v2/purchase_orders/${orderId}/history`));
    ok(await api.get("/v2/purchase_orders?status=closed,ordered&limit=1"));
    const copy = await api.post(`/v2/purchase_orders/${orderId}/duplicate`);
    ok(copy, 201);
    ok(await api.post(`/v2/purchase_orders/${copy.body.data.id}/send`));
    const draft = await api.post("/v2/purchase_orders", {
      supplier_id: supplierId,
      lines: [{ product_title: "Spare", quantity: 1 }],
    });
    ok(draft, 201);
    ok(await api.delete(`/v2/purchase_orders/${draft.body.data.id}`), 204);

    // A stock adjustment applied, another cancelled.
    const adjustment = await api.post("/v2/stock_adjustments", {
      location_id: location.id,
      lines: [{ variant_id: variant.id, delta: -1 }],
    });
    ok(adjustment, 201);
    ok(await api.patch(`/v2/stock_adjustments/${adjustment.body.data.id}`, { note: "Counted" }));
    ok(
      await api.post(
        `/v2/stock_adjustments/${adjustment.body.data.id}/apply`,
        undefined,
        idempotencyKey("doc"),
      ),
    );
    const dropped = await api.post("/v2/stock_adjustments", {
      location_id: location.id,
      lines: [{ variant_id: other.id, delta: 2 }],
    });
    ok(dropped, 201);
    ok(await api.post(`/v2/stock_adjustments/${dropped.body.data.id}/cancel`));
    ok(await api.get(`/v2/stock_adjustments/${adjustment.body.data.id}`));
    ok(await api.get("/v2/stock_adjustments?status=applied"));

    // Webhooks: an endpoint, its test delivery, its log, redelivery.
    const hook = await api.post("/v2/webhooks", {
      url: "https://hooks.documented.example/in",
      events: ["*"],
    });
    ok(hook, 201);
    const hookId = hook.body.data.id;
    ok(await api.get("/v2/webhooks"));
    ok(await api.patch(`/v2/webhooks/${hookId}`, { description: "Documented" }));
    ok(await api.post(`/v2/webhooks/${hookId}/test`), 202);
    ok(await api.post(`/v2/webhooks/${hookId}/redeliver`, { since: "2000-01-01T00:00:00Z" }), 202);
    ok(await api.get(`/v2/webhooks/${hookId}/deliveries`));
    ok(await api.get(`/v2/webhooks/${hookId}`));
    ok(await api.delete(`/v2/webhooks/${hookId}`));

    // A second supplier merged into the first, then archived and back.
    const twin = await api.post("/v2/suppliers", { name: "Documented Twin" });
    ok(twin, 201);
    ok(await api.post("/v2/suppliers/merge", { target_id: supplierId, source_ids: [twin.body.data.id] }));
    ok(await api.post(`/v2/suppliers/${supplierId}/archive`));
    ok(await api.post(`/v2/suppliers/${supplierId}/unarchive`));
    assert.ok(checker.seen.size >= 55, `${checker.seen.size} operations answered`);
  });

  test("every event the workflow emitted matches its entry in the document's webhooks", async () => {
    const rows = await t.runtime.ctx.db
      .selectFrom("events")
      .select("seq")
      .where("store_id", "=", store.id)
      .orderBy("seq")
      .execute();
    const events = await loadEvents(
      t.runtime.ctx.db,
      rows.map((r) => Number(r.seq)),
    );
    const ajv = strictAjv();
    const names = new Set<string>();
    const problems: string[] = [];
    for (const event of events) {
      const schema = doc.webhooks[event.name].post.requestBody.content["application/json"].schema;
      const validate = ajv.compile(inlineSchema(doc, schema));
      // The bytes an endpoint receives, as the sender builds them.
      if (!validate(JSON.parse(envelopeBody(event))))
        problems.push(`${event.name}: ${ajv.errorsText(validate.errors)}`);
      names.add(event.name);
    }
    assert.deepEqual(problems, []);
    for (const name of [
      "purchase_order.created",
      "purchase_order.updated",
      "purchase_order.ordered",
      "purchase_order.in_transit",
      "purchase_order.receipt_recorded",
      "purchase_order.closed",
      "purchase_order.reopened",
      "purchase_order.archived",
      "purchase_order.deleted",
      "receipt.voided",
      "supplier.created",
      "supplier.updated",
      "supplier.archived",
      "supplier.merged",
      "stock_adjustment.updated",
      "stock_adjustment.applied",
      "stock_adjustment.cancelled",
      "webhook.test",
    ])
      assert.ok(names.has(name), `the workflow emitted ${name}`);
  });

  test("refusals match the Error shape, status by status", async () => {
    const bad = checker.checking(t.client("Bearer sk_nope"));
    assert.equal((await bad.get("/v2/whoami")).status, 401);
    const reader = checker.checking(await store.keyWithScopes(["read"]));
    assert.equal((await reader.post("/v2/suppliers", { name: "No scope" })).status, 403);
    assert.equal((await api.get("/v2/suppliers/999999")).status, 404);
    assert.equal((await api.post("/v2/suppliers", { name: 7 })).status, 422);
    assert.equal((await api.get("/v2/suppliers?cursor=garbage")).status, 400);
    assert.equal((await api.post("/v2/stock_adjustments/1/apply")).status, 400);
    for (const status of [401, 403, 404, 422, 400])
      assert.ok(
        [...checker.seen].some((s) => s.endsWith(` ${status}`)),
        `a ${status} was checked`,
      );
  });
});
