import { webhookAdminRoutes } from "../admin/webhook-routes.ts";
import { RETENTION_MS } from "../domain/webhooks/catalogue.ts";
import { runDisabledEmail } from "../domain/webhooks/disabled-email-job.ts";
import { runFanout } from "../domain/webhooks/fanout-job.ts";
import { runFold } from "../domain/webhooks/fold-job.ts";
import {
  parseDisabledEmailPayload,
  parseFanoutPayload,
  parseFoldPayload,
  parseLanePayload,
  parseSendPayload,
} from "../domain/webhooks/job-payloads.ts";
import {
  DISABLED_EMAIL_JOB,
  FANOUT_JOB,
  FOLD_JOB,
  LANE_JOB,
  SEND_JOB,
} from "../domain/webhooks/job-types.ts";
import { runLane } from "../domain/webhooks/lane-job.ts";
import { routeEmittedEvent } from "../domain/webhooks/routing.ts";
import { type WebhooksOptions, webhookRuntimeOf } from "../domain/webhooks/runtime.ts";
import { runSend, SEND_JOB_MAX_SHARE } from "../domain/webhooks/send-job.ts";
import { purgeOlderThan } from "../domain/webhooks/service.ts";
import { webhookRoutes } from "../http/routes/webhooks.ts";
import type { Module } from "./module.ts";

/**
 * Webhooks: subscriptions, signed delivery from the outbox, retries, folding, the slow lane,
 * redelivery, and 30-day retention of events and delivery logs. `options` exist for tests (an
 * injected resolver and CA); production uses `webhooksModule`.
 */
export function createWebhooksModule(options: WebhooksOptions = {}): Module {
  const rt = webhookRuntimeOf(options);
  return {
    name: "webhooks",
    routes: webhookRoutes(rt),
    adminRoutes: webhookAdminRoutes,
    onEvent: (ctx, trx, event) => routeEmittedEvent(ctx, rt(ctx), trx, event),
    jobs: [
      {
        type: FANOUT_JOB,
        run: (ctx, job) => runFanout(ctx, rt(ctx), parseFanoutPayload(job.payload).seq),
      },
      {
        type: FOLD_JOB,
        run: (ctx, job) => runFold(ctx, rt(ctx), parseFoldPayload(job.payload)),
      },
      {
        type: SEND_JOB,
        run: (ctx, job) => runSend(ctx, rt(ctx), parseSendPayload(job.payload)),
        // Retries go mostly to failing (possibly hanging) endpoints: they never take every slot.
        maxShare: SEND_JOB_MAX_SHARE,
      },
      {
        type: LANE_JOB,
        run: (ctx, job) => runLane(ctx, rt(ctx), parseLanePayload(job.payload).store_id, job.id),
        // A failed batch (database trouble) comes back soon; its rows are leased meanwhile anyway.
        retryDelayMs: (attempts) => Math.min(60_000, 1000 * 2 ** Math.min(attempts, 6)),
      },
      {
        type: DISABLED_EMAIL_JOB,
        run: (ctx, job) => runDisabledEmail(ctx, parseDisabledEmailPayload(job.payload).webhook_id),
      },
    ],
    periodic: [
      {
        name: "webhooks.retention",
        intervalMs: 60 * 60 * 1000,
        async run(ctx) {
          await purgeOlderThan(ctx.db, new Date(ctx.clock.now().getTime() - RETENTION_MS));
        },
      },
    ],
  };
}

export const webhooksModule: Module = createWebhooksModule();
