import assert from "node:assert/strict";
import { describe, test } from "node:test";
import Big from "big.js";
import fc from "fast-check";
import { convertFromStoreCurrency } from "../../src/domain/purchase-orders/line-costs.ts";

/** A decimal string with exactly `places` places, from an integer count of units. */
const decimal = (minUnits: number, maxUnits: number, places: number) =>
  fc
    .integer({ min: minUnits, max: maxUnits })
    .map((n) => new Big(n).div(new Big(10).pow(places)).toFixed(places));

/** A variant's cost: below a unit cost's bound, up to 8 places. */
const costArb = fc.integer({ min: 0, max: 8 }).chain((p) => decimal(0, Number.MAX_SAFE_INTEGER, p));
/** An order's exchange rate: positive, up to 12 places, below 10^12 (what the order accepts). */
const rateArb = fc
  .integer({ min: 0, max: 12 })
  .chain((p) => decimal(1, Number.MAX_SAFE_INTEGER, p))
  .filter((r) => new Big(r).lt("1e12"));

const HALF_UNIT = new Big("0.000000005");

describe("a store-currency cost converted into the order currency", () => {
  test("is cost ÷ rate rounded half-up to 8 places, checked by multiplying back", () => {
    fc.assert(
      fc.property(costArb, rateArb, (cost, rate) => {
        const converted = convertFromStoreCurrency(new Big(cost), new Big(rate));
        assert.ok(converted.gte(0));
        assert.ok(converted.c.length - converted.e - 1 <= 8, `${converted} has more than 8 places`);
        // Half-up: converted − ½·10⁻⁸ ≤ cost ÷ rate < converted + ½·10⁻⁸, multiplied by the rate (> 0).
        const r = new Big(rate);
        assert.ok(
          converted.minus(HALF_UNIT).times(r).lte(cost),
          `${cost} / ${rate} → ${converted} is too high`,
        );
        assert.ok(converted.plus(HALF_UNIT).times(r).gt(cost), `${cost} / ${rate} → ${converted} is too low`);
      }),
      { numRuns: 2000 },
    );
  });

  test("at a rate of 1 is the cost itself", () => {
    fc.assert(
      fc.property(costArb, (cost) => {
        assert.ok(convertFromStoreCurrency(new Big(cost), new Big("1")).eq(cost));
      }),
    );
  });

  test("keeps the order of costs at one rate", () => {
    fc.assert(
      fc.property(costArb, costArb, rateArb, (a, b, rate) => {
        const [low, high] = new Big(a).lte(b) ? [a, b] : [b, a];
        const r = new Big(rate);
        assert.ok(convertFromStoreCurrency(new Big(low), r).lte(convertFromStoreCurrency(new Big(high), r)));
      }),
    );
  });

  test("rounds an exact half up, exactly", () => {
    assert.equal(convertFromStoreCurrency(new Big("12.00"), new Big("1.3")).toFixed(), "9.23076923");
    assert.equal(convertFromStoreCurrency(new Big("0.00000001"), new Big("2")).toFixed(), "0.00000001");
    assert.equal(convertFromStoreCurrency(new Big("0.00000001"), new Big("2.000000000001")).toFixed(), "0");
    assert.equal(convertFromStoreCurrency(new Big("0.3"), new Big("0.1")).toFixed(), "3");
  });
});
