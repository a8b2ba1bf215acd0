/** What a delivery attempt is made of (an event as stored, an endpoint), and the reads that gather it. */
import { sql } from "kysely";
import type { Db } from "../../db/database.ts";
import { subscribes } from "./catalogue.ts";

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

/** The events of `seqs` by seq. */
export async function eventsBySeq(db: Db, seqs: number[]): Promise<Map<number, EventRecord>> {
  return new Map((await loadEvents(db, seqs)).map((e) => [e.seq, e]));
}

/** One endpoint, whatever its status (undefined when deleted). */
export async function loadTarget(db: Db, webhookId: number): Promise<Target | undefined> {
  return db.selectFrom("webhooks").select(TARGET_COLUMNS).where("id", "=", webhookId).executeTakeFirst();
}

export async function activeWebhooks(db: Db, storeId: number): Promise<Target[]> {
  return db
    .selectFrom("webhooks")
    .select(TARGET_COLUMNS)
    .where("store_id", "=", storeId)
    .where("status", "=", "active")
    .orderBy("id")
    .execute();
}

/** Subscribers of the event that existed when it happened. */
export function subscribersAmong(hooks: Target[], event: EventRecord): Target[] {
  return hooks.filter(
    (w) => subscribes(w.events, event.name) && w.created_at.getTime() <= event.occurred_at.getTime(),
  );
}

/** Delivery ids before sending: the id is the X-Service-Delivery-Id header of the attempt. */
export async function allocateDeliveryIds(db: Db, count: number): Promise<number[]> {
  const result = await sql<{ id: number | string }>`
    select nextval(pg_get_serial_sequence('webhook_deliveries', 'id')) as id
    from generate_series(1, ${count}::integer)`.execute(db);
  return result.rows.map((r) => Number(r.id));
}
