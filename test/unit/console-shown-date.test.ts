import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { shownDate, shownTime } from "../../src/console/times.ts";

describe("console days (shownDate)", () => {
  it("writes a calendar day as a moment's day is written, never shifted", () => {
    assert.equal(shownDate("2031-05-10"), "10 May 2031");
    assert.equal(shownDate("2026-01-01"), "1 Jan 2026");
    // The same words as the day of a moment on that day; the zone plays no part in a day.
    assert.equal(shownTime("2031-05-10T12:00:00Z", "UTC"), "10 May 2031, 12:00");
  });

  it("is null for no day, a day the calendar lacks and an instant", () => {
    for (const value of [null, undefined, "", "2031-02-30", "2031-13-01", "2031-5-1", "2031-05-10T00:00:00Z"])
      assert.equal(shownDate(value), null, String(value));
  });
});
