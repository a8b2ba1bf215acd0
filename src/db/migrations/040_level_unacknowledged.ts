import type { Statements } from "./index.ts";

/**
 * `inventory_levels.unacknowledged`: how many of the store's movements at the level the platform has
 * not acknowledged. Recording movements adds to it in the upsert that adds their deltas, and the
 * acknowledgement subtracts in the level write it already makes, each holding the row's lock; a
 * refresh that reads the ledger anyway (a sync, a level created) sets it from there. An
 * acknowledgement that leaves a level at zero knows no other push of it is in flight without reading
 * the ledger (docs/history/performance-journal.md, "The push's rewrites, fifteenth session"). Levels with
 * movements waiting when the upgrade runs get their count here.
 */
export const levelUnacknowledgedMigration: Statements = [
  "alter table inventory_levels add column unacknowledged integer not null default 0",
  `update inventory_levels l set unacknowledged = c.n
    from (select store_id, inventory_item_id, location_id, count(*)::int as n from stock_movements
      where pushed_at is null group by store_id, inventory_item_id, location_id) c
    where l.store_id = c.store_id and l.inventory_item_id = c.inventory_item_id
      and l.location_id = c.location_id`,
];
