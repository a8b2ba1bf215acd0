import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { inspect } from "node:util";
import Big from "big.js";
import fc from "fast-check";
import {
  allocateLargestRemainder,
  divideRoundHalfUp,
  formatMoney,
  formatUnitCost,
  isKnownCurrency,
  minorUnits,
  parseDecimalInput,
  roundHalfUp,
  roundMoney,
  sumMoney,
} from "../../src/domain/money.ts";

const b = (s: string) => new Big(s);
const strings = (xs: Big[]) => xs.map((x) => x.toFixed());

/** A decimal with up to `maxPlaces` places built from an integer, so every digit pattern is reachable. */
const decimal = (maxPlaces: number, maxAbs = 10n ** 14n, min = -maxAbs) =>
  fc
    .tuple(fc.bigInt({ min, max: maxAbs }), fc.integer({ min: 0, max: maxPlaces }))
    .map(([units, places]) => new Big(`${units}e-${places}`));

describe("minorUnits / isKnownCurrency", () => {
  test("reads the minor units from Intl", () => {
    assert.equal(minorUnits("USD"), 2);
    assert.equal(minorUnits("EUR"), 2);
    assert.equal(minorUnits("JPY"), 0);
    assert.equal(minorUnits("KWD"), 3);
    assert.equal(minorUnits("BHD"), 3);
    assert.equal(minorUnits("usd"), 2);
  });

  test("a malformed code throws", () => {
    assert.throws(() => minorUnits("US"), RangeError);
  });

  test("only real codes spelled in uppercase are known", () => {
    assert.equal(isKnownCurrency("USD"), true);
    assert.equal(isKnownCurrency("KWD"), true);
    assert.equal(isKnownCurrency("usd"), false);
    assert.equal(isKnownCurrency("XYZ"), false);
    assert.equal(isKnownCurrency("USDD"), false);
    assert.equal(isKnownCurrency(""), false);
    assert.equal(isKnownCurrency(840), false);
    assert.equal(isKnownCurrency(null), false);
  });
});

describe("rounding", () => {
  test("half-up, with halves going away from zero", () => {
    assert.equal(roundHalfUp(b("1.005"), 2).toFixed(), "1.01");
    assert.equal(roundHalfUp(b("1.00499999"), 2).toFixed(), "1");
    assert.equal(roundHalfUp(b("-1.005"), 2).toFixed(), "-1.01");
    assert.equal(roundHalfUp(b("2.5"), 0).toFixed(), "3");
    assert.equal(roundHalfUp(b("0.123456785"), 8).toFixed(), "0.12345679");
  });

  test("a negative value rounding to zero is plain zero", () => {
    const z = roundHalfUp(b("-0.001"), 2);
    assert.equal(z.toFixed(2), "0.00");
    assert.equal(z.s, 1);
  });

  test("roundMoney uses the currency's minor units", () => {
    assert.equal(roundMoney(b("749.5"), "JPY").toFixed(), "750");
    assert.equal(roundMoney(b("1.2345"), "KWD").toFixed(), "1.235");
    assert.equal(roundMoney(b("10.825"), "USD").toFixed(), "10.83");
  });

  test("divideRoundHalfUp is exact where Big#div would round twice", () => {
    assert.equal(divideRoundHalfUp(b("10"), b("3"), 2).toFixed(), "3.33");
    assert.equal(divideRoundHalfUp(b("2"), b("3"), 2).toFixed(), "0.67");
    assert.equal(divideRoundHalfUp(b("-2"), b("3"), 2).toFixed(), "-0.67");
    assert.equal(divideRoundHalfUp(b("2"), b("-3"), 2).toFixed(), "-0.67");
    assert.equal(divideRoundHalfUp(b("1"), b("8"), 2).toFixed(), "0.13");
    assert.equal(divideRoundHalfUp(b("1"), b("3"), 30).toFixed(), "0." + "3".repeat(30));
    assert.equal(divideRoundHalfUp(b("1200"), b("0.03"), 0).toFixed(), "40000");
    // Big#div stops at Big.DP = 20 places (rounding up to ...500), then 2-place rounding would give 0.01.
    assert.equal(divideRoundHalfUp(b("0.00499999999999999999999999"), b("1"), 2).toFixed(), "0");
    assert.throws(() => divideRoundHalfUp(b("1"), b("0"), 2), RangeError);
  });

  test("property: divideRoundHalfUp is within half a unit and matches multiplication back", () => {
    fc.assert(
      fc.property(
        decimal(6),
        decimal(6).filter((d) => !d.eq(0)),
        fc.integer({ min: 0, max: 8 }),
        (n, d, p) => {
          const q = divideRoundHalfUp(n, d, p);
          const halfUnit = b(`5e-${p + 1}`);
          // |q − n/d| ≤ half a unit  ⇔  |q·d − n| ≤ half a unit · |d|
          assert.ok(q.times(d).minus(n).abs().lte(halfUnit.times(d.abs())), `${n}/${d} → ${q}`);
        },
      ),
    );
  });

  test("sumMoney adds exactly", () => {
    assert.equal(sumMoney([b("0.1"), b("0.2"), b("-0.3")]).toFixed(), "0");
    assert.equal(sumMoney([]).toFixed(), "0");
  });
});

describe("formatting", () => {
  test("formatMoney prints exactly the minor units", () => {
    assert.equal(formatMoney(b("7.5"), "USD"), "7.50");
    assert.equal(formatMoney(b("750"), "JPY"), "750");
    assert.equal(formatMoney(b("749.5"), "JPY"), "750");
    assert.equal(formatMoney(b("1.5"), "KWD"), "1.500");
    assert.equal(formatMoney(b("1234567.891"), "USD"), "1234567.89");
    assert.equal(formatMoney(b("-12.345"), "USD"), "-12.35");
    assert.equal(formatMoney(b("-0.001"), "USD"), "0.00");
    assert.equal(formatMoney(b("1e21"), "USD"), "1000000000000000000000.00");
  });

  test("formatUnitCost keeps the minor units, at most 8 places, trims the rest", () => {
    assert.equal(formatUnitCost(b("1.25"), "USD"), "1.25");
    assert.equal(formatUnitCost(b("0.12345678"), "USD"), "0.12345678");
    assert.equal(formatUnitCost(b("0.123456785"), "USD"), "0.12345679");
    assert.equal(formatUnitCost(b("3.1"), "USD"), "3.10");
    assert.equal(formatUnitCost(b("3"), "USD"), "3.00");
    assert.equal(formatUnitCost(b("3.12300"), "USD"), "3.123");
    assert.equal(formatUnitCost(b("5"), "JPY"), "5");
    assert.equal(formatUnitCost(b("5.5"), "JPY"), "5.5");
    assert.equal(formatUnitCost(b("5.000000001"), "JPY"), "5");
    assert.equal(formatUnitCost(b("2"), "KWD"), "2.000");
    assert.equal(formatUnitCost(b("2.0001"), "KWD"), "2.0001");
    assert.equal(formatUnitCost(b("-0.5"), "USD"), "-0.50");
    assert.equal(formatUnitCost(b("-0.000000001"), "USD"), "0.00");
  });

  test("property: formatMoney then parse gives back an amount already at minor units", () => {
    const currencies = fc.constantFrom("USD", "JPY", "KWD", "EUR", "BHD", "CLP");
    fc.assert(
      fc.property(currencies, decimal(3), (currency, raw) => {
        const amount = roundMoney(raw, currency);
        const text = formatMoney(amount, currency);
        const places = minorUnits(currency);
        assert.match(text, places === 0 ? /^-?\d+$/ : new RegExp(`^-?\\d+\\.\\d{${places}}$`));
        const parsed = parseDecimalInput(text, { allowNegative: true, maxPlaces: places });
        assert.ok(parsed.ok, text);
        assert.ok(parsed.value.eq(amount), `${text} vs ${amount.toFixed()}`);
        assert.equal(formatMoney(parsed.value, currency), text);
      }),
    );
  });

  test("property: formatUnitCost then parse round-trips any unit cost of up to 8 places", () => {
    const currencies = fc.constantFrom("USD", "JPY", "KWD");
    fc.assert(
      fc.property(currencies, decimal(8, 10n ** 12n, 0n), (currency, cost) => {
        const text = formatUnitCost(cost, currency);
        const places = text.includes(".") ? text.length - text.indexOf(".") - 1 : 0;
        assert.ok(places >= minorUnits(currency) && places <= 8, text);
        const parsed = parseDecimalInput(text);
        assert.ok(parsed.ok, text);
        assert.ok(parsed.value.eq(cost), `${text} vs ${cost.toFixed()}`);
      }),
    );
  });
});

describe("parseDecimalInput", () => {
  const ok = (value: unknown, opts = {}) => {
    const r = parseDecimalInput(value, opts);
    assert.ok(r.ok, `expected ${inspect(value)} to parse`);
    return r.value.toFixed();
  };
  const code = (value: unknown, opts = {}) => {
    const r = parseDecimalInput(value, opts);
    assert.ok(!r.ok, `expected ${inspect(value)} to be refused`);
    assert.ok(r.message.length > 0, "a message is given");
    return r.code;
  };

  test("accepts JSON numbers and plain decimal strings", () => {
    assert.equal(ok(12.5), "12.5");
    assert.equal(ok("12.50"), "12.5");
    assert.equal(ok(0.1), "0.1");
    assert.equal(ok(0), "0");
    assert.equal(ok("0.12345678"), "0.12345678");
    assert.equal(ok(1e-7), "0.0000001");
    assert.equal(ok(1e21), "1000000000000000000000");
    assert.equal(ok("-1", { allowNegative: true }), "-1");
    assert.equal(ok(-2.25, { allowNegative: true }), "-2.25");
    assert.equal(ok("007.10"), "7.1");
  });

  test("-0 comes back as plain zero", () => {
    const r = parseDecimalInput("-0");
    assert.ok(r.ok, "-0 parses");
    assert.equal(r.value.s, 1);
    assert.equal(formatMoney(r.value, "USD"), "0.00");
  });

  test("refuses what is not a plain decimal", () => {
    for (const bad of [
      "1e5",
      "1E5",
      "",
      " 1",
      "1 ",
      ".5",
      "5.",
      "+1",
      "0x10",
      "1,5",
      "abc",
      "NaN",
      "Infinity",
      "--1",
    ]) {
      assert.equal(code(bad), "invalid_decimal", bad);
    }
    for (const bad of [
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      null,
      undefined,
      true,
      {},
      [],
      10n,
    ]) {
      assert.equal(code(bad), "invalid_decimal", String(bad));
    }
  });

  test("counts decimal places as written", () => {
    assert.equal(code("0.123456789"), "too_many_decimals");
    assert.equal(code(0.123456789), "too_many_decimals");
    assert.equal(code("1.000000000"), "too_many_decimals");
    assert.equal(code(1.5e-8), "too_many_decimals");
    assert.equal(code("1.005", { maxPlaces: 2 }), "too_many_decimals");
    assert.equal(ok("1.00", { maxPlaces: 2 }), "1");
    assert.equal(code("1.5", { maxPlaces: 0 }), "too_many_decimals");
    assert.equal(ok(1e-8), "0.00000001");
  });

  test("sign rules", () => {
    assert.equal(code(-1), "must_not_be_negative");
    assert.equal(code("-0.01"), "must_not_be_negative");
    assert.equal(code(0, { allowZero: false }), "must_be_positive");
    assert.equal(code("0.00", { allowZero: false }), "must_be_positive");
    assert.equal(code(-1, { allowZero: false }), "must_be_positive");
    assert.equal(code(0, { allowZero: false, allowNegative: true }), "must_not_be_zero");
    assert.equal(ok(0.01, { allowZero: false }), "0.01");
  });

  test("property: any finite double either parses to exactly String(n) or is refused for its places", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        const r = parseDecimalInput(n, { allowNegative: true });
        if (r.ok) assert.ok(r.value.eq(new Big(String(n))), String(n));
        else assert.equal(r.code, "too_many_decimals");
      }),
    );
  });

  test("property: plain decimal strings parse to their value", () => {
    fc.assert(
      fc.property(decimal(8), (value) => {
        const r = parseDecimalInput(value.toFixed(), { allowNegative: true });
        assert.ok(r.ok, value.toFixed());
        assert.ok(r.value.eq(value), value.toFixed());
      }),
    );
  });
});

describe("allocateLargestRemainder", () => {
  test("worked examples", () => {
    assert.deepEqual(strings(allocateLargestRemainder(b("100"), [b("1"), b("1"), b("1")], 0)), [
      "34",
      "33",
      "33",
    ]);
    assert.deepEqual(strings(allocateLargestRemainder(b("0.10"), [b("1"), b("1"), b("1")], 2)), [
      "0.04",
      "0.03",
      "0.03",
    ]);
    // Exact shares 0.333… and 0.666…: the larger remainder (2/3) gets the spare cent.
    assert.deepEqual(strings(allocateLargestRemainder(b("1.00"), [b("1"), b("2")], 2)), ["0.33", "0.67"]);
    // 5 cents over 4 equal weights: equal remainders, lowest index first.
    assert.deepEqual(strings(allocateLargestRemainder(b("0.05"), [b("1"), b("1"), b("1"), b("1")], 2)), [
      "0.02",
      "0.01",
      "0.01",
      "0.01",
    ]);
    // Decimal weights: 7 × 0.5/1.75 = 2 and 7 × 1.25/1.75 = 5, no rounding needed.
    assert.deepEqual(strings(allocateLargestRemainder(b("7"), [b("0.5"), b("1.25")], 0)), ["2", "5"]);
    // A zero weight gets nothing.
    assert.deepEqual(strings(allocateLargestRemainder(b("10.000"), [b("3"), b("0"), b("1")], 3)), [
      "7.5",
      "0",
      "2.5",
    ]);
  });

  test("negative totals mirror positive ones", () => {
    assert.deepEqual(strings(allocateLargestRemainder(b("-0.10"), [b("1"), b("1"), b("1")], 2)), [
      "-0.04",
      "-0.03",
      "-0.03",
    ]);
  });

  test("all-zero weights split equally; zero total gives zeros", () => {
    assert.deepEqual(strings(allocateLargestRemainder(b("10.01"), [b("0"), b("0")], 2)), ["5.01", "5"]);
    assert.deepEqual(strings(allocateLargestRemainder(b("0"), [b("1"), b("2")], 2)), ["0", "0"]);
  });

  test("refuses what it cannot allocate exactly", () => {
    assert.deepEqual(allocateLargestRemainder(b("0"), [], 2), []);
    assert.throws(() => allocateLargestRemainder(b("1"), [], 2), RangeError);
    assert.throws(() => allocateLargestRemainder(b("1"), [b("1"), b("-1")], 2), RangeError);
    assert.throws(() => allocateLargestRemainder(b("1.005"), [b("1")], 2), RangeError);
  });

  const allocationCase = fc.integer({ min: 0, max: 4 }).chain((places) =>
    fc.record({
      places: fc.constant(places),
      total: fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }).map((u) => new Big(`${u}e-${places}`)),
      weights: fc.array(decimal(4, 10n ** 9n, 0n), { minLength: 1, maxLength: 12 }),
    }),
  );

  test("property: parts sum exactly to the total, each within one unit of its exact share", () => {
    fc.assert(
      fc.property(allocationCase, ({ places, total, weights }) => {
        const parts = allocateLargestRemainder(total, weights, places);
        assert.equal(parts.length, weights.length);
        assert.ok(sumMoney(parts).eq(total), "parts sum to the total");
        const unit = new Big(`1e-${places}`);
        const weightSum = sumMoney(weights);
        const effective = weightSum.eq(0) ? weights.map(() => new Big("1")) : weights;
        const effectiveSum = weightSum.eq(0) ? new Big(String(weights.length)) : weightSum;
        parts.forEach((part, i) => {
          assert.ok(roundHalfUp(part, places).eq(part), "part at the requested precision");
          // |part − total·w/Σw| < unit  ⇔  |part·Σw − total·w| < unit·Σw
          const error = part.times(effectiveSum).minus(total.times(effective[i])).abs();
          assert.ok(error.lt(unit.times(effectiveSum)), `part ${i} too far from its share`);
          // Never crosses zero: each part has the total's sign (or is zero).
          assert.ok(total.gte(0) ? part.gte(0) : part.lte(0), `part ${i} has the wrong sign`);
        });
      }),
    );
  });

  test("property: negating the total negates every part", () => {
    fc.assert(
      fc.property(allocationCase, ({ places, total, weights }) => {
        const pos = allocateLargestRemainder(total, weights, places);
        const neg = allocateLargestRemainder(total.times(-1), weights, places);
        pos.forEach((p, i) => {
          assert.ok(neg[i].eq(p.times(-1)), `part ${i}: ${neg[i]} vs ${p}`);
        });
      }),
    );
  });

  test("property: scaling all weights by the same factor changes nothing", () => {
    fc.assert(
      fc.property(allocationCase, fc.integer({ min: 1, max: 1000 }), ({ places, total, weights }, k) => {
        const a = allocateLargestRemainder(total, weights, places);
        const c = allocateLargestRemainder(
          total,
          weights.map((w) => w.times(String(k))),
          places,
        );
        assert.deepEqual(strings(c), strings(a));
      }),
    );
  });
});
