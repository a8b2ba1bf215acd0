/** Webhook retry schedule (contract "Events": Retries; the contract decisions on running it WEBHOOK_RETRY_SCHEDULE). */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  DEFAULT_RETRY_SCHEDULE,
  nextAttemptDelay,
  parseRetrySchedule,
} from "../../src/domain/webhooks/retry-schedule.ts";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

describe("webhook retry schedule", () => {
  it("defaults to 1 min, 5 min, 30 min, 2 h, 12 h, then daily three times", () => {
    assert.deepEqual(DEFAULT_RETRY_SCHEDULE, [MIN, 5 * MIN, 30 * MIN, 2 * HOUR, 12 * HOUR, DAY, DAY, DAY]);
    assert.ok(Object.isFrozen(DEFAULT_RETRY_SCHEDULE));
    const total = DEFAULT_RETRY_SCHEDULE.reduce((a, b) => a + b, 0);
    assert.ok(total > 3.5 * DAY && total < 3.7 * DAY, "about three and a half days");
  });

  it("parses the documented format into the default", () => {
    assert.deepEqual(parseRetrySchedule("1m,5m,30m,2h,12h,1d,1d,1d"), DEFAULT_RETRY_SCHEDULE);
    assert.deepEqual(parseRetrySchedule(" 1s , 2s,0s,3h "), [1000, 2000, 0, 3 * HOUR]);
    assert.deepEqual(parseRetrySchedule("30d"), [30 * DAY]);
  });

  it("refuses bad input with a message naming the entry", () => {
    const cases: Array<[string, RegExp]> = [
      ["", /empty/],
      ["   ", /empty/],
      ["1m,,5m", /entry 2 \(""\)/],
      ["1m,5x", /entry 2 \("5x"\)/],
      ["5", /entry 1 \("5"\).*s, m, h or d/],
      ["-1m", /entry 1/],
      ["1.5h", /entry 1/],
      ["1M", /entry 1/],
      ["1m,", /entry 2/],
      ["31d", /longer than 30 days/],
    ];
    for (const [text, message] of cases) {
      assert.throws(() => parseRetrySchedule(text), message, JSON.stringify(text));
    }
  });

  it("round-trips any list of delays written in one unit", () => {
    const unit = fc.constantFrom(["s", 1000], ["m", MIN], ["h", HOUR], ["d", DAY]) as fc.Arbitrary<
      [string, number]
    >;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), unit), { minLength: 1, maxLength: 20 }),
        (items) => {
          const text = items.map(([n, [u]]) => `${n}${u}`).join(",");
          assert.deepEqual(
            parseRetrySchedule(text),
            items.map(([n, [, ms]]) => n * ms),
          );
        },
      ),
    );
  });

  it("gives the wait after each failed attempt, then null when exhausted", () => {
    const waits = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => nextAttemptDelay(DEFAULT_RETRY_SCHEDULE, n));
    assert.deepEqual(waits, [...DEFAULT_RETRY_SCHEDULE]);
    assert.equal(nextAttemptDelay(DEFAULT_RETRY_SCHEDULE, 9), null);
    assert.equal(nextAttemptDelay(DEFAULT_RETRY_SCHEDULE, 100), null);
    assert.equal(nextAttemptDelay([], 1), null);
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      assert.throws(() => nextAttemptDelay(DEFAULT_RETRY_SCHEDULE, bad), RangeError);
    }
  });
});
