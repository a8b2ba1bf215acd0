import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { localDate } from "../../src/domain/local-time.ts";
import {
  formatTierPrice,
  lowestTier,
  promoteDue,
  tierFor,
  tierSetsOn,
} from "../../src/domain/suppliers/pricing.ts";

const tiers = [
  { min_qty: 1, price: "10" },
  { min_qty: 10, price: "9.5" },
  { min_qty: 100, price: "8" },
];

const row = {
  effective_tiers: tiers,
  effective_from: "2025-01-01",
  effective_currency: "USD",
  upcoming_tiers: [{ min_qty: 1, price: "12" }],
  upcoming_from: "2025-06-01",
  upcoming_currency: "USD",
};

describe("tierFor", () => {
  test("takes the highest min_qty at or below the quantity", () => {
    assert.equal(tierFor(tiers, 1)?.price, "10");
    assert.equal(tierFor(tiers, 9)?.price, "10");
    assert.equal(tierFor(tiers, 10)?.price, "9.5");
    assert.equal(tierFor(tiers, 99)?.price, "9.5");
    assert.equal(tierFor(tiers, 100_000)?.price, "8");
  });

  test("null below the lowest tier and for no tiers", () => {
    assert.equal(tierFor([{ min_qty: 5, price: "1" }], 4), null);
    assert.equal(tierFor([], 4), null);
  });

  test("property: the chosen tier is ≤ quantity and no other tier ≤ quantity is higher, in any order", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 1000 }), { minLength: 0, maxLength: 20 }),
        fc.integer({ min: 0, max: 1200 }),
        (minQtys, quantity) => {
          const list = minQtys.map((m) => ({ min_qty: m, price: String(m) }));
          const chosen = tierFor(list, quantity);
          const eligible = minQtys.filter((m) => m <= quantity);
          if (eligible.length === 0) return chosen === null;
          return chosen?.min_qty === Math.max(...eligible);
        },
      ),
    );
  });
});

describe("lowestTier", () => {
  test("the lowest min_qty, whatever the order", () => {
    assert.equal(lowestTier([...tiers].reverse())?.price, "10");
    assert.equal(lowestTier([]), null);
  });
});

describe("tierSetsOn", () => {
  test("before the upcoming date both sets show; on and after it the upcoming set is the effective one", () => {
    const before = tierSetsOn(row, "2025-05-31");
    assert.equal(before.effective?.effectiveFrom, "2025-01-01");
    assert.equal(before.upcoming?.effectiveFrom, "2025-06-01");
    for (const date of ["2025-06-01", "2026-01-01"]) {
      const on = tierSetsOn(row, date);
      assert.deepEqual(on.effective, {
        currency: "USD",
        effectiveFrom: "2025-06-01",
        tiers: [{ min_qty: 1, price: "12" }],
      });
      assert.equal(on.upcoming, null);
    }
  });

  test("no tiers, or empty tiers, is no set", () => {
    const empty = {
      ...row,
      effective_tiers: [],
      upcoming_tiers: null,
      upcoming_from: null,
      upcoming_currency: null,
    };
    assert.deepEqual(tierSetsOn(empty, "2025-01-01"), { effective: null, upcoming: null });
  });

  test("tiers come out sorted by min_qty", () => {
    const shuffled = { ...row, effective_tiers: [tiers[2], tiers[0], tiers[1]] };
    assert.deepEqual(
      tierSetsOn(shuffled, "2025-02-01").effective?.tiers.map((t) => t.min_qty),
      [1, 10, 100],
    );
  });
});

describe("promoteDue", () => {
  test("moves a due upcoming set into the effective columns and leaves others alone", () => {
    assert.equal(promoteDue(row, "2025-05-31"), row);
    assert.deepEqual(promoteDue(row, "2025-06-01"), {
      effective_tiers: [{ min_qty: 1, price: "12" }],
      effective_from: "2025-06-01",
      effective_currency: "USD",
      upcoming_tiers: null,
      upcoming_from: null,
      upcoming_currency: null,
    });
  });
});

describe("localDate", () => {
  test("the calendar date in the given timezone", () => {
    const instant = new Date("2025-03-10T12:00:00.000Z");
    assert.equal(localDate(instant, "UTC"), "2025-03-10");
    assert.equal(localDate(instant, "Pacific/Auckland"), "2025-03-11");
    assert.equal(localDate(new Date("2025-03-10T03:00:00.000Z"), "America/Los_Angeles"), "2025-03-09");
  });
});

describe("formatTierPrice", () => {
  test("at least the minor units, up to 8 places, trailing zeros trimmed", () => {
    assert.equal(formatTierPrice("5", "USD"), "5.00");
    assert.equal(formatTierPrice("0.12345678", "USD"), "0.12345678");
    assert.equal(formatTierPrice("1.2500", "EUR"), "1.25");
    assert.equal(formatTierPrice("500", "JPY"), "500");
    assert.equal(formatTierPrice("1.5", "KWD"), "1.500");
  });
});
