import type { Generated } from "kysely";
import type { Timestamp } from "./foundation.ts";

/** How a Shopify store's last reconciliation pass went (src/platform/shopify/inbound/). */
export interface ShopifyReconciliationsTable {
  store_id: number;
  /** The end of the last pass that completed. */
  reconciled_at: Timestamp | null;
  /** Levels that pass read from Shopify, and those whose drift it repaired. */
  levels_checked: Generated<number>;
  levels_repaired: Generated<number>;
  /** Why the last pass failed, if it failed after the last success (null once one succeeds). */
  last_error: string | null;
  failed_at: Timestamp | null;
  /** The GID of the bulk operation a pass started and has not seen end (the next pass cancels it). */
  bulk_operation_id: string | null;
}

export interface ShopifyInboundTables {
  shopify_reconciliations: ShopifyReconciliationsTable;
}
