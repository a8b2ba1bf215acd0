/**
 * Shopify's token endpoint (`POST {shop}/admin/oauth/access_token`): the authorization code of an
 * install exchanged for an expiring offline token (`expiring: 1`: one hour, with a refresh token), and
 * a refresh token exchanged for a new pair (`grant_type=refresh_token`; Shopify rotates both). The
 * answer's lifetimes become instants from the moment the request was sent, so a slow answer errs on
 * the early side. Tokens are returned, never logged; errors carry Shopify's error code, not the body.
 */
import type { Dispatcher } from "undici";
import { undici } from "../../undici.ts";
import { PlatformPermanentError, PlatformTransientError } from "../connector.ts";
import { SHOPIFY_TIMEOUT_MS } from "./http.ts";
import type { ShopifyEndpointSettings } from "./settings.ts";

export interface ShopifyAppCredentials {
  apiKey: string;
  apiSecret: string;
}

export interface GrantedTokens {
  accessToken: string;
  accessTokenExpiresAt: Date | null;
  refreshToken: string | null;
  refreshTokenExpiresAt: Date | null;
  /** The scopes the token holds, as Shopify granted them. */
  scopes: string[];
}

export interface TokenRequestOptions {
  settings: ShopifyEndpointSettings;
  app: ShopifyAppCredentials;
  dispatcher: Dispatcher;
  now: Date;
  timeoutMs?: number;
}

/** Shopify refused the code or refresh token (invalid, expired, used, or a wrong client): asking again cannot help. */
export class ShopifyGrantRefusedError extends PlatformPermanentError {
  override name = "ShopifyGrantRefusedError";
}

/** The install's authorization code for an expiring offline token. */
export function exchangeAuthorizationCode(
  shop: string,
  code: string,
  options: TokenRequestOptions,
): Promise<GrantedTokens> {
  return requestTokens(shop, { code, expiring: 1 }, options);
}

/** A refresh token for a new access token and a new refresh token. */
export function refreshAccessToken(
  shop: string,
  refreshToken: string,
  options: TokenRequestOptions,
): Promise<GrantedTokens> {
  return requestTokens(shop, { grant_type: "refresh_token", refresh_token: refreshToken }, options);
}

/** Where a shop's OAuth endpoints are: the stand-in's origin when set, else the shop itself. */
export function oauthUrl(
  settings: ShopifyEndpointSettings,
  shop: string,
  path: "authorize" | "access_token",
) {
  return `${settings.adminOrigin ?? `https://${shop}`}/admin/oauth/${path}`;
}

async function requestTokens(
  shop: string,
  grant: Record<string, unknown>,
  options: TokenRequestOptions,
): Promise<GrantedTokens> {
  let status: number;
  let text: string;
  try {
    const response = await undici().request(oauthUrl(options.settings, shop, "access_token"), {
      method: "POST",
      dispatcher: options.dispatcher,
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ client_id: options.app.apiKey, client_secret: options.app.apiSecret, ...grant }),
      signal: AbortSignal.timeout(options.timeoutMs ?? SHOPIFY_TIMEOUT_MS),
    });
    status = response.statusCode;
    text = await response.body.text();
  } catch (error) {
    throw new PlatformTransientError(
      `Shopify's token endpoint unreachable for ${shop}: ${(error as Error).message}`,
    );
  }
  if (status === 429 || status >= 500)
    throw new PlatformTransientError(`Shopify's token endpoint answered ${status} for ${shop}`);
  const body = parseObject(text);
  if (status !== 200) {
    // Only Shopify's error code goes into the message: the body could echo what was sent.
    const code = typeof body?.error === "string" ? body.error : `HTTP ${status}`;
    throw new ShopifyGrantRefusedError(`Shopify refused the token request for ${shop} (${code})`);
  }
  if (!body || typeof body.access_token !== "string" || body.access_token === "")
    throw new PlatformTransientError(`Shopify's token endpoint answered ${shop} without an access token`);
  const at = (seconds: unknown) =>
    typeof seconds === "number" && Number.isFinite(seconds) && seconds > 0
      ? new Date(options.now.getTime() + seconds * 1000)
      : null;
  return {
    accessToken: body.access_token,
    accessTokenExpiresAt: at(body.expires_in),
    refreshToken:
      typeof body.refresh_token === "string" && body.refresh_token !== "" ? body.refresh_token : null,
    refreshTokenExpiresAt: at(body.refresh_token_expires_in),
    scopes: typeof body.scope === "string" ? body.scope.split(",").filter((s) => s !== "") : [],
  };
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
