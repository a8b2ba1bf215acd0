/**
 * Webhook subscriptions: create, change, delete, the delivery log, test events and redelivery
 * (contract "Webhooks" endpoints and rules; docs/decisions.md, "Webhooks"). No Fastify here: the admin API
 * and the public API share these functions.
 */
import { sql } from "kysely";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { keysetPage, type Page, type PageRequest } from "../../db/keyset-paging.ts";
import { emit } from "../../events/outbox.ts";
import { deleteEventsBefore } from "../../events/retention.ts";
import { AppError, DetailCollector, invalidTransition, notFound, validationFailed } from "../errors.ts";
import { ALL_EVENTS, isCatalogueEvent, subscribes, TEST_EVENT } from "./catalogue.ts";
import { sendJob } from "./job-types.ts";
import { type DeliveryRow, presentDelivery, presentWebhook, type WebhookRow } from "./presenter.ts";
import type { WebhookRuntime } from "./runtime.ts";
import { generateWebhookSecret } from "./signing.ts";
import { ownServiceOf, validateWebhookUrl } from "./url-guard.ts";

/** Webhook endpoints per store (contract "Limits"). */
export const MAX_WEBHOOKS_PER_STORE = 10;
/** Catch-up redelivery by `since` sends at most this many events, the newest ones. */
export const MAX_SINCE_EVENTS = 500;

export interface WebhookInput {
  url?: string;
  events?: string[];
  description?: string | null;
  status?: string;
}

export interface RedeliverResult {
  queued: number;
  event_ids: string[];
}

/**
 * Checks a URL outside any transaction (it resolves DNS, which must not hold a database connection)
 * and returns it canonicalised, or throws 422 validation_failed on `url`.
 */
export async function checkWebhookUrl(ctx: AppContext, rt: WebhookRuntime, url: string): Promise<string> {
  const result = await validateWebhookUrl(url, {
    allowPrivate: ctx.config.webhookAllowPrivate,
    ...ownServiceOf(ctx.config),
    ...(rt.options.resolve === undefined ? {} : { resolve: rt.options.resolve }),
  });
  if (!result.ok) throw validationFailed([{ field: "url", code: "invalid_url", message: result.message }]);
  return result.url.href;
}

/** Catalogue names or `["*"]`; duplicates dropped, order kept. */
export function checkEvents(events: string[], problems: DetailCollector): string[] {
  if (events.includes(ALL_EVENTS) && events.some((e) => e !== ALL_EVENTS)) {
    problems.add("events", "invalid_value", 'use ["*"] alone for every event, or list event names');
  }
  events.forEach((name, i) => {
    if (name !== ALL_EVENTS && !isCatalogueEvent(name)) {
      problems.add(`events.${i}`, "unknown_event", `${JSON.stringify(name)} is not an event name`);
    }
  });
  return [...new Set(events)];
}

export async function listWebhooks(db: Db, storeId: number): Promise<WebhookRow[]> {
  return db.selectFrom("webhooks").selectAll().where("store_id", "=", storeId).orderBy("id").execute();
}

export async function getWebhook(db: Db, storeId: number, id: number, lock = false): Promise<WebhookRow> {
  let query = db.selectFrom("webhooks").selectAll().where("store_id", "=", storeId).where("id", "=", id);
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw notFound("webhook");
  return row;
}

/** Creates an endpoint; `url` already passed checkWebhookUrl. Returns the row and the secret. */
export async function createWebhook(
  ctx: AppContext,
  rt: WebhookRuntime,
  trx: Db,
  storeId: number,
  input: { url: string; events: string[]; description?: string | null },
): Promise<{ row: WebhookRow; secret: string }> {
  const problems = new DetailCollector();
  const events = checkEvents(input.events, problems);
  problems.throwIfAny();
  // The store row serialises creations, so two concurrent requests cannot both take the 10th place.
  await trx.selectFrom("stores").select("id").where("id", "=", storeId).forUpdate().executeTakeFirst();
  const count = await trx
    .selectFrom("webhooks")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("store_id", "=", storeId)
    .executeTakeFirstOrThrow();
  if (Number(count.n) >= MAX_WEBHOOKS_PER_STORE) {
    throw new AppError(
      "limit_reached",
      `A store can have at most ${MAX_WEBHOOKS_PER_STORE} webhook endpoints; delete one first.`,
    );
  }
  const secret = generateWebhookSecret();
  const now = ctx.clock.now();
  const row = await trx
    .insertInto("webhooks")
    .values({
      store_id: storeId,
      url: input.url,
      description: input.description ?? null,
      events,
      status: "active",
      secret_encrypted: rt.encryptSecret(secret, storeId),
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row, secret };
}

/** PATCH: url, events, description, status active|paused. `url` already passed checkWebhookUrl. */
export async function updateWebhook(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  id: number,
  input: WebhookInput,
): Promise<WebhookRow> {
  const current = await getWebhook(trx, storeId, id, true);
  const problems = new DetailCollector();
  const events = input.events === undefined ? undefined : checkEvents(input.events, problems);
  if (input.status !== undefined && input.status !== "active" && input.status !== "paused") {
    problems.add("status", "invalid_value", "must be one of active, paused");
  }
  problems.throwIfAny();

  const now = ctx.clock.now();
  const changes: Partial<{
    url: string;
    events: string[];
    description: string | null;
    status: "active" | "paused";
    consecutive_failures: number;
    disabled_at: Date | null;
    disabled_reason: string | null;
  }> = {};
  if (input.url !== undefined) changes.url = input.url;
  if (events !== undefined) changes.events = events;
  if (input.description !== undefined) changes.description = input.description;
  if (input.status === "active" && current.status !== "active") {
    // Re-enabling: a fresh start, with the failure count and the disabling cleared.
    Object.assign(changes, {
      status: "active",
      consecutive_failures: 0,
      disabled_at: null,
      disabled_reason: null,
    });
  } else if (input.status === "paused" && current.status !== "paused") {
    if (current.status === "disabled") {
      throw invalidTransition('webhook is disabled; PATCH {"status": "active"} re-enables it');
    }
    changes.status = "paused";
  }
  if (Object.keys(changes).length === 0) return current;
  return trx
    .updateTable("webhooks")
    .set({ ...changes, updated_at: now })
    .where("id", "=", id)
    .where("store_id", "=", storeId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteWebhook(trx: Db, storeId: number, id: number): Promise<void> {
  const deleted = await trx
    .deleteFrom("webhooks")
    .where("id", "=", id)
    .where("store_id", "=", storeId)
    .returning("id")
    .executeTakeFirst();
  if (!deleted) throw notFound("webhook");
}

export interface DeliveryQuery extends PageRequest {
  status?: "succeeded" | "failed";
  event_id?: string;
}

/** The delivery log of one endpoint: newest first, one row per attempt. */
export async function listDeliveries(
  ctx: AppContext,
  db: Db,
  storeId: number,
  webhookId: number,
  query: DeliveryQuery,
): Promise<Page<ReturnType<typeof presentDelivery>>> {
  await getWebhook(db, storeId, webhookId);
  let q = db
    .selectFrom("webhook_deliveries as d")
    .selectAll("d")
    .where("d.store_id", "=", storeId)
    .where("d.webhook_id", "=", webhookId);
  if (query.status) q = q.where("d.status", "=", query.status);
  if (query.event_id !== undefined) q = q.where("d.event_id", "=", query.event_id);
  const page = await keysetPage(
    q,
    query,
    {
      timeColumn: "d.created_at",
      idColumn: "d.id",
      direction: "desc",
      updatedColumn: "d.created_at",
      createdColumn: "d.created_at",
      binding: {
        list: "webhook_deliveries",
        store: storeId,
        webhook: webhookId,
        status: query.status,
        event_id: query.event_id,
      },
    },
    ctx.cursorSecret,
    (row: DeliveryRow) => ({ time: row.created_at, id: row.id }),
  );
  return { ...page, data: page.data.map(presentDelivery) };
}

function requireActive(row: WebhookRow): void {
  if (row.status !== "active") {
    throw new AppError(
      "webhook_not_active",
      `webhook is ${row.status}; PATCH {"status": "active"} before testing or redelivering`,
    );
  }
}

/** The number a manual resend of an event gets: one past the highest attempt logged for it. */
async function nextManualAttempt(trx: Db, webhookId: number, eventId: string): Promise<number> {
  const row = await trx
    .selectFrom("webhook_deliveries")
    .select((eb) => eb.fn.max("attempt").as("max"))
    .where("webhook_id", "=", webhookId)
    .where("event_id", "=", eventId)
    .executeTakeFirst();
  return Number(row?.max ?? 0) + 1;
}

/** POST /webhooks/{id}/deliveries/{delivery_id}/redeliver: that delivery's event, once, now. */
export async function redeliverDelivery(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  webhookId: number,
  deliveryId: number,
): Promise<RedeliverResult> {
  const webhook = await getWebhook(trx, storeId, webhookId, true);
  const delivery = await trx
    .selectFrom("webhook_deliveries")
    .select(["event_id"])
    .where("id", "=", deliveryId)
    .where("webhook_id", "=", webhookId)
    .where("store_id", "=", storeId)
    .executeTakeFirst();
  if (!delivery) throw notFound("delivery");
  requireActive(webhook);
  const event = await trx
    .selectFrom("events")
    .select(["seq", "id"])
    .where("id", "=", delivery.event_id)
    .where("store_id", "=", storeId)
    .executeTakeFirst();
  if (!event) throw notFound("event");
  const attempt = await nextManualAttempt(trx, webhookId, event.id);
  const job = sendJob(webhookId, storeId, [[Number(event.seq), attempt]], false);
  await ctx.jobs.enqueue(trx, job.type, job.payload, job.options);
  return { queued: 1, event_ids: [event.id] };
}

/** POST /webhooks/{id}/redeliver with `{event_id}` or `{since}`. */
export async function redeliver(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  webhookId: number,
  input: { event_id?: string; since?: string },
): Promise<RedeliverResult> {
  const webhook = await getWebhook(trx, storeId, webhookId, true);
  if (input.event_id === undefined && input.since === undefined) {
    throw validationFailed([
      { field: "event_id", code: "required", message: "send event_id or since (one of the two)" },
    ]);
  }
  if (input.event_id !== undefined && input.since !== undefined) {
    throw validationFailed([
      { field: "since", code: "not_allowed", message: "send either event_id or since, not both" },
    ]);
  }
  requireActive(webhook);

  if (input.event_id !== undefined) {
    const event = await trx
      .selectFrom("events")
      .select(["seq", "id", "name"])
      .where("id", "=", input.event_id)
      .where("store_id", "=", storeId)
      .executeTakeFirst();
    if (!event) {
      throw validationFailed([
        { field: "event_id", code: "not_found", message: "no such event in this store" },
      ]);
    }
    const delivered = await trx
      .selectFrom("webhook_deliveries")
      .select("id")
      .where("webhook_id", "=", webhookId)
      .where("event_id", "=", event.id)
      .limit(1)
      .executeTakeFirst();
    if (!delivered && !subscribes(webhook.events, event.name)) {
      throw validationFailed([
        {
          field: "event_id",
          code: "not_subscribed",
          message: `this webhook does not subscribe to ${event.name}`,
        },
      ]);
    }
    const attempt = await nextManualAttempt(trx, webhookId, event.id);
    const job = sendJob(webhookId, storeId, [[Number(event.seq), attempt]], false);
    await ctx.jobs.enqueue(trx, job.type, job.payload, job.options);
    return { queued: 1, event_ids: [event.id] };
  }

  // since: the newest 500 subscribed events from that moment, each a fresh attempt 1 with retries.
  let query = trx
    .selectFrom("events")
    .select(["seq", "id"])
    .where("store_id", "=", storeId)
    .where("occurred_at", ">=", new Date(input.since as string))
    .where("name", "!=", TEST_EVENT);
  if (!webhook.events.includes(ALL_EVENTS)) {
    query = query.where("name", "in", webhook.events.length > 0 ? webhook.events : [""]);
  }
  const events = await query
    .orderBy("occurred_at", "desc")
    .orderBy("seq", "desc")
    .limit(MAX_SINCE_EVENTS)
    .execute();
  if (events.length > 0) {
    // Oldest first on the wire; one job sends the whole catch-up with bounded parallelism.
    const items = events.map((e): [number, number] => [Number(e.seq), 1]).reverse();
    const job = sendJob(webhookId, storeId, items, true);
    await ctx.jobs.enqueue(trx, job.type, job.payload, job.options);
  }
  return { queued: events.length, event_ids: events.map((e) => e.id) };
}

/** POST /webhooks/{id}/test: one `webhook.test` event to this endpoint only, whatever it subscribes. */
export async function sendTestEvent(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  webhookId: number,
): Promise<{ event_id: string; event: string; queued: boolean }> {
  const webhook = await getWebhook(trx, storeId, webhookId, true);
  requireActive(webhook);
  const event = await emit(ctx, trx, {
    storeId,
    name: TEST_EVENT,
    subjectType: "webhook",
    subjectId: webhook.id,
    data: presentWebhook(webhook),
  });
  const job = sendJob(webhookId, storeId, [[event.seq, 1]], false);
  await ctx.jobs.enqueue(trx, job.type, job.payload, job.options);
  return { event_id: event.id, event: TEST_EVENT, queued: true };
}

/** Retention: events and delivery rows older than the cutoff, in bounded batches. */
export async function purgeOlderThan(
  db: Db,
  cutoff: Date,
  batch = 5000,
): Promise<{ events: number; deliveries: number }> {
  let deliveries = 0;
  for (;;) {
    const result = await sql`
      delete from webhook_deliveries where id in (
        select id from webhook_deliveries where created_at < ${cutoff} limit ${batch})`.execute(db);
    const n = Number(result.numAffectedRows ?? 0);
    deliveries += n;
    if (n < batch) break;
  }
  const events = await deleteEventsBefore(db, cutoff, batch);
  return { events, deliveries };
}
