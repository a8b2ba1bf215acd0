import type { Statements } from "./index.ts";

/**
 * An acknowledgement's question "is another push of this level in flight?" answered by level, with
 * no walk of the level's unacknowledged movements (docs/history/performance-journal.md, "The
 * in-flight read by level, eighteenth session"). It read every unacknowledged movement of the level
 * (`stock_movements_unpushed_level`) and probed `push_batch_movements` for each one's mark; during a
 * burst a level has several applies' movements waiting, most of them not sent yet.
 * `push_batch_movements` carries its movement's level (filled here for the rows in flight at the
 * upgrade); the two indexes that answer the question by level are migration 048's.
 */
export const pushInFlightLevelsMigration: Statements = [
  "alter table push_batch_movements add column inventory_item_id bigint, add column location_id bigint",
  `delete from push_batch_movements b where not exists (select 1 from stock_movements m where m.id = b.movement_id)`,
  `update push_batch_movements b set inventory_item_id = m.inventory_item_id, location_id = m.location_id
    from stock_movements m where m.id = b.movement_id`,
  `alter table push_batch_movements alter column inventory_item_id set not null,
    alter column location_id set not null`,
  // Its two indexes were built here, plainly, in the migration's transaction: on a large ledger that
  // held writes for the build. They moved to 048 (built concurrently); a database that ran 046 before
  // has them already, and 048 finds them valid and only records itself.
];
