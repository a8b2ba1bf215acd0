import type { Statements } from "./index.ts";

/**
 * `mirror_sync_states.generation`: how many times the store's mirror state was committed. A sync batch
 * reads it with the watermark and commits only if both are still as read; the watermark alone stays
 * the same across batches whose reads found nothing past it (a change in the watermark's own second),
 * so two syncs of one store could both pass and the older read commit last (docs/decisions.md,
 * "Catalog mirror and the simulated platform", syncs of one store).
 */
export const mirrorSyncGenerationMigration: Statements = [
  "alter table mirror_sync_states add column generation integer not null default 0",
];
