import type { Statements } from "./index.ts";

/**
 * What the PostgreSQL backend spent on every receipt and apply beyond writing their rows (issue 22
 * item 1; measured in docs/history/performance-journal.md, "The write path's backend: a reference per
 * movement, the event's compression"):
 *
 * - The stock ledger's movements keep no reference to `stores`. It was checked once per inserted
 *   movement (50 a receipt, 200 an apply), each a lookup and a share lock of the same store row, and
 *   guaranteed nothing the store's erasure does not: a store's rows go only when it is erased, and
 *   `eraseStore` deletes the movements after the store's row (docs/decisions.md, "Store erasure").
 * - Events' payloads are compressed with lz4 where the server has it (PostgreSQL 14 and later, built
 *   with it): a receipt's 63 KB of JSON took 0.9 ms of the backend with the default pglz and 0.5 ms
 *   with lz4, stored in 9.0 KB instead of 8.1. The embedded database is built without lz4 and keeps
 *   pglz. Rows stored before keep theirs (each value names its own method).
 */
export const writePathCostsMigration: Statements = [
  "alter table stock_movements drop constraint stock_movements_store_id_fkey",
  `do $$ begin
    alter table events alter column data set compression lz4, alter column extra set compression lz4;
  exception when feature_not_supported then null;
  end $$`,
];
