import { sql } from "kysely";
import type { PeriodicTask } from "../../../jobs/worker.ts";
import { RECONCILE_JOB, RECONCILE_SCAN_TASK, WEBHOOK_EVENTS_PRUNE_TASK } from "./job-types.ts";
import { reconcileJobOptions } from "./reconcile.ts";

/** How often the scan looks for shops due a reconciliation (the interval itself is configured). */
export const RECONCILE_SCAN_INTERVAL_MS = 60_000;

/** A delivery's event id is remembered this long: Shopify retries a delivery for up to 48 hours. */
export const WEBHOOK_EVENT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Every minute: a reconciliation job for each connected shop whose last pass (or import) is at least
 * SHOPIFY_RECONCILE_INTERVAL old, unless its last pass failed less than an interval ago (a shop that
 * keeps failing is asked once an interval, not every minute).
 */
export const reconcileScanTask: PeriodicTask = {
  name: RECONCILE_SCAN_TASK,
  intervalMs: RECONCILE_SCAN_INTERVAL_MS,
  async run(ctx) {
    const due = new Date(ctx.clock.now().getTime() - ctx.config.shopify.reconcileIntervalMs);
    const shops = await ctx.db
      .selectFrom("shopify_shops as s")
      .leftJoin("shopify_reconciliations as r", "r.store_id", "s.store_id")
      .select("s.store_id")
      .where("s.status", "=", "connected")
      .where(sql<boolean>`coalesce(s.last_reconciled_at, s.imported_at) <= ${due}`)
      .where((eb) => eb.or([eb("r.failed_at", "is", null), eb("r.failed_at", "<=", due)]))
      .orderBy("s.store_id")
      .execute();
    if (shops.length === 0) return;
    await ctx.jobs.enqueueMany(
      ctx.db,
      shops.map(({ store_id }) => ({
        type: RECONCILE_JOB,
        payload: { store_id },
        options: reconcileJobOptions(store_id),
      })),
    );
  },
};

/** Forgets the event ids of deliveries older than a week: no redelivery comes that late. */
export const webhookEventsPruneTask: PeriodicTask = {
  name: WEBHOOK_EVENTS_PRUNE_TASK,
  intervalMs: 60 * 60 * 1000,
  async run(ctx) {
    const cutoff = new Date(ctx.clock.now().getTime() - WEBHOOK_EVENT_RETENTION_MS);
    await ctx.db.deleteFrom("shopify_webhook_events").where("received_at", "<", cutoff).execute();
  },
};
