import type { Statements } from "./index.ts";

/**
 * The simulated platform keeps an item's unit cost apart from its variant, as Shopify does (the cost
 * lives on the InventoryItem): setting a cost takes a change number of its own (`cost_seq`) and leaves
 * the variant's change number and updated_at alone, so the change feed reports a cost change as a cost
 * (four fields) instead of the whole variant.
 */
export const simItemCostsMigration: Statements = [
  `alter table sim_variants add column cost_seq bigint`,
  `create index sim_variants_cost_changes on sim_variants (store_id, cost_seq) where cost_seq is not null`,
];
