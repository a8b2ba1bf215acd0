import { refreshExpiringTokens, TOKEN_REFRESH_PASS_MS } from "../platform/shopify/index.ts";
import type { Module } from "./module.ts";

/**
 * The Shopify app's OAuth side (issue 19; decisions section 12): expiring offline tokens are
 * refreshed ahead of their expiry by a periodic pass, so a shop that makes no calls for a while is
 * not found expired by its next one.
 */
export const shopifyOAuthModule: Module = {
  name: "shopify-oauth",
  periodic: [
    {
      name: "shopify.token-refresh",
      intervalMs: TOKEN_REFRESH_PASS_MS,
      run: refreshExpiringTokens,
    },
  ],
};
