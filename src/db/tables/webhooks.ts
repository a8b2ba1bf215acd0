import type { Generated } from "kysely";
import type { Timestamp } from "./foundation.ts";

export interface WebhooksTable {
  id: Generated<number>;
  store_id: number;
  url: string;
  description: string | null;
  events: string[];
  status: "active" | "paused" | "disabled";
  api_version: Generated<number>;
  /** The signing secret, sealed (src/secrets: AES-256-GCM, key outside the database). */
  secret_encrypted: string;
  consecutive_failures: Generated<number>;
  last_delivered_at: Timestamp | null;
  last_failed_at: Timestamp | null;
  disabled_at: Timestamp | null;
  disabled_reason: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  store_id: number;
  webhook_id: number;
  event_id: string;
  event: string;
  attempt: number;
  status: "succeeded" | "failed";
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  next_attempt_at: Timestamp | null;
  created_at: Timestamp;
}

export interface WebhookLaneItemsTable {
  id: Generated<number>;
  store_id: number;
  event_seq: number;
  webhook_id: number | null;
  attempt: number;
  retry: boolean;
  run_at: Timestamp;
  locked_by: string | null;
  locked_until: Timestamp | null;
}

// Tables of the webhooks module.
export type WebhooksTables = {
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_lane_items: WebhookLaneItemsTable;
};
