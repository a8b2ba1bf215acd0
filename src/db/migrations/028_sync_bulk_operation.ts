import type { Statements } from "./index.ts";

/**
 * The bulk operation a store's catalog sync started and has not seen end (the import's, or an
 * incremental read's past the paging cutoff; docs/decisions.md, "Shopify connector"): a sync killed
 * while it runs leaves it holding one of Shopify's five bulk slots, so the next bulk read finds it
 * here and cancels it before starting its own.
 */
export const syncBulkOperationMigration: Statements = [
  "alter table shopify_shops add column sync_bulk_operation_id text",
];
