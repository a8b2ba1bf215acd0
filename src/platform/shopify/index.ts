/** The Shopify platform part's one entry for the rest of the service (issue 19). */

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
