/**
 * The OpenAPI document at /v2/openapi.json as an integrator's tools read it: operations named, tagged,
 * summarised and described, the document valid.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import SwaggerParser from "@apidevtools/swagger-parser";
import { OPERATIONS } from "../../src/http/openapi/operations.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { inlineDocument, strictAjv } from "../helpers/openapi.ts";

let t: TestApp;
/** The document as served, and with every `$ref` resolved (for tests about a route's shapes). */
let doc: any;
let inlined: any;

interface Operation {
  method: string;
  path: string;
  op: any;
}

function operations(from: any = inlined): Operation[] {
  const all: Operation[] = [];
  for (const [path, item] of Object.entries(from.paths))
    for (const [method, op] of Object.entries(item as Record<string, any>)) all.push({ method, path, op });
  return all;
}

function operation(method: string, path: string, from: any = inlined) {
  const op = from.paths[path]?.[method];
  assert.ok(op, `${method} ${path} is in the document`);
  return op;
}

before(async () => {
  t = await startTestApp();
  const res = await t.client().get("/v2/openapi.json");
  assert.equal(res.status, 200);
  doc = res.body;
  inlined = inlineDocument(doc);
});
after(() => t.close());

describe("OpenAPI operations", () => {
  test("the document validates", async () => {
    await SwaggerParser.validate(structuredClone(doc));
  });

  test("every operation has a unique operationId, a known tag, a summary and a description", () => {
    const all = operations();
    assert.equal(all.length, 62);
    const tags = new Set(doc.tags.map((tag: { name: string }) => tag.name));
    for (const tag of doc.tags) assert.ok(tag.description, `tag ${tag.name} has a description`);
    const ids = new Set<string>();
    for (const { method, path, op } of all) {
      const where = `${method} ${path}`;
      assert.match(op.operationId ?? "", /^[a-z][A-Za-z]+$/, `${where} operationId`);
      assert.equal(ids.has(op.operationId), false, `${where}: operationId ${op.operationId} used twice`);
      ids.add(op.operationId);
      assert.equal(op.tags?.length, 1, `${where} has one tag`);
      assert.ok(tags.has(op.tags[0]), `${where}: tag ${op.tags[0]} is listed at the top`);
      assert.ok(op.summary, `${where} summary`);
      assert.ok(op.description, `${where} description`);
    }
    // Every documented operation is a live route (no entry left behind by a removed route).
    assert.equal(Object.keys(OPERATIONS).length, all.length);
  });

  test("operationIds are the names a person would choose", () => {
    assert.equal(operation("post", "/v2/purchase_orders").operationId, "createPurchaseOrder");
    assert.equal(operation("post", "/v2/purchase_orders/{id}/receipts").operationId, "recordReceipt");
    assert.equal(operation("post", "/v2/stock_adjustments/{id}/apply").operationId, "applyStockAdjustment");
    assert.equal(operation("get", "/v2/suppliers").operationId, "listSuppliers");
    assert.equal(operation("get", "/v2/whoami").operationId, "getWhoami");
    assert.equal(
      operation("post", "/v2/webhooks/{id}/deliveries/{delivery_id}/redeliver").operationId,
      "redeliverWebhookDelivery",
    );
  });

  test("descriptions carry the scope the route enforces and the contract's rules", () => {
    assert.match(
      operation("post", "/v2/purchase_orders/{id}/receipts").description,
      /\*\*Scope:\*\* `write:purchase_orders`\./,
    );
    assert.match(
      operation("post", "/v2/purchase_orders/{id}/receipts/preview").description,
      /\*\*Scope:\*\* `read`\./,
    );
    assert.match(operation("get", "/v2/webhooks").description, /\*\*Scope:\*\* `webhooks`\./);
    const apply = operation("post", "/v2/stock_adjustments/{id}/apply").description;
    assert.match(apply, /Idempotency-Key/);
    assert.match(apply, /`stock_adjustment\.applied`/);
    assert.match(operation("delete", "/v2/purchase_orders/{id}").description, /`purchase_order\.deleted`/);
  });

  test("servers and tags are set", () => {
    assert.deepEqual(doc.servers, [{ url: "/", description: "The host serving this document" }]);
    assert.deepEqual(
      doc.tags.map((tag: { name: string }) => tag.name),
      [
        "account",
        "catalog",
        "suppliers",
        "purchase orders",
        "receipts",
        "payments",
        "stock adjustments",
        "webhooks",
      ],
    );
  });
});

describe("OpenAPI headers", () => {
  const header = (op: any) =>
    (op.parameters ?? []).find((p: any) => p.in === "header" && p.name === "Idempotency-Key");

  test("every write takes an Idempotency-Key, required where the server requires it", () => {
    const required: string[] = [];
    for (const { method, path, op } of operations()) {
      const key = header(op);
      if (method === "get") {
        assert.equal(key, undefined, `${method} ${path} takes no key`);
        continue;
      }
      assert.ok(key, `${method} ${path} documents Idempotency-Key`);
      assert.equal(key.schema.maxLength, 255);
      assert.equal(key.schema.minLength, 1);
      if (key.required) required.push(`${method} ${path}`);
    }
    assert.deepEqual(required.sort(), [
      "post /v2/purchase_orders/{id}/receipts",
      "post /v2/stock_adjustments/{id}/apply",
    ]);
  });

  test("response headers: request id, rate limits, Retry-After, replays and the PDF's file name", () => {
    for (const name of [
      "X-Request-Id",
      "RateLimit-Limit",
      "RateLimit-Remaining",
      "RateLimit-Reset",
      "Retry-After",
      "Idempotent-Replayed",
      "Content-Disposition",
    ])
      assert.ok(doc.components.headers[name]?.description, `components.headers.${name}`);
    const refs = (response: any) =>
      Object.entries(response.headers ?? {}).map(([name, h]: [string, any]) => {
        assert.equal(h.$ref, `#/components/headers/${name}`);
        return name;
      });
    const pdf = operation("get", "/v2/purchase_orders/{id}/pdf", doc).responses;
    assert.deepEqual(refs(pdf["200"]), [
      "X-Request-Id",
      "RateLimit-Limit",
      "RateLimit-Remaining",
      "RateLimit-Reset",
      "Content-Disposition",
    ]);
    assert.deepEqual(refs(pdf["429"]), [
      "X-Request-Id",
      "RateLimit-Limit",
      "RateLimit-Remaining",
      "RateLimit-Reset",
      "Retry-After",
    ]);
    assert.deepEqual(refs(pdf["401"]), ["X-Request-Id"]);
    const receipt = operation("post", "/v2/purchase_orders/{id}/receipts", doc).responses;
    assert.deepEqual(refs(receipt["201"]), [
      "X-Request-Id",
      "RateLimit-Limit",
      "RateLimit-Remaining",
      "RateLimit-Reset",
      "Idempotent-Replayed",
    ]);
    assert.equal(refs(receipt["500"]).includes("Idempotent-Replayed"), false);
  });

  test("the headers documented are the headers sent", async () => {
    const store = await t.createStore({ seed: "demo" });
    const body = { name: "Headers Ltd" };
    const first = await store.api.post("/v2/suppliers", body, { "idempotency-key": "doc-headers-1" });
    assert.equal(first.status, 201);
    assert.equal(first.headers["idempotent-replayed"], undefined);
    for (const name of ["x-request-id", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"])
      assert.ok(first.headers[name], name);
    const replay = await store.api.post("/v2/suppliers", body, { "idempotency-key": "doc-headers-1" });
    assert.equal(replay.status, 201);
    assert.equal(replay.headers["idempotent-replayed"], "true");
  });

  test("every response has a description of its status, not the default", () => {
    for (const { method, path, op } of operations())
      for (const [status, response] of Object.entries<any>(op.responses)) {
        assert.notEqual(response.description, "Default Response", `${method} ${path} ${status}`);
      }
    assert.equal(
      operation("get", "/v2/whoami").responses["403"].description,
      "`insufficient_scope`: the key lacks this route's scope",
    );
  });
});

describe("OpenAPI request schemas", () => {
  /** Every schema a client sends against, compiled by Ajv 8 in strict mode as generators' validators do. */
  function requestSchemas(): Array<[string, unknown]> {
    const schemas: Array<[string, unknown]> = [];
    for (const { method, path, op } of operations()) {
      const body = op.requestBody?.content?.["application/json"]?.schema;
      if (body) schemas.push([`${method} ${path} body`, body]);
      for (const p of op.parameters ?? []) schemas.push([`${method} ${path} ${p.in} ${p.name}`, p.schema]);
    }
    return schemas;
  }

  test("Ajv 8 strict compiles every request schema", () => {
    const ajv = strictAjv();
    const refused: string[] = [];
    for (const [where, schema] of requestSchemas()) {
      try {
        ajv.compile(schema as object);
      } catch (error) {
        refused.push(`${where}: ${(error as Error).message}`);
      }
    }
    assert.deepEqual(refused, []);
  });

  test("body-less actions take no body or an object, and say so", async () => {
    const actions = operations().filter(({ op }) => op.requestBody && op.requestBody.required === false);
    assert.deepEqual(actions.map(({ method, path }) => `${method} ${path}`).sort(), [
      "post /v2/purchase_orders/{id}/archive",
      "post /v2/purchase_orders/{id}/close",
      "post /v2/purchase_orders/{id}/duplicate",
      "post /v2/purchase_orders/{id}/lines/{line_id}/cancel_remaining",
      "post /v2/purchase_orders/{id}/mark_in_transit",
      "post /v2/purchase_orders/{id}/mark_ordered",
      "post /v2/purchase_orders/{id}/mark_paid",
      "post /v2/purchase_orders/{id}/mark_unpaid",
      "post /v2/purchase_orders/{id}/receipts/{receipt_id}/void",
      "post /v2/purchase_orders/{id}/reopen",
      "post /v2/purchase_orders/{id}/send",
      "post /v2/purchase_orders/{id}/unarchive",
      "post /v2/stock_adjustments/{id}/apply",
      "post /v2/stock_adjustments/{id}/cancel",
      "post /v2/suppliers/{id}/archive",
      "post /v2/suppliers/{id}/unarchive",
    ]);
    for (const { op } of actions) {
      const schema = op.requestBody.content["application/json"].schema;
      assert.equal(schema.type, "object");
      assert.equal(schema.additionalProperties, false);
    }
    // As documented: the same draft is applied without a body, and a field is refused.
    const store = await t.createStore({ seed: "demo" });
    const location = (await store.api.get("/v2/locations")).body.data[0];
    const variant = (await store.api.get("/v2/variants?limit=1")).body.data[0];
    const draft = await store.api.post("/v2/stock_adjustments", {
      location_id: location.id,
      lines: [{ variant_id: variant.id, delta: 1 }],
    });
    assert.equal(draft.status, 201, JSON.stringify(draft.body));
    const withField = await store.api.post(
      `/v2/stock_adjustments/${draft.body.data.id}/apply`,
      { note: "x" },
      { "idempotency-key": "doc-apply-1" },
    );
    assert.equal(withField.status, 422);
    assert.deepEqual(withField.body.error.details, [
      { field: "note", code: "unknown_field", message: "is not a known field" },
    ]);
    const bare = await store.api.post(`/v2/stock_adjustments/${draft.body.data.id}/apply`, undefined, {
      "idempotency-key": "doc-apply-2",
    });
    assert.equal(bare.status, 200, JSON.stringify(bare.body));
    assert.equal(bare.body.data.status, "applied");
  });

  test("nullable money takes null, a number or a decimal string", () => {
    const supplier = operation("post", "/v2/suppliers").requestBody.content["application/json"].schema;
    assert.deepEqual(supplier.properties.min_order_value, {
      type: ["number", "string", "null"],
      description: "A decimal amount, as a JSON number or a decimal string, or null.",
      pattern: "^-?\\d+(\\.\\d+)?$",
    });
    // OpenAPI 3.1: no `nullable` keyword anywhere, null is a type.
    assert.equal(JSON.stringify(doc).includes('"nullable"'), false);
  });
});

describe("OpenAPI new lines", () => {
  test("create and add-lines document new lines: quantity required, no id; PATCH keeps both optional", () => {
    const lineOf = (method: string, path: string) =>
      operation(method, path).requestBody.content["application/json"].schema.properties.lines.items;
    for (const [method, path] of [
      ["post", "/v2/purchase_orders"],
      ["post", "/v2/purchase_orders/{id}/lines"],
    ]) {
      const line = lineOf(method, path);
      assert.deepEqual(line.required, ["quantity"], `${method} ${path}`);
      assert.equal(line.properties.id, undefined, `${method} ${path}`);
    }
    const patch = lineOf("patch", "/v2/purchase_orders/{id}");
    assert.equal(patch.required, undefined);
    assert.ok(patch.properties.id);
  });

  test("the server refuses a new line without quantity or with an id, on create and on add-lines", async () => {
    const store = await t.createStore({ seed: "demo" });
    const supplier = await store.api.post("/v2/suppliers", { name: "Lines Ltd" });
    const variant = (await store.api.get("/v2/variants?limit=1")).body.data[0];
    const refusals = async (url: string, extra: object = {}) => {
      const noQuantity = await store.api.post(url, { ...extra, lines: [{ variant_id: variant.id }] });
      const withId = await store.api.post(url, {
        ...extra,
        lines: [{ id: 1, variant_id: variant.id, quantity: 2 }],
      });
      return [noQuantity, withId].map((r) => [r.status, r.body.error.code, r.body.error.details]);
    };
    const expected = [
      [422, "validation_failed", [{ field: "lines.0.quantity", code: "required", message: "is required" }]],
      [
        422,
        "validation_failed",
        [{ field: "lines.0.id", code: "unknown_field", message: "is not a known field" }],
      ],
    ];
    assert.deepEqual(await refusals("/v2/purchase_orders", { supplier_id: supplier.body.data.id }), expected);
    const order = await store.api.post("/v2/purchase_orders", {
      supplier_id: supplier.body.data.id,
      lines: [{ variant_id: variant.id, quantity: 1 }],
    });
    assert.equal(order.status, 201);
    const placed = await store.api.post(`/v2/purchase_orders/${order.body.data.id}/mark_ordered`);
    assert.equal(placed.status, 200);
    assert.deepEqual(await refusals(`/v2/purchase_orders/${order.body.data.id}/lines`), expected);
    const added = await store.api.post(`/v2/purchase_orders/${order.body.data.id}/lines`, {
      lines: [{ variant_id: variant.id, quantity: 2 }],
    });
    assert.equal(added.status, 200);
    assert.deepEqual(
      added.body.data.lines.map((l: { quantity: number }) => l.quantity),
      [1, 2],
    );
  });
});

describe("OpenAPI closed lists", () => {
  test("error codes, scopes and event names are enums of the contract's lists", async () => {
    const error = operation("get", "/v2/whoami").responses["404"].content["application/json"].schema;
    assert.deepEqual(error.properties.error.properties.code.enum, [
      "bad_request",
      "idempotency_key_required",
      "invalid_cursor",
      "invalid_filter",
      "unauthorized",
      "feature_not_enabled",
      "insufficient_scope",
      "not_found",
      "idempotency_key_reused",
      "idempotency_in_progress",
      "validation_failed",
      "invalid_transition",
      "limit_reached",
      "webhook_not_active",
      "merge_network_blocked",
      "rate_limited",
      "internal_error",
    ]);
    const whoami = operation("get", "/v2/whoami").responses["200"].content["application/json"].schema;
    assert.deepEqual(whoami.properties.key.properties.scopes.items.enum, [
      "read",
      "write:purchase_orders",
      "write:suppliers",
      "write:inventory",
      "write:manufacturing",
      "webhooks",
    ]);
    const webhook = operation("get", "/v2/webhooks/{id}").responses["200"].content["application/json"].schema;
    const events = webhook.properties.data.properties.events.items.enum;
    assert.equal(events.length, 25);
    assert.ok(events.includes("purchase_order.receipt_recorded") && events.includes("*"));
    const delivery = operation("get", "/v2/webhooks/{id}/deliveries").responses["200"].content[
      "application/json"
    ].schema.properties.data.items;
    assert.ok(delivery.properties.event.enum.includes("webhook.test"));
    // The answers still carry them.
    const store = await t.createStore();
    const me = await store.api.get("/v2/whoami");
    assert.equal(me.status, 200);
    assert.ok(me.body.key.scopes.includes("webhooks"));
    const missing = await store.api.get("/v2/suppliers/999999");
    assert.equal(missing.body.error.code, "not_found");
  });
});

describe("OpenAPI patterns", () => {
  test("decimal strings and currency codes carry a pattern; the domain still answers its own codes", async () => {
    assert.equal(JSON.stringify(doc).includes("x-openapi"), false);
    const payment = operation("post", "/v2/purchase_orders/{id}/payments").requestBody.content[
      "application/json"
    ].schema;
    // On `type: ["number", "string"]` a pattern constrains the string form only.
    assert.equal(payment.properties.amount.pattern, "^-?\\d+(\\.\\d+)?$");
    assert.equal(payment.properties.currency.pattern, "^[A-Z]{3}$");
    const order = operation("post", "/v2/purchase_orders").requestBody.content["application/json"].schema;
    assert.equal(order.properties.currency.pattern, "^[A-Z]{3}$");
    const supplier = operation("post", "/v2/suppliers").requestBody.content["application/json"].schema;
    assert.equal(supplier.properties.currency.pattern, "^([A-Z]{3})?$");
    assert.equal(supplier.properties.min_order_value.pattern, "^-?\\d+(\\.\\d+)?$");
    const store = await t.createStore();
    const refused = await store.api.post("/v2/suppliers", { name: "Pattern Ltd", min_order_value: "12,50" });
    assert.equal(refused.status, 422);
    assert.deepEqual(
      refused.body.error.details.map((d: { field: string; code: string }) => [d.field, d.code]),
      [["min_order_value", "invalid_decimal"]],
    );
  });

  test("a receipt's exchange rate is exclusive of zero; a charge's currency has the code pattern", () => {
    const components = doc.components.schemas;
    const rate = components.ReceiptInput.properties.exchange_rate;
    assert.equal(rate.exclusiveMinimum, 0);
    assert.equal(rate.minimum, undefined);
    assert.equal(rate.maximum, 1e9);
    const charge = components.PurchaseOrderChargeInput.properties.currency;
    assert.deepEqual(charge.type, ["string", "null"]);
    assert.equal(charge.pattern, "^[A-Z]{3}$");
    const tier = components.SupplierCatalogItemInput.properties.tiers.items.properties.price;
    assert.equal(tier.pattern, "^-?\\d+(\\.\\d+)?$");
    assert.equal(components.PurchaseOrderInput.properties.exchange_rate.pattern, "^-?\\d+(\\.\\d+)?$");
  });

  test("source fields are the enum of the sources the service writes", () => {
    const components = doc.components.schemas;
    for (const [name, source] of [
      ["PurchaseOrderSummary", components.PurchaseOrderSummary.properties.source],
      ["PurchaseOrder", components.PurchaseOrder.properties.source],
      ["Receipt", components.Receipt.properties.source],
      ["StockAdjustment", components.StockAdjustment.properties.source],
      ["SupplierCatalogItem", components.SupplierCatalogItem.properties.source],
      ["SupplierPriceList", components.SupplierPriceList.properties.source],
    ])
      assert.deepEqual(source.enum, ["api"], name);
  });

  test("lists of documents with lines say what a page holds and when it ends early", () => {
    const list = operation("get", "/v2/purchase_orders").description;
    assert.match(list, /each order with its lines and charges, without receipts and payments/);
    assert.doesNotMatch(list, /no lines/);
    for (const path of ["/v2/purchase_orders", "/v2/stock_adjustments", "/v2/purchase_orders/{id}/receipts"])
      assert.match(operation("get", path).description, /ends before its rows' lines pass 5,000/, path);
    for (const [method, path] of [
      ["post", "/v2/purchase_orders"],
      ["patch", "/v2/purchase_orders/{id}"],
      ["post", "/v2/purchase_orders/{id}/lines"],
    ])
      assert.match(
        operation(method, path).description,
        /An order holds at most 500 lines: more is 422 `limit_reached` on `lines`\./,
        `${method} ${path}`,
      );
  });

  test("a webhook's events list the catalogue or *", () => {
    const body = operation("post", "/v2/webhooks").requestBody.content["application/json"].schema;
    assert.equal(body.properties.events.items.enum.length, 25);
    assert.ok(body.properties.events.items.enum.includes("*"));
    // The refusal itself (unknown_event) is tested in test/http/webhooks.test.ts.
  });

  test("history row types are the enum of the types the service writes", () => {
    const history = operation("get", "/v2/purchase_orders/{id}/history").responses["200"].content[
      "application/json"
    ].schema.properties.data.items;
    assert.equal(history.properties.type.enum.length, 21);
    assert.ok(history.properties.type.enum.includes("send_failed"));
  });
});
