import { webhookAdminRoutes } from "../admin/webhook-routes.ts";
import {
  ACTIVE_EVENTS_READ,
  deliveryJobHandlers,
  purgeOlderThan,
  RETENTION_MS,
  routeEmittedEvent,
  type WebhooksOptions,
  webhookRuntimeOf,
} from "../domain/webhooks/index.ts";
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
    eventRead: ACTIVE_EVENTS_READ,
    jobs: deliveryJobHandlers(rt),
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
