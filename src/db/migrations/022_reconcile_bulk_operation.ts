import type { Statements } from "./index.ts";

/**
 * The bulk operation a store's reconciliation pass started and has not seen end
 * (docs/decisions.md, "Shopify webhooks and reconciliation"): a pass that dies while it runs (worker
 * killed, job failed) leaves it running in the shop, holding one of Shopify's five bulk slots; the
 * next pass finds it here and cancels it before starting its own.
 */
export const reconcileBulkOperationMigration: Statements = [
  "alter table shopify_reconciliations add column bulk_operation_id text",
];
