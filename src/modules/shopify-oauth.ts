import { installLandingPath } from "../domain/staff/index.ts";
import { shopifyOAuthRoutes } from "../http/routes/shopify-oauth.ts";
import {
  OAUTH_STATES_PRUNE_MS,
  OAUTH_STATES_PRUNE_TASK,
  oauthAttacher,
  pruneOAuthStates,
  refreshExpiringTokens,
  TOKEN_REFRESH_PASS_MS,
} from "../platform/shopify/index.ts";
import type { Module } from "./module.ts";

/**
 * The Shopify app's OAuth side (issue 19; decisions section 12): the install and callback routes,
 * a periodic pass refreshing expiring offline tokens ahead of their expiry, so a shop that makes
 * no calls for a while is not found expired by its next one, and one deleting expired install states.
 */
export const shopifyOAuthModule: Module = {
  name: "shopify-oauth",
  publicRoutes: shopifyOAuthRoutes({
    attacher: oauthAttacher,
    // The merchant console (decisions section 13): a store without staff yet (the offline token names
    // no user) lands on a one-time page asking for the owner's email; a store with staff on its console.
    landingPath: installLandingPath,
  }),
  periodic: [
    {
      name: "shopify.token-refresh",
      intervalMs: TOKEN_REFRESH_PASS_MS,
      run: refreshExpiringTokens,
    },
    {
      name: OAUTH_STATES_PRUNE_TASK,
      intervalMs: OAUTH_STATES_PRUNE_MS,
      run: async (ctx) => {
        await pruneOAuthStates(ctx.db, ctx.clock.now());
      },
    },
  ],
};
