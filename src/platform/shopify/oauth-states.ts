/**
 * The `state` of an OAuth install (shopify_oauth_states): issued with the redirect to Shopify, taken
 * back once by the callback of the same shop within STATE_TTL_MS. Times come from the caller's clock,
 * so a test moves past the limit without waiting.
 */
import { randomBytes } from "node:crypto";
import type { Db } from "../../db/database.ts";

export const STATE_TTL_MS = 10 * 60_000;
/** How often the periodic pass deletes expired states (installs also prune as they issue). */
export const OAUTH_STATES_PRUNE_MS = 60 * 60_000;
export const OAUTH_STATES_PRUNE_TASK = "shopify.oauth-states-prune";

export async function issueOAuthState(db: Db, shop: string, now: Date): Promise<string> {
  const state = randomBytes(24).toString("base64url");
  await pruneOAuthStates(db, now);
  await db.insertInto("shopify_oauth_states").values({ state, shop, created_at: now }).execute();
  return state;
}

/**
 * Deletes every state older than STATE_TTL_MS, spent or not: no callback can spend it any more, so
 * keeping it serves nothing. Run as each state is issued and by a periodic pass, so a service that
 * sees no install for a while does not keep the states of abandoned ones.
 */
export async function pruneOAuthStates(db: Db, now: Date): Promise<number> {
  const pruned = await db
    .deleteFrom("shopify_oauth_states")
    .where("created_at", "<", new Date(now.getTime() - STATE_TTL_MS))
    .executeTakeFirst();
  return Number(pruned.numDeletedRows);
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
