/** The Shopify platform part's one entry for the rest of the service (issue 19). */

export {
  type GrantedTokens,
  ShopifyGrantRefusedError,
} from "./oauth-tokens.ts";
export { shopifySealedColumns } from "./sealed-tokens.ts";
export {
  findShopByDomain,
  findShopByStore,
  insertShop,
  markReconciled,
  markShopImported,
  markWebhookReceived,
  type NewShop,
  type OpenedShopSecrets,
  openShopTokens,
  type SealingContext,
  type ShopifyShopRow,
  type ShopifyShopStatus,
  type ShopTokens,
  setShopImportError,
  setShopStatus,
  shopifySealContext,
  updateShopTokens,
} from "./shops.ts";
export {
  REFRESH_REFUSED_REASON,
  refreshExpiringTokens,
  refreshShopTokens,
  storedTokenSource,
  TOKEN_REFRESH_PASS_MS,
  TOKEN_REFUSED_REASON,
} from "./token-refresh.ts";
