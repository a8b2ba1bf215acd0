/**
 * Webhook delivery: from an emitted event to signed POSTs, the delivery log, retries, disabling.
 *
 * Paths an event takes (all started by `routeEmittedEvent`, in the transaction that emitted the event,
 * so an event and the work that delivers it commit together):
 *
 *  - Lifecycle events of a store under the hourly volume: one `webhooks.fanout` job per event
 *    (fanout-job.ts). It sends to every active subscribed endpoint in parallel (over the sender's
 *    keep-alive pool) and records every attempt in one transaction. Endpoints already failing are
 *    given their own `webhooks.send` job, so one slow or dead endpoint never holds up the healthy ones.
 *  - `.updated` events: one `webhooks.fold` job per record, keyed by the record (fold-job.ts). The
 *    first update opens a 5 s window (the job's run time); later updates within it only repoint the job
 *    at the newest event, so the window's changes become one delivery carrying the latest state.
 *  - Stores over 1,000 events in the last hour: their events wait as rows of `webhook_lane_items` and
 *    are sent by that store's lane job (`webhooks.lane`, lane-job.ts) in batches (100 rows, 50 sends at
 *    a time). A store has at most one queued lane job (a dedupe key) and one batch in flight (a batch
 *    starts only when none of the store's rows is leased), and a batch re-queues the job behind every
 *    job already due, so a busy store holds one worker slot while other stores' jobs keep flowing in
 *    run_at order; nothing is dropped, it is only paced. Retries of lane deliveries stay in the lane.
 *  - Retries, redeliveries and test events: `webhooks.send` jobs for one endpoint (send-job.ts).
 *
 * Sending is deliver.ts; recording the attempts (log, failure counts, retries, disabling) record.ts.
 * At-least-once: a job (or a lane row) is finished only by the transaction that records its attempts;
 * a worker that dies mid-delivery leaves the job leased, and it runs again when the lease runs out.
 */
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { hotSql } from "../../db/prepared.ts";
import type { EmittedEvent } from "../../events/outbox.ts";
import { foldKey, foldRunAt, foldsWithin, subscribes, TEST_EVENT } from "./catalogue.ts";
import { FANOUT_JOB, FOLD_JOB, JOB_MAX_ATTEMPTS } from "./job-types.ts";
import { addLaneItems, isHot } from "./lane.ts";
import type { WebhookRuntime } from "./runtime.ts";

/**
 * The store's active subscriptions, read in the transaction of every emitted event (every write):
 * a fixed text, prepared once per PostgreSQL connection (db/prepared.ts), not built, compiled,
 * parsed and planned for each event.
 */
const activeSubscriptions = hotSql<[storeId: number], { events: string[] }>(
  "stockroom_webhooks_active",
  "select events from webhooks where store_id = $1 and status = 'active'",
  { priority: false },
);

/**
 * The same subscriptions' event lists as one JSON text, read in the statement that writes every event
 * (Module.eventRead, $2 the event's store): no statement of its own for an event.
 */
export const ACTIVE_EVENTS_READ = {
  name: "webhooks_active_events",
  sql: "select coalesce(json_agg(events), '[]')::text from webhooks where store_id = $2 and status = 'active'",
};

/** The store's active subscriptions' event lists: as read with the event, or read now. */
async function activeEventLists(trx: Db, event: EmittedEvent): Promise<string[][]> {
  const read = event.read?.[ACTIVE_EVENTS_READ.name];
  if (typeof read === "string") return JSON.parse(read) as string[][];
  return (await activeSubscriptions.run(trx, event.storeId)).map((h) => h.events);
}

/**
 * Runs in the transaction of every emitted event. Costs nothing more when the store has no
 * subscriber for the event (the subscriptions come with the event's insert), and one job (or lane
 * row) otherwise.
 */
export async function routeEmittedEvent(
  ctx: AppContext,
  rt: WebhookRuntime,
  trx: Db,
  event: EmittedEvent,
): Promise<void> {
  // webhook.test goes only to the endpoint tested, queued by the test call itself.
  if (event.name === TEST_EVENT) return;
  const lists = await activeEventLists(trx, event);
  if (!lists.some((events) => subscribes(events, event.name))) return;
  const now = ctx.clock.now();

  if (foldsWithin(event.name)) {
    const key = foldKey(event.storeId, event.subjectType, event.subjectId, event.name);
    const pendingRunAt = await ctx.jobs.queuedRunAt(trx, key);
    await ctx.jobs.enqueue(
      trx,
      FOLD_JOB,
      {
        seq: event.seq,
        store_id: event.storeId,
        subject_type: event.subjectType,
        subject_id: event.subjectId,
        name: event.name,
      },
      {
        storeId: event.storeId,
        dedupeKey: key,
        onDuplicate: "replace",
        runAt: foldRunAt(now, pendingRunAt),
        maxAttempts: JOB_MAX_ATTEMPTS,
      },
    );
    return;
  }

  if (await isHot(trx, rt, event.storeId, now)) {
    await addLaneItems(ctx, trx, event.storeId, [
      { event_seq: event.seq, webhook_id: null, attempt: 1, retry: true, run_at: now },
    ]);
    return;
  }
  await ctx.jobs.enqueue(
    trx,
    FANOUT_JOB,
    { seq: event.seq },
    { storeId: event.storeId, maxAttempts: JOB_MAX_ATTEMPTS },
  );
}
