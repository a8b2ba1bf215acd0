import { shopifyOAuthRoutes } from "../http/routes/shopify-oauth.ts";
import { oauthAttacher, refreshExpiringTokens, TOKEN_REFRESH_PASS_MS } from "../platform/shopify/index.ts";
import type { Module } from "./module.ts";

/**
 * The Shopify app's OAuth side (issue 19; decisions section 12): the install and callback routes,
 * and a periodic pass refreshing expiring offline tokens ahead of their expiry, so a shop that makes
 * no calls for a while is not found expired by its next one.
 */
export const shopifyOAuthModule: Module = {
  name: "shopify-oauth",
  publicRoutes: shopifyOAuthRoutes({
    attacher: oauthAttacher,
    // Hook for the merchant console (decisions section 13): a new store without an owner asks for the
    // owner's email on its landing page; until that page exists, the operator's store page.
    landingPath: (storeId) => `/console/stores/${storeId}`,
  }),
  periodic: [
    {
      name: "shopify.token-refresh",
      intervalMs: TOKEN_REFRESH_PASS_MS,
      run: refreshExpiringTokens,
    },
  ],
};
