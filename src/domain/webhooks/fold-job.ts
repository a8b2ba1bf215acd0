/** `webhooks.fold`: the newest `.updated` event of a record, once its folding window closed. */
import type { AppContext } from "../../context.ts";
import { runFanout } from "./fanout-job.ts";
import { addLaneItems, isHot } from "./lane.ts";
import type { WebhookRuntime } from "./runtime.ts";

export interface FoldPayload {
  seq: number;
  store_id: number;
  subject_type: string;
  subject_id: number;
  name: string;
}

export async function runFold(ctx: AppContext, rt: WebhookRuntime, payload: FoldPayload): Promise<void> {
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
