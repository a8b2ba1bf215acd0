import type { Statements } from "./index.ts";

/**
 * An acknowledgement's question "is another push of this level in flight?" answered by level, with
 * no walk of the level's unacknowledged movements (docs/history/performance-journal.md, "The
 * in-flight read by level, eighteenth session"). It read every unacknowledged movement of the level
 * (`stock_movements_unpushed_level`) and probed `push_batch_movements` for each one's mark; during a
 * burst a level has several applies' movements waiting, most of them not sent yet.
 * - `push_batch_movements` carries its movement's level, with an index of the marks in flight by
 *   level: the batched half is one probe a level. Filled here for the rows in flight at the upgrade.
 * - `stock_movements_sent_alone`: the movements sent alone (`push_sent_at`, migration 037) and not
 *   acknowledged, by level: the other half, one probe a level. A movement enters it only when a push
 *   marks it sent alone (a retry, a push with nothing waiting, every Shopify push; never at recording)
 *   and a ledger row is never updated in place here anyway (its pages are full, and `pushed_at` is in
 *   the partial indexes' predicates).
 */
export const pushInFlightLevelsMigration: Statements = [
  "alter table push_batch_movements add column inventory_item_id bigint, add column location_id bigint",
  `delete from push_batch_movements b where not exists (select 1 from stock_movements m where m.id = b.movement_id)`,
  `update push_batch_movements b set inventory_item_id = m.inventory_item_id, location_id = m.location_id
    from stock_movements m where m.id = b.movement_id`,
  `alter table push_batch_movements alter column inventory_item_id set not null,
    alter column location_id set not null`,
  `create index push_batch_movements_in_flight on push_batch_movements (store_id, inventory_item_id, location_id)
    where in_flight`,
  // "Not acknowledged" as the push's statements write it (stock/pushes.ts, notAcknowledged): a
  // statement that says `pushed_at is null` may use stock_movements_unpushed, whose statistics expect
  // one waiting movement a store, and filter every waiting one (19,000 in a burst) instead.
  `create index stock_movements_sent_alone on stock_movements (store_id, inventory_item_id, location_id)
    where push_sent_at is not null and (pushed_at is null) is true`,
];
