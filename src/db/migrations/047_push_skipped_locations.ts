import type { Statements } from "./index.ts";

/**
 * Per pushed call, the locations its generation's input leaves the take-off changes of: the platform
 * no longer has them (docs/decisions.md, "Deleted products and variants", Pushes at a deleted
 * location), so a retry rebuilds each key's input exactly as it was first sent, as `skipped_items`
 * does for items (021).
 */
export const pushSkippedLocationsMigration: Statements = [
  `alter table platform_push_generations add column skipped_locations bigint[] not null default '{}'`,
];
