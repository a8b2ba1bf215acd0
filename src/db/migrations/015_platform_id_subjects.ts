import type { Statements } from "./index.ts";

/**
 * An event's subject may be a platform id (a level alert's inventory item, decisions §12): Shopify's reach
 * 10^14, beyond `integer`. Every other column holding a platform id is already bigint; the ledger's and
 * the sync state's subjects are Stockroom's own ids, widened too so a subject id has one type everywhere.
 */
export const platformIdSubjectsMigration: Statements = [
  `alter table events alter column subject_id type bigint`,
  `alter table stock_movements alter column subject_id type bigint`,
  `alter table platform_sync_states alter column subject_id type bigint`,
];
