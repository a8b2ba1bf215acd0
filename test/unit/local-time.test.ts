import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { localDate, startOfDay } from "../../src/domain/local-time.ts";

describe("startOfDay", () => {
  it("is UTC midnight in UTC", () => {
    assert.equal(startOfDay("2025-03-10", "UTC").toISOString(), "2025-03-10T00:00:00.000Z");
  });

  it("takes the offset in force at local midnight, on either side of a DST change later that day", () => {
    // Los Angeles springs forward at 02:00 on 2025-03-09: midnight is still PST (−8), the next day PDT.
    assert.equal(startOfDay("2025-03-09", "America/Los_Angeles").toISOString(), "2025-03-09T08:00:00.000Z");
    assert.equal(startOfDay("2025-03-10", "America/Los_Angeles").toISOString(), "2025-03-10T07:00:00.000Z");
    // Auckland falls back at 03:00 on 2025-04-06: midnight is still NZDT (+13).
    assert.equal(startOfDay("2025-04-06", "Pacific/Auckland").toISOString(), "2025-04-05T11:00:00.000Z");
    assert.equal(startOfDay("2025-04-07", "Pacific/Auckland").toISOString(), "2025-04-06T12:00:00.000Z");
  });

  it("is the instant whose local date is that date", () => {
    for (const zone of ["Asia/Kolkata", "America/St_Johns", "Pacific/Chatham"]) {
      const at = startOfDay("2025-11-02", zone);
      assert.equal(localDate(at, zone), "2025-11-02");
      assert.equal(localDate(new Date(at.getTime() - 1), zone), "2025-11-01");
    }
  });
});
