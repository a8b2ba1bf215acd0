/**
 * Checking a shop's access token before anything is written (decisions section 12, attach by token):
 * one `shop { name currencyCode ianaTimezone }` query, with the token's granted scopes beside it. A
 * token Shopify refuses, a shop it cannot reach, or any other refusal is a 422 on the token's field.
 */
import type { AppContext } from "../../context.ts";
import { validationFailed } from "../../domain/errors.ts";
import { InProcessCostBudget } from "./budget.ts";
import { ShopifyClient } from "./client.ts";
import { ShopifyUnauthorizedError } from "./errors.ts";
import { shopifyDispatcherOf } from "./http.ts";

const SHOP_CHECK = `query StockroomShopCheck {
  shop { name currencyCode ianaTimezone }
  currentAppInstallation { accessScopes { handle } }
}`;

/** A shop's permanent domain as Shopify names it: nothing else may become a host the service calls. */
const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;

export function isShopDomain(value: string): boolean {
  return SHOP_DOMAIN.test(value);
}

export interface CheckedShop {
  name: string;
  currency: string;
  timezone: string;
  scopes: string[];
}

interface ShopCheckAnswer {
  shop: { name: string; currencyCode: string; ianaTimezone: string };
  currentAppInstallation: { accessScopes: Array<{ handle: string }> } | null;
}

/** The shop as the token sees it, or 422 `validation_failed` with a detail on `field`. */
export async function checkShopToken(
  ctx: AppContext,
  shop: string,
  accessToken: string,
  field = "shopify.access_token",
): Promise<CheckedShop> {
  const client = new ShopifyClient({
    shop,
    accessToken,
    settings: { adminOrigin: ctx.config.shopify.adminOrigin, apiVersion: ctx.config.shopify.apiVersion },
    // A check is one cheap call: it waits for no budget and is not retried when throttled.
    budget: new InProcessCostBudget(),
    dispatcher: shopifyDispatcherOf(ctx),
    throttleRetries: 0,
  });
  try {
    const { data } = await client.graphql<ShopCheckAnswer>(SHOP_CHECK, {}, 2);
    return {
      name: data.shop.name,
      currency: data.shop.currencyCode,
      timezone: data.shop.ianaTimezone,
      scopes: (data.currentAppInstallation?.accessScopes ?? []).map((s) => s.handle),
    };
  } catch (error) {
    const message =
      error instanceof ShopifyUnauthorizedError
        ? `was refused by Shopify for ${shop}`
        : `could not be checked with Shopify: ${(error as Error).message}`;
    throw validationFailed([{ field, code: "invalid_value", message }]);
  }
}
