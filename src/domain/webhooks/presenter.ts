import type { Selectable } from "kysely";
import type { WebhookDeliveriesTable, WebhooksTable } from "../../db/tables/webhooks.ts";

export type WebhookRow = Selectable<WebhooksTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

/** Webhook (contract "Webhook shapes"); never the secret. */
export function presentWebhook(row: WebhookRow) {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events,
    status: row.status,
    api_version: row.api_version,
    consecutive_failures: row.consecutive_failures,
    last_delivered_at: iso(row.last_delivered_at),
    last_failed_at: iso(row.last_failed_at),
    disabled_at: iso(row.disabled_at),
    disabled_reason: row.disabled_reason,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export type Webhook = ReturnType<typeof presentWebhook>;

/** WebhookDelivery: one row per attempt. */
export function presentDelivery(row: DeliveryRow) {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event: row.event,
    attempt: row.attempt,
    status: row.status,
    status_code: row.status_code,
    duration_ms: row.duration_ms,
    error: row.error,
    next_attempt_at: iso(row.next_attempt_at),
    created_at: row.created_at.toISOString(),
  };
}
