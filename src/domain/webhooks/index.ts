/**
 * The webhooks module's public entry: subscriptions and their delivery log, redelivery and test
 * events, delivery from the outbox (the event hook and the job handlers), retention, and the
 * per-process runtime. Routes, the admin API and the module wiring import from here only.
 */

export { ALL_EVENTS, EVENT_CATALOGUE, RETENTION_MS } from "./catalogue.ts";
export { deliveryJobHandlers } from "./job-handlers.ts";
export { presentDelivery, presentWebhook, type Webhook } from "./presenter.ts";
export { ACTIVE_EVENTS_READ, routeEmittedEvent } from "./routing.ts";
export { type WebhookRuntime, type WebhooksOptions, webhookRuntimeOf } from "./runtime.ts";
export { webhookSecretsColumn } from "./sealed-secrets.ts";
export {
  checkWebhookUrl,
  createWebhook,
  type DeliveryQuery,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  MAX_WEBHOOKS_PER_STORE,
  purgeOlderThan,
  type RedeliverResult,
  redeliver,
  redeliverDelivery,
  sendTestEvent,
  updateWebhook,
  type WebhookInput,
} from "./service.ts";
