import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../src/clock.ts";
import { OVERDUE_TASK } from "../../src/domain/purchase-orders/overdue.ts";
import { ALL_SCOPES, type HttpResult, startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectDetails, expectInvalidTransition, expectStatus } from "../helpers/assertions.ts";
import {
  createDraftOrder,
  customLine,
  eventsOf as eventsOfSubject,
  platformLevel,
  type Variant,
} from "../helpers/factories.ts";

const START = "2030-03-10T12:00:00.000Z";
const TODAY = "2030-03-10";
const KEY_NAME = `key ${ALL_SCOPES.join(" ")}`;

let t: TestApp;
let clock: ManualClock;
let store: TestStore;
let other: TestStore;
let variants: Variant[];
let locations: { id: number; name: string }[];
let supplierId: number;
let otherSupplierId: number;

const create = (body: Record<string, unknown>, api = store.api) =>
  createDraftOrder(api, { supplier_id: supplierId, ...body });

const platformIncoming = async (itemId: number, locationId: number) =>
  (await platformLevel(t, store.id, itemId, locationId)).incoming;

async function forceReceived(orderId: number, lineId: number, received: number, status: string) {
  const db = t.runtime.ctx.db;
  await db
    .updateTable("purchase_order_lines")
    .set({ received_quantity: received })
    .where("id", "=", lineId)
    .execute();
  await db
    .updateTable("purchase_orders")
    .set({ status: status as "partial" })
    .where("id", "=", orderId)
    .execute();
}

async function historyOf(id: number, api = store.api) {
  const res = await api.get(`/v2/purchase_orders/${id}/history?limit=250`);
  expectStatus(res, 200);
  return res.body.data as {
    type: string;
    at: string;
    by: string;
    via: string | null;
    data: Record<string, unknown>;
  }[];
}

const eventsOf = (id: number) => eventsOfSubject(t, { type: "purchase_order", id });

before(async () => {
  clock = new ManualClock(START);
  t = await startTestApp({ clock });
  store = await t.createStore({ seed: "demo" });
  other = await t.createStore({ seed: "demo" });
  await t.drain();
  const v = await store.api.get("/v2/variants?limit=10");
  expectStatus(v, 200);
  variants = v.body.data;
  const l = await store.api.get("/v2/locations");
  locations = l.body.data.sort((a: { id: number }, b: { id: number }) => a.id - b.id);
  const s = await store.api.post("/v2/suppliers", { name: "Acme Supply", currency: "USD" });
  expectStatus(s, 201);
  supplierId = s.body.data.id;
  const os = await other.api.post("/v2/suppliers", { name: "Other Co", currency: "USD" });
  otherSupplierId = os.body.data.id;
  const catalog = await store.api.put(`/v2/suppliers/${supplierId}/catalog`, {
    rows: [
      {
        inventory_item_id: variants[0].inventory_item_id,
        supplier_sku: "ACME-TEE",
        pack_size: 6,
        pack_unit: "box",
        min_order_qty: 12,
        tiers: [
          { min_qty: 1, price: 5 },
          { min_qty: 10, price: 4.5 },
          { min_qty: 50, price: 4 },
        ],
      },
    ],
  });
  expectStatus(catalog, 200);
});
after(() => t.close());

describe("POST /v2/purchase_orders", () => {
  test("lines come from the catalog mirror, priced from supplier tiers, else the variant cost", async () => {
    const [v0, v1, v2] = variants;
    const order = await create({
      lines: [
        { variant_id: v0.id, quantity: 10 },
        { inventory_item_id: v0.inventory_item_id, quantity: 60 },
        { variant_id: v1.id, quantity: 3 },
        { product_title: "Sample board", sku: "SB-1", quantity: 2, unit_cost: "1.25", weight_grams: 40 },
        { variant_id: v2.id, quantity: 1, unit_cost: 9.99, discount_percent: 10, internal_note: "rush" },
      ],
    });
    assert.equal(order.status, "draft");
    assert.equal(order.number, "PO-0001");
    assert.equal(order.sequential_id, 1);
    assert.equal(order.currency, "USD");
    assert.deepEqual(order.supplier, { id: supplierId, name: "Acme Supply" });
    assert.deepEqual(order.location, { id: locations[0].id, name: locations[0].name });
    assert.deepEqual(order.exchange_rate, { rate: 1, base_currency: "USD", date: TODAY, source: "identity" });
    assert.deepEqual(order.platform_sync, { state: "synced", attempted_at: null, error: null });
    assert.deepEqual(order.tax, {
      rate_id: null,
      name: null,
      rate_percent: 0,
      taxes_included: false,
      charges_taxable: false,
    });
    assert.equal(order.payment_status, "unpaid");
    assert.deepEqual([order.receipts, order.payments, order.charges], [[], [], []]);
    assert.equal(order.created_at, START);
    const [l0, l1, l2, l3, l4] = order.lines;
    assert.deepEqual(l0, {
      id: l0.id,
      position: 1,
      product_title: v0.product_title,
      variant_title: v0.title,
      sku: v0.sku,
      supplier_sku: "ACME-TEE",
      barcode: v0.barcode,
      pack_code: null,
      inventory_item_id: v0.inventory_item_id,
      variant_id: v0.id,
      product_id: v0.product_id,
      location_id: null,
      quantity: 10,
      cancelled_quantity: 0,
      received_quantity: 0,
      outstanding_quantity: 10,
      unit_cost: "4.50",
      discount_percent: null,
      line_total: "45.00",
      taxable: true,
      tax_rate_percent: 0,
      weight_grams: v0.weight_grams,
      supplier_note: null,
      internal_note: null,
      tax_rate_id: null,
      tax_amount: "0.00",
      warnings: [
        {
          code: "below_min_order_qty",
          message: "The quantity is below the supplier's minimum order quantity of 12.",
          suggested_quantity: 12,
        },
        {
          code: "not_pack_multiple",
          message: "The quantity is not a multiple of the supplier's pack size of 6 (box).",
          suggested_quantity: 12,
        },
      ],
    });
    assert.equal(l1.unit_cost, "4.00");
    assert.equal(l1.variant_id, v0.id);
    assert.deepEqual(l1.warnings, []);
    assert.equal(l2.unit_cost, v1.unit_cost);
    assert.equal(l2.supplier_sku, null);
    assert.deepEqual(
      [
        l3.product_title,
        l3.sku,
        l3.variant_id,
        l3.inventory_item_id,
        l3.unit_cost,
        l3.line_total,
        l3.weight_grams,
      ],
      ["Sample board", "SB-1", null, null, "1.25", "2.50", 40],
    );
    assert.deepEqual(
      [l4.unit_cost, l4.discount_percent, l4.line_total, l4.internal_note],
      ["9.99", 10, "8.99", "rush"],
    );
    const subtotal = (45 * 100 + 240 * 100 + Math.round(Number(l2.line_total) * 100) + 250 + 899) / 100;
    assert.equal(order.totals.subtotal, subtotal.toFixed(2));

    const again = await store.api.get(`/v2/purchase_orders/${order.id}`);
    assert.deepEqual(again.body.data, order);
  });

  test("numbering: store prefix and counter, 4-digit padding, supplied numbers unique per store", async () => {
    const second = await create({ lines: [customLine()] });
    assert.equal(second.number, "PO-0002");
    assert.equal(second.sequential_id, 2);
    const supplied = await create({ number: "CUSTOM-7", lines: [customLine()] });
    assert.equal(supplied.number, "CUSTOM-7");
    assert.equal(supplied.sequential_id, 3);
    const taken = await store.api.post("/v2/purchase_orders", {
      supplier_id: supplierId,
      number: "CUSTOM-7",
      lines: [customLine()],
    });
    expectDetails(taken, [{ field: "number", code: "taken" }]);
    // The same number is free in another store.
    const elsewhere = await other.api.post("/v2/purchase_orders", {
      supplier_id: otherSupplierId,
      number: "CUSTOM-7",
      lines: [customLine()],
    });
    expectStatus(elsewhere, 201);
    // A number someone typed by hand is skipped by automatic numbering.
    await create({ number: "PO-0003", lines: [customLine()] });
    assert.equal((await create({ lines: [customLine()] })).number, "PO-0004");
    const patched = await t.admin.patch(`/admin/stores/${store.id}`, {
      numbering: { purchase_order_prefix: "AC-", next_purchase_order_number: 12345 },
    });
    expectStatus(patched, 200);
    assert.equal((await create({ lines: [customLine()] })).number, "AC-12345");
    await t.admin.patch(`/admin/stores/${store.id}`, {
      numbering: { purchase_order_prefix: "PO-", next_purchase_order_number: 100 },
    });
    assert.equal((await create({ lines: [customLine()] })).number, "PO-0100");
  });

  test("ids from another store or missing ones are 422 not_found on their field; nothing is written", async () => {
    const rates = await t.admin.put(`/admin/stores/${other.id}/tax_rates`, {
      rates: [{ name: "Other VAT", rate_percent: 19 }],
    });
    const otherRate = rates.body.data[0].id;
    const before = (await store.api.get("/v2/purchase_orders?archived=all&limit=250")).body.data.length;
    const res = await store.api.post("/v2/purchase_orders", {
      supplier_id: otherSupplierId,
      location_id: 999_999_999,
      tax_rate_id: otherRate,
      lines: [
        { inventory_item_id: 999_999_998, quantity: 1 },
        { variant_id: 999_999_997, quantity: 1 },
        { quantity: 2, unit_cost: 1 },
        { variant_id: variants[0].id, inventory_item_id: variants[1].inventory_item_id, quantity: 1 },
        { product_title: "x", quantity: 1, location_id: 999_999_996, tax_rate_id: otherRate },
      ],
    });
    expectDetails(res, [
      { field: "supplier_id", code: "not_found" },
      { field: "location_id", code: "not_found" },
      { field: "tax_rate_id", code: "not_found" },
      { field: "lines.0.inventory_item_id", code: "not_found" },
      { field: "lines.1.variant_id", code: "not_found" },
      { field: "lines.2.product_title", code: "required" },
      { field: "lines.3.inventory_item_id", code: "mismatch" },
      { field: "lines.4.location_id", code: "not_found" },
      { field: "lines.4.tax_rate_id", code: "not_found" },
    ]);
    const missing = await store.api.post("/v2/purchase_orders", { supplier_id: supplierId, lines: [] });
    expectStatus(missing, 422);
    const noSupplier = await store.api.post("/v2/purchase_orders", { lines: [customLine()] });
    expectDetails(noSupplier, [{ field: "supplier_id", code: "required" }]);
    const unknown = await store.api.post("/v2/purchase_orders", {
      supplier_id: supplierId,
      lines: [customLine()],
      colour: "red",
    });
    expectDetails(unknown, [{ field: "colour", code: "unknown_field" }]);
    const after = (await store.api.get("/v2/purchase_orders?archived=all&limit=250")).body.data.length;
    assert.equal(after, before);
  });

  test("an archived supplier is 422 archived; a store with no location to ship to is 422 required on location_id", async () => {
    const archived = await store.api.post("/v2/suppliers", { name: "Gone Ltd" });
    expectStatus(await store.api.post(`/v2/suppliers/${archived.body.data.id}/archive`), 200);
    const res = await store.api.post("/v2/purchase_orders", {
      supplier_id: archived.body.data.id,
      lines: [{ variant_id: variants[0].id, quantity: 1 }],
    });
    expectDetails(res, [{ field: "supplier_id", code: "archived" }]);
    // A store whose every location is hidden in its settings has nowhere to ship to.
    const bare = await t.createStore();
    for (const l of (await bare.api.get("/v2/locations")).body.data)
      expectStatus(await t.admin.patch(`/admin/stores/${bare.id}/locations/${l.id}`, { hidden: true }), 200);
    assert.deepEqual((await bare.api.get("/v2/locations")).body.data, []);
    const bareSupplier = await bare.api.post("/v2/suppliers", { name: "Bare Supply" });
    const nowhere = await bare.api.post("/v2/purchase_orders", {
      supplier_id: bareSupplier.body.data.id,
      lines: [customLine()],
    });
    expectDetails(nowhere, [{ field: "location_id", code: "required" }]);
  });

  test("the ship-to default is the store's first location it shows that is active, on create and on PATCH location_id null", async () => {
    const shop = await t.createStore({ seed: "demo" });
    const all = ((await t.admin.get(`/admin/stores/${shop.id}/locations`)).body.data as { id: number }[])
      .map((l) => l.id)
      .sort((x, y) => x - y);
    assert.equal(all.length, 3);
    const [first, second, third] = all;
    // Every one shown; the second no longer active on the platform.
    expectStatus(await t.admin.patch(`/admin/stores/${shop.id}/locations/${third}`, { hidden: false }), 200);
    await t.runtime.ctx.db
      .updateTable("locations")
      .set({ active: false })
      .where("store_id", "=", shop.id)
      .where("id", "=", second)
      .execute();
    const supplier = await shop.api.post("/v2/suppliers", { name: "Default Ship-To Supply" });
    const order = () =>
      shop.api.post("/v2/purchase_orders", { supplier_id: supplier.body.data.id, lines: [customLine()] });
    const created = await order();
    expectStatus(created, 201);
    assert.equal(created.body.data.location.id, first);

    // The first hidden in the store's settings: the next shown and active is the third.
    expectStatus(await t.admin.patch(`/admin/stores/${shop.id}/locations/${first}`, { hidden: true }), 200);
    const back = await shop.api.patch(`/v2/purchase_orders/${created.body.data.id}`, { location_id: null });
    expectStatus(back, 200);
    assert.equal(back.body.data.location.id, third);
    const later = await order();
    expectStatus(later, 201);
    assert.equal(later.body.data.location.id, third);
  });

  test("currency from the supplier, exchange_rate from store rates or manual; charges need a rate", async () => {
    const eur = await store.api.post("/v2/suppliers", { name: "Euro GmbH", currency: "EUR" });
    const none = await store.api.post("/v2/suppliers", { name: "No Currency Ltd" });
    const noRate = await store.api.post("/v2/purchase_orders", {
      supplier_id: eur.body.data.id,
      lines: [customLine()],
    });
    expectDetails(noRate, [{ field: "currency", code: "no_exchange_rate" }]);
    const manual = await create({ supplier_id: eur.body.data.id, exchange_rate: 1.2, lines: [customLine()] });
    assert.equal(manual.currency, "EUR");
    assert.deepEqual(manual.exchange_rate, {
      rate: 1.2,
      base_currency: "USD",
      date: TODAY,
      source: "manual",
    });
    const put = await t.admin.put(`/admin/stores/${store.id}/exchange_rates`, {
      rates: [
        { currency: "EUR", rate_to_base: "1.10", date: "2030-03-01" },
        { currency: "GBP", rate_to_base: 1.25 },
      ],
    });
    expectStatus(put, 200);
    assert.deepEqual(put.body.data, [
      { currency: "EUR", rate_to_base: 1.1, date: "2030-03-01" },
      { currency: "GBP", rate_to_base: 1.25, date: TODAY },
    ]);
    const stored = await create({ supplier_id: eur.body.data.id, lines: [customLine(2, "10.00")] });
    assert.deepEqual(stored.exchange_rate, {
      rate: 1.1,
      base_currency: "USD",
      date: "2030-03-01",
      source: "store_rates",
    });
    const plain = await create({ supplier_id: none.body.data.id, lines: [customLine()] });
    assert.equal(plain.currency, "USD");
    const given = await create({ currency: "GBP", lines: [customLine()] });
    assert.equal(given.currency, "GBP");
    assert.equal(given.exchange_rate.source, "store_rates");
    const badCharge = await store.api.post("/v2/purchase_orders", {
      supplier_id: supplierId,
      lines: [customLine()],
      charges: [
        { amount: 5, currency: "CHF" },
        { amount: "1.234", currency: "USD" },
      ],
    });
    expectDetails(badCharge, [
      { field: "charges.0.currency", code: "no_exchange_rate" },
      { field: "charges.1.amount", code: "too_many_decimals" },
    ]);
  });

  describe("totals: discount, two tax rates, taxes excluded then included, a foreign-currency charge", () => {
    let vat: { id: number };
    let reduced: { id: number };
    /** Three lines (a discount, the reduced rate, an untaxed one) and two charges, one in EUR. */
    const taxedOrder = () =>
      create({
        tax_rate_id: vat.id,
        charges_taxable: true,
        lines: [
          { product_title: "A", quantity: 3, unit_cost: 19.99, discount_percent: 10 },
          { product_title: "B", quantity: 2, unit_cost: "5.005", tax_rate_id: reduced.id },
          { product_title: "C", quantity: 1, unit_cost: 7.5, taxable: false },
        ],
        charges: [
          { kind: "shipping", label: "Freight", amount: 10 },
          {
            kind: "other",
            label: "Handling",
            amount: "5.00",
            currency: "EUR",
            allocation_method: "quantity",
          },
        ],
      });

    before(async () => {
      const taxes = await t.admin.put(`/admin/stores/${store.id}/tax_rates`, {
        rates: [
          { name: "VAT 20", rate_percent: 20 },
          { name: "Reduced 5", rate_percent: "5" },
        ],
      });
      expectStatus(taxes, 200);
      [vat, reduced] = taxes.body.data;
      assert.deepEqual(taxes.body.data, [
        { id: vat.id, name: "VAT 20", rate_percent: 20 },
        { id: reduced.id, name: "Reduced 5", rate_percent: 5 },
      ]);
    });

    test("taxes excluded: per line and per charge, at the line's rate or the order's", async () => {
      const order = await taxedOrder();
      assert.deepEqual(
        order.lines.map((l: Record<string, unknown>) => [l.line_total, l.tax_amount, l.tax_rate_percent]),
        [
          ["53.97", "10.79", 20],
          ["10.01", "0.50", 5],
          ["7.50", "0.00", 0],
        ],
      );
      assert.deepEqual(order.charges, [
        {
          id: order.charges[0].id,
          kind: "shipping",
          label: "Freight",
          amount: "10.00",
          currency: "USD",
          amount_in_order_currency: "10.00",
          tax_amount: "2.00",
          billed_by_supplier: true,
          allocation_method: "value",
          position: 1,
          custom_split: null,
        },
        {
          id: order.charges[1].id,
          kind: "other",
          label: "Handling",
          amount: "5.00",
          currency: "EUR",
          amount_in_order_currency: "5.50",
          tax_amount: "1.10",
          billed_by_supplier: true,
          allocation_method: "quantity",
          position: 2,
          custom_split: null,
        },
      ]);
      assert.deepEqual(order.tax, {
        rate_id: vat.id,
        name: "VAT 20",
        rate_percent: 20,
        taxes_included: false,
        charges_taxable: true,
      });
      assert.deepEqual(order.totals, {
        currency: "USD",
        subtotal: "71.48",
        charges: "15.50",
        tax: "14.39",
        total: "101.37",
      });
    });

    test("taxes included: the same amounts hold their tax", async () => {
      const order = await taxedOrder();
      const included = await store.api.patch(`/v2/purchase_orders/${order.id}`, { taxes_included: true });
      expectStatus(included, 200);
      assert.deepEqual(
        included.body.data.lines.map((l: Record<string, unknown>) => l.tax_amount),
        ["9.00", "0.48", "0.00"],
      );
      assert.deepEqual(
        included.body.data.charges.map((c: Record<string, unknown>) => c.tax_amount),
        ["1.67", "0.92"],
      );
      assert.deepEqual(included.body.data.totals, {
        currency: "USD",
        subtotal: "71.48",
        charges: "15.50",
        tax: "12.07",
        total: "86.98",
      });
    });

    test("a custom split must sum to the charge and name real lines", async () => {
      const order = await taxedOrder();
      const split = await store.api.patch(`/v2/purchase_orders/${order.id}`, {
        charges: [
          {
            amount: 10,
            allocation_method: "custom",
            custom_split: [
              { position: 1, amount: 4 },
              { position: 9, amount: 6 },
            ],
          },
        ],
      });
      expectDetails(split, [{ field: "charges.0.custom_split.1.position", code: "not_found" }]);
      const ok = await store.api.patch(`/v2/purchase_orders/${order.id}`, {
        charges: [
          {
            amount: 10,
            allocation_method: "custom",
            custom_split: [
              { position: 1, amount: 4 },
              { position: 3, amount: "6" },
            ],
          },
        ],
      });
      expectStatus(ok, 200);
      assert.deepEqual(ok.body.data.charges[0].custom_split, [
        { position: 1, amount: "4.00" },
        { position: 3, amount: "6.00" },
      ]);
    });
  });

  describe("JPY: no minor units anywhere, a USD charge converted through the store's rates", () => {
    let jp: TestStore;
    let jpSupplierId: number;
    let order: any;
    before(async () => {
      jp = await t.createStore({ seed: "demo", currency: "JPY", timezone: "Asia/Tokyo" });
      await t.drain();
      const sup = await jp.api.post("/v2/suppliers", { name: "Tokyo Trading", currency: "JPY" });
      expectStatus(sup, 201);
      jpSupplierId = sup.body.data.id;
      const taxes = await t.admin.put(`/admin/stores/${jp.id}/tax_rates`, {
        rates: [{ name: "JCT", rate_percent: 10 }],
      });
      await t.admin.put(`/admin/stores/${jp.id}/exchange_rates`, {
        rates: [{ currency: "USD", rate_to_base: "150.25" }],
      });
      const res = await jp.api.post("/v2/purchase_orders", {
        supplier_id: jpSupplierId,
        tax_rate_id: taxes.body.data[0].id,
        lines: [{ product_title: "Tea", quantity: 3, unit_cost: 333.5, discount_percent: 5 }],
        charges: [
          { amount: 1234, label: "Freight" },
          { amount: 10.99, currency: "USD", label: "Docs" },
        ],
      });
      expectStatus(res, 201);
      order = res.body.data;
    });

    test("the order is in the store's currency at the identity rate", () => {
      assert.equal(order.currency, "JPY");
      assert.deepEqual(order.exchange_rate, {
        rate: 1,
        base_currency: "JPY",
        date: "2030-03-10",
        source: "identity",
      });
    });

    test("line total and tax are whole yen; the unit cost keeps its decimals", () => {
      assert.deepEqual(
        [order.lines[0].unit_cost, order.lines[0].line_total, order.lines[0].tax_amount],
        ["333.5", "950", "95"],
      );
    });

    test("the USD charge is converted to whole yen at the store's rate", () => {
      assert.deepEqual(
        order.charges.map((c: Record<string, unknown>) => [
          c.amount,
          c.currency,
          c.amount_in_order_currency,
          c.tax_amount,
        ]),
        [
          ["1234", "JPY", "1234", "0"],
          ["10.99", "USD", "1651", "0"],
        ],
      );
    });

    test("the totals are whole yen", () => {
      assert.deepEqual(order.totals, {
        currency: "JPY",
        subtotal: "950",
        charges: "2885",
        tax: "95",
        total: "3930",
      });
    });

    test("a yen charge with a fraction is 422 too_many_decimals", async () => {
      const fraction = await jp.api.post("/v2/purchase_orders", {
        supplier_id: jpSupplierId,
        lines: [customLine()],
        charges: [{ amount: 1.5 }],
      });
      expectDetails(fraction, [{ field: "charges.0.amount", code: "too_many_decimals" }]);
    });
  });
});

describe("lifecycle", () => {
  type State = "draft" | "ordered" | "in_transit" | "partial" | "received" | "closed";
  const STATES: State[] = ["draft", "ordered", "in_transit", "partial", "received", "closed"];

  async function orderIn(state: State) {
    const order = await create({ lines: [{ variant_id: variants[3].id, quantity: 4 }, customLine(2, 3)] });
    const id = order.id as number;
    const lines = order.lines.map((l: { id: number }) => l.id);
    if (state === "draft") return { id, lines };
    expectStatus(await store.api.post(`/v2/purchase_orders/${id}/mark_ordered`, {}), 200);
    if (state === "in_transit")
      expectStatus(await store.api.post(`/v2/purchase_orders/${id}/mark_in_transit`), 200);
    if (state === "partial") await forceReceived(id, lines[0], 1, "partial");
    if (state === "received") {
      await forceReceived(id, lines[0], 4, "partial");
      await forceReceived(id, lines[1], 2, "received");
    }
    if (state === "closed") expectStatus(await store.api.post(`/v2/purchase_orders/${id}/close`, {}), 200);
    return { id, lines };
  }

  const CALLS: Record<
    string,
    {
      allowed: State[];
      run: (o: { id: number; lines: number[] }) => Promise<HttpResult>;
      to?: (from: State) => string;
    }
  > = {
    mark_ordered: {
      allowed: ["draft"],
      run: (o) => store.api.post(`/v2/purchase_orders/${o.id}/mark_ordered`, {}),
      to: () => "ordered",
    },
    mark_in_transit: {
      allowed: ["ordered", "partial"],
      run: (o) =>
        store.api.post(`/v2/purchase_orders/${o.id}/mark_in_transit`, { expected_at: "2030-04-01" }),
      to: () => "in_transit",
    },
    close: {
      allowed: ["ordered", "in_transit", "partial", "received"],
      run: (o) => store.api.post(`/v2/purchase_orders/${o.id}/close`, {}),
      to: () => "closed",
    },
    reopen: {
      allowed: ["closed"],
      run: (o) => store.api.post(`/v2/purchase_orders/${o.id}/reopen`, {}),
      to: () => "ordered",
    },
    lines: {
      allowed: ["ordered", "in_transit", "partial"],
      run: (o) => store.api.post(`/v2/purchase_orders/${o.id}/lines`, { lines: [customLine(1, 1)] }),
      to: (from) => from,
    },
    cancel_remaining: {
      allowed: ["ordered", "in_transit", "partial"],
      run: (o) => store.api.post(`/v2/purchase_orders/${o.id}/lines/${o.lines[1]}/cancel_remaining`),
      to: (from) => from,
    },
    delete: {
      allowed: ["draft"],
      run: (o) => store.api.delete(`/v2/purchase_orders/${o.id}`),
    },
  };

  for (const [name, call] of Object.entries(CALLS)) {
    for (const state of STATES) {
      const allowed = call.allowed.includes(state);
      test(`${name} on a ${state} order is ${allowed ? "allowed" : "refused, changing nothing"}`, async () => {
        const order = await orderIn(state);
        const before = await store.api.get(`/v2/purchase_orders/${order.id}`);
        const historyBefore = await historyOf(order.id);
        const eventsBefore = await eventsOf(order.id);
        const movementsBefore = await t.runtime.ctx.db
          .selectFrom("stock_movements")
          .select("id")
          .where("subject_type", "=", "purchase_order")
          .where("subject_id", "=", order.id)
          .execute();
        clock.advance(1000);
        const res = await call.run(order);
        if (!allowed) {
          expectInvalidTransition(res, state);
          const afterRes = await store.api.get(`/v2/purchase_orders/${order.id}`);
          assert.deepEqual(afterRes.body, before.body);
          assert.equal((await historyOf(order.id)).length, historyBefore.length);
          assert.equal((await eventsOf(order.id)).length, eventsBefore.length);
          const movementsAfter = await t.runtime.ctx.db
            .selectFrom("stock_movements")
            .select("id")
            .where("subject_type", "=", "purchase_order")
            .where("subject_id", "=", order.id)
            .execute();
          assert.equal(movementsAfter.length, movementsBefore.length);
          return;
        }
        if (name === "delete") {
          expectStatus(res, 204);
          assert.equal(res.raw.body, "");
          expectStatus(await store.api.get(`/v2/purchase_orders/${order.id}`), 404);
          const events = await eventsOf(order.id);
          assert.equal(events.at(-1)?.name, "purchase_order.deleted");
          assert.deepEqual(events.at(-1)?.data, before.body.data);
          return;
        }
        expectStatus(res, 200);
        assert.equal(res.body.data.status, call.to?.(state));
        assert.equal(res.body.data.updated_at, clock.now().toISOString());
      });
    }
  }

  test("reopen derives the status from the lines: ordered, partial or received", async () => {
    const a = await orderIn("closed");
    const reopenedA = await store.api.post(`/v2/purchase_orders/${a.id}/reopen`, {});
    assert.equal(reopenedA.body.data.status, "ordered");
    assert.equal(reopenedA.body.data.closed_at, null);
    const b = await orderIn("partial");
    expectStatus(await store.api.post(`/v2/purchase_orders/${b.id}/close`), 200);
    assert.equal((await store.api.post(`/v2/purchase_orders/${b.id}/reopen`)).body.data.status, "partial");
    const c = await orderIn("received");
    expectStatus(await store.api.post(`/v2/purchase_orders/${c.id}/close`), 200);
    assert.equal((await store.api.post(`/v2/purchase_orders/${c.id}/reopen`)).body.data.status, "received");
  });

  test("cancel_remaining that leaves nothing outstanding after a receipt makes the order received", async () => {
    const o = await orderIn("partial");
    // line 0 has 1 of 4 received; cancel its rest, then cancel line 1 (nothing received on it).
    const first = await store.api.post(`/v2/purchase_orders/${o.id}/lines/${o.lines[0]}/cancel_remaining`);
    expectStatus(first, 200);
    assert.equal(first.body.data.status, "partial");
    assert.deepEqual(
      [first.body.data.lines[0].cancelled_quantity, first.body.data.lines[0].outstanding_quantity],
      [3, 0],
    );
    const again = await store.api.post(`/v2/purchase_orders/${o.id}/lines/${o.lines[0]}/cancel_remaining`);
    expectInvalidTransition(again, "partial", "nothing outstanding");
    const second = await store.api.post(`/v2/purchase_orders/${o.id}/lines/${o.lines[1]}/cancel_remaining`);
    expectStatus(second, 200);
    assert.equal(second.body.data.status, "received");
    assert.equal(second.body.data.received_at, clock.now().toISOString());
    const missing = await store.api.post(`/v2/purchase_orders/${o.id}/lines/999999/cancel_remaining`);
    expectStatus(missing, 404);
  });

  test("archive (with close), unarchive, list visibility", async () => {
    const o = await orderIn("ordered");
    const archived = await store.api.post(`/v2/purchase_orders/${o.id}/archive`, { close: true });
    expectStatus(archived, 200);
    assert.equal(archived.body.data.status, "closed");
    assert.equal(archived.body.data.archived, true);
    assert.equal(archived.body.data.archived_at, clock.now().toISOString());
    const twice = await store.api.post(`/v2/purchase_orders/${o.id}/archive`, {});
    expectInvalidTransition(twice, "closed", "already archived");
    const listed = await store.api.get(`/v2/purchase_orders?status=closed&limit=250`);
    assert.ok(!listed.body.data.some((r: { id: number }) => r.id === o.id));
    const onlyArchived = await store.api.get(`/v2/purchase_orders?archived=true&limit=250`);
    assert.ok(onlyArchived.body.data.some((r: { id: number }) => r.id === o.id));
    const un = await store.api.post(`/v2/purchase_orders/${o.id}/unarchive`);
    expectStatus(un, 200);
    assert.deepEqual(
      [un.body.data.archived, un.body.data.archived_at, un.body.data.status],
      [false, null, "closed"],
    );
    expectInvalidTransition(
      await store.api.post(`/v2/purchase_orders/${o.id}/unarchive`),
      "closed",
      "not archived",
    );
    const draft = await orderIn("draft");
    const keep = await store.api.post(`/v2/purchase_orders/${draft.id}/archive`, { close: true });
    assert.deepEqual([keep.body.data.status, keep.body.data.archived], ["draft", true]);
    const types = (await eventsOf(o.id)).map((e) => e.name);
    assert.deepEqual(types, [
      "purchase_order.created",
      "purchase_order.ordered",
      "purchase_order.closed",
      "purchase_order.archived",
      "purchase_order.updated",
    ]);
    assert.deepEqual(
      (await historyOf(o.id)).map((h) => [h.type, h.data]),
      [
        ["unarchived", {}],
        ["archived", { closed: true }],
        ["closed", { from: "ordered", retracted_quantity: 4 }],
        [
          "ordered",
          { ordered_at: (await store.api.get(`/v2/purchase_orders/${o.id}`)).body.data.ordered_at },
        ],
        ["created", { number: archived.body.data.number, status: "draft" }],
      ],
    );
  });

  test("duplicate makes a new draft with the same lines and charges", async () => {
    const o = await orderIn("partial");
    const source = (await store.api.get(`/v2/purchase_orders/${o.id}`)).body.data;
    const res = await store.api.post(`/v2/purchase_orders/${o.id}/duplicate`);
    expectStatus(res, 201);
    const copy = res.body.data;
    assert.notEqual(copy.id, o.id);
    assert.equal(copy.status, "draft");
    assert.notEqual(copy.number, source.number);
    const strip = (l: Record<string, unknown>) => {
      const { id: _i, received_quantity: _r, cancelled_quantity: _c, outstanding_quantity: _o, ...rest } = l;
      return rest;
    };
    assert.deepEqual(copy.lines.map(strip), source.lines.map(strip));
    assert.ok(copy.lines.every((l: { received_quantity: number }) => l.received_quantity === 0));
    assert.deepEqual(copy.totals, source.totals);
    const h = await historyOf(o.id);
    assert.deepEqual(h[0].data, { new_order_id: copy.id, new_number: copy.number });
    assert.equal(h[0].type, "duplicated");
    const ch = await historyOf(copy.id);
    assert.deepEqual(
      ch.map((r) => r.type),
      ["created"],
    );
    assert.deepEqual(ch[0].data, {
      number: copy.number,
      status: "draft",
      duplicated_from: { id: o.id, number: source.number },
    });
  });
});

describe("PATCH /v2/purchase_orders/{id}", () => {
  describe("a draft takes every field; lines replace the set and `id` keeps a line", () => {
    let order: any;
    let gbpSupplierId: number;
    let d: any;
    before(async () => {
      order = await create({
        lines: [{ variant_id: variants[0].id, quantity: 12 }, customLine(1, 2), customLine(5, 1)],
        charges: [{ amount: 10, label: "Freight" }],
      });
      const [keep, , edit] = order.lines;
      const gbp = await store.api.post("/v2/suppliers", { name: "Second Supplier", currency: "GBP" });
      expectStatus(gbp, 201);
      gbpSupplierId = gbp.body.data.id;
      clock.advance(5000);
      const res = await store.api.patch(`/v2/purchase_orders/${order.id}`, {
        supplier_id: gbpSupplierId,
        currency: "GBP",
        location_id: locations[1].id,
        notes: "Call first",
        expected_at: "2030-04-01",
        type: "return",
        lines: [
          { id: keep.id },
          { id: edit.id, quantity: 7, unit_cost: 2 },
          { variant_id: variants[1].id, quantity: 1, unit_cost: 3 },
        ],
      });
      expectStatus(res, 200);
      d = res.body.data;
    });

    test("the order's fields take the new values", () => {
      assert.deepEqual(
        [d.supplier_id, d.currency, d.location.id, d.notes, d.expected_at, d.type],
        [gbpSupplierId, "GBP", locations[1].id, "Call first", "2030-04-01", "return"],
      );
    });

    test("lines named by id are kept (edited where asked), unnamed ones go, new ones are added", () => {
      const [keep, drop, edit] = order.lines;
      assert.deepEqual(
        d.lines.map((l: Record<string, unknown>) => [
          l.id === keep.id,
          l.id === edit.id,
          l.position,
          l.quantity,
          l.unit_cost,
        ]),
        [
          [true, false, 1, 12, "4.50"],
          [false, true, 2, 7, "2.00"],
          [false, false, 3, 1, "3.00"],
        ],
      );
      assert.ok(!d.lines.some((l: { id: number }) => l.id === drop.id));
      assert.equal(d.totals.subtotal, "71.00");
    });

    test("the USD charge stays in USD, converted to the new order currency (1 GBP = 1.25 USD)", () => {
      assert.deepEqual(
        [d.charges[0].amount, d.charges[0].currency, d.charges[0].amount_in_order_currency, d.totals.total],
        ["10.00", "USD", "8.00", "79.00"],
      );
    });

    test("history records every change and which lines were added, removed and updated", async () => {
      const [, drop, edit] = order.lines;
      const h = await historyOf(order.id);
      assert.equal(h[0].type, "updated");
      assert.deepEqual(h[0].data.changes, {
        supplier_id: [supplierId, gbpSupplierId],
        currency: ["USD", "GBP"],
        type: ["purchase", "return"],
        location_id: [locations[0].id, locations[1].id],
        notes: [null, "Call first"],
        expected_at: [null, "2030-04-01"],
        exchange_rate: [1, 1.25],
        total: ["71.00", "79.00"],
      });
      assert.deepEqual(h[0].data.lines, { added: [d.lines[2].id], removed: [drop.id], updated: [edit.id] });
    });

    test("history lists the changes shortest field name first, then by name, whatever order the diff compares them in", async () => {
      // The history row's data is jsonb, which keeps its keys in that order: what a client reads.
      const h = await historyOf(order.id);
      assert.deepEqual(Object.keys(h[0].data.changes as Record<string, unknown>), [
        "type",
        "notes",
        "total",
        "currency",
        "expected_at",
        "location_id",
        "supplier_id",
        "exchange_rate",
      ]);
    });

    test("a line id the order does not have is 422 not_found on its field", async () => {
      const unknownLine = await store.api.patch(`/v2/purchase_orders/${order.id}`, {
        lines: [{ id: 999999, quantity: 1 }],
      });
      expectDetails(unknownLine, [{ field: "lines.0.id", code: "not_found" }]);
    });

    test("a PATCH that changes nothing writes nothing", async () => {
      const events = (await eventsOf(order.id)).length;
      const same = await store.api.patch(`/v2/purchase_orders/${order.id}`, { notes: "Call first" });
      expectStatus(same, 200);
      assert.equal((await eventsOf(order.id)).length, events);
    });
  });

  test("header fields alone (ships_to_customer, reference, bill_to_override) change only themselves", async () => {
    const order = await create({
      lines: [{ variant_id: variants[0].id, quantity: 12 }, customLine(3, 1)],
      charges: [{ amount: 10, label: "Freight" }],
    });
    clock.advance(1000);
    const res = await store.api.patch(`/v2/purchase_orders/${order.id}`, {
      ships_to_customer: true,
      reference: "H-1",
      bill_to_override: "Bill here",
    });
    expectStatus(res, 200);
    const pick = ({ ships_to_customer, reference, bill_to_override, updated_at, ...rest }: any) => ({
      header: [ships_to_customer, reference, bill_to_override, updated_at],
      rest,
    });
    const [was, now] = [pick(order), pick(res.body.data)];
    assert.deepEqual(now.header, [true, "H-1", "Bill here", clock.now().toISOString()]);
    assert.deepEqual(now.rest, was.rest, "lines, charges and totals as they were");
    const h = await historyOf(order.id);
    assert.deepEqual(h[0].data, {
      changes: {
        reference: [null, "H-1"],
        bill_to_override: [null, "Bill here"],
        ships_to_customer: [false, true],
      },
    });
    const events = await eventsOf(order.id);
    assert.deepEqual([events.at(-1)?.name, events.at(-1)?.data], ["purchase_order.updated", res.body.data]);
  });

  describe("open orders: notes, references, dates, charges and unreceived lines only", () => {
    const orderedOrder = async () => {
      const order = await create({ lines: [{ variant_id: variants[0].id, quantity: 12 }, customLine(3, 1)] });
      expectStatus(await store.api.post(`/v2/purchase_orders/${order.id}/mark_ordered`), 200);
      return order;
    };

    test("fields fixed once ordered are refused by name, changing nothing", async () => {
      const order = await orderedOrder();
      for (const [field, value] of [
        ["supplier_id", supplierId],
        ["currency", "USD"],
        ["type", "return"],
        ["tax_rate_id", null],
        ["location_id", locations[1].id],
        ["updates_stock", false],
        ["taxes_included", true],
        ["number", "X-1"],
      ] as const) {
        const before = await store.api.get(`/v2/purchase_orders/${order.id}`);
        const res = await store.api.patch(`/v2/purchase_orders/${order.id}`, { notes: "n", [field]: value });
        expectInvalidTransition(res, "ordered", field);
        assert.deepEqual((await store.api.get(`/v2/purchase_orders/${order.id}`)).body, before.body);
      }
    });

    test("notes, references, dates, charges and line quantities are taken", async () => {
      const order = await orderedOrder();
      const ok = await store.api.patch(`/v2/purchase_orders/${order.id}`, {
        notes: "ok",
        reference: "R1",
        supplier_order_number: "S-9",
        expected_at: "2030-05-01",
        payment_due_on: "2030-06-01",
        charges: [{ amount: 12 }],
        lines: [{ id: order.lines[0].id, quantity: 18 }, { id: order.lines[1].id }],
      });
      expectStatus(ok, 200);
      assert.deepEqual(
        [
          ok.body.data.notes,
          ok.body.data.reference,
          ok.body.data.lines[0].quantity,
          ok.body.data.totals.charges,
        ],
        ["ok", "R1", 18, "12.00"],
      );
    });

    describe("once a line has received units", () => {
      let order: any;
      before(async () => {
        order = await orderedOrder();
        await forceReceived(order.id, order.lines[0].id, 5, "partial");
      });

      test("removing it, cutting it below what arrived or swapping its item are refused, changing nothing", async () => {
        const before = await store.api.get(`/v2/purchase_orders/${order.id}`);
        const removeReceived = await store.api.patch(`/v2/purchase_orders/${order.id}`, {
          lines: [{ id: order.lines[1].id }],
        });
        expectDetails(removeReceived, [{ field: "lines", code: "line_received" }]);
        const cut = await store.api.patch(`/v2/purchase_orders/${order.id}`, {
          lines: [{ id: order.lines[0].id, quantity: 4 }, { id: order.lines[1].id }],
        });
        expectDetails(cut, [{ field: "lines.0.quantity", code: "below_received" }]);
        const swap = await store.api.patch(`/v2/purchase_orders/${order.id}`, {
          lines: [{ id: order.lines[0].id, variant_id: variants[1].id }, { id: order.lines[1].id }],
        });
        expectDetails(swap, [{ field: "lines.0.variant_id", code: "line_received" }]);
        assert.deepEqual((await store.api.get(`/v2/purchase_orders/${order.id}`)).body, before.body);
      });

      test("removing the unreceived line and cutting the received one to what arrived finishes the order", async () => {
        const finish = await store.api.patch(`/v2/purchase_orders/${order.id}`, {
          lines: [{ id: order.lines[0].id, quantity: 5 }],
        });
        expectStatus(finish, 200);
        assert.equal(finish.body.data.status, "received");
      });
    });
  });

  test("received and closed orders take notes, references and payment_due_on only", async () => {
    const order = await create({ lines: [customLine(2, 1)] });
    expectStatus(await store.api.post(`/v2/purchase_orders/${order.id}/mark_ordered`), 200);
    await forceReceived(order.id, order.lines[0].id, 2, "received");
    for (const state of ["received", "closed"]) {
      if (state === "closed")
        expectStatus(await store.api.post(`/v2/purchase_orders/${order.id}/close`), 200);
      for (const body of [
        { expected_at: "2030-01-01" },
        { charges: [] },
        { lines: [{ id: order.lines[0].id }] },
        { supplier_id: supplierId },
      ]) {
        const before = await store.api.get(`/v2/purchase_orders/${order.id}`);
        expectInvalidTransition(
          await store.api.patch(`/v2/purchase_orders/${order.id}`, body),
          state,
          Object.keys(body)[0],
        );
        assert.deepEqual((await store.api.get(`/v2/purchase_orders/${order.id}`)).body, before.body);
      }
      const ok = await store.api.patch(`/v2/purchase_orders/${order.id}`, {
        notes: state,
        invoice_number: `INV-${state}`,
        account_number: "A-1",
        payment_due_on: "2030-07-01",
      });
      expectStatus(ok, 200);
      assert.deepEqual(
        [ok.body.data.notes, ok.body.data.invoice_number, ok.body.data.payment_due_on],
        [state, `INV-${state}`, "2030-07-01"],
      );
    }
  });
});

describe("incoming stock, history and events", () => {
  // One order's whole life, set up once; each aspect of it is its own test, so one failure hides no other.
  describe("placing pushes incoming, adding and editing lines push, cancel_remaining and close retract, reopen pushes again", () => {
    type Deltas = { a: number; b: number; c: number };
    let a: Variant;
    let b: Variant;
    let c: Variant;
    let l1: number;
    let l2: number;
    let order: any;
    let ordered: HttpResult;
    let synced: { state: string; error: string | null; attempted_at: string | null };
    let added: HttpResult;
    let edited: HttpResult;
    /** Incoming on the platform (less what it was before the order) after each step. */
    const incoming = {} as Record<
      "ordered" | "added" | "edited" | "cancelled" | "closed" | "reopened",
      Deltas
    >;

    before(async () => {
      [a, b, c] = [variants[4], variants[5], variants[6]];
      [l1, l2] = [locations[0].id, locations[1].id];
      const base = {
        a: await platformIncoming(a.inventory_item_id, l1),
        b: await platformIncoming(b.inventory_item_id, l2),
        c: await platformIncoming(c.inventory_item_id, l1),
      };
      const now = async () => ({
        a: (await platformIncoming(a.inventory_item_id, l1)) - base.a,
        b: (await platformIncoming(b.inventory_item_id, l2)) - base.b,
        c: (await platformIncoming(c.inventory_item_id, l1)) - base.c,
      });
      order = await create({
        lines: [
          { variant_id: a.id, quantity: 10 },
          { variant_id: b.id, quantity: 4, location_id: l2 },
          customLine(3, 1),
        ],
      });
      const [la, lb] = order.lines;
      ordered = await store.api.post(`/v2/purchase_orders/${order.id}/mark_ordered`, {
        ordered_at: "2030-03-09T08:00:00Z",
      });
      expectStatus(ordered, 200);
      await t.drain();
      incoming.ordered = await now();
      synced = (await store.api.get(`/v2/purchase_orders/${order.id}`)).body.data.platform_sync;

      added = await store.api.post(`/v2/purchase_orders/${order.id}/lines`, {
        lines: [{ variant_id: c.id, quantity: 5 }],
      });
      expectStatus(added, 200);
      await t.drain();
      incoming.added = await now();

      edited = await store.api.patch(`/v2/purchase_orders/${order.id}`, {
        lines: [
          { id: la.id, quantity: 12 },
          { id: lb.id },
          { id: order.lines[2].id },
          { id: added.body.data.lines[3].id },
        ],
      });
      expectStatus(edited, 200);
      await t.drain();
      incoming.edited = await now();

      expectStatus(
        await store.api.post(`/v2/purchase_orders/${order.id}/lines/${lb.id}/cancel_remaining`),
        200,
      );
      await t.drain();
      incoming.cancelled = await now();

      expectStatus(await store.api.post(`/v2/purchase_orders/${order.id}/close`), 200);
      await t.drain();
      incoming.closed = await now();

      expectStatus(await store.api.post(`/v2/purchase_orders/${order.id}/reopen`), 200);
      await t.drain();
      incoming.reopened = await now();
    });

    test("placing pushes each tracked line's incoming; platform_sync goes pending, then synced", () => {
      assert.equal(ordered.body.data.ordered_at, "2030-03-09T08:00:00.000Z");
      assert.equal(ordered.body.data.platform_sync.state, "pending");
      assert.deepEqual(incoming.ordered, { a: 10, b: 4, c: 0 });
      assert.equal(synced.state, "synced");
      assert.equal(synced.error, null);
      assert.ok(synced.attempted_at);
    });

    test("an added line and an edited quantity push their difference", () => {
      assert.equal(added.body.data.lines.length, 4);
      assert.equal(added.body.data.lines[3].position, 4);
      assert.deepEqual(incoming.added, { a: 10, b: 4, c: 5 });
      assert.deepEqual(incoming.edited, { a: 12, b: 4, c: 5 });
    });

    test("cancel_remaining and close retract what is outstanding; reopen pushes it again", () => {
      assert.deepEqual(incoming.cancelled, { a: 12, b: 0, c: 5 });
      assert.deepEqual(incoming.closed, { a: 0, b: 0, c: 0 });
      assert.deepEqual(incoming.reopened, { a: 12, b: 0, c: 5 });
    });

    test("the stock movements hold one incoming delta per push and retraction", async () => {
      const movements = await t.runtime.ctx.db
        .selectFrom("stock_movements")
        .select(["inventory_item_id", "location_id", "incoming_delta", "available_delta", "on_hand_delta"])
        .where("subject_type", "=", "purchase_order")
        .where("subject_id", "=", order.id)
        .orderBy("id")
        .execute();
      assert.deepEqual(
        movements.map((m) => [
          m.inventory_item_id,
          m.location_id,
          m.incoming_delta,
          m.available_delta,
          m.on_hand_delta,
        ]),
        [
          [a.inventory_item_id, l1, 10, 0, 0],
          [b.inventory_item_id, l2, 4, 0, 0],
          [c.inventory_item_id, l1, 5, 0, 0],
          [a.inventory_item_id, l1, 2, 0, 0],
          [b.inventory_item_id, l2, -4, 0, 0],
          [a.inventory_item_id, l1, -12, 0, 0],
          [c.inventory_item_id, l1, -5, 0, 0],
          [a.inventory_item_id, l1, 12, 0, 0],
          [c.inventory_item_id, l1, 5, 0, 0],
        ],
      );
    });

    test("history: each step with its data, who and which key, newest first, paged; 404 in another store", async () => {
      const [la, lb] = order.lines;
      const history = await historyOf(order.id);
      assert.deepEqual(
        history.map((h) => h.type),
        ["reopened", "closed", "line_cancelled", "updated", "lines_added", "ordered", "created"],
      );
      for (const h of history) {
        assert.equal(h.by, KEY_NAME);
        assert.equal(h.via, store.key.slice(0, 12));
      }
      assert.deepEqual(history[0].data, { status: "ordered" });
      assert.deepEqual(history[1].data, { from: "ordered", retracted_quantity: 17 });
      assert.deepEqual(history[2].data, { line_id: lb.id, cancelled_quantity: 4 });
      assert.deepEqual(history[3].data, {
        changes: { total: [added.body.data.totals.total, edited.body.data.totals.total] },
        lines: { added: [], removed: [], updated: [la.id] },
      });
      assert.deepEqual(history[4].data, { lines: [{ id: added.body.data.lines[3].id, quantity: 5 }] });
      assert.deepEqual(history[5].data, { ordered_at: "2030-03-09T08:00:00.000Z" });

      // Paged, newest first.
      const page1 = await store.api.get(`/v2/purchase_orders/${order.id}/history?limit=4`);
      assert.equal(page1.body.has_more, true);
      const page2 = await store.api.get(
        `/v2/purchase_orders/${order.id}/history?limit=4&cursor=${page1.body.next_cursor}`,
      );
      assert.deepEqual(
        [...page1.body.data, ...page2.body.data].map((h: { type: string }) => h.type),
        history.map((h) => h.type),
      );
      assert.equal(page2.body.next_cursor, null);
      expectStatus(await other.api.get(`/v2/purchase_orders/${order.id}/history`), 404);
    });

    test("events: created and ordered carry the order as answered, then three updates, closed, reopened", async () => {
      const events = await eventsOf(order.id);
      assert.deepEqual(
        events.map((e) => e.name),
        [
          "purchase_order.created",
          "purchase_order.ordered",
          "purchase_order.updated",
          "purchase_order.updated",
          "purchase_order.updated",
          "purchase_order.closed",
          "purchase_order.reopened",
        ],
      );
      assert.deepEqual(events[1].data, ordered.body.data);
      assert.deepEqual(events[0].data, order);
    });
  });

  test("mark_in_transit sets the date, history and event; updates_stock false moves nothing", async () => {
    const order = await create({
      updates_stock: false,
      lines: [{ variant_id: variants[7].id, quantity: 9 }],
    });
    expectStatus(await store.api.post(`/v2/purchase_orders/${order.id}/mark_ordered`), 200);
    const transit = await store.api.post(`/v2/purchase_orders/${order.id}/mark_in_transit`, {
      expected_at: "2030-03-20",
      note: "Truck 4",
    });
    expectStatus(transit, 200);
    assert.deepEqual(
      [transit.body.data.status, transit.body.data.expected_at, transit.body.data.in_transit_at],
      ["in_transit", "2030-03-20", clock.now().toISOString()],
    );
    const h = await historyOf(order.id);
    assert.deepEqual(h[0], {
      type: "in_transit",
      at: clock.now().toISOString(),
      by: KEY_NAME,
      via: store.key.slice(0, 12),
      data: { from: "ordered", expected_at: "2030-03-20", note: "Truck 4" },
    });
    assert.deepEqual((await eventsOf(order.id)).map((e) => e.name).slice(-1), ["purchase_order.in_transit"]);
    const moved = await t.runtime.ctx.db
      .selectFrom("stock_movements")
      .select("id")
      .where("subject_type", "=", "purchase_order")
      .where("subject_id", "=", order.id)
      .execute();
    assert.equal(moved.length, 0);
    assert.deepEqual(transit.body.data.platform_sync, { state: "synced", attempted_at: null, error: null });
    // A return order sends stock back: placing and closing it never touches incoming.
    const ret = await create({ type: "return", lines: [{ variant_id: variants[7].id, quantity: 2 }] });
    expectStatus(await store.api.post(`/v2/purchase_orders/${ret.id}/mark_ordered`), 200);
    expectStatus(await store.api.post(`/v2/purchase_orders/${ret.id}/close`), 200);
    const retMoved = await t.runtime.ctx.db
      .selectFrom("stock_movements")
      .select("id")
      .where("subject_type", "=", "purchase_order")
      .where("subject_id", "=", ret.id)
      .execute();
    assert.equal(retMoved.length, 0);
  });

  test("tenancy: another store's order is 404 everywhere", async () => {
    const order = await create({ lines: [customLine()] });
    expectStatus(await other.api.get(`/v2/purchase_orders/${order.id}`), 404);
    expectStatus(await other.api.patch(`/v2/purchase_orders/${order.id}`, { notes: "x" }), 404);
    expectStatus(await other.api.post(`/v2/purchase_orders/${order.id}/mark_ordered`), 404);
    expectStatus(await other.api.delete(`/v2/purchase_orders/${order.id}`), 404);
    const readOnly = await store.keyWithScopes(["read"]);
    const denied = await readOnly.post(`/v2/purchase_orders/${order.id}/mark_ordered`);
    expectStatus(denied, 403);
    assert.equal(denied.body.error.code, "insufficient_scope");
  });
});

describe("purchase_order.overdue daily scan: once per order per day after 00:05 store time, while open and past expected_at", () => {
  let tokyo: TestStore;
  let late: number;
  let draft: number;
  const scan = () => t.runtime.worker.runPeriodic(OVERDUE_TASK);
  const overdue = async () =>
    (
      await t.runtime.ctx.db
        .selectFrom("events")
        .select(["subject_id", "occurred_at"])
        .where("store_id", "=", tokyo.id)
        .where("name", "=", "purchase_order.overdue")
        .orderBy("seq")
        .execute()
    ).map((e) => e.subject_id);

  before(async () => {
    tokyo = await t.createStore({ seed: "demo", timezone: "Asia/Tokyo" });
    await t.drain();
    const sup = await tokyo.api.post("/v2/suppliers", { name: "Late Co" });
    const make = async (expected: string | null) => {
      const res = await tokyo.api.post("/v2/purchase_orders", {
        supplier_id: sup.body.data.id,
        expected_at: expected,
        lines: [customLine()],
      });
      expectStatus(res, 201);
      return res.body.data.id as number;
    };
    // 2030-03-10T12:00Z is 21:00 in Tokyo on 2030-03-10.
    clock.set("2030-03-10T12:00:00.000Z");
    late = await make("2030-03-10");
    draft = await make("2030-03-01");
    const closed = await make("2030-03-01");
    const future = await make("2030-03-15");
    for (const id of [late, closed, future])
      expectStatus(await tokyo.api.post(`/v2/purchase_orders/${id}/mark_ordered`), 200);
    expectStatus(await tokyo.api.post(`/v2/purchase_orders/${closed}/close`), 200);
  });
  after(() => clock.set(START));

  test("on the expected day and before 00:05 of the next, nothing fires", async () => {
    await scan();
    assert.deepEqual(await overdue(), []);
    clock.set("2030-03-10T15:04:00.000Z"); // 00:04 on the 11th in Tokyo: before the scan time
    await scan();
    assert.deepEqual(await overdue(), []);
  });

  test("after 00:05 it fires once (two scans) for the open late order only, not the draft, closed or future one", async () => {
    clock.set("2030-03-10T15:06:00.000Z"); // 00:06
    await scan();
    await scan();
    assert.deepEqual(await overdue(), [late]);
    assert.ok(draft > 0);
  });

  test("the event carries the order as GET shows it", async () => {
    const event = await t.runtime.ctx.db
      .selectFrom("events")
      .select("data")
      .where("name", "=", "purchase_order.overdue")
      .where("subject_id", "=", late)
      .executeTakeFirstOrThrow();
    assert.deepEqual(event.data, (await tokyo.api.get(`/v2/purchase_orders/${late}`)).body.data);
  });

  test("later the same store day nothing new; the next day it fires again", async () => {
    clock.set("2030-03-11T10:00:00.000Z"); // 19:00 on the 11th: same day, nothing new
    await scan();
    assert.deepEqual(await overdue(), [late]);
    clock.set("2030-03-11T15:10:00.000Z"); // 00:10 on the 12th
    await scan();
    assert.deepEqual(await overdue(), [late, late]);
  });

  test("once closed the order no longer fires", async () => {
    expectStatus(await tokyo.api.post(`/v2/purchase_orders/${late}/close`), 200);
    clock.set("2030-03-12T15:10:00.000Z");
    await scan();
    assert.deepEqual(await overdue(), [late, late]);
  });
});

describe("admin settings and read-only order views", () => {
  test("tax rates: PUT replaces the set (id updates, absent rows go), refusals change nothing", async () => {
    const first = await t.admin.put(`/admin/stores/${other.id}/tax_rates`, {
      rates: [
        { name: "Std", rate_percent: 19 },
        { name: "Low", rate_percent: 7 },
      ],
    });
    expectStatus(first, 200);
    const [std, low] = first.body.data;
    const second = await t.admin.put(`/admin/stores/${other.id}/tax_rates`, {
      rates: [
        { id: std.id, name: "Standard", rate_percent: "19.5" },
        { name: "Zero", rate_percent: 0 },
      ],
    });
    expectStatus(second, 200);
    assert.deepEqual(second.body.data, [
      { id: std.id, name: "Standard", rate_percent: 19.5 },
      { id: second.body.data[1].id, name: "Zero", rate_percent: 0 },
    ]);
    assert.ok(second.body.data[1].id > low.id);
    const bad = await t.admin.put(`/admin/stores/${other.id}/tax_rates`, {
      rates: [
        { id: low.id, name: "Gone", rate_percent: 1 },
        { name: "Big", rate_percent: 101 },
      ],
    });
    expectDetails(bad, [
      { field: "rates.0.id", code: "not_found" },
      { field: "rates.1.rate_percent", code: "out_of_range" },
    ]);
    assert.deepEqual((await t.admin.get(`/admin/stores/${other.id}/tax_rates`)).body, second.body);
    expectStatus(await t.admin.get(`/admin/stores/999999/tax_rates`), 404);
  });

  test("exchange rates: store currency and unknown codes refused", async () => {
    const bad = await t.admin.put(`/admin/stores/${other.id}/exchange_rates`, {
      rates: [
        { currency: "USD", rate_to_base: 1 },
        { currency: "XXQ", rate_to_base: 2 },
        { currency: "EUR", rate_to_base: 0 },
      ],
    });
    expectDetails(bad, [
      { field: "rates.0.currency", code: "invalid_value" },
      { field: "rates.1.currency", code: "invalid_value" },
      { field: "rates.2.rate_to_base", code: "must_be_positive" },
    ]);
    const ok = await t.admin.put(`/admin/stores/${other.id}/exchange_rates`, {
      rates: [{ currency: "CAD", rate_to_base: "0.74" }],
    });
    assert.deepEqual(ok.body.data, [{ currency: "CAD", rate_to_base: 0.74, date: TODAY }]);
    const cleared = await t.admin.put(`/admin/stores/${other.id}/exchange_rates`, { rates: [] });
    assert.deepEqual(cleared.body.data, []);
  });

  test("admin order views reuse the API's shapes", async () => {
    const order = await create({ lines: [customLine(2, 2)] });
    const one = await t.admin.get(`/admin/stores/${store.id}/purchase_orders/${order.id}`);
    expectStatus(one, 200);
    assert.deepEqual(one.body.data, (await store.api.get(`/v2/purchase_orders/${order.id}`)).body.data);
    expectStatus(await t.admin.get(`/admin/stores/${other.id}/purchase_orders/${order.id}`), 404);
    const list = await t.admin.get(`/admin/stores/${store.id}/purchase_orders?limit=2`);
    expectStatus(list, 200);
    assert.equal(list.body.data.length, 2);
    assert.equal(list.body.has_more, true);
    assert.ok(!("receipts" in list.body.data[0]));
    const noAuth = await t.client().get(`/admin/stores/${store.id}/purchase_orders`);
    expectStatus(noAuth, 401);
  });
});
