/**
 * Recording sent attempts, in the one transaction that finishes their job (or lane rows): the
 * delivery log, each endpoint's failure count, the next attempts, endpoints disabled when the retry
 * schedule ran out, and the lane rows sent. Each step below is one of those.
 */
import { sql } from "kysely";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import type { PlannedAttempt } from "./delivery-reads.ts";
import type { WebhookSendResult } from "./http-client.ts";
import { DISABLED_EMAIL_JOB, sendJob } from "./job-types.ts";
import { addLaneItems, type LaneClaim, scheduleLane } from "./lane.ts";
import { nextAttemptDelay } from "./retry-schedule.ts";
import type { WebhookRuntime } from "./runtime.ts";

/** One attempt as it went. */
export interface Outcome {
  planned: PlannedAttempt;
  deliveryId: number;
  result: WebhookSendResult;
  startedAt: Date;
  finishedAt: Date;
}

/** An endpoint's state as locked, then as the outcomes leave it. */
interface WebhookTally {
  status: string;
  failures: number;
  deliveredAt: Date | null;
  failedAt: Date | null;
}

interface DeliveryRow {
  id: number;
  store_id: number;
  webhook_id: number;
  event_id: string;
  event: string;
  attempt: number;
  status: "succeeded" | "failed";
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  next_attempt_at: Date | null;
  created_at: Date;
}

interface Verdicts {
  rows: DeliveryRow[];
  retries: Array<{ outcome: Outcome; at: Date }>;
  /** Failed attempts whose schedule ran out with nothing succeeding since the event's first attempt. */
  exhausted: Outcome[];
}

export async function record(
  ctx: AppContext,
  rt: WebhookRuntime,
  trx: Db,
  outcomes: Outcome[],
  lane: LaneClaim | undefined,
): Promise<void> {
  const now = ctx.clock.now();
  const tallies = await lockEndpoints(trx, outcomes);
  const verdicts = judge(rt.schedule, outcomes, tallies);
  await insertDeliveryLog(trx, verdicts.rows);
  await saveEndpointCounters(trx, tallies);
  await scheduleRetries(ctx, trx, verdicts.retries, lane);
  await disableExhausted(ctx, trx, verdicts.exhausted, tallies, now);
  if (lane) await finishLaneClaim(ctx, trx, lane);
}

/**
 * Locks the endpoints attempted, in id order, so concurrent batches touching the same endpoints never
 * deadlock. An endpoint deleted while its attempt was in flight is missing: its log went with it.
 */
async function lockEndpoints(trx: Db, outcomes: Outcome[]): Promise<Map<number, WebhookTally>> {
  const webhookIds = [...new Set(outcomes.map((o) => o.planned.webhook.id))].sort((a, b) => a - b);
  const locked =
    webhookIds.length === 0
      ? []
      : await trx
          .selectFrom("webhooks")
          .select(["id", "status", "consecutive_failures"])
          .where("id", "in", webhookIds)
          .orderBy("id")
          .forUpdate()
          .execute();
  return new Map(
    locked.map((w) => [
      w.id,
      { status: w.status, failures: w.consecutive_failures, deliveredAt: null, failedAt: null },
    ]),
  );
}

/** Counts each outcome into its endpoint's tally, in order, and decides its log row and next attempt. */
function judge(
  schedule: readonly number[],
  outcomes: Outcome[],
  tallies: Map<number, WebhookTally>,
): Verdicts {
  const verdicts: Verdicts = { rows: [], retries: [], exhausted: [] };
  for (const outcome of outcomes) {
    const { planned, result } = outcome;
    const tally = tallies.get(planned.webhook.id);
    if (!tally) continue;
    let next: Date | null = null;
    if (result.ok) {
      tally.failures = 0;
      tally.deliveredAt = outcome.finishedAt;
    } else {
      tally.failures += 1;
      tally.failedAt = outcome.finishedAt;
      if (planned.retry) {
        const delay = nextAttemptDelay(schedule, planned.attempt);
        if (delay !== null) {
          next = new Date(outcome.finishedAt.getTime() + delay);
          verdicts.retries.push({ outcome, at: next });
        } else if (tally.failures >= schedule.length + 1) {
          verdicts.exhausted.push(outcome);
        }
      }
    }
    verdicts.rows.push({
      id: outcome.deliveryId,
      store_id: planned.webhook.store_id,
      webhook_id: planned.webhook.id,
      event_id: planned.event.id,
      event: planned.event.name,
      attempt: planned.attempt,
      status: result.ok ? "succeeded" : "failed",
      status_code: result.statusCode,
      duration_ms: Math.max(0, Math.round(result.durationMs)),
      error: result.error === null ? null : result.error.slice(0, 1000),
      next_attempt_at: next,
      created_at: outcome.startedAt,
    });
  }
  return verdicts;
}

async function insertDeliveryLog(trx: Db, rows: DeliveryRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 1000) {
    await trx
      .insertInto("webhook_deliveries")
      .values(rows.slice(i, i + 1000))
      .execute();
  }
}

/** Failure counts and last delivered/failed times of the endpoints that had an outcome, in one update. */
async function saveEndpointCounters(trx: Db, tallies: Map<number, WebhookTally>): Promise<void> {
  const touched = [...tallies.entries()].filter(([, t]) => t.deliveredAt !== null || t.failedAt !== null);
  if (touched.length === 0) return;
  const values = sql.join(
    touched.map(
      ([id, t]) =>
        sql`(${id}::integer, ${t.failures}::integer, ${t.deliveredAt}::timestamptz, ${t.failedAt}::timestamptz)`,
    ),
  );
  await sql`
    update webhooks as w set consecutive_failures = v.failures,
      last_delivered_at = coalesce(v.delivered_at, w.last_delivered_at),
      last_failed_at = coalesce(v.failed_at, w.last_failed_at)
    from (values ${values}) as v(id, failures, delivered_at, failed_at)
    where w.id = v.id`.execute(trx);
}

/** Next attempts: lane rows for a lane batch (retries stay in the lane), `webhooks.send` jobs otherwise. */
async function scheduleRetries(
  ctx: AppContext,
  trx: Db,
  retries: Verdicts["retries"],
  lane: LaneClaim | undefined,
): Promise<void> {
  if (retries.length === 0) return;
  if (lane) {
    await addLaneItems(
      ctx,
      trx,
      lane.storeId,
      retries.map(({ outcome, at }) => ({
        event_seq: outcome.planned.event.seq,
        webhook_id: outcome.planned.webhook.id,
        attempt: outcome.planned.attempt + 1,
        retry: true,
        run_at: at,
      })),
      false,
    );
    return;
  }
  await ctx.jobs.enqueueMany(
    trx,
    retries.map(({ outcome, at }) => {
      const { webhook, event, attempt } = outcome.planned;
      return sendJob(webhook.id, webhook.store_id, [[event.seq, attempt + 1]], true, {
        runAt: at,
        dedupeKey: `webhooks.attempt:${webhook.id}:${event.seq}:${attempt + 1}`,
      });
    }),
  );
}

/** Disables each endpoint whose schedule ran out, and queues the owner's email for each one disabled. */
async function disableExhausted(
  ctx: AppContext,
  trx: Db,
  exhausted: Outcome[],
  tallies: Map<number, WebhookTally>,
  now: Date,
): Promise<void> {
  const disabledAlready = new Set<number>();
  for (const outcome of exhausted) {
    const webhookId = outcome.planned.webhook.id;
    if (disabledAlready.has(webhookId)) continue;
    disabledAlready.add(webhookId);
    const failures = tallies.get(webhookId)?.failures ?? 0;
    const reason =
      `Deliveries failed ${failures} times in a row and the retry schedule ran out ` +
      `(event ${outcome.planned.event.id}, last error: ${outcome.result.error ?? "unknown"}).`;
    const disabled = await trx
      .updateTable("webhooks")
      .set({
        status: "disabled",
        disabled_at: now,
        disabled_reason: reason.slice(0, 1000),
        updated_at: now,
      })
      .where("id", "=", webhookId)
      .where("status", "=", "active")
      .returning("id")
      .executeTakeFirst();
    // Only the transaction that moved it from active sends the email: one email per disabling.
    if (disabled) {
      await ctx.jobs.enqueue(
        trx,
        DISABLED_EMAIL_JOB,
        { webhook_id: webhookId },
        { storeId: outcome.planned.webhook.store_id, maxAttempts: 10 },
      );
    }
  }
}

/** The lane rows sent are done; the lane job comes back for the store's next waiting row. */
async function finishLaneClaim(ctx: AppContext, trx: Db, lane: LaneClaim): Promise<void> {
  await trx
    .deleteFrom("webhook_lane_items")
    .where("id", "in", lane.itemIds)
    .where("locked_by", "=", lane.lockedBy)
    .execute();
  await scheduleLane(ctx, trx, lane.storeId);
}
