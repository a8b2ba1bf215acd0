import assert from "node:assert/strict";
import { describe, test } from "node:test";
import Big from "big.js";
import fc from "fast-check";
import { DetailCollector } from "../../src/domain/errors.ts";
import type { AllocatableCharge, AllocationMethod } from "../../src/domain/landed-cost.ts";
import { divideRoundHalfUp, formatMoney, formatUnitCost } from "../../src/domain/money.ts";
import {
  type ComputedReceipt,
  computeReceipt,
  type ReceiptLineRequest,
  type ReceiptOrder,
  type ReceiptOrderLine,
  type ReceiptRequest,
  statusAfterReceipt,
  unitCostAfterDiscount,
} from "../../src/domain/receipts/compute.ts";

const b = (s: string | number) => new Big(s);

/*
 * The worked order used by the hand-checked examples (USD, order location 100):
 *
 *   line  pos  qty  unit cost  discount  after disc.  value    weight/unit  weight × qty
 *   1     1    10   10.00      –         10.00        100.00   200 g        2000
 *   2     2     5   20.00      10 %      18.00         90.00   100 g         500
 *   3     3     2    5.00      –          5.00         10.00  1000 g        2000
 *                                                    ------                 ----
 *                                                    200.00                 4500
 */
function line(over: Partial<ReceiptOrderLine> & { id: number }): ReceiptOrderLine {
  return {
    position: over.id,
    quantity: 1,
    cancelled_quantity: 0,
    received_quantity: 0,
    unit_cost: "0",
    discount_percent: null,
    weight_grams: 0,
    inventory_item_id: 1000 + over.id,
    location_id: null,
    allocated: b(0),
    unordered: false,
    ...over,
  };
}

function workedOrder(charges: AllocatableCharge[], exchangeRate = "1"): ReceiptOrder {
  return {
    status: "ordered",
    currency: "USD",
    exchangeRate: b(exchangeRate),
    locationId: 100,
    updatesStock: true,
    lines: [
      line({ id: 1, quantity: 10, unit_cost: "10.00", weight_grams: 200 }),
      line({ id: 2, quantity: 5, unit_cost: "20.00", discount_percent: "10", weight_grams: 100 }),
      line({ id: 3, quantity: 2, unit_cost: "5.00", weight_grams: 1000 }),
    ],
    charges,
  };
}

const charge = (amount: string, method: AllocationMethod, split?: [number, string][]): AllocatableCharge => ({
  amountInOrderCurrency: b(amount),
  method,
  customSplit: split?.map(([position, a]) => ({ position, amount: b(a) })) ?? null,
});

function request(lines: Partial<ReceiptLineRequest>[], over: Partial<ReceiptRequest> = {}): ReceiptRequest {
  return {
    exchangeRate: null,
    locationId: null,
    routeToDestinations: false,
    rejectedDisposition: "replace",
    lines: lines.map((l) => ({ lineId: 0, quantity: 0, rejected: [], unitCost: null, ...l })),
    unordered: [],
    ...over,
  };
}

function compute(order: ReceiptOrder, req: ReceiptRequest): ComputedReceipt {
  const problems = new DetailCollector();
  const result = computeReceipt(order, req, problems);
  assert.deepEqual(problems.details, []);
  return result;
}

/** [line_id, quantity, surplus, rejected, unit_cost, allocated, landed] per receipt line, as strings. */
function rows(r: ComputedReceipt, storeCurrency = "USD") {
  return r.lines.map((l) => [
    l.lineId,
    l.quantity,
    l.surplusQuantity,
    l.rejectedQuantity,
    formatUnitCost(l.unitCost, "USD"),
    formatMoney(l.allocatedChargeAmount, "USD"),
    formatUnitCost(l.landedUnitCost, storeCurrency),
  ]);
}

const receiveAll = request([
  { lineId: 1, quantity: 10 },
  { lineId: 2, quantity: 5 },
  { lineId: 3, quantity: 2 },
]);

/** Applies a computed receipt to the order the way the service stores it. */
function apply(order: ReceiptOrder, r: ComputedReceipt): ReceiptOrder {
  const changes = new Map(r.lineChanges.map((c) => [c.lineId, c]));
  const allocated = new Map<number, Big>();
  for (const l of r.lines)
    if (l.lineId !== null)
      allocated.set(l.lineId, (allocated.get(l.lineId) ?? b(0)).plus(l.allocatedChargeAmount));
  return {
    ...order,
    status: r.statusAfter,
    lines: order.lines.map((l) => {
      const c = changes.get(l.id);
      return {
        ...l,
        received_quantity: c ? c.receivedAfter : l.received_quantity,
        cancelled_quantity: c ? c.cancelledAfter : l.cancelled_quantity,
        allocated: l.allocated.plus(allocated.get(l.id) ?? 0),
      };
    }),
  };
}

describe("computeReceipt: a worked landed-cost example per allocation method (checked by hand)", () => {
  test("value: 30.00 over values 100 / 90 / 10 → 15.00 / 13.50 / 1.50", () => {
    const r = compute(workedOrder([charge("30.00", "value")]), receiveAll);
    // landed: 10 + 15/10 = 11.50; 18 + 13.50/5 = 20.70; 5 + 1.50/2 = 5.75
    assert.deepEqual(rows(r), [
      [1, 10, 0, 0, "10.00", "15.00", "11.50"],
      [2, 5, 0, 0, "18.00", "13.50", "20.70"],
      [3, 2, 0, 0, "5.00", "1.50", "5.75"],
    ]);
    assert.equal(r.statusAfter, "received");
  });

  test("quantity: 17.00 over 10 / 5 / 2 units → 10.00 / 5.00 / 2.00", () => {
    const r = compute(workedOrder([charge("17.00", "quantity")]), receiveAll);
    // landed: 10 + 1 = 11; 18 + 1 = 19; 5 + 1 = 6
    assert.deepEqual(rows(r), [
      [1, 10, 0, 0, "10.00", "10.00", "11.00"],
      [2, 5, 0, 0, "18.00", "5.00", "19.00"],
      [3, 2, 0, 0, "5.00", "2.00", "6.00"],
    ]);
  });

  test("weight: 45.00 over 2000 / 500 / 2000 g → 20.00 / 5.00 / 20.00", () => {
    const r = compute(workedOrder([charge("45.00", "weight")]), receiveAll);
    // landed: 10 + 2 = 12; 18 + 1 = 19; 5 + 10 = 15
    assert.deepEqual(rows(r), [
      [1, 10, 0, 0, "10.00", "20.00", "12.00"],
      [2, 5, 0, 0, "18.00", "5.00", "19.00"],
      [3, 2, 0, 0, "5.00", "20.00", "15.00"],
    ]);
  });

  test("custom: 10.00 split 7.00 to position 1 and 3.00 to position 3", () => {
    const r = compute(
      workedOrder([
        charge("10.00", "custom", [
          [1, "7.00"],
          [3, "3.00"],
        ]),
      ]),
      receiveAll,
    );
    // landed: 10 + 0.70 = 10.70; 18 + 0 = 18; 5 + 1.50 = 6.50
    assert.deepEqual(rows(r), [
      [1, 10, 0, 0, "10.00", "7.00", "10.70"],
      [2, 5, 0, 0, "18.00", "0.00", "18.00"],
      [3, 2, 0, 0, "5.00", "3.00", "6.50"],
    ]);
  });

  test("none: the charge is not allocated; landed = booked", () => {
    const r = compute(workedOrder([charge("99.00", "none")]), receiveAll);
    assert.deepEqual(rows(r), [
      [1, 10, 0, 0, "10.00", "0.00", "10.00"],
      [2, 5, 0, 0, "18.00", "0.00", "18.00"],
      [3, 2, 0, 0, "5.00", "0.00", "5.00"],
    ]);
  });

  test("several charges add up per line; the exchange rate converts into the store currency", () => {
    const order = workedOrder(
      [charge("30.00", "value"), charge("17.00", "quantity"), charge("5.00", "none")],
      "1.25",
    );
    const r = compute(order, receiveAll);
    // line 1: 15.00 + 10.00 = 25.00; landed (10 + 2.50) × 1.25 = 15.625
    // line 2: 13.50 + 5.00 = 18.50;  landed (18 + 3.70) × 1.25 = 27.125
    // line 3:  1.50 + 2.00 = 3.50;   landed (5 + 1.75) × 1.25 = 8.4375
    assert.deepEqual(rows(r, "EUR"), [
      [1, 10, 0, 0, "10.00", "25.00", "15.625"],
      [2, 5, 0, 0, "18.00", "18.50", "27.125"],
      [3, 2, 0, 0, "5.00", "3.50", "8.4375"],
    ]);
    assert.equal(r.exchangeRate.toString(), "1.25");
    // The receipt's own rate wins over the order's: (10 + 2.50) × 2 = 25
    const own = compute(order, request([{ lineId: 1, quantity: 10 }], { exchangeRate: b("2") }));
    assert.equal(formatUnitCost(own.lines[0].landedUnitCost, "EUR"), "25.00");
  });

  test("a per-line unit_cost override replaces the booked cost for this receipt only", () => {
    const r = compute(
      workedOrder([charge("30.00", "value")]),
      request([{ lineId: 2, quantity: 5, unitCost: b("17.5") }]),
    );
    // the share is still by the order's value (13.50): landed 17.5 + 2.70 = 20.20
    assert.deepEqual(rows(r), [[2, 5, 0, 0, "17.50", "13.50", "20.20"]]);
  });
});

describe("computeReceipt: partial receipts", () => {
  test("three partial receipts of line 1 hand out its 15.00 share as 4.50, 6.00, 4.50", () => {
    let order = workedOrder([charge("30.00", "value")], "1.25");
    const r1 = compute(order, request([{ lineId: 1, quantity: 3 }]));
    // target(3) = 15 × 3/10 = 4.50; landed (10 + 1.50) × 1.25 = 14.375
    assert.deepEqual(rows(r1, "EUR"), [[1, 3, 0, 0, "10.00", "4.50", "14.375"]]);
    assert.equal(r1.statusAfter, "partial");
    order = apply(order, r1);
    const r2 = compute(order, request([{ lineId: 1, quantity: 4 }]));
    // target(7) = 10.50, minus 4.50 already = 6.00
    assert.deepEqual(rows(r2, "EUR"), [[1, 4, 0, 0, "10.00", "6.00", "14.375"]]);
    order = apply(order, r2);
    const r3 = compute(order, request([{ lineId: 1, quantity: 3 }]));
    assert.deepEqual(rows(r3, "EUR"), [[1, 3, 0, 0, "10.00", "4.50", "14.375"]]);
    order = apply(order, r3);
    assert.equal(r3.statusAfter, "partial");
    const r4 = compute(
      order,
      request([
        { lineId: 2, quantity: 5 },
        { lineId: 3, quantity: 2 },
      ]),
    );
    assert.equal(r4.statusAfter, "received");
    order = apply(order, r4);
    const total = order.lines.reduce((s, l) => s.plus(l.allocated), b(0));
    assert.equal(total.toFixed(2), "30.00");
  });

  test("rounding: a 10.00 share over 3 units received one at a time is 3.33, 3.34, 3.33", () => {
    let order: ReceiptOrder = {
      ...workedOrder([charge("10.00", "quantity")]),
      lines: [line({ id: 1, quantity: 3, unit_cost: "1" })],
    };
    const got: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = compute(order, request([{ lineId: 1, quantity: 1 }]));
      got.push(formatMoney(r.lines[0].allocatedChargeAmount, "USD"));
      order = apply(order, r);
    }
    assert.deepEqual(got, ["3.33", "3.34", "3.33"]);
  });

  test("one line named twice (two lots) is allocated cumulatively", () => {
    const r = compute(
      workedOrder([charge("30.00", "value")]),
      request([
        { lineId: 1, quantity: 3 },
        { lineId: 1, quantity: 7 },
      ]),
    );
    assert.deepEqual(
      r.lines.map((l) => [l.outstandingBefore, l.quantity, formatMoney(l.allocatedChargeAmount, "USD")]),
      [
        [10, 3, "4.50"],
        [7, 7, "10.50"],
      ],
    );
    assert.deepEqual(r.lineChanges, [
      { lineId: 1, receivedDelta: 10, cancelledDelta: 0, receivedAfter: 10, cancelledAfter: 0 },
    ]);
  });
});

describe("computeReceipt: surplus, rejections, unordered lines, stock", () => {
  test("surplus: the part above outstanding; the share is spread over every good unit", () => {
    const r = compute(workedOrder([charge("30.00", "value")]), request([{ lineId: 1, quantity: 12 }]));
    // 15.00 over 12 units: 10 + 1.25 = 11.25
    assert.deepEqual(rows(r), [[1, 12, 2, 0, "10.00", "15.00", "11.25"]]);
    // available +12 (surplus too), incoming −10 (only what was outstanding); cost in the store currency
    assert.deepEqual(
      r.movements.map((m) => [
        m.inventoryItemId,
        m.locationId,
        m.availableDelta,
        m.incomingDelta,
        m.unitCost?.toFixed(2),
      ]),
      [[1001, 100, 12, -10, "11.25"]],
    );
  });

  test("rejected with replace: not in stock, still outstanding", () => {
    const r = compute(
      workedOrder([]),
      request([
        {
          lineId: 1,
          quantity: 6,
          rejected: [
            { quantity: 2, reason: "damaged" },
            { quantity: 1, reason: null },
          ],
        },
      ]),
    );
    assert.deepEqual(rows(r), [[1, 6, 0, 3, "10.00", "0.00", "10.00"]]);
    assert.equal(r.lines[0].cancelledAdded, 0);
    assert.deepEqual(r.lineChanges, [
      { lineId: 1, receivedDelta: 6, cancelledDelta: 0, receivedAfter: 6, cancelledAfter: 0 },
    ]);
    assert.deepEqual(
      r.movements.map((m) => [m.availableDelta, m.incomingDelta]),
      [[6, -6]],
    );
    assert.equal(r.statusAfter, "partial");
  });

  test("rejected with remove: cancelled, out of incoming, and the shares follow the expected units", () => {
    const r = compute(
      workedOrder([charge("30.00", "value")]),
      request([{ lineId: 1, quantity: 6, rejected: [{ quantity: 3, reason: "damaged" }] }], {
        rejectedDisposition: "remove",
      }),
    );
    // line 1 now expects 7 units: values 70 / 90 / 10 = 170; 30 × 70/170 = 12.3529… → 12.35
    // (largest remainder: 12.35 + 15.88 + 1.77 = 30.00); target(6 of 7) = 12.35 × 6/7 = 10.5857… → 10.59
    assert.deepEqual(rows(r), [[1, 6, 0, 3, "10.00", "10.59", "11.765"]]);
    assert.equal(r.lines[0].cancelledAdded, 3);
    assert.deepEqual(r.lineChanges, [
      { lineId: 1, receivedDelta: 6, cancelledDelta: 3, receivedAfter: 6, cancelledAfter: 3 },
    ]);
    // incoming −9: 6 received and 3 no longer expected
    assert.deepEqual(
      r.movements.map((m) => [m.availableDelta, m.incomingDelta]),
      [[6, -9]],
    );
  });

  test("remove cancels at most what is left outstanding", () => {
    const r = compute(
      workedOrder([]),
      request([{ lineId: 3, quantity: 2, rejected: [{ quantity: 4, reason: null }] }], {
        rejectedDisposition: "remove",
      }),
    );
    assert.equal(r.lines[0].rejectedQuantity, 4);
    assert.equal(r.lines[0].cancelledAdded, 0);
  });

  test("every unit of an order rejected and removed completes it", () => {
    const r = compute(
      { ...workedOrder([]), lines: [line({ id: 1, quantity: 2 })] },
      request([{ lineId: 1, quantity: 0, rejected: [{ quantity: 2, reason: null }] }], {
        rejectedDisposition: "remove",
      }),
    );
    assert.equal(r.statusAfter, "received");
  });

  test("unordered lines: fully received, no charges, landed = booked × rate", () => {
    const order = workedOrder([charge("30.00", "value")], "2");
    const r = compute(order, {
      ...request([{ lineId: 1, quantity: 1 }]),
      unordered: [{ quantity: 4, unitCost: b("2.5"), inventoryItemId: 5555, locationId: 300 }],
    });
    assert.deepEqual(
      r.lines.map((l) => [
        l.source.kind,
        l.lineId,
        l.quantity,
        l.surplusQuantity,
        formatMoney(l.allocatedChargeAmount, "USD"),
        l.landedUnitCost.toString(),
      ]),
      [
        ["line", 1, 1, 0, "1.50", "23"],
        ["unordered", null, 4, 0, "0.00", "5"],
      ],
    );
    // goes to the receipt's location unless routed; nothing incoming for it
    assert.deepEqual(
      r.movements.map((m) => [m.inventoryItemId, m.locationId, m.availableDelta, m.incomingDelta]),
      [
        [1001, 100, 1, -1],
        [5555, 100, 4, 0],
      ],
    );
  });

  test("route_to_destinations books each line at its own location; incoming comes off where it was", () => {
    const order: ReceiptOrder = {
      ...workedOrder([]),
      lines: [line({ id: 1, quantity: 5, location_id: 200 }), line({ id: 2, quantity: 5 })],
    };
    const routed = compute(
      order,
      request(
        [
          { lineId: 1, quantity: 5 },
          { lineId: 2, quantity: 5 },
        ],
        { routeToDestinations: true, locationId: 300 },
      ),
    );
    assert.deepEqual(
      routed.movements.map((m) => [m.inventoryItemId, m.locationId, m.availableDelta, m.incomingDelta]),
      [
        [1001, 200, 5, -5],
        [1002, 300, 5, 0],
        [1002, 100, 0, -5],
      ],
    );
    const plain = compute(order, request([{ lineId: 1, quantity: 5 }], { locationId: 300 }));
    assert.deepEqual(
      plain.movements.map((m) => [m.inventoryItemId, m.locationId, m.availableDelta, m.incomingDelta]),
      [
        [1001, 300, 5, 0],
        [1001, 200, 0, -5],
      ],
    );
  });

  test("an order that does not update stock, and lines without an item, move nothing", () => {
    const noStock = compute(
      { ...workedOrder([]), updatesStock: false },
      request([{ lineId: 1, quantity: 5 }]),
    );
    assert.deepEqual(noStock.movements, []);
    const custom = compute(
      { ...workedOrder([]), lines: [line({ id: 1, quantity: 5, inventory_item_id: null })] },
      request([{ lineId: 1, quantity: 5 }]),
    );
    assert.deepEqual(custom.movements, []);
  });

  test("problems: unknown line, nothing received", () => {
    const problems = new DetailCollector();
    computeReceipt(
      workedOrder([]),
      request([
        { lineId: 1, quantity: 1 },
        { lineId: 99, quantity: 1 },
      ]),
      problems,
    );
    assert.deepEqual(problems.details, [
      { field: "lines.1.line_id", code: "not_found", message: "is not a line of this purchase order" },
    ]);
    const empty = new DetailCollector();
    computeReceipt(workedOrder([]), request([{ lineId: 1, quantity: 0 }]), empty);
    assert.deepEqual(
      empty.details.map((d) => [d.field, d.code]),
      [["lines", "nothing_received"]],
    );
  });

  test("status after a receipt", () => {
    const l = (quantity: number, received: number, cancelled = 0) => ({
      quantity,
      received_quantity: received,
      cancelled_quantity: cancelled,
    });
    assert.equal(statusAfterReceipt("ordered", [l(5, 0), l(5, 0)]), "ordered");
    assert.equal(statusAfterReceipt("in_transit", [l(5, 0), l(5, 0)]), "in_transit");
    assert.equal(statusAfterReceipt("in_transit", [l(5, 1), l(5, 0)]), "partial");
    assert.equal(statusAfterReceipt("partial", [l(5, 5), l(5, 2, 3)]), "received");
    assert.equal(statusAfterReceipt("partial", [l(5, 7), l(5, 5)]), "received");
    assert.equal(unitCostAfterDiscount("20.00", "10").toString(), "18");
    assert.equal(unitCostAfterDiscount("0.33333333", "33.3333").toFixed(8), "0.22222233");
  });
});

// ---------------------------------------------------------------------------------------------------
// Properties

const methodArb = fc.constantFrom<AllocationMethod>("value", "quantity", "weight", "custom", "none");

const orderArb = fc
  .record({
    currency: fc.constantFrom("USD", "JPY", "KWD"),
    lines: fc.array(
      fc.record({
        quantity: fc.integer({ min: 1, max: 12 }),
        cents: fc.integer({ min: 0, max: 100_000 }),
        discount: fc.option(fc.integer({ min: 0, max: 100 }), { nil: null }),
        weight: fc.integer({ min: 0, max: 5000 }),
      }),
      { minLength: 1, maxLength: 5 },
    ),
    charges: fc.array(
      fc.record({
        units: fc.integer({ min: 0, max: 100_000 }),
        method: methodArb,
        seed: fc.array(fc.nat(10), { minLength: 5, maxLength: 5 }),
      }),
      { maxLength: 3 },
    ),
  })
  .map(({ currency, lines, charges }) => {
    const places = currency === "JPY" ? 0 : currency === "KWD" ? 3 : 2;
    const orderLines = lines.map((l, i) =>
      line({
        id: i + 1,
        quantity: l.quantity,
        unit_cost: new Big(l.cents).div(100).toString(),
        discount_percent: l.discount === null ? null : String(l.discount),
        weight_grams: l.weight,
      }),
    );
    const orderCharges = charges.map((c) => {
      const amount = new Big(`${c.units}e-${places}`);
      let split: { position: number; amount: Big }[] | null = null;
      if (c.method === "custom") {
        // a split of the amount over the positions by the seed's weights (sums exactly)
        const weights = orderLines.map((_, i) => c.seed[i % c.seed.length]);
        const sum = weights.reduce((a, w) => a + w, 0) || 1;
        let left = c.units;
        split = orderLines.map((l, i) => {
          const part = i === orderLines.length - 1 ? left : Math.floor((c.units * weights[i]) / sum);
          left -= part;
          return { position: l.position, amount: new Big(`${part}e-${places}`) };
        });
      }
      return { amountInOrderCurrency: amount, method: c.method, customSplit: split };
    });
    const allocatable = orderCharges
      .filter((c) => c.method !== "none")
      .reduce((s, c) => s.plus(c.amountInOrderCurrency), new Big(0));
    const order: ReceiptOrder = {
      status: "ordered",
      currency,
      exchangeRate: b("1.1"),
      locationId: 1,
      updatesStock: true,
      lines: orderLines,
      charges: orderCharges,
    };
    return { order, allocatable };
  });

/** A plan of receipts: each step takes a fraction of each line's outstanding units (or some surplus). */
const planArb = fc.array(
  fc.array(
    fc.record({
      pick: fc.boolean(),
      part: fc.integer({ min: 0, max: 100 }),
      surplus: fc.integer({ min: 0, max: 2 }),
      rejected: fc.integer({ min: 0, max: 3 }),
    }),
    {
      minLength: 5,
      maxLength: 5,
    },
  ),
  { maxLength: 6 },
);

function runPlan(
  order: ReceiptOrder,
  plan: { pick: boolean; part: number; surplus: number; rejected: number }[][],
  disposition: "replace" | "remove",
) {
  const receipts: ComputedReceipt[] = [];
  const step = (entries: ReceiptLineRequest[]) => {
    const problems = new DetailCollector();
    const r = computeReceipt(order, request(entries, { rejectedDisposition: disposition }), problems);
    if (!problems.empty) return;
    receipts.push(r);
    order = apply(order, r);
  };
  for (const stepPlan of plan) {
    const entries: ReceiptLineRequest[] = [];
    order.lines.forEach((l, i) => {
      const p = stepPlan[i % stepPlan.length];
      if (!p.pick) return;
      const out = Math.max(0, l.quantity - l.received_quantity - l.cancelled_quantity);
      const good = Math.floor((out * p.part) / 100) + (out === 0 ? p.surplus : 0);
      const rejected = p.rejected > 0 ? [{ quantity: p.rejected, reason: null }] : [];
      entries.push({ lineId: l.id, quantity: good, rejected, unitCost: null });
    });
    step(entries);
  }
  // Then a final receipt takes whatever is still outstanding.
  const rest = order.lines
    .map((l) => ({ l, out: Math.max(0, l.quantity - l.received_quantity - l.cancelled_quantity) }))
    .filter((x) => x.out > 0)
    .map((x) => ({ lineId: x.l.id, quantity: x.out, rejected: [], unitCost: null }));
  if (rest.length > 0) step(rest);
  return { order, receipts };
}

describe("allocation properties", () => {
  test("any sequence of partial receipts (surplus, replaced rejects, no cancellations) allocates each line exactly its share, never a negative part", () => {
    fc.assert(
      fc.property(orderArb, planArb, ({ order, allocatable }, plan) => {
        const shares = staticShares(order);
        const { order: done, receipts } = runPlan(order, plan, "replace");
        assert.equal(done.status, "received");
        const allocated = receipts.flatMap((r) => r.lines.map((l) => l.allocatedChargeAmount));
        for (const a of allocated) assert.ok(a.gte(0), `negative part ${a}`);
        const total = allocated.reduce((s, a) => s.plus(a), new Big(0));
        assert.equal(total.toString(), allocatable.toString());
        for (const [i, l] of done.lines.entries()) assert.equal(l.allocated.toString(), shares[i].toString());
        // landed costs are never below the booked cost when charges are not negative
        for (const r of receipts)
          for (const l of r.lines)
            if (l.quantity > 0) assert.ok(l.landedUnitCost.gte(l.unitCost.times("1.1").round(8, 0)));
      }),
      { numRuns: 300 },
    );
  });

  test("with removed rejects (cancellations on the way) a complete order still holds exactly the allocatable charges", () => {
    fc.assert(
      fc.property(orderArb, planArb, ({ order, allocatable }, plan) => {
        const { order: done, receipts } = runPlan(order, plan, "remove");
        assert.equal(done.status, "received");
        const total = receipts
          .flatMap((r) => r.lines)
          .reduce((s, l) => s.plus(l.allocatedChargeAmount), new Big(0));
        assert.equal(total.toString(), allocatable.toString());
        done.lines.forEach((l) => {
          assert.ok(l.received_quantity + l.cancelled_quantity >= l.quantity);
          assert.ok(l.cancelled_quantity <= l.quantity);
        });
      }),
      { numRuns: 300 },
    );
  });
});

describe("an order without charges", () => {
  test("books what the full allocation rules book with a zero charge: nothing allocated, landed = booked × rate", () => {
    const seen = (receipts: ComputedReceipt[]) =>
      receipts.map((r) =>
        r.lines.map((l) => [l.lineId, l.allocatedChargeAmount.toString(), l.landedUnitCost.toString()]),
      );
    fc.assert(
      fc.property(orderArb, planArb, fc.constantFrom("replace", "remove"), ({ order }, plan, disposition) => {
        const without = runPlan({ ...order, charges: [] }, plan, disposition);
        const zero = runPlan({ ...order, charges: [charge("0", "value")] }, plan, disposition);
        assert.deepEqual(seen(without.receipts), seen(zero.receipts));
        for (const r of without.receipts)
          for (const l of r.lines) assert.equal(l.allocatedChargeAmount.toString(), "0");
      }),
      { numRuns: 200 },
    );
  });
});

describe("a movement's unit cost", () => {
  test("is the landed cost of its item's good units, weighted, at 8 places (one line: that line's landed cost)", () => {
    fc.assert(
      fc.property(orderArb, planArb, fc.boolean(), ({ order }, plan, twice) => {
        // Half the orders have two lines of one item, so the weighted path runs too.
        const lines =
          twice && order.lines.length > 1
            ? order.lines.map((l, i) =>
                i === 1 ? { ...l, inventory_item_id: order.lines[0].inventory_item_id } : l,
              )
            : order.lines;
        for (const r of runPlan({ ...order, lines }, plan, "replace").receipts) {
          for (const m of r.movements) {
            const good = r.lines.filter((l) => l.inventoryItemId === m.inventoryItemId && l.quantity > 0);
            if (m.availableDelta <= 0 || good.length === 0) continue;
            const units = good.reduce((s, l) => s + l.quantity, 0);
            const value = good.reduce((s, l) => s.plus(l.landedUnitCost.times(l.quantity)), new Big(0));
            assert.equal(m.unitCost?.toString(), divideRoundHalfUp(value, new Big(units), 8).toString());
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});

/** Each line's share of the charges with nothing cancelled (what a complete line must hold). */
function staticShares(order: ReceiptOrder): Big[] {
  const r = compute(order, request(order.lines.map((l) => ({ lineId: l.id, quantity: l.quantity }))));
  return r.lines.map((l) => l.allocatedChargeAmount);
}
