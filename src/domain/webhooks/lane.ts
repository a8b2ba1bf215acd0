/**
 * The slow lane of stores over the hourly volume: which stores are in it, the rows their deliveries
 * wait as (`webhook_lane_items`), and the one lane job per store that sends them (lane-job.ts).
 */
import { sql } from "kysely";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { SLOW_LANE_EVENTS_PER_HOUR } from "./catalogue.ts";
import { LANE_JOB } from "./job-types.ts";
import type { WebhookRuntime } from "./runtime.ts";

/** How long a store found over the hourly volume stays in the slow lane before it is counted again. */
const HOT_RECHECK_MS = 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;

/** Lane rows a lane job has leased: deleted by the transaction that records their attempts. */
export interface LaneClaim {
  storeId: number;
  itemIds: number[];
  lockedBy: string;
}

export interface LaneItemInput {
  event_seq: number;
  /** Null: the event's first attempt to every subscriber; otherwise one endpoint's given attempt. */
  webhook_id: number | null;
  attempt: number;
  retry: boolean;
  run_at: Date;
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

/** Adds rows to the store's lane and (unless `schedule` is false) makes its lane job due for them. */
export async function addLaneItems(
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
export async function scheduleLane(ctx: AppContext, trx: Db, storeId: number): Promise<void> {
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
export async function ensureLaneJob(ctx: AppContext, trx: Db, storeId: number, runAt: Date): Promise<void> {
  const key = `webhooks.lane:${storeId}`;
  await ctx.jobs.enqueue(
    trx,
    LANE_JOB,
    { store_id: storeId },
    { storeId, dedupeKey: key, runAt, maxAttempts: 1000 },
  );
  await ctx.jobs.runNoLaterThan(trx, key, runAt);
}
