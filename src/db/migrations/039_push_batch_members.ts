import type { Statements } from "./index.ts";

/**
 * A push batch's membership and in-flight mark in a narrow table of their own
 * (docs/history/performance-journal.md, "The push's rewrites, fifteenth session"). They were
 * `stock_movements.push_batch_id` and `push_sent_at`: putting 200 movements in a batch rewrote 200 ledger
 * rows (a new version of each, entered again in the table's indexes), only for the acknowledgement to rewrite
 * them once more. A row here is a movement id, its store, its batch and whether it is in flight (a batch made
 * is sent at once; a refusal or a push failing for good takes the mark off and keeps the batch), inserted
 * once and deleted when the movement is acknowledged, so the table holds only unacknowledged batches.
 * The primary key on the movement keeps what the column's `is null` check under the row's lock kept:
 * two pushes never put one movement in two batches. No reference to `stores` (it would be checked on
 * every row); the store's erasure deletes its rows with its movements. A movement not in a batch keeps
 * its in-flight mark on the ledger (`push_sent_at`): those are sent one record at a time.
 */
export const pushBatchMembersMigration: Statements = [
  `create table push_batch_movements (
    movement_id bigint primary key,
    store_id integer not null,
    batch_id bigint not null,
    in_flight boolean not null
  )`,
  "create index push_batch_movements_batch on push_batch_movements (store_id, batch_id)",
  // Batches not acknowledged when the upgrade runs keep their movements and marks, so a retry sends
  // the same document under the same key and their levels still adopt no report meanwhile.
  `insert into push_batch_movements (movement_id, store_id, batch_id, in_flight)
    select id, store_id, push_batch_id, push_sent_at is not null from stock_movements
    where pushed_at is null and push_batch_id is not null`,
  // A batched movement's mark lives in the table above only.
  `update stock_movements set push_sent_at = null
    where pushed_at is null and push_batch_id is not null and push_sent_at is not null`,
  "drop index stock_movements_push_batch",
  "alter table stock_movements drop column push_batch_id",
];
