import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { p99Ratio, throughputRatio } from "../../bench/lib/ratios.ts";
import { percent } from "../../bench/lib/report.ts";
import type { Row } from "../../bench/lib/types.ts";

function row(rps: number, p99 = 1): Row {
  return {
    label: "c=32",
    connections: 32,
    requests: Math.round(rps * 10),
    durationSec: 10,
    rps,
    p50: p99 / 2,
    p97_5: p99,
    p99,
    errors: 0,
    ratio: null,
    peakRssMb: null,
  };
}

describe("bench ratios", () => {
  test("throughput over the ceiling's at the same connection count", () => {
    assert.equal(throughputRatio(43.3, row(86.6)), 0.5);
    assert.equal(throughputRatio(0, row(100)), 0);
    assert.equal(percent(throughputRatio(37.3, row(74.6))), "50%");
  });

  test("no ratio without a ceiling, or against one that answered nothing", () => {
    assert.equal(throughputRatio(10, undefined), null);
    assert.equal(throughputRatio(10, row(0)), null);
    assert.equal(throughputRatio(10, row(Number.NaN)), null);
    assert.equal(throughputRatio(Number.NaN, row(10)), null);
    assert.equal(percent(null), "—");
    assert.equal(percent(undefined), "—");
  });

  test("the ratio times the ceiling gives back the throughput, and it orders as throughput does", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        fc.double({ min: 1e-3, max: 1e6, noNaN: true }),
        (a, b, ceiling) => {
          const ra = throughputRatio(a, row(ceiling));
          const rb = throughputRatio(b, row(ceiling));
          assert.ok(ra !== null && rb !== null);
          assert.ok(Math.abs(ra * ceiling - a) <= 1e-9 * Math.max(1, a));
          if (a < b) assert.ok(ra <= rb);
          assert.equal(ra >= 0.5, a >= ceiling / 2 || Math.abs(a - ceiling / 2) < 1e-9 * ceiling);
        },
      ),
    );
  });

  test("p99 beside a load over p99 alone", () => {
    assert.equal(p99Ratio(row(1, 6), row(1, 2)), 3);
    assert.equal(p99Ratio(row(1, 1), row(1, 4)), 0.25);
    assert.equal(p99Ratio(row(1, 5), row(1, 0)), null);
    assert.equal(p99Ratio(row(1, Number.NaN), row(1, 2)), null);
  });

  test("p99 ratio: 1 for the same latency, above 3 exactly when p99 beside is above 3× alone", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-3, max: 1e5, noNaN: true }),
        fc.double({ min: 0, max: 1e5, noNaN: true }),
        (alone, beside) => {
          assert.equal(p99Ratio(row(1, alone), row(1, alone)), 1);
          const r = p99Ratio(row(1, beside), row(1, alone));
          assert.ok(r !== null);
          if (beside > 3 * alone * (1 + 1e-12)) assert.ok(r > 3);
          if (beside < 3 * alone * (1 - 1e-12)) assert.ok(r < 3);
        },
      ),
    );
  });
});
