/**
 * The `state` of an OAuth install (shopify_oauth_states): issued with the redirect to Shopify, taken
 * back once by the callback of the same shop within STATE_TTL_MS. Times come from the caller's clock,
 * so a test moves past the limit without waiting.
 */
import { randomBytes } from "node:crypto";
import type { Db } from "../../db/database.ts";

export const STATE_TTL_MS = 10 * 60_000;
/** Unused states are deleted when a new one is issued this long after theirs (kept a while for support). */
const STATE_KEPT_MS = 24 * 3600_000;

export async function issueOAuthState(db: Db, shop: string, now: Date): Promise<string> {
  const state = randomBytes(24).toString("base64url");
  await db
    .deleteFrom("shopify_oauth_states")
    .where("created_at", "<", new Date(now.getTime() - STATE_KEPT_MS))
    .execute();
  await db.insertInto("shopify_oauth_states").values({ state, shop, created_at: now }).execute();
  return state;
}

/**
 * Spends `state` for `shop`: true once, for a state issued to that shop at most STATE_TTL_MS ago and
 * never spent; false otherwise (unknown, another shop's, too old, spent), changing nothing then. One
 * conditional update, so two callbacks racing with one state cannot both win.
 */
export async function consumeOAuthState(db: Db, state: string, shop: string, now: Date): Promise<boolean> {
  const spent = await db
    .updateTable("shopify_oauth_states")
    .set({ used_at: now })
    .where("state", "=", state)
    .where("shop", "=", shop)
    .where("used_at", "is", null)
    .where("created_at", ">=", new Date(now.getTime() - STATE_TTL_MS))
    .where("created_at", "<=", now)
    .returning("state")
    .executeTakeFirst();
  return spent !== undefined;
}
