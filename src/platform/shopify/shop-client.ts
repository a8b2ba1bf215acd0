import type { AppContext } from "../../context.ts";
import { ShopifyClient } from "./client.ts";
import { shopifyDispatcherOf } from "./http.ts";
import { shopifyBudgetOf } from "./process-budget.ts";
import type { ShopifyShopRow } from "./shops.ts";
import { storedTokenSource } from "./token-refresh.ts";

/**
 * A client of a store's shop as this process makes it: the token read from the shop's row at each
 * call (an expiring one refreshed first when due, and once after a 401), the process's budget and pool, the API version the shop was attached with. No call is made here.
 */
export function shopifyClientFor(ctx: AppContext, row: ShopifyShopRow): ShopifyClient {
  return new ShopifyClient({
    shop: row.shop,
    accessToken: storedTokenSource(ctx, row.store_id),
    settings: { adminOrigin: ctx.config.shopify.adminOrigin, apiVersion: row.api_version },
    budget: shopifyBudgetOf(ctx),
    dispatcher: shopifyDispatcherOf(ctx),
    now: () => ctx.clock.now(),
  });
}
