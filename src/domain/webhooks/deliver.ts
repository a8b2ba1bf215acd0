/** Sending planned attempts: signed POSTs over the runtime's sender, then one transaction recording them. */
import type { AppContext } from "../../context.ts";
import { allocateDeliveryIds, type EventRecord, type PlannedAttempt } from "./delivery-reads.ts";
import type { LaneClaim } from "./lane.ts";
import { type Outcome, record } from "./record.ts";
import { USER_AGENT, type WebhookRuntime } from "./runtime.ts";
import { signatureHeader } from "./signing.ts";

/**
 * Sends every planned attempt (at most `concurrency` at once) and records them all in one
 * transaction: the delivery rows, the endpoints' counters, the next attempts, any endpoint disabled,
 * and (for the lane) the rows that were sent.
 */
export async function deliver(
  ctx: AppContext,
  rt: WebhookRuntime,
  planned: PlannedAttempt[],
  options: { concurrency: number; lane?: LaneClaim },
): Promise<void> {
  const outcomes: Outcome[] = [];
  if (planned.length > 0) {
    const ids = await allocateDeliveryIds(ctx.db, planned.length);
    const bodies = new Map<number, string>();
    await forEachLimit(planned, options.concurrency, async (p, index) => {
      let body = bodies.get(p.event.seq);
      if (body === undefined) {
        body = envelopeBody(p.event, p.webhook.api_version);
        bodies.set(p.event.seq, body);
      }
      const deliveryId = ids[index];
      const startedAt = ctx.clock.now();
      const timestamp = Math.floor(startedAt.getTime() / 1000);
      const secret = rt.decryptSecret(p.webhook.secret_encrypted, p.webhook.store_id);
      const endSend = rt.beginSend(p.webhook.id, startedAt.getTime());
      const result = await rt.sender
        .send({
          url: p.webhook.url,
          body,
          headers: {
            "User-Agent": USER_AGENT,
            "X-Service-Event": p.event.name,
            "X-Service-Event-Id": p.event.id,
            "X-Service-Delivery-Id": String(deliveryId),
            "X-Service-Webhook-Id": String(p.webhook.id),
            "X-Service-Timestamp": String(timestamp),
            "X-Service-Signature": signatureHeader(secret, timestamp, body),
          },
        })
        .finally(endSend);
      outcomes.push({ planned: p, deliveryId, result, startedAt, finishedAt: ctx.clock.now() });
    });
  }
  if (outcomes.length === 0 && !options.lane) return;
  await ctx.db.transaction().execute((trx) => record(ctx, rt, trx, outcomes, options.lane));
}

/** The webhook envelope (contract "Delivery": Body); the same bytes for every attempt of an event. */
export function envelopeBody(event: EventRecord, apiVersion = 2): string {
  return JSON.stringify({
    id: event.id,
    event: event.name,
    api_version: apiVersion,
    occurred_at: event.occurred_at.toISOString(),
    shop: { id: event.store_id, domain: event.shop_domain },
    data: event.data,
    ...(event.extra ?? {}),
  });
}

async function forEachLimit<T>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index], index);
    }
  });
  await Promise.all(runners);
}
