import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { HttpResult, TestApp } from "../helpers/app.ts";
import { startTestApp } from "../helpers/app.ts";
import { changedTables, fingerprinter } from "../reliability/helpers/fingerprint.ts";
import { type Populated, populate } from "../reliability/helpers/fixture.ts";

const DATE_MESSAGE = "must be a date from 1900-01-01 to 9999-12-31";
const TIME_MESSAGE = "must be a time from 1900-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z";

describe("input bounds: dates outside 1900-9999 and deep bodies", () => {
  let t: TestApp;
  let fx: Populated;
  let fingerprint: () => Promise<Record<string, string>>;
  let keys = 0;
  const key = () => ({ "idempotency-key": `bounds-${process.pid}-${++keys}` });

  before(async () => {
    t = await startTestApp();
    fx = await populate(t, "BOUNDS");
    fingerprint = await fingerprinter(t.runtime.ctx.db);
  });
  after(() => t.close());

  /** The order with an open line (the fixture's placed order) and that line. */
  async function openLine(): Promise<{ order: number; line: number }> {
    const order = fx.ids.receipt[0].order;
    const full = (await fx.store.api.get(`/v2/purchase_orders/${order}`)).body.data;
    return { order, line: full.lines[2].id };
  }

  function assertOutOfRange(res: HttpResult, fields: string[], message: string) {
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.equal(res.body.error.code, "validation_failed");
    assert.deepEqual(
      res.body.error.details,
      fields.map((field) => ({ field, code: "out_of_range", message })),
    );
  }

  test("year 0000 and 1899 are refused on every date field with a detail on the field, and change nothing", async () => {
    const api = fx.store.api;
    const { order, line } = await openLine();
    const supplier = fx.ids.supplier[0];
    const before = await fingerprint();
    for (const date of ["0000-01-01", "1899-12-31", "0001-01-01"]) {
      assertOutOfRange(
        await api.post("/v2/purchase_orders", {
          supplier_id: supplier,
          expected_at: date,
          payment_due_on: date,
          lines: [{ variant_id: fx.ids.variant[0], quantity: 1, unit_cost: 1 }],
        }),
        ["expected_at", "payment_due_on"],
        DATE_MESSAGE,
      );
      assertOutOfRange(
        await api.patch(`/v2/purchase_orders/${fx.ids.purchase_order[0]}`, { expected_at: date }),
        ["expected_at"],
        DATE_MESSAGE,
      );
      assertOutOfRange(
        await api.post(`/v2/purchase_orders/${order}/payments`, { amount: 1, paid_on: date }),
        ["paid_on"],
        DATE_MESSAGE,
      );
      const receipt = {
        received_at: date,
        invoice_date: date,
        lines: [{ line_id: line, quantity: 1, lot_number: "L1", lot_expiry: date }],
      };
      const fields = ["lines.0.lot_expiry", "received_at", "invoice_date"];
      // The preview refuses exactly what the receipt refuses.
      const preview = await api.post(`/v2/purchase_orders/${order}/receipts/preview`, receipt);
      const recorded = await api.post(`/v2/purchase_orders/${order}/receipts`, receipt, key());
      assert.deepEqual(preview.body, recorded.body);
      assert.equal(preview.status, recorded.status);
      assert.deepEqual(
        [...recorded.body.error.details].sort((a: { field: string }, b: { field: string }) =>
          a.field.localeCompare(b.field),
        ),
        [...fields].sort().map((field) => ({ field, code: "out_of_range", message: DATE_MESSAGE })),
      );
      assertOutOfRange(
        await api.put(`/v2/suppliers/${supplier}/catalog`, {
          rows: [
            {
              inventory_item_id: fx.ids.inventory_item[0],
              supplier_sku: "X",
              effective_from: date,
              tiers: [{ min_qty: 1, price: 1 }],
            },
          ],
        }),
        ["rows.0.effective_from"],
        DATE_MESSAGE,
      );
    }
    assert.deepEqual(changedTables(before, await fingerprint()), []);
  });

  test("list filters outside the range are 422 on the filter; the bounds themselves are read", async () => {
    const api = fx.store.api;
    for (const [query, field] of [
      ["updated_at_min=0000-01-01T00:00:00Z", "updated_at_min"],
      ["created_at_max=1899-12-31T23:59:59.999Z", "created_at_max"],
      ["updated_at_max=9999-12-31T23:59:59-01:00", "updated_at_max"],
    ]) {
      for (const list of ["/v2/purchase_orders", "/v2/suppliers", "/v2/stock_adjustments", "/v2/variants"]) {
        assertOutOfRange(await api.get(`${list}?${query}`), [field], TIME_MESSAGE);
      }
    }
    const all = await api.get("/v2/suppliers?limit=250");
    const bounded = await api.get(
      "/v2/suppliers?limit=250&updated_at_min=1900-01-01T00:00:00Z&updated_at_max=9999-12-31T23:59:59.999Z",
    );
    assert.equal(bounded.status, 200);
    assert.deepEqual(bounded.body.data, all.body.data);
    const epoch = await api.get("/v2/suppliers?limit=250&created_at_min=1970-01-01T00:00:00Z");
    assert.deepEqual(epoch.body.data, all.body.data);
  });

  test("dates at the bounds are stored and read back as sent", async () => {
    const api = fx.store.api;
    const created = await api.post("/v2/purchase_orders", {
      supplier_id: fx.ids.supplier[0],
      expected_at: "1900-01-01",
      payment_due_on: "9999-12-31",
      lines: [{ variant_id: fx.ids.variant[0], quantity: 1, unit_cost: 1 }],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const read = (await api.get(`/v2/purchase_orders/${created.body.data.id}`)).body.data;
    assert.equal(read.expected_at, "1900-01-01");
    assert.equal(read.payment_due_on, "9999-12-31");
    const { order } = await openLine();
    const paid = await api.post(`/v2/purchase_orders/${order}/payments`, {
      amount: 1,
      paid_on: "9999-12-31",
    });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    assert.equal(paid.body.data.paid_on, "9999-12-31");
  });

  test("a 3,000-level nested body with an Idempotency-Key is refused without a 5xx, and the refusal is not stored under the key", async () => {
    // The body schema refuses it before the key is claimed (a refused request is not stored, as Stripe
    // does), so the same key is checked again and answers the same refusal, not a replay.
    // Hashing a deep body iteratively is covered by the canonical JSON's property test.
    const deep = `${'{"a":'.repeat(3000)}1${"}".repeat(3000)}`;
    const supplier = fx.ids.supplier[1];
    const headers = { ...key() };
    const before = await fingerprint();
    const first = await fx.store.api.post(`/v2/suppliers/${supplier}/archive`, deep, headers);
    assert.equal(first.status, 422, JSON.stringify(first.body).slice(0, 300));
    assert.deepEqual(first.body.error.details, [
      { field: "a", code: "unknown_field", message: "is not a known field" },
    ]);
    const again = await fx.store.api.post(`/v2/suppliers/${supplier}/archive`, deep, headers);
    assert.equal(again.status, 422);
    assert.equal(again.headers["idempotent-replayed"], undefined);
    assert.deepEqual(again.body.error.details, first.body.error.details);
    assert.deepEqual(changedTables(before, await fingerprint()), []);
  });

  test("a NUL or an unpaired surrogate anywhere in a body is 422 on its field, and changes nothing", async () => {
    const api = fx.store.api;
    const before = await fingerprint();
    const invalid = (field: string) => ({
      field,
      code: "invalid_characters",
      message: "must not contain NUL (\\u0000) characters or unpaired surrogates",
    });
    const order = await api.post(
      "/v2/purchase_orders",
      {
        supplier_id: fx.ids.supplier[0],
        lines: [
          { variant_id: fx.ids.variant[0], quantity: 1, unit_cost: 1 },
          { variant_id: fx.ids.variant[1], quantity: 1, unit_cost: 1, supplier_note: "a\u0000b" },
        ],
      },
      key(),
    );
    assert.equal(order.status, 422, JSON.stringify(order.body));
    assert.deepEqual(order.body.error.details, [invalid("lines.1.supplier_note")]);
    const supplier = await api.post("/v2/suppliers", { name: "\ud800" }, key());
    assert.equal(supplier.status, 422, JSON.stringify(supplier.body));
    assert.deepEqual(supplier.body.error.details, [invalid("name")]);
    assert.deepEqual(changedTables(before, await fingerprint()), []);
  });
});
