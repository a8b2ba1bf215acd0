import type { Statements } from "./index.ts";

/**
 * Push batches (platform/push-batches.ts): several records' movements of one store sent as one
 * platform document. `stock_movements.push_batch_id` (unused until now) names the document a movement
 * was assigned to, committed before the document is sent, so any retry sends the same movements under
 * the same key; the sequence numbers documents, so no two ever share a key.
 */
export const pushBatchesMigration: Statements = [
  "create sequence push_batch_ids",
  `create index stock_movements_push_batch on stock_movements (store_id, push_batch_id)
    where pushed_at is null and push_batch_id is not null`,
];
