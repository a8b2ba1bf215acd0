import type { Statements } from "./index.ts";

/**
 * When a shop's current installation began (an attach, a re-install, a new custom-app token): an
 * `app/uninstalled` triggered before it belongs to an earlier installation and must not disconnect this
 * one (docs/decisions.md, "Shopify webhooks and reconciliation"). Rows already there take the time
 * their shop was attached, the best this database knows; a row written without one takes its insert time.
 */
export const shopifyInstalledAtMigration: Statements = [
  "alter table shopify_shops add column installed_at timestamptz",
  "update shopify_shops set installed_at = created_at",
  "alter table shopify_shops alter column installed_at set not null",
  "alter table shopify_shops alter column installed_at set default date_trunc('milliseconds', now())",
];
