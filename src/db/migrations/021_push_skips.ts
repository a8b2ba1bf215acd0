import type { Statements } from "./index.ts";

/**
 * Items a push left out because the platform no longer has them (docs/decisions.md, "Deleted
 * products and variants"): per call, the items its generation leaves out, so a retry sends exactly
 * what its key was first sent with; per movement, that its change never reached the platform, so the
 * record's platform_sync says so on every later settling.
 */
export const pushSkipsMigration: Statements = [
  `alter table platform_push_generations add column skipped_items bigint[] not null default '{}'`,
  `alter table stock_movements add column push_skipped_at timestamptz`,
];
