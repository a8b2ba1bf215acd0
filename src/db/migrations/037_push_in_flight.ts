import type { Statements } from "./index.ts";

/**
 * Two pushes of one level acknowledged out of the platform's order (docs/decisions.md, "A report
 * adopted only when no push of its level is in flight"):
 *
 * - `stock_movements.push_sent_at`: set, and committed, before a push sends the movement to the
 *   platform. A movement with it set and `pushed_at` null is in flight: the platform may have applied
 *   it, so a report of its level may already hold it.
 * - `inventory_levels.reported_*`: the newest report of the level that could not be adopted while
 *   a push of it was in flight (null version: none), adopted once none is.
 */
export const pushInFlightMigration: Statements = [
  "alter table stock_movements add column push_sent_at timestamptz",
  `alter table inventory_levels add column reported_available int, add column reported_on_hand int,
    add column reported_committed int, add column reported_incoming int,
    add column reported_version bigint, add column reported_updated_at timestamptz`,
];
