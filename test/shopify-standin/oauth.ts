// Authorization-code OAuth at the stand-in's origin. `authorize` plays the merchant who approves at once:
// it redirects to redirect_uri with code, shop, state, timestamp, host and the hex HMAC-SHA256 (app secret)
// of the other parameters sorted by name. `access_token` exchanges a code once (10 minutes) for a
// non-expiring token, or with `expiring: 1` for a one-hour token and a 90-day refresh token; grant_type
// refresh_token rotates both. A used refresh token can be retried (a lost answer) until its replacement is
// used, for at most 30 days from its first use (Shopify's changelog of 28 August 2026).
import { createHmac, randomBytes } from "node:crypto";
import type { ShopState } from "./state.ts";

const CODE_TTL_MS = 10 * 60_000;
const ACCESS_TTL_S = 3600;
const REFRESH_TTL_S = 90 * 24 * 3600;
const RETRY_WINDOW_MS = 30 * 24 * 3600_000;

interface Grant {
  shop: ShopState;
  scope: string;
  expiresAt: number | null;
}

export class TokenRegistry {
  private readonly access = new Map<string, Grant>();
  /** `replaces`: the refresh token this one was issued for, retired when this one is first used. */
  private readonly refresh = new Map<string, Grant & { replaces?: string; firstUsedAt?: number }>();
  private readonly codes = new Map<string, Grant>();

  constructor(
    private readonly apiKey: string,
    private readonly apiSecret: string,
    private readonly now: () => number,
  ) {}

  /** A custom app's Admin API token: it never expires. */
  issueFixed(shop: ShopState, scope: string): string {
    const token = `shpat_${randomBytes(16).toString("hex")}`;
    this.access.set(token, { shop, scope, expiresAt: null });
    return token;
  }

  /** The shop and scopes of a live access token. */
  grantOf(token: string | undefined): { shop: ShopState; scopes: string[] } | null {
    const grant = token ? this.access.get(token) : undefined;
    if (!grant || (grant.expiresAt !== null && grant.expiresAt <= this.now())) return null;
    return { shop: grant.shop, scopes: grant.scope.split(",").filter(Boolean) };
  }

  revoke(shop: ShopState): void {
    for (const map of [this.access, this.refresh, this.codes]) {
      for (const [token, grant] of map) if (grant.shop === shop) map.delete(token);
    }
  }

  /** GET /admin/oauth/authorize: the Location to redirect to, or an error message. */
  authorize(query: URLSearchParams, shop: ShopState | undefined): { location: string } | { error: string } {
    const redirect = query.get("redirect_uri");
    if (query.get("client_id") !== this.apiKey) return { error: "Unknown client_id" };
    if (!redirect || !shop) return { error: redirect ? "No shop to install on" : "redirect_uri is required" };
    const code = randomBytes(16).toString("hex");
    const scope = query.get("scope") ?? "";
    this.codes.set(code, { shop, scope, expiresAt: this.now() + CODE_TTL_MS });
    const params: Record<string, string> = {
      code,
      host: Buffer.from(`${shop.domain}/admin`).toString("base64url"),
      shop: shop.domain,
      state: query.get("state") ?? "",
      timestamp: String(Math.floor(this.now() / 1000)),
    };
    const url = new URL(redirect);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    url.searchParams.set("hmac", this.callbackHmac(params));
    return { location: url.toString() };
  }

  callbackHmac(params: Record<string, string>): string {
    const message = Object.keys(params)
      .filter((k) => k !== "hmac" && k !== "signature")
      .sort()
      .map((k) => `${k}=${params[k]}`)
      .join("&");
    return createHmac("sha256", this.apiSecret).update(message).digest("hex");
  }

  /** POST /admin/oauth/access_token: [status, body]. */
  exchange(body: Record<string, unknown>): [number, Record<string, unknown>] {
    if (body.client_id !== this.apiKey || body.client_secret !== this.apiSecret) {
      return [400, { error: "invalid_client", error_description: "Client authentication failed" }];
    }
    const now = this.now();
    let grant: Grant | undefined;
    let expiring = String(body.expiring) === "1";
    let replaces: string | undefined;
    if (body.grant_type === "refresh_token") {
      replaces = String(body.refresh_token);
      const used = this.refresh.get(replaces);
      if (used) {
        used.firstUsedAt ??= now;
        if (now - used.firstUsedAt <= RETRY_WINDOW_MS) grant = used;
        // Using a replacement retires the refresh token it replaced.
        if (used.replaces) this.refresh.delete(used.replaces);
      }
      expiring = true;
    } else {
      grant = this.codes.get(String(body.code));
      this.codes.delete(String(body.code));
    }
    if (!grant || (grant.expiresAt !== null && grant.expiresAt <= now)) {
      return [
        400,
        { error: "invalid_grant", error_description: "The code or refresh token is invalid or expired" },
      ];
    }
    const accessToken = `shpat_${randomBytes(16).toString("hex")}`;
    if (!expiring) {
      this.access.set(accessToken, { shop: grant.shop, scope: grant.scope, expiresAt: null });
      return [200, { access_token: accessToken, scope: grant.scope }];
    }
    const refreshToken = `shprt_${randomBytes(16).toString("hex")}`;
    this.access.set(accessToken, {
      shop: grant.shop,
      scope: grant.scope,
      expiresAt: now + ACCESS_TTL_S * 1000,
    });
    this.refresh.set(refreshToken, {
      shop: grant.shop,
      scope: grant.scope,
      expiresAt: now + REFRESH_TTL_S * 1000,
      replaces,
    });
    return [
      200,
      {
        access_token: accessToken,
        scope: grant.scope,
        expires_in: ACCESS_TTL_S,
        refresh_token: refreshToken,
        refresh_token_expires_in: REFRESH_TTL_S,
      },
    ];
  }
}
