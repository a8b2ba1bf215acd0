/**
 * `GET /v2/purchase_orders/{id}` reads a small order in one statement (its parts as JSON arrays,
 * src/domain/purchase-orders/one-statement-read.ts, issue 22 item 2) and a big one the full way. Both
 * must answer what the full read answers, field by field: a PATCH without fields and the admin API's
 * GET present the order through the full read. The order here has every part: lines with a discount,
 * a tax rate, 8-decimal costs (one with more digits than a float keeps) and notes, a charge in another currency, a receipt with a lot and one
 * voided, a payment, and the platform_sync of the order and its receipts.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { type HttpResult, startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import {
  createOrderedOrder,
  createSupplier,
  idempotencyKey,
  listLocations,
  trackedVariants,
} from "../helpers/factories.ts";
import { countStatements } from "../helpers/statements.ts";

const line = (n: number, extra: Record<string, unknown> = {}) => ({
  product_title: `Part ${n}`,
  sku: `P-${n}`,
  quantity: 10,
  unit_cost: "2.50",
  ...extra,
});

describe("GET of one purchase order, small in one statement and big the full way", () => {
  let t: TestApp;
  let store: TestStore;
  let other: TestStore;
  let small: { id: number };
  let big: { id: number };

  /** The order as the full read presents it, twice over (PATCH without fields, the admin GET). */
  async function fullReads(id: number) {
    const patched = await store.api.patch(`/v2/purchase_orders/${id}`, {});
    expectStatus(patched, 200);
    const admin = await t.admin.get(`/admin/stores/${store.id}/purchase_orders/${id}`);
    expectStatus(admin, 200);
    return [patched.body.data, admin.body.data];
  }

  /**
   * GET's answer, which for a small order the database writes as text (order-json.ts), field by field
   * and byte for byte what the full read's presenter and the route's serializer give (a PATCH without
   * fields answers the order so).
   */
  async function expectAsFullRead(res: HttpResult, id: number) {
    const patched = await store.api.patch(`/v2/purchase_orders/${id}`, {});
    expectStatus(patched, 200);
    assert.equal(res.raw.body, patched.raw.body);
    for (const full of await fullReads(id)) assert.deepEqual(res.body.data, full);
  }

  before(async () => {
    t = await startTestApp();
    store = await t.createStore({ seed: "demo" });
    other = await t.createStore();
    await t.drain();
    const supplier = await createSupplier(store.api);
    expectStatus(
      await t.admin.put(`/admin/stores/${store.id}/tax_rates`, {
        rates: [{ name: "VAT", rate_percent: "20" }],
      }),
      200,
    );
    const [vat] = (await t.admin.get(`/admin/stores/${store.id}/tax_rates`)).body.data;
    expectStatus(
      await t.admin.put(`/admin/stores/${store.id}/exchange_rates`, {
        rates: [
          { currency: "EUR", rate_to_base: "1.08" },
          { currency: "KWD", rate_to_base: "3.25" },
          { currency: "JPY", rate_to_base: "0.0067" },
        ],
      }),
      200,
    );
    const [location] = await listLocations(store.api);
    const [first, second] = await trackedVariants(store.api);
    small = await createOrderedOrder(store.api, {
      supplier_id: supplier.id,
      tax_rate_id: vat.id,
      notes: "Deliver to the back door",
      expected_at: "2030-02-03",
      lines: [
        {
          variant_id: first.id,
          quantity: 10,
          unit_cost: "2.50",
          discount_percent: 12.5,
          supplier_note: "blue",
        },
        line(2, { unit_cost: "0.12345678", taxable: false }),
        { variant_id: second.id, quantity: 4, unit_cost: "7.00" },
        // More digits than a float keeps: read as a number it would come back rounded.
        line(4, { quantity: 1, unit_cost: "999999999.12345678" }),
      ],
      charges: [
        { label: "Freight", amount: "5.50", currency: "USD" },
        { label: "Duty", amount: "3.10", currency: "EUR" },
      ],
    });
    const order = (await store.api.get(`/v2/purchase_orders/${small.id}`)).body.data;
    const kept = await store.api.post(
      `/v2/purchase_orders/${small.id}/receipts`,
      {
        location_id: location.id,
        invoice_reference: "INV-1",
        invoice_total: "40.00",
        invoice_date: "2030-02-04",
        lines: [
          { line_id: order.lines[0].id, quantity: 3, lot_number: "L-7", lot_expiry: "2031-05-01" },
          { line_id: order.lines[2].id, quantity: 4 },
        ],
      },
      idempotencyKey("small-read"),
    );
    expectStatus(kept, 201);
    const voided = await store.api.post(
      `/v2/purchase_orders/${small.id}/receipts`,
      { lines: [{ line_id: order.lines[1].id, quantity: 1 }] },
      idempotencyKey("small-read"),
    );
    expectStatus(voided, 201);
    expectStatus(
      await store.api.post(
        `/v2/purchase_orders/${small.id}/receipts/${voided.body.data.id}/void`,
        {},
        idempotencyKey("small-read"),
      ),
      200,
    );
    expectStatus(await store.api.post(`/v2/purchase_orders/${small.id}/payments`, { amount: "12.34" }), 201);
    await t.drain();
    big = await createOrderedOrder(store.api, {
      supplier_id: supplier.id,
      lines: Array.from({ length: 51 }, (_, i) => line(i + 1)),
    });
  });
  after(() => t.close());

  test("a small order with every part answers as the full read presents it", async () => {
    const res = await store.api.get(`/v2/purchase_orders/${small.id}`);
    expectStatus(res, 200);
    const got = res.body.data;
    assert.equal(got.lines.length, 4);
    assert.equal(got.lines[3].unit_cost, "999999999.12345678");
    assert.equal(got.charges.length, 2);
    assert.equal(got.receipts.length, 2);
    assert.equal(got.payments.length, 1);
    assert.ok(got.receipts.some((r: { voided_at: string | null }) => r.voided_at !== null));
    await expectAsFullRead(res, small.id);
  });

  test("an order in a currency without minor units, with a charge in one of three, a shipping text and a failed push, answers as the full read presents it", async () => {
    const supplier = await createSupplier(store.api, { currency: "JPY" });
    const [location] = await listLocations(store.api);
    const [first] = await trackedVariants(store.api);
    const order = await createOrderedOrder(store.api, {
      supplier_id: supplier.id,
      currency: "JPY",
      // More digits than a float keeps: the rate is a number in the answer, the same double either way.
      exchange_rate: "0.006712345678",
      ship_to_override: 'Dock 4, "rear gate"\nUnit ünï \u0001',
      notes: 'tab\there, quote " and backslash \\',
      lines: [
        { variant_id: first.id, quantity: 3, unit_cost: "1250" },
        line(2, { quantity: 2, unit_cost: "99.5" }),
        // At no cost (a no_cost warning): its landed cost is a whole number, written with the store
        // currency's two places ("0.00"), not the order's none.
        line(3, { quantity: 1, unit_cost: "0" }),
      ],
      charges: [
        {
          label: "Duty",
          amount: "3.125",
          currency: "KWD",
          allocation_method: "custom",
          custom_split: [
            { position: 1, amount: "1" },
            { position: 2, amount: "2.125" },
          ],
        },
        { label: null, kind: "shipping", amount: "800", currency: "JPY", billed_by_supplier: false },
      ],
    });
    const lines = (await store.api.get(`/v2/purchase_orders/${order.id}`)).body.data.lines;
    const receipt = await store.api.post(
      `/v2/purchase_orders/${order.id}/receipts`,
      {
        location_id: location.id,
        lines: [
          { line_id: lines[0].id, quantity: 4 },
          { line_id: lines[2].id, quantity: 1 },
        ],
      },
      idempotencyKey("small-read-jpy"),
    );
    expectStatus(receipt, 201);
    expectStatus(await store.api.post(`/v2/purchase_orders/${order.id}/payments`, { amount: "1500" }), 201);
    await t.drain();
    // A push the platform refused, with an error text that needs escaping.
    await sql`update platform_sync_states set state = 'failed', error = ${'Refused: "SKU" ünknown\nline 2'}
      where store_id = ${store.id} and subject_type = 'receipt' and subject_id = ${receipt.body.data.id}`.execute(
      t.runtime.ctx.db,
    );

    const res = await store.api.get(`/v2/purchase_orders/${order.id}`);
    expectStatus(res, 200);
    const got = res.body.data;
    assert.equal(got.totals.currency, "JPY");
    assert.equal(got.exchange_rate.rate, 0.006712345678);
    assert.deepEqual(
      got.charges.map((c: { amount: string; currency: string }) => [c.amount, c.currency]),
      [
        ["3.125", "KWD"],
        ["800", "JPY"],
      ],
    );
    assert.deepEqual(got.charges[0].custom_split, [
      { position: 1, amount: "1.000" },
      { position: 2, amount: "2.125" },
    ]);
    assert.equal(got.ship_to_address.text, 'Dock 4, "rear gate"\nUnit ünï \u0001');
    assert.equal(got.receipts[0].platform_sync.state, "failed");
    assert.equal(got.receipts[0].platform_sync.error, 'Refused: "SKU" ünknown\nline 2');
    assert.equal(got.payments[0].amount, "1500");
    assert.equal(got.lines[2].warnings[0].code, "no_cost");
    assert.equal(got.receipts[0].lines[1].landed_unit_cost, "0.00");
    await expectAsFullRead(res, order.id);
  });

  test("an order without charges, receipts or payments is read without setting them up; one that gains some answers with them", async () => {
    const supplier = await createSupplier(store.api);
    const order = await createOrderedOrder(store.api, {
      supplier_id: supplier.id,
      lines: [line(1), line(2, { quantity: 3, unit_cost: "0.125" })],
    });
    const path = `/v2/purchase_orders/${order.id}`;
    /** GET and the statements that read the order (the key lookup's too on PostgreSQL: one statement). */
    const read = async () => {
      await t.runtime.ctx.requestLog.flush();
      const counted = await countStatements(() => store.api.get(path));
      expectStatus(counted.result, 200);
      return {
        res: counted.result,
        reads: counted.statements.filter((s) => s.includes("from purchase_orders po")),
      };
    };
    const lean = await read();
    assert.equal(lean.reads.length, 1);
    assert.ok(!lean.reads[0].includes("receipt_lines"), "the lean statement reads no receipt lines");
    assert.deepEqual(
      [lean.res.body.data.charges, lean.res.body.data.receipts, lean.res.body.data.payments],
      [[], [], []],
    );
    await expectAsFullRead(lean.res, order.id);

    expectStatus(await store.api.post(`${path}/payments`, { amount: "2.00" }), 201);
    const gained = await read();
    assert.equal(gained.reads.length, 2, "the lean statement finds a payment: the full one reads it");
    assert.equal(gained.res.body.data.payments[0].amount, "2.00");
    await expectAsFullRead(gained.res, order.id);
    // Noted with parts, its answer kept: the full answer's version at once, which reads every part.
    const noted = await read();
    assert.equal(noted.reads.length, 1);
    assert.ok(noted.reads[0].includes("receipt_lines"));
    assert.equal(noted.res.raw.body, gained.res.raw.body);
  });

  test("a 51-line order answers as the full read presents it", async () => {
    const res = await store.api.get(`/v2/purchase_orders/${big.id}`);
    expectStatus(res, 200);
    assert.equal(res.body.data.lines.length, 51);
    for (const full of await fullReads(big.id)) assert.deepEqual(res.body.data, full);
  });

  test("another store's order, or none, is 404 not_found", async () => {
    for (const res of [
      await other.api.get(`/v2/purchase_orders/${small.id}`),
      await other.api.get(`/v2/purchase_orders/${big.id}`),
      await store.api.get("/v2/purchase_orders/999999999"),
    ]) {
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, "not_found");
    }
  });
});
