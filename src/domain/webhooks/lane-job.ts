/** `webhooks.lane`: one batch of a busy store's waiting deliveries (see lane.ts). */
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import type { AppContext } from "../../context.ts";
import { deliver } from "./deliver.ts";
import { activeWebhooks, eventsBySeq, type PlannedAttempt, subscribersAmong } from "./delivery-reads.ts";
import { ensureLaneJob, scheduleLane } from "./lane.ts";
import type { WebhookRuntime } from "./runtime.ts";

/** Lane rows taken per lane job run, and parallel sends within it. */
export const LANE_BATCH = 100;
const LANE_CONCURRENCY = 50;
/** How long a lane job holds its rows; long enough for a batch of timeouts (rows come back after). */
const LANE_LEASE_MS = 5 * 60 * 1000;

export async function runLane(
  ctx: AppContext,
  rt: WebhookRuntime,
  storeId: number,
  jobId: number,
): Promise<void> {
  const lockedBy = `lane-${jobId}-${randomUUID().slice(0, 8)}`;
  const now = ctx.clock.now();
  const claimed = await sql<{
    id: number;
    event_seq: number;
    webhook_id: number | null;
    attempt: number;
    retry: boolean;
  }>`
    update webhook_lane_items set locked_by = ${lockedBy},
      locked_until = ${new Date(now.getTime() + LANE_LEASE_MS)}
    where id in (
      select id from webhook_lane_items
      where store_id = ${storeId} and run_at <= ${now}
        and (locked_until is null or locked_until < ${now})
        and not exists (
          select 1 from webhook_lane_items busy
          where busy.store_id = ${storeId} and busy.locked_until >= ${now})
      order by run_at, id
      limit ${LANE_BATCH}
      for update skip locked
    )
    returning id, event_seq, webhook_id, attempt, retry`.execute(ctx.db);
  if (claimed.rows.length === 0) {
    await ctx.db.transaction().execute(async (trx) => {
      // Another batch of this store is in flight: come back when its lease ends (it pulls this job
      // earlier itself when it finishes), rather than spinning on the busy lane meanwhile.
      const busy = await trx
        .selectFrom("webhook_lane_items")
        .select((eb) => eb.fn.min("locked_until").as("until"))
        .where("store_id", "=", storeId)
        .where("locked_until", ">=", now)
        .executeTakeFirst();
      if (busy?.until) await ensureLaneJob(ctx, trx, storeId, new Date(busy.until));
      else await scheduleLane(ctx, trx, storeId);
    });
    return;
  }
  const items = claimed.rows.map((r) => ({ ...r, id: Number(r.id), event_seq: Number(r.event_seq) }));
  items.sort((a, b) => a.id - b.id);
  const events = await eventsBySeq(
    ctx.db,
    items.map((i) => i.event_seq),
  );
  const hooks = await activeWebhooks(ctx.db, storeId);
  const byId = new Map(hooks.map((w) => [w.id, w]));
  const planned: PlannedAttempt[] = [];
  for (const item of items) {
    const event = events.get(item.event_seq);
    if (!event) continue;
    if (item.webhook_id === null) {
      for (const webhook of subscribersAmong(hooks, event)) {
        planned.push({ event, webhook, attempt: 1, retry: true });
      }
    } else {
      const webhook = byId.get(item.webhook_id);
      if (webhook) planned.push({ event, webhook, attempt: item.attempt, retry: item.retry });
    }
  }
  await deliver(ctx, rt, planned, {
    concurrency: LANE_CONCURRENCY,
    lane: { storeId, itemIds: items.map((i) => i.id), lockedBy },
  });
}
