import type { Statements } from "./index.ts";

/**
 * `stock_movements.push_key_sent_at`: when a document carrying the movement in its record's own
 * document (not a batch) was first sent. From then the platform may hold it under that document's key,
 * so no later attempt (an admin's retry included) may put it in a batch under another key; it is sent
 * again under the same key until the platform answers (docs/decisions.md, "Push batches", a send's
 * key kept). Unlike the in-flight mark `push_sent_at`, which comes off when the job fails for good (no
 * push sends it then, and its level follows the platform's reports again), it comes off only where the
 * platform certainly holds nothing under that key: the document refused on its first send having moved
 * nothing, or never sent. Movements in flight when the upgrade runs were sent so.
 */
export const pushKeySentMigration: Statements = [
  "alter table stock_movements add column push_key_sent_at timestamptz",
  `update stock_movements set push_key_sent_at = push_sent_at
    where pushed_at is null and push_sent_at is not null`,
];
