import assert from "node:assert/strict";
import { describe, test } from "node:test";
import Big from "big.js";
import fc from "fast-check";
import {
  type AllocatableCharge,
  type AllocationLine,
  allocateChargeOverLines,
  allocateToReceiptLine,
  landedUnitCost,
  lineChargeShares,
  validateCustomSplit,
} from "../../src/domain/landed-cost.ts";
import {
  divideRoundHalfUp,
  formatMoney,
  formatUnitCost,
  minorUnits,
  sumMoney,
} from "../../src/domain/money.ts";

const b = (s: string) => new Big(s);
const money = (xs: Big[], currency = "USD") => xs.map((x) => formatMoney(x, currency));

/*
 *   position  quantity  value    weight/unit  weight × qty
 *   1         10        100.00   200 g        2000
 *   2          5         50.00     0 g           0
 *   3          1          0.00  1000 g        1000
 */
const lines: AllocationLine[] = [
  { position: 1, quantity: 10, lineValue: b("100.00"), weightGrams: 200 },
  { position: 2, quantity: 5, lineValue: b("50.00"), weightGrams: 0 },
  { position: 3, quantity: 1, lineValue: b("0.00"), weightGrams: 1000 },
];
const charge = (method: AllocatableCharge["method"], amount = "10.00"): AllocatableCharge => ({
  amountInOrderCurrency: b(amount),
  method,
});

describe("allocateChargeOverLines", () => {
  test("value: 100 : 50 : 0, the spare cent to the larger remainder (6.666… over 3.333…)", () => {
    assert.deepEqual(money(allocateChargeOverLines(charge("value"), lines, "USD")), ["6.67", "3.33", "0.00"]);
  });

  test("quantity: 10 : 5 : 1 = 6.25, 3.125, 0.625; equal remainders go to the lower index", () => {
    assert.deepEqual(money(allocateChargeOverLines(charge("quantity"), lines, "USD")), [
      "6.25",
      "3.13",
      "0.62",
    ]);
  });

  test("weight: weight_grams × quantity = 2000 : 0 : 1000", () => {
    assert.deepEqual(money(allocateChargeOverLines(charge("weight"), lines, "USD")), [
      "6.67",
      "0.00",
      "3.33",
    ]);
  });

  test("none: nothing allocated", () => {
    assert.deepEqual(money(allocateChargeOverLines(charge("none"), lines, "USD")), ["0.00", "0.00", "0.00"]);
  });

  test("custom: each line gets its split amount; lines left out get nothing", () => {
    const custom: AllocatableCharge = {
      ...charge("custom"),
      customSplit: [
        { position: 3, amount: b("3.00") },
        { position: 1, amount: b("7.00") },
      ],
    };
    assert.deepEqual(money(allocateChargeOverLines(custom, lines, "USD")), ["7.00", "0.00", "3.00"]);
  });

  test("custom split of a foreign charge: split amounts act as weights on the converted amount", () => {
    // EUR 10.00 split 5 + 5, converted to USD 10.83 → 5.415 each → 5.42 + 5.41.
    const custom: AllocatableCharge = {
      ...charge("custom", "10.83"),
      customSplit: [
        { position: 1, amount: b("5") },
        { position: 2, amount: b("5") },
      ],
    };
    assert.deepEqual(money(allocateChargeOverLines(custom, lines, "USD")), ["5.42", "5.41", "0.00"]);
  });

  test("custom split naming an unknown position throws", () => {
    const custom: AllocatableCharge = {
      ...charge("custom"),
      customSplit: [{ position: 9, amount: b("10") }],
    };
    assert.throws(() => allocateChargeOverLines(custom, lines, "USD"), RangeError);
  });

  test("value and weight fall back to quantity when every value or weight is zero", () => {
    const flat = lines.map((l) => ({ ...l, lineValue: b("0"), weightGrams: 0 }));
    const byQuantity = ["6.25", "3.13", "0.62"];
    assert.deepEqual(money(allocateChargeOverLines(charge("value"), flat, "USD")), byQuantity);
    assert.deepEqual(money(allocateChargeOverLines(charge("weight"), flat, "USD")), byQuantity);
  });

  test("every weight zero, quantities too: equal split", () => {
    const empty = lines.map((l) => ({ ...l, quantity: 0, lineValue: b("0") }));
    assert.deepEqual(money(allocateChargeOverLines(charge("quantity", "0.10"), empty, "USD")), [
      "0.04",
      "0.03",
      "0.03",
    ]);
  });

  test("JPY and KWD precision", () => {
    assert.deepEqual(money(allocateChargeOverLines(charge("quantity", "1000"), lines, "JPY"), "JPY"), [
      "625",
      "313",
      "62",
    ]);
    assert.deepEqual(money(allocateChargeOverLines(charge("value", "1.000"), lines, "KWD"), "KWD"), [
      "0.667",
      "0.333",
      "0.000",
    ]);
  });

  test("a negative charge (a credit) mirrors a positive one", () => {
    assert.deepEqual(money(allocateChargeOverLines(charge("value", "-10.00"), lines, "USD")), [
      "-6.67",
      "-3.33",
      "0.00",
    ]);
  });

  test("lineChargeShares sums the charges per line and ignores `none`", () => {
    const shares = lineChargeShares(
      [charge("value"), charge("weight"), charge("none", "99.00")],
      lines,
      "USD",
    );
    assert.deepEqual(money(shares), ["13.34", "3.33", "3.33"]);
    assert.equal(formatMoney(sumMoney(shares), "USD"), "20.00");
  });
});

describe("validateCustomSplit", () => {
  test("a split over known positions summing to the charge is valid", () => {
    const split = [
      { position: 1, amount: b("7.5") },
      { position: 3, amount: b("2.50") },
    ];
    assert.deepEqual(validateCustomSplit(split, b("10.00"), [1, 2, 3]), []);
  });

  test("reports unknown and repeated positions, negatives and a wrong sum", () => {
    const split = [
      { position: 1, amount: b("5") },
      { position: 1, amount: b("1") },
      { position: 7, amount: b("1") },
      { position: 2, amount: b("-1") },
    ];
    const problems = validateCustomSplit(split, b("10"), [1, 2, 3]);
    assert.deepEqual(
      problems.map((p) => [p.code, p.index]),
      [
        ["duplicate_position", 1],
        ["unknown_position", 2],
        ["must_not_be_negative", 3],
        ["split_mismatch", undefined],
      ],
    );
  });
});

describe("allocateToReceiptLine", () => {
  const base = { alreadyReceivedUnits: 0, alreadyAllocated: b("0"), currency: "USD" };

  test("a single receipt of the whole line takes the whole share", () => {
    const got = allocateToReceiptLine({ ...base, share: b("6.67"), lineQuantity: 10, receivingNowUnits: 10 });
    assert.equal(formatMoney(got, "USD"), "6.67");
  });

  test("partial receipts pro rata; the completing receipt takes exactly the rest", () => {
    // share 10.00 over 3 units: 1 unit → 3.33; then 2 more → 10.00 − 3.33 = 6.67.
    const first = allocateToReceiptLine({
      ...base,
      share: b("10.00"),
      lineQuantity: 3,
      receivingNowUnits: 1,
    });
    assert.equal(formatMoney(first, "USD"), "3.33");
    const second = allocateToReceiptLine({
      ...base,
      share: b("10.00"),
      lineQuantity: 3,
      alreadyReceivedUnits: 1,
      alreadyAllocated: first,
      receivingNowUnits: 2,
    });
    assert.equal(formatMoney(second, "USD"), "6.67");
  });

  test("rounding does not pile up over many small receipts (0.02 over 4 units, one at a time)", () => {
    const amounts: string[] = [];
    let allocated = b("0");
    for (let received = 0; received < 4; received++) {
      const now = allocateToReceiptLine({
        ...base,
        share: b("0.02"),
        lineQuantity: 4,
        alreadyReceivedUnits: received,
        alreadyAllocated: allocated,
        receivingNowUnits: 1,
      });
      amounts.push(formatMoney(now, "USD"));
      allocated = allocated.plus(now);
    }
    // Cumulative targets 0.005 → 0.01, 0.01, 0.015 → 0.02, 0.02.
    assert.deepEqual(amounts, ["0.01", "0.00", "0.01", "0.00"]);
  });

  test("surplus units earn no extra share", () => {
    const withSurplus = allocateToReceiptLine({
      ...base,
      share: b("10.00"),
      lineQuantity: 3,
      receivingNowUnits: 5,
    });
    assert.equal(formatMoney(withSurplus, "USD"), "10.00");
    const afterComplete = allocateToReceiptLine({
      ...base,
      share: b("10.00"),
      lineQuantity: 3,
      alreadyReceivedUnits: 3,
      alreadyAllocated: b("10.00"),
      receivingNowUnits: 2,
    });
    assert.equal(formatMoney(afterComplete, "USD"), "0.00");
  });

  test("a voided receipt's amount is picked up by the next one", () => {
    // Receipt 1 (1 of 3 units, 3.33) was voided, so nothing counts as received; receiving all 3 now.
    const got = allocateToReceiptLine({ ...base, share: b("10.00"), lineQuantity: 3, receivingNowUnits: 3 });
    assert.equal(formatMoney(got, "USD"), "10.00");
  });

  test("no units now (only rejected units on the line) allocates nothing", () => {
    const got = allocateToReceiptLine({
      ...base,
      share: b("10.00"),
      lineQuantity: 3,
      alreadyReceivedUnits: 1,
      alreadyAllocated: b("3.33"),
      receivingNowUnits: 0,
    });
    assert.equal(formatMoney(got, "USD"), "0.00");
  });

  test("a line with nothing left to expect gives any units received the whole share", () => {
    const got = allocateToReceiptLine({ ...base, share: b("4.00"), lineQuantity: 0, receivingNowUnits: 2 });
    assert.equal(formatMoney(got, "USD"), "4.00");
    const none = allocateToReceiptLine({ ...base, share: b("4.00"), lineQuantity: 0, receivingNowUnits: 0 });
    assert.equal(formatMoney(none, "USD"), "0.00");
  });

  test("JPY rounds to whole yen", () => {
    const got = allocateToReceiptLine({
      ...base,
      currency: "JPY",
      share: b("1000"),
      lineQuantity: 3,
      receivingNowUnits: 1,
    });
    assert.equal(formatMoney(got, "JPY"), "333");
  });

  test("refuses fractional or negative units", () => {
    assert.throws(
      () => allocateToReceiptLine({ ...base, share: b("1"), lineQuantity: 3, receivingNowUnits: 1.5 }),
      RangeError,
    );
    assert.throws(
      () => allocateToReceiptLine({ ...base, share: b("1"), lineQuantity: 3, receivingNowUnits: -1 }),
      RangeError,
    );
  });
});

describe("landedUnitCost", () => {
  test("(booked + allocated / units) × rate, rounded to 8 places", () => {
    // (2.50 + 10.83/3) × 1.35 = (2.50 + 3.61) × 1.35 = 8.2485
    const a = landedUnitCost({
      bookedUnitCost: b("2.50"),
      allocatedAmount: b("10.83"),
      units: 3,
      exchangeRate: b("1.35"),
    });
    assert.equal(formatUnitCost(a, "USD"), "8.2485");
    // (1.23456789 × 3 + 0.10) × 0.9 / 3 = 3.80370367 × 0.3 = 1.141111101 → 1.14111110
    const c = landedUnitCost({
      bookedUnitCost: b("1.23456789"),
      allocatedAmount: b("0.10"),
      units: 3,
      exchangeRate: b("0.9"),
    });
    assert.equal(c.toFixed(8), "1.14111110");
    assert.equal(formatUnitCost(c, "USD"), "1.1411111");
    // 1/3 of a cent per unit: (0 + 0.01/3) × 1 = 0.00333333…
    const d = landedUnitCost({
      bookedUnitCost: b("0"),
      allocatedAmount: b("0.01"),
      units: 3,
      exchangeRate: b("1"),
    });
    assert.equal(formatUnitCost(d, "USD"), "0.00333333");
  });

  test("into a store currency without minor units", () => {
    // (12.34 + 5.00/2) × 151.237 = 14.84 × 151.237 = 2244.35708
    const got = landedUnitCost({
      bookedUnitCost: b("12.34"),
      allocatedAmount: b("5.00"),
      units: 2,
      exchangeRate: b("151.237"),
    });
    assert.equal(formatUnitCost(got, "JPY"), "2244.35708");
  });

  test("zero units: booked cost × rate", () => {
    const got = landedUnitCost({
      bookedUnitCost: b("2.5"),
      allocatedAmount: b("3"),
      units: 0,
      exchangeRate: b("1.35"),
    });
    assert.equal(got.toFixed(), "3.375");
  });

  test("refuses negative or fractional units", () => {
    const input = { bookedUnitCost: b("1"), allocatedAmount: b("0"), exchangeRate: b("1") };
    assert.throws(() => landedUnitCost({ ...input, units: -1 }), RangeError);
    assert.throws(() => landedUnitCost({ ...input, units: 0.5 }), RangeError);
  });
});

describe("landed cost properties", () => {
  const currency = fc.constantFrom("USD", "JPY", "KWD");
  const orderLine = (minQuantity: number) =>
    fc.record({
      quantity: fc.integer({ min: minQuantity, max: 50 }),
      lineValue: fc.integer({ min: 0, max: 10 ** 6 }).map((c) => new Big(`${c}e-2`)),
      weightGrams: fc.integer({ min: 0, max: 5000 }),
    });
  const method = fc.constantFrom("value", "quantity", "weight", "none") as fc.Arbitrary<
    AllocatableCharge["method"]
  >;
  /** An order: lines, charges (custom ones with a split that sums to the charge) and the currency. */
  const orderWith = (minQuantity: number) =>
    currency.chain((cur) => {
      const places = minorUnits(cur);
      const amount = fc.integer({ min: 0, max: 10 ** 6 }).map((u) => new Big(`${u}e-${places}`));
      return fc.array(orderLine(minQuantity), { minLength: 1, maxLength: 8 }).chain((rawLines) => {
        const ls: AllocationLine[] = rawLines.map((l, i) => ({ ...l, position: i + 1 }));
        const simple = fc.record({ amountInOrderCurrency: amount, method });
        const custom = fc
          .array(fc.integer({ min: 0, max: 10 ** 5 }), { minLength: ls.length, maxLength: ls.length })
          .map((units) => ({
            amountInOrderCurrency: sumMoney(units.map((u) => new Big(`${u}e-${places}`))),
            method: "custom" as const,
            customSplit: units.map((u, i) => ({ position: i + 1, amount: new Big(`${u}e-${places}`) })),
          }));
        const charges = fc.array(fc.oneof(simple, custom), { maxLength: 4 });
        return fc.record({ currency: fc.constant(cur), lines: fc.constant(ls), charges });
      });
    });
  const order = orderWith(0);
  // Lines of an order are for at least one unit; a zero-quantity line is never received, so a share
  // given to it (custom split) is never allocated to a receipt.
  const receivableOrder = orderWith(1);

  test("charge shares sum exactly to each charge; custom splits are reproduced exactly", () => {
    fc.assert(
      fc.property(order, ({ currency: cur, lines: ls, charges }) => {
        for (const c of charges) {
          const parts = allocateChargeOverLines(c, ls, cur);
          assert.equal(parts.length, ls.length);
          const expected = c.method === "none" ? new Big("0") : c.amountInOrderCurrency;
          assert.ok(sumMoney(parts).eq(expected), `${c.method}: parts sum to ${sumMoney(parts)}`);
          if ("customSplit" in c) {
            // Same currency and a split summing to the charge: each line gets exactly its split amount.
            parts.forEach((p, i) => {
              assert.ok(p.eq(c.customSplit[i].amount), `line ${i}: ${p}`);
            });
          }
        }
      }),
    );
  });

  /** Splits `n` units into receipt chunks; the last may overshoot (surplus). */
  const chunksOf = (n: number) =>
    fc
      .array(fc.integer({ min: 1, max: Math.max(1, n) }), { minLength: 1, maxLength: 6 })
      .chain((sizes) => fc.integer({ min: 0, max: 3 }).map((surplus) => ({ sizes, surplus })))
      .map(({ sizes, surplus }) => {
        const chunks: number[] = [];
        let left = n;
        for (const s of sizes) {
          if (left <= 0) break;
          const take = Math.min(s, left);
          chunks.push(take);
          left -= take;
        }
        if (left > 0) chunks.push(left);
        if (chunks.length === 0) chunks.push(0);
        chunks[chunks.length - 1] += surplus;
        return chunks;
      });

  test("any sequence of partial receipts that completes every line allocates exactly the line shares", () => {
    // Each line's receipts as a list of unit counts. How receipts interleave across lines does not
    // matter: a receipt line's amount depends only on its own order line's history.
    const scenario = receivableOrder.chain((o) =>
      fc.tuple(...o.lines.map((l) => chunksOf(l.quantity))).map((perLine) => ({ ...o, perLine })),
    );
    fc.assert(
      fc.property(scenario, ({ currency: cur, lines: ls, charges, perLine }) => {
        const shares = lineChargeShares(charges, ls, cur);
        const unit = new Big(`1e-${minorUnits(cur)}`);
        let grand = new Big("0");
        ls.forEach((line, i) => {
          let received = 0;
          let allocated = new Big("0");
          for (const units of perLine[i]) {
            const now = allocateToReceiptLine({
              share: shares[i],
              lineQuantity: line.quantity,
              alreadyReceivedUnits: received,
              alreadyAllocated: allocated,
              receivingNowUnits: units,
              currency: cur,
            });
            // Cumulative allocation never moves against the share's sign, and stays within
            // half a unit of the exact pro-rata amount.
            assert.ok(shares[i].gte(0) ? now.gte(0) : now.lte(0), `line ${i}: step ${now}`);
            received += units;
            allocated = allocated.plus(now);
            // |allocated − share·r/Q| ≤ unit/2  ⇔  |allocated·Q − share·r| ≤ unit·Q/2  (exact, no division)
            const q = new Big(String(line.quantity));
            const exactTimesQ = shares[i].times(String(Math.min(received, line.quantity)));
            assert.ok(
              allocated.times(q).minus(exactTimesQ).abs().lte(unit.times(q).times("0.5")),
              `line ${i}: ${allocated} too far from pro rata`,
            );
          }
          assert.ok(allocated.eq(shares[i]), `line ${i}: ${allocated.toFixed()} ≠ ${shares[i].toFixed()}`);
          grand = grand.plus(allocated);
        });
        const allocatable = sumMoney(
          charges.filter((c) => c.method !== "none").map((c) => c.amountInOrderCurrency),
        );
        assert.ok(grand.eq(allocatable), `${grand} ≠ ${allocatable}`);
      }),
    );
  });

  test("with voids along the way, every receipt that leaves the line complete leaves exactly the share", () => {
    // A line's life as a list of steps: receive n units, or void one earlier live receipt.
    const step = fc.oneof(
      fc.record({ kind: fc.constant("receive" as const), units: fc.integer({ min: 0, max: 7 }) }),
      fc.record({ kind: fc.constant("void" as const), pick: fc.nat() }),
    );
    fc.assert(
      fc.property(
        currency,
        fc.integer({ min: 0, max: 10 ** 6 }),
        fc.integer({ min: 1, max: 20 }),
        fc.array(step, { maxLength: 12 }),
        (cur, shareUnits, quantity, steps) => {
          const share = new Big(`${shareUnits}e-${minorUnits(cur)}`);
          const live: { units: number; amount: Big }[] = [];
          const liveUnits = () => live.reduce((n, r) => n + r.units, 0);
          const receive = (units: number) => {
            const amount = allocateToReceiptLine({
              share,
              lineQuantity: quantity,
              alreadyReceivedUnits: liveUnits(),
              alreadyAllocated: sumMoney(live.map((r) => r.amount)),
              receivingNowUnits: units,
              currency: cur,
            });
            live.push({ units, amount });
            if (liveUnits() >= quantity) {
              assert.ok(sumMoney(live.map((r) => r.amount)).eq(share), "complete line holds its share");
            }
          };
          for (const s of steps) {
            if (s.kind === "receive") receive(s.units);
            else if (live.length > 0) live.splice(s.pick % live.length, 1);
          }
          // A void that leaves the line incomplete reopens it; the receipt completing it restores the share.
          if (liveUnits() < quantity) receive(quantity - liveUnits());
        },
      ),
    );
  });

  test("known limit: voiding the receipt that carried the share while surplus keeps the line complete", () => {
    // Line of 1 unit, share 5.00. Receipt A: 1 unit → 5.00. Receipt B: 1 surplus unit → 0.00.
    const line = { share: b("5.00"), lineQuantity: 1, currency: "USD" };
    const a = allocateToReceiptLine({
      ...line,
      alreadyReceivedUnits: 0,
      alreadyAllocated: b("0"),
      receivingNowUnits: 1,
    });
    const bAmount = allocateToReceiptLine({
      ...line,
      alreadyReceivedUnits: 1,
      alreadyAllocated: a,
      receivingNowUnits: 1,
    });
    assert.deepEqual(money([a, bAmount]), ["5.00", "0.00"]);
    // Voiding A leaves B (0.00) and a line still complete: nothing is allocated until another receipt on
    // the line, which then takes the whole share back.
    const c = allocateToReceiptLine({
      ...line,
      alreadyReceivedUnits: 1,
      alreadyAllocated: bAmount,
      receivingNowUnits: 0,
    });
    assert.equal(formatMoney(c, "USD"), "5.00");
  });

  test("landed unit cost × units recovers booked cost plus charges, within rounding", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 ** 9 }).map((u) => new Big(`${u}e-4`)),
        fc.integer({ min: 0, max: 10 ** 7 }).map((u) => new Big(`${u}e-2`)),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 10 ** 7 }).map((u) => new Big(`${u}e-5`)),
        (booked, allocated, units, rate) => {
          const landed = landedUnitCost({
            bookedUnitCost: booked,
            allocatedAmount: allocated,
            units,
            exchangeRate: rate,
          });
          assert.ok(landed.round(8, 0).eq(landed), `${landed} has more than 8 places`);
          const exactTotal = booked.times(units).plus(allocated).times(rate);
          // |landed − exact/units| ≤ 0.5e-8  ⇔  |landed·units − exact| ≤ 0.5e-8·units
          assert.ok(
            landed.times(units).minus(exactTotal).abs().lte(new Big("5e-9").times(units)),
            `${landed}`,
          );
        },
      ),
    );
  });
});

describe("landedUnitCost with nothing allocated", () => {
  test("is (booked × units) × rate / units rounded once, for any units", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 ** 9 }),
        fc.integer({ min: 1, max: 10 ** 6 }),
        fc.integer({ min: 1, max: 10 ** 7 }),
        (bookedUnits, units, rateUnits) => {
          const booked = new Big(`${bookedUnits}e-4`);
          const rate = new Big(`${rateUnits}e-6`);
          const general = divideRoundHalfUp(booked.times(units).times(rate), new Big(units), 8);
          const landed = landedUnitCost({
            bookedUnitCost: booked,
            allocatedAmount: b("0"),
            units,
            exchangeRate: rate,
          });
          assert.equal(landed.toString(), general.toString());
        },
      ),
    );
  });
});
