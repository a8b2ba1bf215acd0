import assert from "node:assert/strict";
import { describe, test } from "node:test";
import Big from "big.js";
import fc from "fast-check";
import { allocateChargeOverLines } from "../../src/domain/landed-cost.ts";
import { minorUnits } from "../../src/domain/money.ts";
import { computeMoney, type MoneyCharge, type MoneyLine } from "../../src/domain/purchase-orders/totals.ts";

const CURRENCIES = ["USD", "EUR", "JPY", "KWD"] as const;

/** A decimal string with up to `places` places, from an integer count of units. */
const decimal = (maxUnits: number, places: number) =>
  fc.integer({ min: 0, max: maxUnits }).map((n) => new Big(n).div(new Big(10).pow(places)).toFixed(places));

const lineArb: fc.Arbitrary<MoneyLine> = fc.record({
  quantity: fc.integer({ min: 1, max: 5000 }),
  unit_cost: fc.integer({ min: 0, max: 8 }).chain((p) => decimal(10_000_000_000, p)),
  discount_percent: fc.option(decimal(10_000, 2), { nil: null }),
  taxable: fc.boolean(),
  tax_rate_id: fc.option(fc.constant(7), { nil: null }),
  tax_rate_percent: decimal(300_000, 4),
});

const chargeArb = (currency: string): fc.Arbitrary<MoneyCharge> =>
  fc.record({
    amount: decimal(10_000_000, minorUnits(currency)),
    currency: fc.constant(currency),
    rate_to_order_currency: fc.oneof(
      fc.constant("1"),
      decimal(10_000_000_000_000, 12).filter((r) => new Big(r).gt(0)),
    ),
  });

/** Exact reference: round half-up of q × u × (100 − d) / 100 with BigInt arithmetic. */
function referenceLineTotal(line: MoneyLine, currency: string): Big {
  const places = minorUnits(currency);
  const gross = new Big(line.unit_cost)
    .times(line.quantity)
    .times(new Big(100).minus(line.discount_percent ?? "0"));
  // gross / 100 rounded to `places`, half away from zero (all values are ≥ 0 here).
  return gross.div(100).round(places, 1);
}

describe("order totals never drift", () => {
  test("sum of rounded lines = subtotal; tax = sum of parts; total follows taxes_included", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CURRENCIES),
        fc.boolean(),
        fc.boolean(),
        fc.option(decimal(300_000, 4), { nil: null }),
        fc.array(lineArb, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 0, max: 4 }),
        (currency, taxesIncluded, chargesTaxable, orderRate, lines, chargeCount) => {
          const charges = fc.sample(chargeArb(currency), chargeCount);
          const money = computeMoney(
            {
              currency,
              taxes_included: taxesIncluded,
              charges_taxable: chargesTaxable,
              tax_rate_id: orderRate === null ? null : 1,
              tax_rate_percent: orderRate ?? "0",
            },
            lines,
            charges,
          );
          const places = minorUnits(currency);
          const subtotal = money.lines.reduce((s, l) => s.plus(l.line_total), new Big(0));
          assert.ok(subtotal.eq(money.order.subtotal));
          for (const [i, l] of money.lines.entries()) {
            assert.ok(
              new Big(l.line_total).eq(referenceLineTotal(lines[i], currency)),
              "line_total is exact",
            );
            assert.ok(new Big(l.line_total).eq(new Big(l.line_total).round(places, 0)), "minor units only");
            if (!lines[i].taxable) assert.ok(new Big(l.tax_amount).eq(0));
          }
          const chargesTotal = money.charges.reduce((s, c) => s.plus(c.amount_in_order_currency), new Big(0));
          assert.ok(chargesTotal.eq(money.order.charges_total));
          const tax = [...money.lines, ...money.charges].reduce((s, x) => s.plus(x.tax_amount), new Big(0));
          assert.ok(tax.eq(money.order.tax_total));
          if (!chargesTaxable) for (const c of money.charges) assert.ok(new Big(c.tax_amount).eq(0));
          const expected = taxesIncluded
            ? subtotal.plus(chargesTotal)
            : subtotal.plus(chargesTotal).plus(tax);
          assert.ok(expected.eq(money.order.total));
        },
      ),
      { numRuns: 300 },
    );
  });

  test("charge allocation parts sum to the whole, for every method", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CURRENCIES),
        fc.array(
          fc.record({
            quantity: fc.integer({ min: 0, max: 1000 }),
            value: fc.integer({ min: 0, max: 10_000_000 }),
            weight: fc.integer({ min: 0, max: 50_000 }),
          }),
          { minLength: 1, maxLength: 40 },
        ),
        fc.integer({ min: 0, max: 100_000_000 }),
        fc.constantFrom("value", "quantity", "weight" as const),
        (currency, rows, units, method) => {
          const places = minorUnits(currency);
          const amount = new Big(units).div(new Big(10).pow(places));
          const lines = rows.map((r, i) => ({
            position: i + 1,
            quantity: r.quantity,
            lineValue: new Big(r.value).div(100),
            weightGrams: r.weight,
          }));
          const parts = allocateChargeOverLines({ amountInOrderCurrency: amount, method }, lines, currency);
          assert.equal(parts.length, lines.length);
          assert.ok(parts.reduce((s, p) => s.plus(p), new Big(0)).eq(amount));
          for (const p of parts) assert.ok(p.gte(0));
        },
      ),
      { numRuns: 300 },
    );
  });
});
