import type { Statements } from "./index.ts";

const NOW = "date_trunc('milliseconds', now())";

/**
 * Shopify shops attached to stores, the webhook deliveries already seen, and the OAuth install states
 * (issue 19; docs/decisions.md, "Shopify stores"). Owned by the Shopify platform part
 * (src/platform/shopify/). Tokens and the webhook secret are sealed (src/secrets) in the context
 * `shopify:<store id>`; the key is not in the database.
 */
export const shopifyMigration: Statements = [
  `create table shopify_shops (
    store_id integer primary key references stores(id) on delete cascade,
    shop text not null unique,
    api_version text not null,
    scopes text[] not null default '{}',
    access_token_sealed text not null,
    access_token_expires_at timestamptz,
    refresh_token_sealed text,
    refresh_token_expires_at timestamptz,
    webhook_secret_sealed text,
    status text not null check (status in ('importing', 'connected', 'disconnected')),
    disconnected_reason text,
    import_error text,
    imported_at timestamptz,
    last_webhook_at timestamptz,
    last_reconciled_at timestamptz,
    created_at timestamptz not null default ${NOW},
    updated_at timestamptz not null default ${NOW}
  )`,
  `create table shopify_webhook_events (
    event_id text primary key,
    shop text not null,
    topic text not null,
    received_at timestamptz not null default ${NOW}
  )`,
  // The periodic prune deletes by age.
  "create index shopify_webhook_events_received_at on shopify_webhook_events (received_at)",
  `create table shopify_oauth_states (
    state text primary key,
    shop text not null,
    created_at timestamptz not null default ${NOW},
    used_at timestamptz
  )`,
  "create index shopify_oauth_states_created_at on shopify_oauth_states (created_at)",
];
