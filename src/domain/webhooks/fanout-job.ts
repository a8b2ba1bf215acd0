/** `webhooks.fanout`: the first attempt of one event to every active subscriber. */
import type { AppContext } from "../../context.ts";
import { deliver } from "./deliver.ts";
import { activeWebhooks, type EventRecord, loadEvents, subscribersAmong } from "./delivery-reads.ts";
import { JOB_CONCURRENCY, sendJob } from "./job-types.ts";
import type { WebhookRuntime } from "./runtime.ts";

/**
 * An endpoint with an attempt in flight this long (in this process) is treated like a failing one by
 * fan-outs: it gets its own send job instead of holding up the fan-out (and its worker slot) until the
 * 10 s timeout, so a hanging endpoint delays nobody else even before its first failure is recorded.
 */
export const SLOW_ENDPOINT_MS = 2000;

export async function runFanout(ctx: AppContext, rt: WebhookRuntime, seq: number): Promise<void> {
  const [event] = await loadEvents(ctx.db, [seq]);
  if (event) await fanOut(ctx, rt, event);
}

/** Healthy subscribers are sent to here; failing or slow ones each get a `webhooks.send` job. */
async function fanOut(ctx: AppContext, rt: WebhookRuntime, event: EventRecord): Promise<void> {
  const subscribers = subscribersAmong(await activeWebhooks(ctx.db, event.store_id), event);
  const slowSince = ctx.clock.now().getTime() - SLOW_ENDPOINT_MS;
  const healthy = subscribers.filter((w) => w.consecutive_failures === 0 && !rt.isSlow(w.id, slowSince));
  const failing = subscribers.filter((w) => !healthy.includes(w));
  if (failing.length > 0) {
    await ctx.jobs.enqueueMany(
      ctx.db,
      failing.map((w) =>
        sendJob(w.id, event.store_id, [[event.seq, 1]], true, {
          dedupeKey: `webhooks.attempt:${w.id}:${event.seq}:1`,
        }),
      ),
    );
  }
  await deliver(
    ctx,
    rt,
    healthy.map((webhook) => ({ event, webhook, attempt: 1, retry: true })),
    { concurrency: JOB_CONCURRENCY },
  );
}
