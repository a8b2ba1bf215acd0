import type { Statements } from "./index.ts";

/**
 * Every movement not acknowledged, in no batch and without a key record (`push_key_sent_at`,
 * migration 042) is taken to have been sent in its record's own document. Before 042 a push that
 * failed for good took its in-flight mark off and kept nothing, so 042 found no trace of a send whose
 * answer was lost; an admin's retry of such a push (a first attempt again) could put those movements
 * in a batch under a new key and move the stock twice on the platform. Nothing in the database tells
 * them apart from movements certainly never sent (an admin's retry waiting for its first attempt
 * looks like a new push), so all are marked: one never sent loses only its batching (it goes in its
 * record's own documents, under their keys, as before batches). docs/decisions.md, "Push batches".
 */
export const pushKeyAssumedMigration: Statements = [
  `update stock_movements m set push_key_sent_at = coalesce(m.push_sent_at, m.created_at)
    where m.pushed_at is null and m.push_key_sent_at is null
      and not exists (select 1 from push_batch_movements b where b.movement_id = m.id)`,
];
