import assert from "node:assert/strict";
import { test } from "node:test";
import { AppError } from "../../src/domain/errors.ts";
import { formatAdjustmentNumber } from "../../src/domain/stock-adjustments/service.ts";
import {
  ADJUSTMENT_REASONS,
  ADJUSTMENT_STATUSES,
  type AdjustmentAction,
  nextAdjustmentStatus,
  REASON_LABELS,
} from "../../src/domain/stock-adjustments/transitions.ts";

test("only a draft moves: update keeps it a draft, apply and cancel end it", () => {
  const expected: Record<AdjustmentAction, string> = {
    update: "draft",
    apply: "applied",
    cancel: "cancelled",
  };
  for (const action of Object.keys(expected) as AdjustmentAction[]) {
    assert.equal(nextAdjustmentStatus("draft", action), expected[action]);
    for (const status of ADJUSTMENT_STATUSES.filter((s) => s !== "draft")) {
      assert.throws(
        () => nextAdjustmentStatus(status, action),
        (error: unknown) =>
          error instanceof AppError &&
          error.code === "invalid_transition" &&
          error.status === 422 &&
          error.message.includes(`is ${status}`),
      );
    }
  }
});

test("every reason has a human label", () => {
  assert.deepEqual(Object.keys(REASON_LABELS).sort(), [...ADJUSTMENT_REASONS].sort());
  assert.equal(REASON_LABELS.cycle_count_available, "Cycle count (available)");
});

test("numbers pad to four digits and grow past them", () => {
  assert.equal(formatAdjustmentNumber("SA-", 1), "SA-0001");
  assert.equal(formatAdjustmentNumber("SA-", 42), "SA-0042");
  assert.equal(formatAdjustmentNumber("ADJ-", 10000), "ADJ-10000");
});
