import type { Statements } from "./index.ts";

/**
 * A push batch's membership in a narrow table of its own (docs/performance.md, "The push's writes,
 * thirteenth session"). It was `stock_movements.push_batch_id`: putting 200 movements in a batch
 * rewrote 200 ledger rows (a new version of each, entered again in the table's five indexes), only
 * for the acknowledgement to rewrite them once more. A row here is a movement id, its store and its
 * batch, inserted once and deleted when the batch is acknowledged, so the table holds only batches in
 * flight. The primary key on the movement keeps what the column's `is null` check under the row's
 * lock kept: two pushes never put one movement in two batches. No reference to `stores` (it would be
 * checked on every row); the store's erasure deletes its rows with its movements.
 */
export const pushBatchMembersMigration: Statements = [
  `create table push_batch_movements (
    movement_id bigint primary key,
    store_id integer not null,
    batch_id bigint not null
  )`,
  "create index push_batch_movements_batch on push_batch_movements (store_id, batch_id)",
  // Batches in flight when the upgrade runs keep their movements, so a retry sends the same document.
  `insert into push_batch_movements (movement_id, store_id, batch_id)
    select id, store_id, push_batch_id from stock_movements
    where pushed_at is null and push_batch_id is not null`,
  "drop index stock_movements_push_batch",
  "alter table stock_movements drop column push_batch_id",
];
