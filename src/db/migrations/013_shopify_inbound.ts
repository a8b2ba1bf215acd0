import type { Statements } from "./index.ts";

/**
 * Shopify's inbound side (issue 19; docs/decisions.md, "Shopify webhooks and reconciliation"):
 * - `shopify_reconciliations`: how each store's last reconciliation pass went (shown in the admin
 *   sync view), owned by src/platform/shopify/inbound/.
 * - Erasing a store (`shop/redact`) is deleting its `stores` row: the three tables holding store rows
 *   without a cascade from `stores` get one. Receipts keep their NO ACTION reference to their order,
 *   checked at the end of the statement, by when the cascade has removed both.
 */
export const shopifyInboundMigration: Statements = [
  `create table shopify_reconciliations (
    store_id integer primary key references stores(id) on delete cascade,
    reconciled_at timestamptz,
    levels_checked integer not null default 0,
    levels_repaired integer not null default 0,
    last_error text,
    failed_at timestamptz
  )`,
  `alter table idempotency_keys add constraint idempotency_keys_store_fkey
    foreign key (store_id) references stores(id) on delete cascade`,
  `alter table purchase_order_history add constraint purchase_order_history_store_fkey
    foreign key (store_id) references stores(id) on delete cascade`,
  `alter table receipts add constraint receipts_store_fkey
    foreign key (store_id) references stores(id) on delete cascade`,
];
