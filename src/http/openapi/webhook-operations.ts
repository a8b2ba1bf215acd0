import type { OperationDoc } from "./operation.ts";

/** Webhook endpoints, their delivery log and redelivery. */
export const WEBHOOK_OPERATIONS: Record<string, OperationDoc> = {
  "GET /v2/webhooks": {
    operationId: "listWebhooks",
    description: "The store's endpoints (at most 10), without their signing secrets.",
  },
  "POST /v2/webhooks": {
    operationId: "createWebhook",
    description:
      '`url` must be https and resolve to a public address (private ranges, loopback, link-local and the service\'s own hostnames are refused here and re-checked at every delivery; redirects are never followed). `events` lists catalogue names, or `["*"]` for every event including later ones. At most 10 endpoints per store, beyond that 422 `limit_reached`. Answers 201 with the signing secret: it is shown only here (to get a new one, delete the endpoint and create it again).',
  },
  "GET /v2/webhooks/{id}": {
    operationId: "getWebhook",
    description: "One endpoint, without its signing secret.",
  },
  "PATCH /v2/webhooks/{id}": {
    operationId: "updateWebhook",
    description:
      "Changes `url`, `events` or `description`, or pauses the endpoint (`status: paused`: events still occur but are not delivered). `status: active` re-enables a paused or disabled endpoint and resets `consecutive_failures`. A new `url` is checked as at creation.",
  },
  "DELETE /v2/webhooks/{id}": {
    operationId: "deleteWebhook",
    description: "Deletes the endpoint and its delivery log. Answers `{id, deleted}`.",
  },
  "GET /v2/webhooks/{id}/deliveries": {
    operationId: "listWebhookDeliveries",
    description:
      "One row per attempt, newest first, kept 30 days, filtered by `status` (`succeeded` or `failed`) and `event_id`. Paged by `limit` and `cursor`.",
  },
  "POST /v2/webhooks/{id}/deliveries/{delivery_id}/redeliver": {
    operationId: "redeliverWebhookDelivery",
    description:
      "Sends that delivery's event again now, as a new attempt. A paused or disabled endpoint is 422 `webhook_not_active`. Answers 202.",
  },
  "POST /v2/webhooks/{id}/redeliver": {
    operationId: "redeliverWebhookEvents",
    description:
      "Sends one event again (`event_id`) or catches up (`since`: every event this endpoint subscribes to from that moment, newest 500, each as a fresh attempt 1; `webhook.test` events are skipped). Exactly one of the two. A paused or disabled endpoint is 422 `webhook_not_active`. Answers 202.",
  },
  "POST /v2/webhooks/{id}/test": {
    operationId: "testWebhook",
    description:
      "Sends one `webhook.test` event to this endpoint alone, whatever it subscribes to. A paused or disabled endpoint is 422 `webhook_not_active`. Answers 202 with the event's id.",
  },
};
