import type { Statements } from "./index.ts";

/**
 * Purchase order lists sorted by creation (`sort=-created_at`, the console's newest first): the keyset
 * walks these like the update-time indexes of 004, with or without the archived filter.
 */
export const purchaseOrderCreatedSortMigration: Statements = [
  `create index purchase_orders_created on purchase_orders (store_id, archived, created_at, id)`,
  `create index purchase_orders_created_all on purchase_orders (store_id, created_at, id)`,
];
