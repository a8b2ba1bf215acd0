import type { Statements } from "./index.ts";

/**
 * When our read of a level's report was taken (docs/decisions.md, "Shopify level versions of equal
 * time"): Shopify's `updatedAt`, a level's version, has whole seconds, so two changes of a level in one
 * second give two reports of one version. Between two such reports with different quantities, the one
 * read later holds the later state.
 *
 * - `inventory_levels.platform_read_at`: the adopted report's read time (null: none known).
 * - `inventory_levels.reported_read_at`: the kept report's (migration 037).
 */
export const levelReadAtMigration: Statements = [
  "alter table inventory_levels add column platform_read_at timestamptz, add column reported_read_at timestamptz",
];
