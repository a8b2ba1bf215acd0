/** The Shopify platform part's one entry for the rest of the service (issue 19). */

export {
  type AttachByTokenInput,
  attachStoreByToken,
  reconnectShop,
  replaceShopToken,
  startShopWork,
} from "./attach.ts";
export { disconnectedMessage, shopifyPlatform } from "./driver.ts";
export {
  beginInstall,
  CALLBACK_PATH,
  completeInstall,
  type InstallAttacher,
  oauthAppOf,
} from "./install.ts";
export { oauthAttacher } from "./oauth-attach.ts";
export { OAUTH_STATES_PRUNE_MS, OAUTH_STATES_PRUNE_TASK, pruneOAuthStates } from "./oauth-states.ts";
export {
  type GrantedTokens,
  ShopifyGrantRefusedError,
} from "./oauth-tokens.ts";
export { presentShop, type ShopView } from "./present.ts";
export { shopifySealedColumns } from "./sealed-tokens.ts";
export { checkShopToken, isShopDomain } from "./shop-check.ts";
export { shopifyClientFor } from "./shop-client.ts";
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
  shopsOfStores,
  updateShopTokens,
} from "./shops.ts";
export { requestSubscriptions, SUBSCRIBE_JOB, subscribeShop, WEBHOOK_TOPICS } from "./subscriptions.ts";
export {
  REFRESH_REFUSED_REASON,
  refreshExpiringTokens,
  refreshShopTokens,
  storedTokenSource,
  TOKEN_REFRESH_PASS_MS,
  TOKEN_REFUSED_REASON,
} from "./token-refresh.ts";
