/**
 * The cost a line named by item gets when the request gives none, on an order in another currency than
 * the store's: the supplier's catalog tier, else the variant's cost converted at the order's exchange
 * rate, else 0; a converted or zero cost is told by a `converted_cost` or `no_cost` warning. The store
 * is in USD; the supplier sells in EUR; one EUR is 1.3 USD on the orders (a manual rate).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { PDFParse } from "pdf-parse";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectDetails, expectStatus } from "../helpers/assertions.ts";
import {
  createDraftOrder,
  createOrderedOrder,
  createSupplier,
  customLine,
  eventsOf,
  FIXTURE_VARIANT_OFFSET,
  getOrder,
  insertFixtureVariants,
  listVariants,
  type Variant,
} from "../helpers/factories.ts";

let t: TestApp;
let store: TestStore;
let eurSupplier: number;
let usdSupplier: number;
/** Costs 12.00 USD. */
let priced: Variant;
/** Has no cost. */
let costless: Variant;
/** Costs 10.00 USD, and the EUR supplier's catalog has it at 7.50 EUR. */
let catalogued: Variant;
/** Costs 5.00 GBP (neither the store's nor the order's currency). */
let inPounds: Variant;

const CONVERTED = (eur: string, rate = "1.3") => ({
  code: "converted_cost",
  message: `The variant's cost of 12.00 USD was converted to ${eur} EUR at the order's exchange rate (1 EUR = ${rate} USD).`,
  suggested_quantity: null,
});
const NO_COST = {
  code: "no_cost",
  message: "The line's unit cost is 0; the supplier would see this line at no cost.",
  suggested_quantity: null,
};

async function setVariantCost(v: Variant, cost: string | null, currency: string | null) {
  await t.runtime.ctx.db
    .updateTable("variants")
    .set({ unit_cost: cost, unit_cost_currency: currency })
    .where("store_id", "=", store.id)
    .where("id", "=", v.id)
    .execute();
}

const eurOrder = (lines: Record<string, unknown>[], extra: Record<string, unknown> = {}) =>
  createDraftOrder(store.api, { supplier_id: eurSupplier, exchange_rate: "1.3", lines, ...extra });

/** Each line's unit cost and warnings, in position order. */
const costsOf = (order: { lines: { unit_cost: string; warnings: unknown[] }[] }) =>
  order.lines.map((l) => [l.unit_cost, l.warnings]);

/** The text of the order's PDF as GET /pdf answers it now. */
async function pdfTextOf(orderId: number): Promise<string> {
  const res = await store.api.get(`/v2/purchase_orders/${orderId}/pdf`);
  expectStatus(res, 200);
  const parser = new PDFParse({ data: new Uint8Array(res.raw.rawPayload) });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}

before(async () => {
  t = await startTestApp();
  store = await t.createStore({ seed: "demo" });
  await t.drain();
  [priced, costless, catalogued, inPounds] = await listVariants(store.api, 4);
  await setVariantCost(priced, "12.00", "USD");
  await setVariantCost(costless, null, null);
  await setVariantCost(catalogued, "10.00", null);
  await setVariantCost(inPounds, "5.00", "GBP");
  eurSupplier = (await createSupplier(store.api, { currency: "EUR" })).id;
  usdSupplier = (await createSupplier(store.api, { currency: "USD" })).id;
  const catalog = await store.api.put(`/v2/suppliers/${eurSupplier}/catalog`, {
    rows: [{ inventory_item_id: catalogued.inventory_item_id, tiers: [{ min_qty: 1, price: "7.50" }] }],
  });
  expectStatus(catalog, 200);
});
after(() => t.close());

describe("a new order's lines", () => {
  test("in another currency: the catalog tier, else the converted cost, else 0, each told", async () => {
    const order = await eurOrder([
      { variant_id: priced.id, quantity: 2 },
      { variant_id: costless.id, quantity: 1 },
      { inventory_item_id: catalogued.inventory_item_id, quantity: 3 },
      { variant_id: inPounds.id, quantity: 1 },
      { variant_id: priced.id, quantity: 1, unit_cost: "8.00" },
      customLine(1, 0),
    ]);
    assert.equal(order.currency, "EUR");
    assert.deepEqual(costsOf(order), [
      // 12.00 / 1.3 = 9.230769230769…, half-up to the 8 places a unit cost keeps.
      ["9.23076923", [CONVERTED("9.23076923")]],
      ["0.00", [NO_COST]],
      ["7.50", []],
      [
        "0.00",
        [
          {
            code: "no_cost",
            message:
              "The line's unit cost is 0: the variant's cost is in GBP, which the order's exchange rate does not convert; the supplier would see this line at no cost.",
            suggested_quantity: null,
          },
        ],
      ],
      ["8.00", []],
      ["0.00", [NO_COST]],
    ]);
    assert.deepEqual(
      order.lines.map((l: { line_total: string }) => l.line_total),
      ["18.46", "0.00", "22.50", "0.00", "8.00", "0.00"],
    );
    assert.equal(order.totals.subtotal, "48.96");
  });

  test("GET, the list and the event show the same warnings", async () => {
    const order = await eurOrder([{ variant_id: priced.id, quantity: 1 }, customLine(1, 0)], {
      reference: "same-everywhere",
    });
    const expected = [
      ["9.23076923", [CONVERTED("9.23076923")]],
      ["0.00", [NO_COST]],
    ];
    assert.deepEqual(costsOf(await getOrder(store.api, order.id)), expected);
    const list = await store.api.get("/v2/purchase_orders?limit=250");
    expectStatus(list, 200);
    const row = list.body.data.find((o: { id: number }) => o.id === order.id);
    assert.deepEqual(costsOf(row), expected);
    const events = await eventsOf(t, { type: "purchase_order", id: order.id });
    assert.deepEqual(
      events.map((e) => e.name),
      ["purchase_order.created"],
    );
    assert.deepEqual(costsOf(events[0].data), expected);
  });

  test("in the store's currency: the variant's cost as it is, no warning", async () => {
    const order = await createDraftOrder(store.api, {
      supplier_id: usdSupplier,
      lines: [
        { variant_id: priced.id, quantity: 2 },
        { variant_id: catalogued.id, quantity: 1 },
      ],
    });
    assert.equal(order.currency, "USD");
    assert.deepEqual(costsOf(order), [
      ["12.00", []],
      ["10.00", []],
    ]);
  });

  test("a converted cost of a unit cost's bound or more is refused on the line's unit_cost", async () => {
    const res = await store.api.post("/v2/purchase_orders", {
      supplier_id: eurSupplier,
      exchange_rate: "0.000000000001",
      lines: [customLine(), { variant_id: priced.id, quantity: 1 }],
    });
    expectDetails(res, [["lines.1.unit_cost", "out_of_range"]]);
  });
});

describe("lines added later", () => {
  test("POST lines on a placed order converts and tells like create", async () => {
    const order = await createOrderedOrder(store.api, {
      supplier_id: eurSupplier,
      exchange_rate: "1.3",
      lines: [customLine(1, 5)],
    });
    const res = await store.api.post(`/v2/purchase_orders/${order.id}/lines`, {
      lines: [
        { variant_id: priced.id, quantity: 4 },
        { variant_id: costless.id, quantity: 1 },
      ],
    });
    expectStatus(res, 200);
    assert.deepEqual(costsOf(res.body.data), [
      ["5.00", []],
      ["9.23076923", [CONVERTED("9.23076923")]],
      ["0.00", [NO_COST]],
    ]);
  });

  test("PATCH: a new line and a line whose item changed are priced; a kept line keeps its cost and warning", async () => {
    const order = await eurOrder([
      { variant_id: priced.id, quantity: 1 },
      { variant_id: costless.id, quantity: 1 },
      { variant_id: priced.id, quantity: 1 },
    ]);
    const [kept, changed, given] = order.lines;
    const res = await store.api.patch(`/v2/purchase_orders/${order.id}`, {
      lines: [
        { id: kept.id, quantity: 5 },
        { id: changed.id, variant_id: priced.id },
        { id: given.id, unit_cost: "0" },
        { variant_id: priced.id, quantity: 2 },
      ],
    });
    expectStatus(res, 200);
    assert.deepEqual(costsOf(res.body.data), [
      ["9.23076923", [CONVERTED("9.23076923")]],
      ["9.23076923", [CONVERTED("9.23076923")]],
      ["0.00", [NO_COST]],
      ["9.23076923", [CONVERTED("9.23076923")]],
    ]);
    const giveCost = await store.api.patch(`/v2/purchase_orders/${order.id}`, {
      lines: res.body.data.lines.map((l: { id: number }, i: number) =>
        i === 0 ? { id: l.id, unit_cost: "9.25" } : { id: l.id },
      ),
    });
    expectStatus(giveCost, 200);
    assert.deepEqual(costsOf(giveCost.body.data)[0], ["9.25", []]);
  });
});

describe("the draft's rate or currency changes", () => {
  test("a converted cost is converted again at the new rate; given and catalog costs stay", async () => {
    const order = await eurOrder([
      { variant_id: priced.id, quantity: 2 },
      { variant_id: priced.id, quantity: 1, unit_cost: "8.00" },
      { variant_id: catalogued.id, quantity: 1 },
      { variant_id: costless.id, quantity: 1 },
    ]);
    const res = await store.api.patch(`/v2/purchase_orders/${order.id}`, { exchange_rate: "1.6" });
    expectStatus(res, 200);
    const after = res.body.data;
    assert.deepEqual(costsOf(after), [
      ["7.50", [CONVERTED("7.50", "1.6")]],
      ["8.00", []],
      ["7.50", []],
      ["0.00", [NO_COST]],
    ]);
    assert.equal(after.totals.subtotal, "30.50");
    const history = await store.api.get(`/v2/purchase_orders/${order.id}/history?limit=250`);
    const updated = history.body.data.find((h: { type: string }) => h.type === "updated");
    assert.deepEqual(updated.data, {
      changes: { exchange_rate: [1.3, 1.6], total: ["33.96", "30.50"] },
      lines: { added: [], removed: [], updated: [order.lines[0].id] },
    });
  });

  test("a converted line whose item left the catalog keeps its cost and warning", async () => {
    const itemId = 880_001;
    await insertFixtureVariants(t, store.id, [itemId]);
    const variantId = itemId + FIXTURE_VARIANT_OFFSET;
    const db = t.runtime.ctx.db;
    await db
      .updateTable("variants")
      .set({ unit_cost: "12.00", unit_cost_currency: "USD" })
      .where("store_id", "=", store.id)
      .where("id", "=", variantId)
      .execute();
    const order = await eurOrder([
      { variant_id: variantId, quantity: 1 },
      { variant_id: priced.id, quantity: 1 },
    ]);
    await db.deleteFrom("variants").where("store_id", "=", store.id).where("id", "=", variantId).execute();
    const res = await store.api.patch(`/v2/purchase_orders/${order.id}`, { exchange_rate: "1.6" });
    expectStatus(res, 200);
    assert.deepEqual(costsOf(res.body.data), [
      ["9.23076923", [CONVERTED("9.23076923")]],
      ["7.50", [CONVERTED("7.50", "1.6")]],
    ]);
  });

  test("to the store's currency, a converted line takes the variant's cost as it is", async () => {
    const order = await eurOrder([{ variant_id: priced.id, quantity: 1 }]);
    const res = await store.api.patch(`/v2/purchase_orders/${order.id}`, {
      currency: "USD",
      exchange_rate: null,
    });
    expectStatus(res, 200);
    assert.equal(res.body.data.currency, "USD");
    assert.deepEqual(costsOf(res.body.data), [["12.00", []]]);
  });

  test("a rate that would convert a cost beyond a unit cost's bound is refused and changes nothing", async () => {
    const order = await eurOrder([{ variant_id: priced.id, quantity: 1 }]);
    const res = await store.api.patch(`/v2/purchase_orders/${order.id}`, {
      exchange_rate: "0.000000000001",
    });
    expectDetails(res, [["exchange_rate", "out_of_range"]]);
    assert.deepEqual(await getOrder(store.api, order.id), order);
  });

  test("a duplicate at today's store rate converts the copied converted costs again", async () => {
    const setRate = async (rate: string) =>
      expectStatus(
        await t.admin.put(`/admin/stores/${store.id}/exchange_rates`, {
          rates: [{ currency: "EUR", rate_to_base: rate }],
        }),
        200,
      );
    await setRate("1.3");
    const source = await createDraftOrder(store.api, {
      supplier_id: eurSupplier,
      lines: [
        { variant_id: priced.id, quantity: 1 },
        { variant_id: priced.id, quantity: 1, unit_cost: "8.00" },
      ],
    });
    assert.equal(source.exchange_rate.source, "store_rates");
    assert.deepEqual(costsOf(source), [
      ["9.23076923", [CONVERTED("9.23076923")]],
      ["8.00", []],
    ]);
    await setRate("1.6");
    const copy = await store.api.post(`/v2/purchase_orders/${source.id}/duplicate`, {});
    expectStatus(copy, 201);
    assert.equal(copy.body.data.exchange_rate.rate, 1.6);
    assert.deepEqual(costsOf(copy.body.data), [
      ["7.50", [CONVERTED("7.50", "1.6")]],
      ["8.00", []],
    ]);
    assert.deepEqual(costsOf(await getOrder(store.api, source.id)), costsOf(source));
  });

  test("the PDF prints the converted cost, and the new one after the rate changed", async () => {
    const order = await eurOrder([{ variant_id: priced.id, quantity: 2 }]);
    const before = await pdfTextOf(order.id);
    assert.ok(before.includes("9.23076923"), "the converted unit cost");
    assert.ok(before.includes("EUR 18.46"), "the line's total");
    const res = await store.api.patch(`/v2/purchase_orders/${order.id}`, { exchange_rate: "1.6" });
    expectStatus(res, 200);
    const after = await pdfTextOf(order.id);
    assert.ok(!after.includes("9.23076923"), "the old converted cost is gone");
    assert.ok(after.includes("EUR 15.00"), "the total at the new rate");
  });
});
