/**
 * The delivery job handlers as the worker runs them: each payload parsed, then its job run. Delivery
 * is shared fairly across stores (JobHandler.fairAcrossStores): while one store's hanging endpoints
 * hold every slot, another store's deliveries take the worker's reserve slots instead of waiting.
 */
import type { AppContext } from "../../context.ts";
import type { JobHandler } from "../../jobs/worker.ts";
import { runDisabledEmail } from "./disabled-email-job.ts";
import { runFanout } from "./fanout-job.ts";
import { runFold } from "./fold-job.ts";
import {
  parseDisabledEmailPayload,
  parseFanoutPayload,
  parseFoldPayload,
  parseLanePayload,
  parseSendPayload,
} from "./job-payloads.ts";
import { DISABLED_EMAIL_JOB, FANOUT_JOB, FOLD_JOB, LANE_JOB, SEND_JOB } from "./job-types.ts";
import { runLane } from "./lane-job.ts";
import type { WebhookRuntime } from "./runtime.ts";
import { runSend, SEND_JOB_MAX_SHARE } from "./send-job.ts";

export function deliveryJobHandlers(rt: (ctx: AppContext) => WebhookRuntime): JobHandler[] {
  return [
    {
      type: FANOUT_JOB,
      run: (ctx, job) => runFanout(ctx, rt(ctx), parseFanoutPayload(job.payload).seq),
      fairAcrossStores: true,
    },
    {
      type: FOLD_JOB,
      run: (ctx, job) => runFold(ctx, rt(ctx), parseFoldPayload(job.payload)),
      fairAcrossStores: true,
    },
    {
      type: SEND_JOB,
      run: (ctx, job) => runSend(ctx, rt(ctx), parseSendPayload(job.payload)),
      // Retries go mostly to failing (possibly hanging) endpoints: they never take every slot.
      maxShare: SEND_JOB_MAX_SHARE,
      fairAcrossStores: true,
    },
    {
      type: LANE_JOB,
      run: (ctx, job) => runLane(ctx, rt(ctx), parseLanePayload(job.payload).store_id, job.id),
      // A failed batch (database trouble) comes back soon; its rows are leased meanwhile anyway.
      retryDelayMs: (attempts) => Math.min(60_000, 1000 * 2 ** Math.min(attempts, 6)),
      fairAcrossStores: true,
    },
    {
      type: DISABLED_EMAIL_JOB,
      run: (ctx, job) => runDisabledEmail(ctx, parseDisabledEmailPayload(job.payload).webhook_id),
    },
  ];
}
