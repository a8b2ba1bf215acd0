import { IDEMPOTENCY_RETENTION_MS } from "../http/plugins/idempotency.ts";
import type { PeriodicTask } from "../jobs/worker.ts";

const DAY = 24 * 60 * 60 * 1000;

/** Drops what the contract keeps only for a while: idempotency records (24 h) and finished jobs. */
export const retentionTask: PeriodicTask = {
  name: "foundation.retention",
  intervalMs: 10 * 60 * 1000,
  async run(ctx) {
    const now = ctx.clock.now().getTime();
    await ctx.db
      .deleteFrom("idempotency_keys")
      .where("created_at", "<", new Date(now - IDEMPOTENCY_RETENTION_MS))
      .execute();
    await ctx.jobs.deleteDoneBefore(ctx.db, new Date(now - 7 * DAY));
    await ctx.db
      .deleteFrom("request_log")
      .where("created_at", "<", new Date(now - 30 * DAY))
      .execute();
  },
};
