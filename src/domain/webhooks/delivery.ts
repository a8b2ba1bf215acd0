/**
 * Webhook delivery: from an emitted event to signed POSTs, the delivery log, retries, disabling.
 *
 * Paths an event takes (all started by `onEvent`, in the transaction that emitted the event, so an
 * event and the work that delivers it commit together):
 *
 *  - Lifecycle events of a store under the hourly volume: one `webhooks.fanout` job per event. It
 *    sends to every active subscribed endpoint in parallel (over the sender's keep-alive pool) and
 *    records every attempt in one transaction. Endpoints already failing are given their own
 *    `webhooks.send` job, so one slow or dead endpoint never holds up the healthy ones.
 *  - `.updated` events: one `webhooks.fold` job per record, keyed by the record. The first update opens
 *    a 5 s window (the job's run time); later updates within it only repoint the job at the newest
 *    event, so the window's changes become one delivery carrying the latest state.
 *  - Stores over 1,000 events in the last hour: their events wait as rows of `webhook_lane_items` and
 *    are sent by that store's lane job (`webhooks.lane`) in batches (100 rows, 50 sends at a time).
 *    A store has at most one queued lane job (a dedupe key) and one batch in flight (a batch starts
 *    only when none of the store's rows is leased), and a batch re-queues the job behind every job
 *    already due, so a busy store holds one worker slot while other stores' jobs keep flowing in
 *    run_at order; nothing is dropped, it is only paced. Retries of lane deliveries stay in the lane.
 *  - Retries, redeliveries and test events: `webhooks.send` jobs for one endpoint.
 *
 * At-least-once: a job (or a lane row) is finished only by the transaction that records its attempts;
 * a worker that dies mid-delivery leaves the job leased, and it runs again when the lease runs out.
 */
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import type { EmittedEvent } from "../../events/outbox.ts";
import { html } from "../../html/template.ts";
import type { EnqueueOptions } from "../../jobs/queue.ts";
import { PermanentJobError } from "../../jobs/worker.ts";
import { classifySendError } from "../../mail/mailer.ts";
import {
  foldKey,
  foldRunAt,
  foldsWithin,
  SLOW_LANE_EVENTS_PER_HOUR,
  subscribes,
  TEST_EVENT,
} from "./catalogue.ts";
import type { WebhookSendResult } from "./http-client.ts";
import { nextAttemptDelay } from "./retry-schedule.ts";
import { USER_AGENT, type WebhookRuntime } from "./runtime.ts";
import { signatureHeader } from "./signing.ts";

export const FANOUT_JOB = "webhooks.fanout";
export const FOLD_JOB = "webhooks.fold";
export const SEND_JOB = "webhooks.send";
export const LANE_JOB = "webhooks.lane";
export const DISABLED_EMAIL_JOB = "webhooks.disabled_email";

/** Parallel sends within one fan-out or send job. */
const JOB_CONCURRENCY = 16;
/** Lane rows taken per lane job run, and parallel sends within it. */
export const LANE_BATCH = 100;
const LANE_CONCURRENCY = 50;
/** How long a lane job holds its rows; long enough for a batch of timeouts (rows come back after). */
const LANE_LEASE_MS = 5 * 60 * 1000;
/** How long a store found over the hourly volume stays in the slow lane before it is counted again. */
const HOT_RECHECK_MS = 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;
/** Infrastructure failures (database) retry the job itself; delivery failures never throw. */
const JOB_MAX_ATTEMPTS = 50;
/**
 * An endpoint with an attempt in flight this long (in this process) is treated like a failing one by
 * fan-outs: it gets its own send job instead of holding up the fan-out (and its worker slot) until the
 * 10 s timeout, so a hanging endpoint delays nobody else even before its first failure is recorded.
 */
export const SLOW_ENDPOINT_MS = 2000;
/** Share of a worker's slots that `webhooks.send` jobs (retries, mostly to failing endpoints) may hold. */
export const SEND_JOB_MAX_SHARE = 0.5;

/** An event as delivered: the stored snapshot plus the shop's domain for the envelope. */
export interface EventRecord {
  seq: number;
  id: string;
  store_id: number;
  name: string;
  subject_type: string;
  subject_id: number;
  data: unknown;
  extra: Record<string, unknown> | null;
  occurred_at: Date;
  shop_domain: string;
}

export interface Target {
  id: number;
  store_id: number;
  url: string;
  secret_encrypted: string;
  events: string[];
  status: "active" | "paused" | "disabled";
  api_version: number;
  consecutive_failures: number;
  created_at: Date;
}

export interface PlannedAttempt {
  event: EventRecord;
  webhook: Target;
  attempt: number;
  /** Whether a failure schedules the next attempt (false for manual redeliveries and test events). */
  retry: boolean;
}

interface Outcome {
  planned: PlannedAttempt;
  deliveryId: number;
  result: WebhookSendResult;
  startedAt: Date;
  finishedAt: Date;
}

interface LaneClaim {
  storeId: number;
  itemIds: number[];
  lockedBy: string;
}

const TARGET_COLUMNS = [
  "id",
  "store_id",
  "url",
  "secret_encrypted",
  "events",
  "status",
  "api_version",
  "consecutive_failures",
  "created_at",
] as const;

// --- From the outbox ---------------------------------------------------------------------------

/**
 * Runs in the transaction of every emitted event. Costs one small query when the store has no
 * subscriber for the event, and one job (or lane row) otherwise.
 */
export async function routeEmittedEvent(
  ctx: AppContext,
  rt: WebhookRuntime,
  trx: Db,
  event: EmittedEvent,
): Promise<void> {
  // webhook.test goes only to the endpoint tested, queued by the test call itself.
  if (event.name === TEST_EVENT) return;
  const hooks = await trx
    .selectFrom("webhooks")
    .select("events")
    .where("store_id", "=", event.storeId)
    .where("status", "=", "active")
    .execute();
  if (!hooks.some((h) => subscribes(h.events, event.name))) return;
  const now = ctx.clock.now();

  if (foldsWithin(event.name)) {
    const key = foldKey(event.storeId, event.subjectType, event.subjectId, event.name);
    const pending = await trx
      .selectFrom("jobs")
      .select("run_at")
      .where("dedupe_key", "=", key)
      .where("state", "=", "queued")
      .executeTakeFirst();
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
        runAt: foldRunAt(now, pending?.run_at ?? null),
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

/** Whether the store had more than 1,000 events in the last hour (bounded scan of one index). */
export async function isHot(db: Db, rt: WebhookRuntime, storeId: number, now: Date): Promise<boolean> {
  const until = rt.hotUntil.get(storeId);
  if (until !== undefined && until > now.getTime()) return true;
  const row = await db
    .selectFrom("events")
    .select("seq")
    .where("store_id", "=", storeId)
    .where("occurred_at", ">", new Date(now.getTime() - HOUR_MS))
    .orderBy("occurred_at", "desc")
    .orderBy("seq", "desc")
    .limit(1)
    .offset(SLOW_LANE_EVENTS_PER_HOUR)
    .executeTakeFirst();
  if (row === undefined) {
    rt.hotUntil.delete(storeId);
    return false;
  }
  rt.hotUntil.set(storeId, now.getTime() + HOT_RECHECK_MS);
  return true;
}

// --- Job handlers ------------------------------------------------------------------------------

/** `webhooks.fanout`: first attempt of one event to every active subscriber. */
export async function runFanout(ctx: AppContext, rt: WebhookRuntime, seq: number): Promise<void> {
  const [event] = await loadEvents(ctx.db, [seq]);
  if (event) await fanOut(ctx, rt, event);
}

/** `webhooks.fold`: the newest `.updated` event of the record, once its window closed. */
export async function runFold(
  ctx: AppContext,
  rt: WebhookRuntime,
  payload: { seq: number; store_id: number; subject_type: string; subject_id: number; name: string },
): Promise<void> {
  const newest = await ctx.db
    .selectFrom("events")
    .select("seq")
    .where("store_id", "=", payload.store_id)
    .where("subject_type", "=", payload.subject_type)
    .where("subject_id", "=", payload.subject_id)
    .where("name", "=", payload.name)
    .where("seq", ">=", payload.seq)
    .orderBy("seq", "desc")
    .limit(1)
    .executeTakeFirst();
  if (!newest) return; // purged
  const now = ctx.clock.now();
  if (await isHot(ctx.db, rt, payload.store_id, now)) {
    await ctx.db.transaction().execute(async (trx) => {
      await addLaneItems(ctx, trx, payload.store_id, [
        { event_seq: newest.seq, webhook_id: null, attempt: 1, retry: true, run_at: now },
      ]);
    });
    return;
  }
  await runFanout(ctx, rt, newest.seq);
}

export interface SendPayload {
  webhook_id: number;
  /** `[event seq, attempt number]` pairs. */
  items: Array<[number, number]>;
  retry: boolean;
}

/** `webhooks.send`: given attempts to one endpoint (retries, redeliveries, test events). */
export async function runSend(ctx: AppContext, rt: WebhookRuntime, payload: SendPayload): Promise<void> {
  const webhook = await ctx.db
    .selectFrom("webhooks")
    .select(TARGET_COLUMNS)
    .where("id", "=", payload.webhook_id)
    .executeTakeFirst();
  // Paused, disabled or deleted endpoints get nothing; the chain ends here (redeliver resumes it).
  if (webhook?.status !== "active") return;
  const events = new Map(
    (
      await loadEvents(
        ctx.db,
        payload.items.map(([seq]) => seq),
      )
    ).map((e) => [e.seq, e]),
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

/** `webhooks.lane`: one batch of a busy store's waiting deliveries. */
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
  const events = new Map(
    (
      await loadEvents(
        ctx.db,
        items.map((i) => i.event_seq),
      )
    ).map((e) => [e.seq, e]),
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

/** `webhooks.disabled_email`: the one email to the store owner when an endpoint was disabled. */
export async function runDisabledEmail(
  ctx: AppContext,
  rt: WebhookRuntime,
  webhookId: number,
): Promise<void> {
  const row = await ctx.db
    .selectFrom("webhooks")
    .innerJoin("stores", "stores.id", "webhooks.store_id")
    .select([
      "webhooks.id",
      "webhooks.url",
      "webhooks.disabled_at",
      "webhooks.disabled_reason",
      "stores.name as store_name",
      "stores.owner_email",
    ])
    .where("webhooks.id", "=", webhookId)
    .executeTakeFirst();
  if (!row?.owner_email) return; // deleted meanwhile, or nobody to tell
  const when = row.disabled_at?.toISOString() ?? ctx.clock.now().toISOString();
  const reason = row.disabled_reason ?? "deliveries kept failing";
  const text = [
    `Webhook endpoint ${row.id} of ${row.store_name} was disabled at ${when}.`,
    "",
    `URL: ${row.url}`,
    `Reason: ${reason}`,
    "",
    "Events still happen and are kept for 30 days, but nothing is sent to this endpoint until it is",
    "re-enabled: PATCH /v2/webhooks/" + `${row.id} with {"status": "active"}. After fixing the receiver,`,
    `POST /v2/webhooks/${row.id}/redeliver with {"since": "<time>"} sends what it missed.`,
  ].join("\n");
  const body = html`<p>Webhook endpoint ${row.id} of ${row.store_name} was disabled at ${when}.</p>
<p>URL: <code>${row.url}</code><br>Reason: ${reason}</p>
<p>Events still happen and are kept for 30 days, but nothing is sent to this endpoint until it is
re-enabled with <code>PATCH /v2/webhooks/${row.id}</code> and <code>{"status": "active"}</code>.
After fixing the receiver, <code>POST /v2/webhooks/${row.id}/redeliver</code> with
<code>{"since": "&lt;time&gt;"}</code> sends what it missed.</p>`;
  try {
    await rt.mailer.send({
      from: ctx.config.mailFrom,
      to: [row.owner_email],
      subject: `Webhook endpoint disabled: ${row.url}`,
      text,
      html: body.value,
    });
  } catch (error) {
    if (classifySendError(error) === "permanent") {
      throw new PermanentJobError(error instanceof Error ? error.message : String(error));
    }
    throw error;
  }
}

// --- Sending and recording ---------------------------------------------------------------------

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

/** A `webhooks.send` job description for enqueue/enqueueMany. */
export function sendJob(
  webhookId: number,
  storeId: number,
  items: Array<[number, number]>,
  retry: boolean,
  options: EnqueueOptions = {},
): { type: string; payload: Record<string, unknown>; options: EnqueueOptions } {
  const payload: SendPayload = { webhook_id: webhookId, items, retry };
  return {
    type: SEND_JOB,
    payload: payload as unknown as Record<string, unknown>,
    options: { storeId, maxAttempts: JOB_MAX_ATTEMPTS, ...options },
  };
}

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

interface WebhookTally {
  status: string;
  failures: number;
  deliveredAt: Date | null;
  failedAt: Date | null;
}

async function record(
  ctx: AppContext,
  rt: WebhookRuntime,
  trx: Db,
  outcomes: Outcome[],
  lane: LaneClaim | undefined,
): Promise<void> {
  const now = ctx.clock.now();
  const webhookIds = [...new Set(outcomes.map((o) => o.planned.webhook.id))].sort((a, b) => a - b);
  // Locked in id order, so concurrent batches touching the same endpoints never deadlock.
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
  const tallies = new Map<number, WebhookTally>(
    locked.map((w) => [
      w.id,
      { status: w.status, failures: w.consecutive_failures, deliveredAt: null, failedAt: null },
    ]),
  );

  const rows: Array<{
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
  }> = [];
  const retries: Array<{ outcome: Outcome; at: Date }> = [];
  const exhausted: Array<{ webhookId: number; outcome: Outcome }> = [];
  for (const outcome of outcomes) {
    const { planned, result } = outcome;
    const tally = tallies.get(planned.webhook.id);
    if (!tally) continue; // deleted while the attempt was in flight: its log went with it
    let next: Date | null = null;
    if (result.ok) {
      tally.failures = 0;
      tally.deliveredAt = outcome.finishedAt;
    } else {
      tally.failures += 1;
      tally.failedAt = outcome.finishedAt;
      if (planned.retry) {
        const delay = nextAttemptDelay(rt.schedule, planned.attempt);
        if (delay !== null) {
          next = new Date(outcome.finishedAt.getTime() + delay);
          retries.push({ outcome, at: next });
        } else if (tally.failures >= rt.schedule.length + 1) {
          // The schedule ran out and nothing succeeded since this event's first attempt.
          exhausted.push({ webhookId: planned.webhook.id, outcome });
        }
      }
    }
    rows.push({
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

  for (let i = 0; i < rows.length; i += 1000) {
    await trx
      .insertInto("webhook_deliveries")
      .values(rows.slice(i, i + 1000))
      .execute();
  }

  const touched = [...tallies.entries()].filter(([, t]) => t.deliveredAt !== null || t.failedAt !== null);
  if (touched.length > 0) {
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

  if (retries.length > 0) {
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
    } else {
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
  }

  const disabledAlready = new Set<number>();
  for (const { webhookId, outcome } of exhausted) {
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

  if (lane) {
    await trx
      .deleteFrom("webhook_lane_items")
      .where("id", "in", lane.itemIds)
      .where("locked_by", "=", lane.lockedBy)
      .execute();
    await scheduleLane(ctx, trx, lane.storeId);
  }
}

// --- The slow lane -----------------------------------------------------------------------------

interface LaneItemInput {
  event_seq: number;
  webhook_id: number | null;
  attempt: number;
  retry: boolean;
  run_at: Date;
}

async function addLaneItems(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  items: LaneItemInput[],
  schedule = true,
): Promise<void> {
  if (items.length === 0) return;
  await trx
    .insertInto("webhook_lane_items")
    .values(items.map((i) => ({ ...i, store_id: storeId })))
    .execute();
  if (schedule) {
    const earliest = new Date(Math.min(...items.map((i) => i.run_at.getTime())));
    await ensureLaneJob(ctx, trx, storeId, earliest);
  }
}

/** After a batch: the lane job again for the store's next waiting row, if any. */
async function scheduleLane(ctx: AppContext, trx: Db, storeId: number): Promise<void> {
  const next = await trx
    .selectFrom("webhook_lane_items")
    .select(sql<Date>`min(greatest(run_at, coalesce(locked_until, run_at)))`.as("at"))
    .where("store_id", "=", storeId)
    .executeTakeFirst();
  if (next?.at) {
    const now = ctx.clock.now();
    const at = new Date(next.at);
    await ensureLaneJob(ctx, trx, storeId, at < now ? now : at);
  }
}

/**
 * At most one queued lane job per store, due no later than `runAt`: inserted if none waits, otherwise
 * moved earlier when it waits for a later time (a row due now must not wait behind a retry due
 * tomorrow). The move runs after the insert, so of two racing transactions the second sees the
 * first's row once it commits.
 */
async function ensureLaneJob(ctx: AppContext, trx: Db, storeId: number, runAt: Date): Promise<void> {
  const key = `webhooks.lane:${storeId}`;
  await ctx.jobs.enqueue(
    trx,
    LANE_JOB,
    { store_id: storeId },
    { storeId, dedupeKey: key, runAt, maxAttempts: 1000 },
  );
  await trx
    .updateTable("jobs")
    .set({ run_at: runAt })
    .where("dedupe_key", "=", key)
    .where("state", "=", "queued")
    .where("run_at", ">", runAt)
    .execute();
}

// --- Reads -------------------------------------------------------------------------------------

export async function loadEvents(db: Db, seqs: number[]): Promise<EventRecord[]> {
  if (seqs.length === 0) return [];
  const rows = await db
    .selectFrom("events")
    .innerJoin("stores", "stores.id", "events.store_id")
    .select([
      "events.seq",
      "events.id",
      "events.store_id",
      "events.name",
      "events.subject_type",
      "events.subject_id",
      "events.data",
      "events.extra",
      "events.occurred_at",
      "stores.domain as shop_domain",
    ])
    .where("events.seq", "in", [...new Set(seqs)])
    .execute();
  return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
}

async function activeWebhooks(db: Db, storeId: number): Promise<Target[]> {
  return db
    .selectFrom("webhooks")
    .select(TARGET_COLUMNS)
    .where("store_id", "=", storeId)
    .where("status", "=", "active")
    .orderBy("id")
    .execute();
}

/** Subscribers of the event that existed when it happened. */
function subscribersAmong(hooks: Target[], event: EventRecord): Target[] {
  return hooks.filter(
    (w) => subscribes(w.events, event.name) && w.created_at.getTime() <= event.occurred_at.getTime(),
  );
}

/** Delivery ids before sending: the id is the X-Service-Delivery-Id header of the attempt. */
async function allocateDeliveryIds(db: Db, count: number): Promise<number[]> {
  const result = await sql<{ id: number | string }>`
    select nextval(pg_get_serial_sequence('webhook_deliveries', 'id')) as id
    from generate_series(1, ${count}::integer)`.execute(db);
  return result.rows.map((r) => Number(r.id));
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
