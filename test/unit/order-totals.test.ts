import assert from "node:assert/strict";
import { describe, test } from "node:test";
import Big from "big.js";
import fc from "fast-check";
import { minorUnits, sumMoney } from "../../src/domain/money.ts";
import {
  computeOrderTotals,
  formatOrderTotals,
  lineTotal,
  type OrderChargeMoneyInput,
  type OrderLineMoneyInput,
  type OrderMoneyInput,
  taxOn,
} from "../../src/domain/order-totals.ts";

const b = (s: string) => new Big(s);
const fixed = (xs: Big[]) => xs.map((x) => x.toFixed());

/*
 * The USD order used by several examples, computed by hand:
 *   A: 3 × 19.99 less 10%   = 59.97 × 0.9 = 53.973  → 53.97, taxable at the order's 10%
 *   B: 2 × 5.125            = 10.25                 → 10.25, taxable at its own 20%
 *   C: 1 × 7.50             = 7.50, not taxable
 *   shipping: EUR 10.00 × 1.0825 = 10.825 → 10.83 USD
 *   subtotal = 53.97 + 10.25 + 7.50 = 71.72
 */
const usdLines: OrderLineMoneyInput[] = [
  { quantity: 3, unitCost: b("19.99"), discountPercent: b("10"), taxable: true, taxRatePercent: null },
  { quantity: 2, unitCost: b("5.125"), discountPercent: null, taxable: true, taxRatePercent: b("20") },
  { quantity: 1, unitCost: b("7.50"), discountPercent: null, taxable: false, taxRatePercent: null },
];
const eurShipping: OrderChargeMoneyInput = {
  amount: b("10.00"),
  currency: "EUR",
  rateToOrderCurrency: b("1.0825"),
};

const usdOrder = (over: Partial<OrderMoneyInput>): OrderMoneyInput => ({
  currency: "USD",
  taxesIncluded: false,
  chargesTaxable: true,
  orderTaxRatePercent: "10",
  lines: usdLines,
  charges: [eurShipping],
  ...over,
});

describe("lineTotal", () => {
  test("quantity × unit cost less discount, rounded half-up to the currency", () => {
    assert.equal(lineTotal(3, b("19.99"), b("10"), "USD").toFixed(2), "53.97");
    assert.equal(lineTotal(2, b("5.125"), null, "USD").toFixed(2), "10.25");
    assert.equal(lineTotal(1, b("0.005"), null, "USD").toFixed(2), "0.01");
    assert.equal(lineTotal(1, b("0.00499999"), null, "USD").toFixed(2), "0.00");
    assert.equal(lineTotal(3, b("0.12345678"), b("12.5"), "USD").toFixed(2), "0.32");
    assert.equal(lineTotal(4, b("10"), b("100"), "USD").toFixed(2), "0.00");
    assert.equal(lineTotal(0, b("10"), null, "USD").toFixed(2), "0.00");
    assert.equal(lineTotal(3, b("333"), b("5"), "JPY").toFixed(), "949");
    assert.equal(lineTotal(7, b("1.2345"), b("2.5"), "KWD").toFixed(3), "8.425");
  });

  test("refuses a fractional quantity", () => {
    assert.throws(() => lineTotal(1.5, b("1"), null, "USD"), RangeError);
  });
});

describe("taxOn", () => {
  test("excluded: amount × r / 100; included: amount × r / (100 + r)", () => {
    assert.equal(taxOn(b("53.97"), b("10"), false, "USD").toFixed(2), "5.40");
    assert.equal(taxOn(b("53.97"), b("10"), true, "USD").toFixed(2), "4.91");
    assert.equal(taxOn(b("110.00"), b("10"), true, "USD").toFixed(2), "10.00");
    assert.equal(taxOn(b("10.25"), b("20"), true, "USD").toFixed(2), "1.71");
    assert.equal(taxOn(b("100"), b("0"), true, "USD").toFixed(2), "0.00");
    assert.equal(taxOn(b("1"), b("8.875"), false, "USD").toFixed(2), "0.09");
  });
});

describe("computeOrderTotals worked examples", () => {
  test("USD, taxes excluded, two rates, a discount, a taxable EUR charge", () => {
    const t = computeOrderTotals(usdOrder({}));
    assert.deepEqual(fixed(t.lines.map((l) => l.lineTotal)), ["53.97", "10.25", "7.5"]);
    // 53.97 × 10% = 5.397 → 5.40; 10.25 × 20% = 2.05; C not taxable.
    assert.deepEqual(fixed(t.lines.map((l) => l.taxAmount)), ["5.4", "2.05", "0"]);
    assert.equal(t.charges[0].amountInOrderCurrency.toFixed(2), "10.83");
    // Charges are taxed at the order's rate: 10.83 × 10% = 1.083 → 1.08.
    assert.equal(t.charges[0].taxAmount.toFixed(2), "1.08");
    assert.deepEqual(formatOrderTotals(t, "USD"), {
      currency: "USD",
      subtotal: "71.72",
      charges: "10.83",
      tax: "8.53", // 5.40 + 2.05 + 1.08
      total: "91.08", // 71.72 + 10.83 + 8.53
    });
  });

  test("USD, taxes included: tax extracted, total = subtotal + charges", () => {
    const t = computeOrderTotals(usdOrder({ taxesIncluded: true }));
    // 53.97 × 10/110 = 4.906… → 4.91; 10.25 × 20/120 = 1.708… → 1.71; 10.83 × 10/110 = 0.984… → 0.98.
    assert.deepEqual(fixed(t.lines.map((l) => l.taxAmount)), ["4.91", "1.71", "0"]);
    assert.equal(t.charges[0].taxAmount.toFixed(2), "0.98");
    assert.deepEqual(formatOrderTotals(t, "USD"), {
      currency: "USD",
      subtotal: "71.72",
      charges: "10.83",
      tax: "7.60",
      total: "82.55",
    });
  });

  test("charges not taxable: the charge carries no tax", () => {
    const t = computeOrderTotals(usdOrder({ chargesTaxable: false }));
    assert.equal(t.charges[0].taxAmount.toFixed(2), "0.00");
    assert.deepEqual(formatOrderTotals(t, "USD"), {
      currency: "USD",
      subtotal: "71.72",
      charges: "10.83",
      tax: "7.45",
      total: "90.00",
    });
  });

  test("a charge's own rate overrides the order's", () => {
    const t = computeOrderTotals(usdOrder({ charges: [{ ...eurShipping, taxRatePercent: b("5") }] }));
    // 10.83 × 5% = 0.5415 → 0.54
    assert.equal(t.charges[0].taxAmount.toFixed(2), "0.54");
  });

  test("no order rate: lines without their own rate are untaxed", () => {
    const t = computeOrderTotals(usdOrder({ orderTaxRatePercent: null }));
    assert.deepEqual(fixed(t.lines.map((l) => l.taxAmount)), ["0", "2.05", "0"]);
    assert.equal(t.charges[0].taxAmount.toFixed(2), "0.00");
    assert.equal(formatOrderTotals(t, "USD").total, "84.60"); // 71.72 + 10.83 + 2.05
  });

  test("the order rate may be given as a Big", () => {
    const t = computeOrderTotals(usdOrder({ orderTaxRatePercent: b("10") }));
    assert.equal(formatOrderTotals(t, "USD").tax, "8.53");
  });

  test("JPY has no minor units: every amount rounds to whole yen", () => {
    const t = computeOrderTotals({
      currency: "JPY",
      taxesIncluded: false,
      chargesTaxable: true,
      orderTaxRatePercent: "10",
      lines: [
        // 3 × 333 less 5% = 949.05 → 949; tax 94.9 → 95
        { quantity: 3, unitCost: b("333"), discountPercent: b("5"), taxable: true, taxRatePercent: null },
        // 1 × 150.5 = 150.5 → 151; tax 15.1 → 15
        { quantity: 1, unitCost: b("150.5"), discountPercent: null, taxable: true, taxRatePercent: null },
      ],
      // USD 12.34 × 151.237 = 1866.26458 → 1866; tax 186.6 → 187
      charges: [{ amount: b("12.34"), currency: "USD", rateToOrderCurrency: b("151.237") }],
    });
    assert.deepEqual(fixed(t.lines.map((l) => l.lineTotal)), ["949", "151"]);
    assert.deepEqual(fixed(t.lines.map((l) => l.taxAmount)), ["95", "15"]);
    assert.deepEqual(formatOrderTotals(t, "JPY"), {
      currency: "JPY",
      subtotal: "1100",
      charges: "1866",
      tax: "297",
      total: "3263",
    });
  });

  test("KWD has three minor units (taxes included at 5%)", () => {
    const t = computeOrderTotals({
      currency: "KWD",
      taxesIncluded: true,
      chargesTaxable: true,
      orderTaxRatePercent: "5",
      lines: [
        // 7 × 1.2345 less 2.5% = 8.4254625 → 8.425; tax 8.425 × 5/105 = 0.40119… → 0.401
        {
          quantity: 7,
          unitCost: b("1.2345"),
          discountPercent: b("2.5"),
          taxable: true,
          taxRatePercent: null,
        },
        // 2 × 0.0005 = 0.001; tax 0.0000476… → 0.000
        { quantity: 2, unitCost: b("0.0005"), discountPercent: null, taxable: true, taxRatePercent: null },
      ],
      // 2.5 × 5/105 = 0.11904… → 0.119
      charges: [{ amount: b("2.5"), currency: "KWD", rateToOrderCurrency: b("1") }],
    });
    assert.deepEqual(fixed(t.lines.map((l) => l.taxAmount)), ["0.401", "0"]);
    assert.deepEqual(formatOrderTotals(t, "KWD"), {
      currency: "KWD",
      subtotal: "8.426",
      charges: "2.500",
      tax: "0.520",
      total: "10.926",
    });
  });

  test("an empty order is all zeros", () => {
    const t = computeOrderTotals(usdOrder({ lines: [], charges: [] }));
    assert.deepEqual(formatOrderTotals(t, "USD"), {
      currency: "USD",
      subtotal: "0.00",
      charges: "0.00",
      tax: "0.00",
      total: "0.00",
    });
  });
});

describe("computeOrderTotals properties", () => {
  const unitCost = fc
    .tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 0, max: 8 }))
    .map(([u, p]) => new Big(`${u}e-${p}`));
  const percent = fc.integer({ min: 0, max: 10000 }).map((h) => new Big(`${h}e-2`)); // 0.00 … 100.00
  const rate = fc.option(
    fc.integer({ min: 0, max: 3000 }).map((h) => new Big(`${h}e-2`)),
    { nil: null },
  );
  const line: fc.Arbitrary<OrderLineMoneyInput> = fc.record({
    quantity: fc.integer({ min: 0, max: 100000 }),
    unitCost,
    discountPercent: fc.option(percent, { nil: null }),
    taxable: fc.boolean(),
    taxRatePercent: rate,
  });
  const charge: fc.Arbitrary<OrderChargeMoneyInput> = fc.record({
    amount: fc.integer({ min: 0, max: 10 ** 7 }).map((c) => new Big(`${c}e-2`)),
    currency: fc.constantFrom("USD", "EUR", "GBP"),
    rateToOrderCurrency: fc.integer({ min: 1, max: 10 ** 7 }).map((r) => new Big(`${r}e-4`)),
  });
  const order: fc.Arbitrary<OrderMoneyInput> = fc.record({
    currency: fc.constantFrom("USD", "JPY", "KWD"),
    taxesIncluded: fc.boolean(),
    chargesTaxable: fc.boolean(),
    orderTaxRatePercent: rate,
    lines: fc.array(line, { maxLength: 15 }),
    charges: fc.array(charge, { maxLength: 4 }),
  });

  const atMinorUnits = (x: Big, currency: string) => x.round(minorUnits(currency), 0).eq(x);

  test("subtotal is the sum of the rounded line totals; tax the sum of the parts; total adds up", () => {
    fc.assert(
      fc.property(order, (o) => {
        const t = computeOrderTotals(o);
        assert.ok(t.subtotal.eq(sumMoney(t.lines.map((l) => l.lineTotal))), "subtotal = Σ line totals");
        assert.ok(
          t.chargesTotal.eq(sumMoney(t.charges.map((c) => c.amountInOrderCurrency))),
          "charges = Σ charges",
        );
        const parts = [...t.lines.map((l) => l.taxAmount), ...t.charges.map((c) => c.taxAmount)];
        assert.ok(t.tax.eq(sumMoney(parts)), "tax = Σ tax parts");
        const expected = t.subtotal.plus(t.chargesTotal).plus(o.taxesIncluded ? 0 : t.tax);
        assert.ok(t.total.eq(expected), `total ${t.total} ≠ ${expected}`);
        for (const x of [t.subtotal, t.chargesTotal, t.tax, t.total, ...parts]) {
          assert.ok(atMinorUnits(x, o.currency), `${x.toFixed()} not at ${o.currency} minor units`);
        }
      }),
    );
  });

  test("each rounded amount is within half a minor unit of its exact value", () => {
    fc.assert(
      fc.property(order, (o) => {
        const t = computeOrderTotals(o);
        const half = new Big(`5e-${minorUnits(o.currency) + 1}`);
        const orderRate = o.orderTaxRatePercent === null ? new Big("0") : new Big(o.orderTaxRatePercent);
        o.lines.forEach((l, i) => {
          const exact = l.unitCost
            .times(l.quantity)
            .times(new Big("100").minus(l.discountPercent ?? 0))
            .div(100); // exact: dividing by 100 only shifts the point
          const { lineTotal: total, taxAmount } = t.lines[i];
          assert.ok(total.minus(exact).abs().lte(half), `line ${i}: ${total} vs ${exact}`);
          const r = l.taxRatePercent ?? orderRate;
          if (!l.taxable || r.eq(0)) {
            assert.ok(taxAmount.eq(0), `line ${i} should carry no tax`);
          } else {
            // tax ≈ total·r/(100+r) or total·r/100  ⇔  tax·D ≈ total·r within half·D
            const d = o.taxesIncluded ? new Big("100").plus(r) : new Big("100");
            assert.ok(
              taxAmount.times(d).minus(total.times(r)).abs().lte(half.times(d)),
              `line ${i} tax ${taxAmount}`,
            );
          }
          // Included tax is part of the line amount, so it can never exceed it.
          if (o.taxesIncluded) assert.ok(taxAmount.lte(total), `line ${i} tax above its amount`);
        });
        o.charges.forEach((c, i) => {
          const exact = c.amount.times(c.rateToOrderCurrency);
          assert.ok(t.charges[i].amountInOrderCurrency.minus(exact).abs().lte(half), `charge ${i}`);
          if (!o.chargesTaxable) assert.ok(t.charges[i].taxAmount.eq(0), `charge ${i} should carry no tax`);
        });
      }),
    );
  });
});
