/**
 * The OAuth install of the Shopify app (decisions section 12): `beginInstall` issues a state and
 * answers where Shopify's authorize page is; `completeInstall` checks the callback (HMAC, shop form,
 * state, code), exchanges the code for an expiring offline token and attaches the shop: a new store,
 * or the known shop's store re-attached and reconnected. Every refusal is 400 `bad_request` with a
 * detail naming the parameter, and leaves nothing written: the HMAC and the shop form are checked
 * before the state is spent, and the state is spent by one conditional update that changes nothing
 * when it fails. A state spent by a callback whose token exchange then fails stays spent (Shopify's
 * code is single use too): the merchant starts the install again.
 */
import type { AppContext } from "../../context.ts";
import { AppError } from "../../domain/errors.ts";
import { shopifyDispatcherOf } from "./http.ts";
import { callbackHmacIsValid } from "./oauth-hmac.ts";
import { consumeOAuthState, issueOAuthState } from "./oauth-states.ts";
import {
  exchangeAuthorizationCode,
  type GrantedTokens,
  oauthUrl,
  type ShopifyAppCredentials,
  ShopifyGrantRefusedError,
} from "./oauth-tokens.ts";
import { isShopDomain } from "./shop-check.ts";

/** The path Shopify sends the merchant back to, under SHOPIFY_APP_URL. */
export const CALLBACK_PATH = "/shopify/callback";

/** The app's credentials when the OAuth install is configured (key, secret and app URL), else null. */
export function oauthAppOf(ctx: AppContext): (ShopifyAppCredentials & { appUrl: string }) | null {
  const { apiKey, apiSecret, appUrl } = ctx.config.shopify;
  return apiKey && apiSecret && appUrl ? { apiKey, apiSecret, appUrl } : null;
}

function refused(field: string, code: string, message: string): AppError {
  return new AppError("bad_request", `${field}: ${message}`, [{ field, code, message }]);
}

const SHOP_FORM = "must be the shop's myshopify.com domain (name.myshopify.com)";

/** The authorize URL to send the merchant to for `shop`, with a new single-use state. */
export async function beginInstall(ctx: AppContext, shop: string | undefined): Promise<string> {
  const app = oauthAppOf(ctx);
  if (!app) throw new Error("the Shopify OAuth install is not configured");
  if (shop === undefined || !isShopDomain(shop)) throw refused("shop", "invalid_value", SHOP_FORM);
  const state = await issueOAuthState(ctx.db, shop, ctx.clock.now());
  const url = new URL(oauthUrl(ctx.config.shopify, shop, "authorize"));
  url.searchParams.set("client_id", app.apiKey);
  url.searchParams.set("scope", ctx.config.shopify.scopes.join(","));
  url.searchParams.set("redirect_uri", `${app.appUrl}${CALLBACK_PATH}`);
  url.searchParams.set("state", state);
  return url.toString();
}

/** What attaching the installed shop takes: a new store, or the known store re-attached. */
export interface InstallAttacher {
  /** Creates the shop's store with its tokens; answers its id. */
  attachNew(ctx: AppContext, shop: string, tokens: GrantedTokens): Promise<number>;
  /** The known shop's store takes the new tokens and reconnects. */
  reattach(ctx: AppContext, storeId: number, tokens: GrantedTokens): Promise<void>;
  /** The store already holding `shop`, if any. */
  storeOf(ctx: AppContext, shop: string): Promise<number | null>;
}

/**
 * Checks the callback's query (each parameter once) and attaches the shop; answers the store's id and
 * whether it is new.
 */
export async function completeInstall(
  ctx: AppContext,
  query: URLSearchParams,
  attacher: InstallAttacher,
): Promise<{ storeId: number; created: boolean }> {
  const app = oauthAppOf(ctx);
  if (!app) throw new Error("the Shopify OAuth install is not configured");
  const params: Record<string, string> = {};
  for (const [name, value] of query) {
    // A repeated parameter has no one value to sign: Shopify never sends one.
    if (name in params) throw refused(name, "repeated", "is given more than once");
    params[name] = value;
  }
  if (!params.hmac) throw refused("hmac", "required", "is required");
  if (!callbackHmacIsValid(params, app.apiSecret))
    throw refused("hmac", "invalid", "does not match the callback's parameters");
  if (params.shop === undefined || !isShopDomain(params.shop))
    throw refused("shop", "invalid_value", SHOP_FORM);
  if (!params.code) throw refused("code", "required", "is required");
  if (!params.state || !(await consumeOAuthState(ctx.db, params.state, params.shop, ctx.clock.now())))
    throw refused(
      "state",
      "invalid",
      "was not issued for this shop's install, was used already or is older than 10 minutes",
    );
  let tokens: GrantedTokens;
  try {
    tokens = await exchangeAuthorizationCode(params.shop, params.code, {
      settings: ctx.config.shopify,
      app,
      dispatcher: shopifyDispatcherOf(ctx),
      now: ctx.clock.now(),
    });
  } catch (error) {
    const why =
      error instanceof ShopifyGrantRefusedError
        ? "was refused by Shopify (invalid, expired or used)"
        : "could not be exchanged: Shopify did not answer";
    throw refused("code", "invalid", why);
  }
  const known = await attacher.storeOf(ctx, params.shop);
  if (known !== null) {
    await attacher.reattach(ctx, known, tokens);
    return { storeId: known, created: false };
  }
  return { storeId: await attacher.attachNew(ctx, params.shop, tokens), created: true };
}
