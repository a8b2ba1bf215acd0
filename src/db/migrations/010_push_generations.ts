import type { Statements } from "./index.ts";

/**
 * The attempt generation of each call of a pushed document (docs/decisions.md, "Shopify connector",
 * Keys): a row only for a call whose key was burned (IDEMPOTENCY_PREVIOUS_ATTEMPT_FAILED); no row is
 * generation 0. Owned by the stock module, which owns the push's state.
 */
export const pushGenerationsMigration: Statements = [
  `create table platform_push_generations (
    store_id integer not null references stores(id) on delete cascade,
    document_key text not null,
    call text not null,
    generation integer not null check (generation > 0),
    updated_at timestamptz not null default date_trunc('milliseconds', now()),
    primary key (store_id, document_key, call)
  )`,
];
