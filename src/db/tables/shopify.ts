import type { GeneratedTimestamp, Timestamp } from "./foundation.ts";

export type ShopifyShopStatus = "importing" | "connected" | "disconnected";

/** A Shopify shop attached to a store (one per store). Sealed columns: src/secrets, `shopify:<store id>`. */
export interface ShopifyShopsTable {
  store_id: number;
  /** `x.myshopify.com`. */
  shop: string;
  api_version: string;
  scopes: string[];
  access_token_sealed: string;
  access_token_expires_at: Timestamp | null;
  refresh_token_sealed: string | null;
  refresh_token_expires_at: Timestamp | null;
  /** Null: webhooks are signed with SHOPIFY_API_SECRET (the app's secret). */
  webhook_secret_sealed: string | null;
  status: ShopifyShopStatus;
  disconnected_reason: string | null;
  import_error: string | null;
  imported_at: Timestamp | null;
  last_webhook_at: Timestamp | null;
  last_reconciled_at: Timestamp | null;
  /** The GID of the bulk operation the catalog sync started and has not seen end (the next bulk read cancels it). */
  sync_bulk_operation_id: string | null;
  /** When the current installation began (attach, re-install, new token); refreshes keep it. */
  installed_at: GeneratedTimestamp;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

/** A webhook delivery already taken (X-Shopify-Event-Id), kept a few days to drop duplicates. */
export interface ShopifyWebhookEventsTable {
  event_id: string;
  shop: string;
  topic: string;
  received_at: GeneratedTimestamp;
}

/** An OAuth install's state, single use. */
export interface ShopifyOauthStatesTable {
  state: string;
  shop: string;
  created_at: GeneratedTimestamp;
  used_at: Timestamp | null;
}

export interface ShopifyTables {
  shopify_shops: ShopifyShopsTable;
  shopify_webhook_events: ShopifyWebhookEventsTable;
  shopify_oauth_states: ShopifyOauthStatesTable;
}
