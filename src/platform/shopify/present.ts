import type { ShopifyShopRow } from "./shops.ts";

/** A store's shop as store responses carry it (`shopify`): its state, never a token or a secret. */
export function presentShop(row: ShopifyShopRow) {
  return {
    shop: row.shop,
    api_version: row.api_version,
    scopes: row.scopes,
    status: row.status,
    disconnected_reason: row.disconnected_reason,
    import_error: row.import_error,
    imported_at: row.imported_at?.toISOString() ?? null,
    last_webhook_at: row.last_webhook_at?.toISOString() ?? null,
    last_reconciled_at: row.last_reconciled_at?.toISOString() ?? null,
  };
}

export type ShopView = ReturnType<typeof presentShop>;
