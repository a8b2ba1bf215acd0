/**
 * The client an integrator generates with openapi-typescript from the live document, used the way they
 * would (openapi-fetch over the generated `paths`): a merchant's workflow that `npm run typecheck`
 * compiles under `tsc --strict` without a cast, run against the service with every answer checked
 * against the document by Ajv 8 strict (ResponseChecker). The committed generated file must equal a
 * fresh generation, so the types the workflow compiles against are the live document's.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, test } from "node:test";
import type { paths } from "../client/stockroom-api.generated.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { ResponseChecker } from "../helpers/openapi.ts";
import { GENERATED_TYPES_PATH, generateApiTypes, typedClient } from "../helpers/openapi-client.ts";

let t: TestApp;
let store: TestStore;
let document: object;
let checker: ResponseChecker;

before(async () => {
  t = await startTestApp();
  store = await t.createStore({ seed: "demo" });
  const res = await t.client().get("/v2/openapi.json");
  assert.equal(res.status, 200);
  document = res.body;
  checker = new ResponseChecker(res.body);
});
after(() => t.close());

/** The answer's data when it came with `status`; otherwise the test fails showing the error body. */
function expect<T>(result: { data?: T; error?: unknown; response: Response }, status = 200): T {
  assert.equal(result.response.status, status, JSON.stringify(result.error));
  assert.ok(result.data !== undefined, "a documented body");
  return result.data;
}

// The header as the generated types have it: a string, not `never` (this line is the type check).
const IDEMPOTENCY_HEADER: keyof NonNullable<
  paths["/v2/purchase_orders/{id}/receipts"]["post"]["parameters"]["header"]
> = "Idempotency-Key";

describe("the generated client", () => {
  test("the committed types are a fresh openapi-typescript generation of the live document", async () => {
    const committed = await readFile(GENERATED_TYPES_PATH, "utf8");
    const fresh = await generateApiTypes(document);
    assert.ok(
      committed === fresh,
      "test/client/stockroom-api.generated.ts is stale: run `npm run generate:api-types` and commit it",
    );
    assert.equal(IDEMPOTENCY_HEADER, "Idempotency-Key");
  });

  test("a merchant's workflow written against it runs, every answer as documented", async () => {
    const api = typedClient(t, checker, store.key);

    // The catalog, paged by cursor until the end.
    const first = expect(await api.GET("/v2/variants", { params: { query: { limit: 2 } } }));
    assert.equal(first.data.length, 2);
    assert.equal(first.has_more, true);
    const [variant, other] = first.data;
    const seen = new Set(first.data.map((v) => v.id));
    let cursor = first.next_cursor;
    while (cursor) {
      const page = expect(await api.GET("/v2/variants", { params: { query: { limit: 50, cursor } } }));
      for (const v of page.data) seen.add(v.id);
      cursor = page.has_more ? page.next_cursor : null;
    }
    assert.ok(seen.size > 2, "pages after the first were read");
    const locations = expect(await api.GET("/v2/locations"));
    const location = locations.data[0];

    // A supplier with a catalog of tiered prices.
    const supplier = expect(
      await api.POST("/v2/suppliers", {
        body: { name: "Typed Client Ltd", currency: "USD", email: "orders@typed.example" },
      }),
      201,
    ).data;
    assert.equal(supplier.name, "Typed Client Ltd");
    const catalog = expect(
      await api.PUT("/v2/suppliers/{id}/catalog", {
        params: { path: { id: supplier.id } },
        body: {
          rows: [
            {
              variant_id: variant.id,
              supplier_sku: "TYPED-1",
              tiers: [
                { min_qty: 1, price: "4.00" },
                { min_qty: 10, price: "3.50" },
              ],
            },
          ],
        },
      }),
    );
    assert.ok(catalog);

    // An order, placed (an action without a body), received with its Idempotency-Key, paid.
    const order = expect(
      await api.POST("/v2/purchase_orders", {
        body: {
          supplier_id: supplier.id,
          location_id: location.id,
          lines: [
            { variant_id: variant.id, quantity: 12 },
            { variant_id: other.id, quantity: 1, unit_cost: "2.00" },
          ],
        },
      }),
      201,
    ).data;
    assert.equal(order.status, "draft");
    const ordered = expect(
      await api.POST("/v2/purchase_orders/{id}/mark_ordered", { params: { path: { id: order.id } } }),
    ).data;
    assert.equal(ordered.status, "ordered");
    const line = ordered.lines.find((l) => l.variant_id === variant.id);
    assert.ok(line);
    const receiptKey = `typed-receipt-${order.id}`;
    const receiptCall = () =>
      api.POST("/v2/purchase_orders/{id}/receipts", {
        params: { path: { id: order.id }, header: { "Idempotency-Key": receiptKey } },
        body: { lines: [{ line_id: line.id, quantity: 5 }] },
      });
    const received = await receiptCall();
    const receipt = expect(received, 201).data;
    const replay = await receiptCall();
    assert.equal(expect(replay, 201).data.id, receipt.id);
    assert.equal(replay.response.headers.get("idempotent-replayed"), "true");
    const withoutKey = await api.POST("/v2/purchase_orders/{id}/receipts", {
      // @ts-expect-error the generated types require the key, as the service does (this proves both)
      params: { path: { id: order.id } },
      body: { lines: [{ line_id: line.id, quantity: 1 }] },
    });
    assert.equal(withoutKey.response.status, 400);
    assert.equal(withoutKey.error?.error.code, "idempotency_key_required");
    const payment = expect(
      await api.POST("/v2/purchase_orders/{id}/payments", {
        params: { path: { id: order.id } },
        body: { amount: "10.00", paid_on: "2030-01-02" },
      }),
      201,
    ).data;
    assert.equal(payment.amount, "10.00");
    const after = expect(await api.GET("/v2/purchase_orders/{id}", { params: { path: { id: order.id } } }));
    assert.equal(after.data.status, "partial");

    // A stock adjustment applied (no body, its Idempotency-Key).
    const adjustment = expect(
      await api.POST("/v2/stock_adjustments", {
        body: { location_id: location.id, lines: [{ variant_id: variant.id, delta: -1 }] },
      }),
      201,
    ).data;
    const applied = expect(
      await api.POST("/v2/stock_adjustments/{id}/apply", {
        params: {
          path: { id: adjustment.id },
          header: { "Idempotency-Key": `typed-apply-${adjustment.id}` },
        },
      }),
    ).data;
    assert.equal(applied.status, "applied");

    // Every answer went through the document's shapes.
    assert.ok(checker.seen.has("post /v2/purchase_orders/{id}/receipts 201"));
    assert.ok(checker.seen.has("post /v2/purchase_orders/{id}/receipts 400"));
    assert.ok(checker.seen.has("post /v2/stock_adjustments/{id}/apply 200"));
  });
});
