/**
 * Keeping an OAuth shop's expiring offline token alive (decisions section 12): refreshed with its
 * refresh token shortly before it expires (before a call, and by a periodic pass for shops that make
 * no calls), once more after a 401, and given up (the shop `disconnected`) when Shopify refuses the
 * refresh or the refreshed token. Several processes may refresh one shop at once: each new pair is
 * written only if the row still holds the token the refresh started from, and a process that lost the
 * race takes the winner's token (Shopify keeps a used refresh token valid until its replacement is
 * used, so the loser's pair is harmless). A transient failure (Shopify unreachable) changes nothing:
 * the current token is used while it lasts.
 */
import type { AppContext } from "../../context.ts";
import { PlatformTransientError } from "../connector.ts";
import type { AccessTokenSource } from "./client.ts";
import { shopifyDispatcherOf } from "./http.ts";
import { refreshAccessToken, ShopifyGrantRefusedError } from "./oauth-tokens.ts";
import {
  disconnectShopIfToken,
  findShopByStore,
  openShopTokens,
  replaceShopTokensIfToken,
  type ShopifyShopRow,
  shopsExpiringBefore,
} from "./shops.ts";

/** A call refreshes first when the token expires within this. */
export const REFRESH_BEFORE_CALL_MS = 5 * 60_000;
/** The periodic pass refreshes tokens expiring within this, every REFRESH_PASS_INTERVAL_MS. */
export const REFRESH_AHEAD_MS = 15 * 60_000;
export const TOKEN_REFRESH_PASS_MS = 5 * 60_000;

export const REFRESH_REFUSED_REASON = "Shopify refused to refresh the access token: install the app again";
export const TOKEN_REFUSED_REASON =
  "Shopify refused the access token (401): install the app again or give a new token";

/** One refresh per store at a time in this process; callers arriving meanwhile share its outcome. */
const inFlight = new Map<number, Promise<ShopifyShopRow | null>>();

/**
 * Refreshes the shop's tokens from `row` (as read): the row holding the tokens to use next, or null
 * when the shop cannot be refreshed (no refresh token, Shopify refused it, no app credentials): it is
 * then `disconnected`. Transient failures throw PlatformTransientError.
 */
export function refreshShopTokens(ctx: AppContext, row: ShopifyShopRow): Promise<ShopifyShopRow | null> {
  const running = inFlight.get(row.store_id);
  if (running) return running;
  const refresh = refreshOnce(ctx, row).finally(() => inFlight.delete(row.store_id));
  inFlight.set(row.store_id, refresh);
  return refresh;
}

async function refreshOnce(ctx: AppContext, row: ShopifyShopRow): Promise<ShopifyShopRow | null> {
  const { apiKey, apiSecret } = ctx.config.shopify;
  const { refreshToken } = openShopTokens(ctx, row);
  if (refreshToken === null || !apiKey || !apiSecret) return disconnect(ctx, row, TOKEN_REFUSED_REASON);
  const now = ctx.clock.now();
  try {
    const granted = await refreshAccessToken(row.shop, refreshToken, {
      settings: ctx.config.shopify,
      app: { apiKey, apiSecret },
      dispatcher: shopifyDispatcherOf(ctx),
      now,
    });
    const written = await replaceShopTokensIfToken(ctx.db, ctx, row, granted, {
      scopes: granted.scopes.length > 0 ? granted.scopes : undefined,
    });
    // Another process refreshed (or the shop was re-installed) meanwhile: its tokens win.
    return written ?? (await findShopByStore(ctx.db, row.store_id)) ?? null;
  } catch (error) {
    if (error instanceof ShopifyGrantRefusedError) return disconnect(ctx, row, REFRESH_REFUSED_REASON);
    throw error;
  }
}

async function disconnect(ctx: AppContext, row: ShopifyShopRow, reason: string): Promise<null> {
  await disconnectShopIfToken(ctx.db, row, reason);
  return null;
}

function expiresWithin(row: ShopifyShopRow, now: Date, ms: number): boolean {
  const at = row.access_token_expires_at;
  return at !== null && row.refresh_token_sealed !== null && at.getTime() - now.getTime() <= ms;
}

/**
 * The access token of a store's shop as a client's AccessTokenSource: refreshed before a call when it
 * expires within REFRESH_BEFORE_CALL_MS; after a 401, the token another process wrote meanwhile or a
 * refreshed one (once); a 401 to that too disconnects the shop.
 */
export function storedTokenSource(ctx: AppContext, storeId: number): AccessTokenSource {
  const load = async () => {
    const row = await findShopByStore(ctx.db, storeId);
    if (!row) throw new PlatformTransientError(`store ${storeId} has no Shopify shop`);
    return row;
  };
  return {
    async current() {
      const row = await load();
      const now = ctx.clock.now();
      if (row.status !== "disconnected" && expiresWithin(row, now, REFRESH_BEFORE_CALL_MS)) {
        try {
          const fresh = await refreshShopTokens(ctx, row);
          if (fresh) return openShopTokens(ctx, fresh).accessToken;
        } catch (error) {
          // Unreachable: the current token serves while it lasts; an expired one gets its 401.
          if (!(error instanceof PlatformTransientError)) throw error;
        }
      }
      return openShopTokens(ctx, row).accessToken;
    },
    async afterUnauthorized(used) {
      const row = await load();
      const stored = openShopTokens(ctx, row).accessToken;
      if (stored !== used) return stored;
      if (row.status === "disconnected") return null;
      const fresh = await refreshShopTokens(ctx, row);
      return fresh ? openShopTokens(ctx, fresh).accessToken : null;
    },
    async refused(used) {
      const row = await load();
      if (openShopTokens(ctx, row).accessToken === used) await disconnect(ctx, row, TOKEN_REFUSED_REASON);
    },
  };
}

/** The periodic pass: every connected or importing shop whose token expires within REFRESH_AHEAD_MS. */
export async function refreshExpiringTokens(ctx: AppContext): Promise<void> {
  const now = ctx.clock.now();
  const due = await shopsExpiringBefore(ctx.db, new Date(now.getTime() + REFRESH_AHEAD_MS));
  for (const row of due) {
    try {
      await refreshShopTokens(ctx, row);
    } catch (error) {
      // One shop's outage does not hold the others back; the next pass (or a call) tries again.
      if (!(error instanceof PlatformTransientError)) throw error;
    }
  }
}
