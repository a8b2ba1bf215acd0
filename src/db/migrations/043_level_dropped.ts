import type { Statements } from "./index.ts";

/**
 * `inventory_levels.dropped_at`: when the mirror learned the platform no longer has the level (Shopify:
 * the item no longer stocked at the location, `inventory_levels/disconnect`, or the location deleted).
 * The row stays (movements, receipts and adjustments point at it); the lists leave it out once no
 * movement of it is unacknowledged, and receipts and adjustments refuse it. A newer report of the
 * level (stocked there again) clears it (docs/decisions.md, "Shopify webhooks and reconciliation").
 */
export const levelDroppedMigration: Statements = [
  "alter table inventory_levels add column dropped_at timestamptz",
];
