import type { Selectable } from "kysely";
import type { ApiKeysTable, StoresTable } from "../../db/tables/foundation.ts";

export type StoreRow = Selectable<StoresTable>;
export type KeyRow = Selectable<ApiKeysTable>;

/** A store as the admin API answers it: numbering and rate limits grouped. */
export function presentStore(row: StoreRow) {
  return {
    id: row.id,
    name: row.name,
    domain: row.domain,
    currency: row.currency,
    timezone: row.timezone,
    owner_email: row.owner_email,
    platform: row.platform,
    api_access: row.api_access,
    numbering: {
      purchase_order_prefix: row.purchase_order_prefix,
      stock_adjustment_prefix: row.stock_adjustment_prefix,
      next_purchase_order_number: row.next_purchase_order_number,
      next_stock_adjustment_number: row.next_stock_adjustment_number,
    },
    rate_limits: {
      per_key_per_minute: row.rate_per_key_per_minute,
      per_store_per_minute: row.rate_per_store_per_minute,
      writes_per_store_per_minute: row.rate_writes_per_store_per_minute,
    },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** An API key as the admin API lists it; the secret and its hash are never shown. */
export function presentKey(row: {
  id: number;
  name: string;
  prefix: string;
  scopes: string[];
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
}) {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    expires_at: row.expires_at?.toISOString() ?? null,
    last_used_at: row.last_used_at?.toISOString() ?? null,
    revoked_at: row.revoked_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}
