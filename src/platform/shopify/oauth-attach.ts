/**
 * What an OAuth install attaches (decisions section 12): an unknown shop becomes a new store (its
 * name, currency and time zone from the shop, checked with the new token before anything is written),
 * its expiring tokens sealed, its webhooks subscribed and its import started, in one transaction; a
 * known shop's store takes the new tokens and is reconnected if it was disconnected (its waiting
 * pushes go). Either way the webhook subscriptions are requested again (one that exists counts as
 * made) and the mirror catches up, since an uninstall whose webhook was lost left none.
 */
import type { AppContext } from "../../context.ts";
import { AppError } from "../../domain/errors.ts";
import { createStore } from "../../domain/stores/index.ts";
import { reconnectShop, startShopWork } from "./attach.ts";
import type { InstallAttacher } from "./install.ts";
import type { GrantedTokens } from "./oauth-tokens.ts";
import { checkShopToken } from "./shop-check.ts";
import { findShopByDomain, findShopByStore, insertShop, updateShopTokens } from "./shops.ts";

/** The shop as the new token sees it; a refusal is the callback's 400 on `code`. */
async function checkedShop(ctx: AppContext, shop: string, tokens: GrantedTokens) {
  try {
    return await checkShopToken(ctx, shop, tokens.accessToken, "code");
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const detail = error.details?.[0];
    const message = detail ? detail.message : error.message;
    throw new AppError("bad_request", `code: ${message}`, [{ field: "code", code: "invalid", message }]);
  }
}

export const oauthAttacher: InstallAttacher = {
  async storeOf(ctx, shop) {
    return (await findShopByDomain(ctx.db, shop))?.store_id ?? null;
  },

  async attachNew(ctx, shop, tokens) {
    const checked = await checkedShop(ctx, shop, tokens);
    const store = await createStore(
      ctx,
      {
        name: checked.name,
        domain: shop,
        currency: checked.currency,
        timezone: checked.timezone,
        platform: "shopify",
      },
      async (trx, created) => {
        await insertShop(trx, ctx, {
          storeId: created.id,
          shop,
          apiVersion: ctx.config.shopify.apiVersion,
          scopes: tokens.scopes.length > 0 ? tokens.scopes : checked.scopes,
          tokens,
          status: "importing",
          installedAt: ctx.clock.now(),
        });
        await startShopWork(ctx, trx, created.id);
      },
    );
    return store.id;
  },

  async reattach(ctx, storeId, tokens) {
    await ctx.db.transaction().execute(async (trx) => {
      const before = await findShopByStore(trx, storeId);
      await updateShopTokens(trx, ctx, storeId, tokens, {
        scopes: tokens.scopes,
        apiVersion: ctx.config.shopify.apiVersion,
        installedAt: ctx.clock.now(),
      });
      if (before?.status === "disconnected") await reconnectShop(ctx, trx, storeId);
      else await startShopWork(ctx, trx, storeId);
    });
  },
};
