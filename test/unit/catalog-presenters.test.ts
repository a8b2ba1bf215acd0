import assert from "node:assert/strict";
import { test } from "node:test";
import Big from "big.js";
import fc from "fast-check";
import { moneyText, unitCostText } from "../../src/domain/catalog/index.ts";
import { formatMoney, formatUnitCost } from "../../src/domain/money.ts";
import { formatLineUnitCost } from "../../src/domain/stock-adjustments/presenter.ts";

// numeric(20, 8) as the database returns it.
const numericText = fc
  .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 14n }), fc.integer({ min: 0, max: 99_999_999 }))
  .map(
    ([negative, whole, fraction]) => `${negative ? "-" : ""}${whole}.${String(fraction).padStart(8, "0")}`,
  );

test("the presenters' fast decimal formatting equals the money module's", () => {
  for (const currency of ["USD", "JPY", "KWD"]) {
    fc.assert(
      fc.property(numericText, (text) => {
        assert.equal(moneyText(text, currency), formatMoney(new Big(text), currency));
        assert.equal(unitCostText(text, currency), formatUnitCost(new Big(text), currency));
      }),
    );
    for (const text of ["24.00000000", "0.00000000", "-0.00000000", "8.50000000", "0.12345678", "100"])
      assert.equal(moneyText(text, currency), formatMoney(new Big(text), currency));
  }
});

test("an adjustment line's unit cost, formatted from its column's text, equals the money module's", () => {
  for (const currency of ["USD", "JPY", "KWD"]) {
    fc.assert(
      fc.property(numericText, (text) => {
        assert.equal(formatLineUnitCost(text, currency), formatUnitCost(new Big(text), currency));
      }),
    );
    assert.equal(formatLineUnitCost(null, currency), formatUnitCost(new Big(0), currency));
  }
  // No known currency: two places at least, zeros beyond them trimmed.
  assert.equal(formatLineUnitCost("2.50000000", null), "2.50");
  assert.equal(formatLineUnitCost("0.12345678", "XXX"), "0.12345678");
});
