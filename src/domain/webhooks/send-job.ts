/** `webhooks.send`: given attempts to one endpoint (retries, redeliveries, test events). */
import type { AppContext } from "../../context.ts";
import { deliver } from "./deliver.ts";
import { eventsBySeq, loadTarget, type PlannedAttempt } from "./delivery-reads.ts";
import { JOB_CONCURRENCY, type SendPayload } from "./job-types.ts";
import type { WebhookRuntime } from "./runtime.ts";

/** Share of a worker's slots that `webhooks.send` jobs (retries, mostly to failing endpoints) may hold. */
export const SEND_JOB_MAX_SHARE = 0.5;

export async function runSend(ctx: AppContext, rt: WebhookRuntime, payload: SendPayload): Promise<void> {
  const webhook = await loadTarget(ctx.db, payload.webhook_id);
  // Paused, disabled or deleted endpoints get nothing; the chain ends here (redeliver resumes it).
  if (webhook?.status !== "active") return;
  const events = await eventsBySeq(
    ctx.db,
    payload.items.map(([seq]) => seq),
  );
  const planned: PlannedAttempt[] = [];
  for (const [seq, attempt] of payload.items) {
    const event = events.get(seq);
    if (event && event.store_id === webhook.store_id) {
      planned.push({ event, webhook, attempt, retry: payload.retry });
    }
  }
  await deliver(ctx, rt, planned, { concurrency: JOB_CONCURRENCY });
}
