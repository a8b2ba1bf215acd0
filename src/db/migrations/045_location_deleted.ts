import type { Statements } from "./index.ts";

/**
 * `locations.deleted_at`: when the mirror found the location gone from the platform's list (deleted
 * there). A location deactivated first is already inactive when it is deleted, so `active` alone did
 * not tell the mirror that its levels went with it: they stayed listed until reconciliation. Each
 * location is found deleted once (its levels dropped then, stock/level-drops.ts `dropLevelsAt`); rows
 * deleted before this migration are found again at their store's next read of the full list.
 */
export const locationDeletedMigration: Statements = [
  "alter table locations add column deleted_at timestamptz",
];
