import type { Statements } from "./index.ts";

/**
 * Which report of a variant's item cost the mirror holds (docs/decisions.md, "Item costs on
 * pushes"): the platform's `updatedAt` of the item when that cost was read or set, and when (by the
 * service's clock) the read began or the push's mutation answered. A sync whose read began before a
 * push set a cost, and whose answer came after the push's acknowledgement, no longer puts the older
 * cost back (the next receipt sent it again). Null: nothing known (rows before this, and the
 * simulated platform, which reports no versions): any report is taken.
 */
export const variantCostVersionsMigration: Statements = [
  "alter table variants add column unit_cost_version timestamptz, add column unit_cost_read_at timestamptz",
];
