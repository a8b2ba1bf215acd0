import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import {
  type AppliedRules,
  crossingsFor,
  type LevelQuantities,
  ruleForLevel,
} from "../../src/domain/stock/crossings.ts";

const level = (on_hand: number, available = on_hand, incoming = 0): LevelQuantities => ({
  on_hand,
  available,
  incoming,
});
const rules = (r: Partial<AppliedRules>): AppliedRules => ({
  lowStockThreshold: null,
  reorderPoint: null,
  maxStock: null,
  outOfStock: true,
  ...r,
});
const events = (before: LevelQuantities, after: LevelQuantities, r: AppliedRules) =>
  crossingsFor(before, after, r).map((c) => `${c.event}@${c.threshold}`);

describe("item alert crossings (the contract decisions on fine points)", () => {
  test("each rule fires on its crossing only", () => {
    const r = rules({ lowStockThreshold: 10, reorderPoint: 8, maxStock: 50 });
    assert.deepEqual(events(level(11), level(10), r), ["item.low_stock@10"]);
    assert.deepEqual(events(level(10), level(9), r), []);
    assert.deepEqual(events(level(9), level(11), r), []);
    assert.deepEqual(events(level(9), level(8), r), ["item.reorder_point@8"]);
    assert.deepEqual(events(level(1), level(0), r), ["item.out_of_stock@null"]);
    assert.deepEqual(events(level(0), level(-2), r), []);
    assert.deepEqual(events(level(50), level(51), r), ["item.overstock@50"]);
    assert.deepEqual(events(level(51), level(60), r), []);
    assert.deepEqual(events(level(60), level(40), r), []);
    assert.deepEqual(events(level(20), level(0), r), [
      "item.out_of_stock@null",
      "item.low_stock@10",
      "item.reorder_point@8",
    ]);
  });

  test("the reorder point reads available + incoming; the others read on_hand", () => {
    const r = rules({ reorderPoint: 8, lowStockThreshold: 5 });
    assert.deepEqual(events(level(4, 4, 10), level(4, 4, 3), r), ["item.reorder_point@8"]);
    assert.deepEqual(events(level(6, 2, 0), level(5, 1, 0), r), ["item.low_stock@5"]);
  });

  test("without rules nothing fires", () => {
    const none = rules({ outOfStock: false });
    assert.deepEqual(events(level(5), level(0), none), []);
  });

  test("a location's own rule wins over the item's all-locations rule", () => {
    const all = { inventory_item_id: 1, location_id: null, reorder_point: 8, max_stock: null };
    const here = { inventory_item_id: 1, location_id: 7, reorder_point: 3, max_stock: null };
    assert.equal(ruleForLevel([all, here], 1, 7), here);
    assert.equal(ruleForLevel([here, all], 1, 9), all);
    assert.equal(ruleForLevel([here, all], 2, 7), null);
  });

  test("over any sequence of levels, each threshold fires once per crossing, never twice in a row", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -5, max: 60 }), { minLength: 2, maxLength: 60 }),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 30, max: 50 }),
        (seq, low, max) => {
          const r = rules({ lowStockThreshold: low, maxStock: max });
          const fired: string[][] = [];
          for (let i = 1; i < seq.length; i++) fired.push(events(level(seq[i - 1]), level(seq[i]), r));
          const count = (name: string) => fired.flat().filter((e) => e.startsWith(name)).length;
          // The side of the threshold is a two-state machine: one event per move to the alert side.
          let lowCrossings = 0;
          let outCrossings = 0;
          let overCrossings = 0;
          for (let i = 1; i < seq.length; i++) {
            if (seq[i - 1] > low && seq[i] <= low) lowCrossings++;
            if (seq[i - 1] > 0 && seq[i] <= 0) outCrossings++;
            if (seq[i - 1] <= max && seq[i] > max) overCrossings++;
          }
          assert.equal(count("item.low_stock"), lowCrossings);
          assert.equal(count("item.out_of_stock"), outCrossings);
          assert.equal(count("item.overstock"), overCrossings);
          // Between two low-stock events the level went back above the threshold.
          let armed = seq[0] > low;
          for (let i = 1; i < seq.length; i++) {
            const lowFired = fired[i - 1].some((e) => e.startsWith("item.low_stock"));
            if (lowFired) assert.ok(armed, "fired while already low");
            if (lowFired) armed = false;
            if (seq[i] > low) armed = true;
          }
        },
      ),
    );
  });
});
