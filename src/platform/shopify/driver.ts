/**
 * The `shopify` platform (decisions section 12): a store's connector is built from its stored shop
 * (token opened from its sealed column, the process's cost budget and Shopify pool, attempt
 * generations kept in the database), and a shop that is `disconnected` takes no pushes: they wait
 * (PlatformPausedError) until a new token or a re-install reconnects it.
 */
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { getStore } from "../../domain/stores/index.ts";
import {
  type InventoryAdjustment,
  type InventoryAdjustResult,
  movedNothing,
  nothingMoved,
  type PlatformConnector,
  PlatformPermanentError,
} from "../connector.ts";
import type { PlatformDriver } from "../driver.ts";
import { PlatformPausedError } from "../paused.ts";
import { bulkWaitFor } from "./bulk-wait.ts";
import { ShopifyConnector } from "./connector.ts";
import { ShopifyUnauthorizedError } from "./errors.ts";
import { SHOPIFY_TIMEOUT_MS, shopifyDispatcherOf } from "./http.ts";
import { syncSettledForShop } from "./import-status.ts";
import { shopifyClientFor } from "./shop-client.ts";
import { findShopByStore, type ShopifyShopRow, syncBulkOperationKeeper } from "./shops.ts";
import { StoredAttemptGenerations } from "./stored-generations.ts";
import { subscribeJobHandler } from "./subscriptions.ts";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What a disconnected shop's waiting records say. */
export function disconnectedMessage(row: Pick<ShopifyShopRow, "shop" | "disconnected_reason">): string {
  const why = row.disconnected_reason ? `: ${row.disconnected_reason}` : "";
  return `The store's Shopify shop ${row.shop} is disconnected${why}. Pushes wait until it is reconnected.`;
}

async function shopOf(db: Db, storeId: number): Promise<ShopifyShopRow> {
  const row = await findShopByStore(db, storeId);
  if (!row) throw new PlatformPermanentError(`store ${storeId} has no Shopify shop attached`);
  return row;
}

export async function connectShopify(ctx: AppContext, db: Db, storeId: number): Promise<PlatformConnector> {
  const row = await shopOf(db, storeId);
  const store = await getStore(db, storeId);
  const connector = new ShopifyConnector({
    client: shopifyClientFor(ctx, row),
    shopCurrency: store.currency,
    // The pool, never a push's transaction: an advance commits before the call goes out.
    generations: new StoredAttemptGenerations(ctx.db, storeId),
    dispatcher: shopifyDispatcherOf(ctx),
    timeoutMs: SHOPIFY_TIMEOUT_MS,
    // Polls at 1 s, 2 s, 4 s … a minute apart, cut short by the shop's bulk_operations/finish delivery.
    pollWait: bulkWaitFor({ db: ctx.db, clock: ctx.clock, shop: row.shop, sleep }),
    bulkOperations: syncBulkOperationKeeper(ctx.db, storeId),
  });
  return {
    platform: connector.platform,
    listChanges: (watermark, limit) => connector.listChanges(watermark, limit),
    adjustInventory: (adjustment) => pushUnlessDisconnected(ctx, storeId, connector, adjustment),
  };
}

/**
 * A push to a connected shop; a disconnected one (now, or after Shopify refused the token and its
 * refresh) pauses the push instead of failing it.
 */
async function pushUnlessDisconnected(
  ctx: AppContext,
  storeId: number,
  connector: ShopifyConnector,
  adjustment: InventoryAdjustment,
): Promise<InventoryAdjustResult> {
  const before = await shopOf(ctx.db, storeId);
  if (before.status === "disconnected")
    throw movedNothing(new PlatformPausedError(disconnectedMessage(before)));
  try {
    return await connector.adjustInventory(adjustment);
  } catch (error) {
    if (!(error instanceof ShopifyUnauthorizedError)) throw error;
    const after = await shopOf(ctx.db, storeId);
    if (after.status === "disconnected") {
      const paused = new PlatformPausedError(disconnectedMessage(after));
      throw nothingMoved(error) ? movedNothing(paused) : paused;
    }
    throw error;
  }
}

export const shopifyPlatform: PlatformDriver = {
  name: "shopify",
  connect: connectShopify,
  syncSettled: syncSettledForShop,
  jobs: [subscribeJobHandler],
};
