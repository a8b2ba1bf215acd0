/**
 * Attaching a store to a Shopify shop by a custom app's access token, and replacing a shop's token
 * (decisions section 12). The token is checked with Shopify before anything is written; then the
 * store, its shop (token sealed) and the work that follows (webhook subscriptions, the initial import)
 * commit in one transaction. A new token for a disconnected shop reconnects it: the waiting pushes go,
 * the subscriptions are made again and the mirror catches up.
 */
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { DetailCollector, validationFailed } from "../../domain/errors.ts";
import { PUSH_JOB } from "../../domain/stock/index.ts";
import { createStore, type StoreRow } from "../../domain/stores/index.ts";
import { requestCatalogSync } from "../sync-request.ts";
import { checkShopToken, isShopDomain } from "./shop-check.ts";
import { findShopByDomain, findShopByStore, insertShop, setShopStatus, updateShopTokens } from "./shops.ts";
import { requestSubscriptions } from "./subscriptions.ts";

export interface AttachByTokenInput {
  name?: string;
  domain?: string;
  currency?: string;
  timezone?: string;
  owner_email?: string | null;
  seed?: "demo" | "empty";
  shopify: { shop: string; access_token: string; webhook_secret?: string };
}

export async function attachStoreByToken(ctx: AppContext, input: AttachByTokenInput): Promise<StoreRow> {
  const shop = input.shopify.shop.toLowerCase();
  const problems = new DetailCollector();
  if (input.seed !== undefined)
    problems.add("seed", "not_allowed", "is not taken for a Shopify store: its catalog is the shop's");
  if (!isShopDomain(shop))
    problems.add("shopify.shop", "invalid_value", "must be the shop's <name>.myshopify.com domain");
  problems.throwIfAny();
  if (await findShopByDomain(ctx.db, shop)) throw shopTaken();
  const checked = await checkShopToken(ctx, shop, input.shopify.access_token);
  if (input.currency !== undefined && input.currency !== checked.currency)
    throw validationFailed([
      {
        field: "currency",
        code: "invalid_value",
        message: `must be the shop's currency (${checked.currency}) or left out`,
      },
    ]);
  try {
    return await createStore(
      ctx,
      {
        name: input.name ?? checked.name,
        domain: input.domain ?? shop,
        currency: checked.currency,
        timezone: input.timezone ?? checked.timezone,
        owner_email: input.owner_email ?? null,
        platform: "shopify",
      },
      async (trx, store) => {
        await insertShop(trx, ctx, {
          storeId: store.id,
          shop,
          apiVersion: ctx.config.shopify.apiVersion,
          scopes: checked.scopes,
          tokens: {
            accessToken: input.shopify.access_token,
            accessTokenExpiresAt: null,
            refreshToken: null,
            refreshTokenExpiresAt: null,
          },
          webhookSecret: input.shopify.webhook_secret ?? null,
          status: "importing",
          installedAt: ctx.clock.now(),
        });
        await startShopWork(ctx, trx, store.id);
      },
    );
  } catch (error) {
    // Another attach of the same shop committed between the look-up and the insert.
    if (isUniqueViolation(error)) throw shopTaken();
    throw error;
  }
}

/** After a shop is attached: its webhook subscriptions and the mirror's import (or catch-up). */
export async function startShopWork(ctx: AppContext, trx: Db, storeId: number): Promise<void> {
  await requestSubscriptions(ctx, trx, storeId);
  await requestCatalogSync(ctx, trx, storeId);
}

/**
 * A disconnected shop has a working token again (a new custom-app token, a re-install): it is
 * `connected` (still `importing` if its import never ended), its waiting pushes go now, and its
 * subscriptions and the mirror are brought back. A shop that was not disconnected is left as it is.
 */
export async function reconnectShop(ctx: AppContext, trx: Db, storeId: number): Promise<void> {
  const row = await findShopByStore(trx, storeId);
  if (row?.status !== "disconnected") return;
  await setShopStatus(trx, storeId, row.imported_at === null ? "importing" : "connected");
  await ctx.jobs.wakeWaiting(trx, PUSH_JOB, storeId);
  await startShopWork(ctx, trx, storeId);
}

/** `PATCH /admin/stores/{id}` with `shopify: {access_token}`: checked like an attach, then stored. */
export async function replaceShopToken(ctx: AppContext, storeId: number, accessToken: string): Promise<void> {
  const row = await findShopByStore(ctx.db, storeId);
  if (!row)
    throw validationFailed([
      { field: "shopify", code: "not_allowed", message: "is only taken for a store attached to Shopify" },
    ]);
  const checked = await checkShopToken(ctx, row.shop, accessToken);
  await ctx.db.transaction().execute(async (trx) => {
    await updateShopTokens(
      trx,
      ctx,
      storeId,
      { accessToken, accessTokenExpiresAt: null, refreshToken: null, refreshTokenExpiresAt: null },
      { scopes: checked.scopes, installedAt: ctx.clock.now() },
    );
    await reconnectShop(ctx, trx, storeId);
  });
}

function shopTaken() {
  return validationFailed([
    { field: "shopify.shop", code: "taken", message: "is already attached to another store" },
  ]);
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === "23505";
}
