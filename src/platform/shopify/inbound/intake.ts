import type { AppContext } from "../../../context.ts";
import type { Db } from "../../../db/database.ts";
import { inTransaction } from "../../../db/transaction.ts";
import { requestCatalogSync, syncJobOptions } from "../../sync-request.ts";
import {
  disconnectUninstalledShop,
  findShopByDomain,
  markWebhookReceived,
  openShopTokens,
  type ShopifyShopRow,
} from "../shops.ts";
import { webhookHmacMatches } from "./hmac.ts";
import { LEVEL_DISCONNECTED_JOB, PRODUCT_DELETED_JOB, SHOP_REDACT_JOB } from "./job-types.ts";
import { disconnectedLevel } from "./level-dropped.ts";
import { deletedProductId } from "./product-deleted.ts";
import { type WebhookWork, workOfTopic } from "./topics.ts";

/** One POST to /shopify/webhooks as it arrived: the headers Shopify sets and the raw body. */
export interface WebhookDelivery {
  topic: string | undefined;
  shop: string | undefined;
  hmac: string | undefined;
  eventId: string | undefined;
  /** X-Shopify-Triggered-At: when the event happened on Shopify (ISO 8601, up to nanoseconds). */
  triggeredAt?: string | undefined;
  body: Buffer;
}

/**
 * What became of a delivery. Only `unauthorized` is refused (401); the others are 200, since Shopify
 * retries anything else for two days and a repeat cannot help.
 */
export type WebhookOutcome =
  | { kind: "unauthorized" }
  | { kind: "duplicate" }
  | { kind: "unknown_shop" }
  | { kind: "taken"; storeId: number; work: WebhookWork }
  /** An app/uninstalled triggered before the shop's current installation began: nothing done. */
  | { kind: "stale_uninstall"; storeId: number };

export const UNINSTALLED_REASON = "The app was uninstalled from the Shopify shop.";

/**
 * Takes one webhook: the signature first (the shop's own webhook secret, else the app's
 * SHOPIFY_API_SECRET; without either nothing can be verified, so nothing is taken), then, in one
 * transaction, the event id recorded (a delivery seen before stops there), the shop's last webhook
 * time, and the work queued. Nothing slow runs here: Shopify wants the answer within seconds.
 */
export async function takeWebhook(ctx: AppContext, delivery: WebhookDelivery): Promise<WebhookOutcome> {
  const shop = delivery.shop ? await findShopByDomain(ctx.db, delivery.shop) : undefined;
  const secret = (shop && openShopTokens(ctx, shop).webhookSecret) ?? ctx.config.shopify.apiSecret;
  if (secret === null || !webhookHmacMatches(delivery.body, delivery.hmac, secret))
    return { kind: "unauthorized" };
  const topic = delivery.topic ?? "";
  return inTransaction(ctx.db, async (trx) => {
    const now = ctx.clock.now();
    if (shop) await markWebhookReceived(trx, shop.store_id, now);
    if (delivery.eventId !== undefined && !(await firstSight(trx, delivery, topic, now)))
      return { kind: "duplicate" };
    if (!shop) return { kind: "unknown_shop" };
    const work = workOfTopic(topic);
    if (work === "uninstalled") {
      // Shopify has revoked the token already: pushes must wait from now on, so the state changes here
      // rather than in a job (one row). A delivery late enough to follow a re-install (Shopify retries
      // for 48 hours) is about the installation before it and leaves the new one connected.
      const current = await disconnectUninstalledShop(
        trx,
        shop.store_id,
        triggeredAtOf(delivery.triggeredAt),
        UNINSTALLED_REASON,
      );
      return current
        ? { kind: "taken", storeId: shop.store_id, work }
        : { kind: "stale_uninstall", storeId: shop.store_id };
    }
    await queueWork(ctx, trx, shop, work, delivery.body);
    return { kind: "taken", storeId: shop.store_id, work };
  });
}

/**
 * X-Shopify-Triggered-At as a time, or null when absent or unreadable (then the delivery is taken as
 * current: every delivery Shopify sends carries it). Shopify writes up to nanoseconds; the installation
 * time is kept to the millisecond, so the fraction is cut there.
 */
export function triggeredAtOf(header: string | undefined): Date | null {
  if (!header) return null;
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/.exec(header.trim());
  if (!match) return null;
  const millis = (match[2] ?? "").slice(0, 3).padEnd(3, "0");
  const at = new Date(`${match[1]}.${millis}${match[3]}`);
  return Number.isNaN(at.getTime()) ? null : at;
}

/** Records the event id; false when it was recorded before (a redelivery or a duplicate). */
async function firstSight(trx: Db, delivery: WebhookDelivery, topic: string, now: Date): Promise<boolean> {
  const inserted = await trx
    .insertInto("shopify_webhook_events")
    .values({ event_id: delivery.eventId as string, shop: delivery.shop ?? "", topic, received_at: now })
    .onConflict((oc) => oc.column("event_id").doNothing())
    .returning("event_id")
    .executeTakeFirst();
  return inserted !== undefined;
}

async function queueWork(
  ctx: AppContext,
  trx: Db,
  shop: ShopifyShopRow,
  work: WebhookWork,
  body: Buffer,
): Promise<void> {
  const storeId = shop.store_id;
  switch (work) {
    case "sync":
      await requestCatalogSync(ctx, trx, storeId);
      return;
    case "product_deleted": {
      await requestCatalogSync(ctx, trx, storeId);
      // A body without an id (Shopify always sends one) is left to reconciliation.
      const productId = deletedProductId(body);
      if (productId !== null)
        await ctx.jobs.enqueue(
          trx,
          PRODUCT_DELETED_JOB,
          { store_id: storeId, product_id: productId },
          { storeId },
        );
      return;
    }
    case "level_disconnected": {
      await requestCatalogSync(ctx, trx, storeId);
      // A body without the pair (Shopify always sends it) is left to reconciliation.
      const level = disconnectedLevel(body);
      if (level !== null)
        await ctx.jobs.enqueue(
          trx,
          LEVEL_DISCONNECTED_JOB,
          { store_id: storeId, inventory_item_id: level.inventoryItemId, location_id: level.locationId },
          { storeId },
        );
      return;
    }
    case "sync_now": {
      // A sync waiting out a retry delay (the import found its bulk operation still running) goes now.
      await requestCatalogSync(ctx, trx, storeId);
      await ctx.jobs.runNoLaterThan(trx, syncJobOptions(storeId).dedupeKey, ctx.clock.now());
      return;
    }
    case "uninstalled":
      // Taken in takeWebhook, which compares the delivery's time with the installation's.
      return;
    case "shop_redact":
      await ctx.jobs.enqueue(
        trx,
        SHOP_REDACT_JOB,
        { store_id: storeId, shop: shop.shop },
        { dedupeKey: `${SHOP_REDACT_JOB}:${storeId}` },
      );
      return;
    case "no_customer_data":
    case "ignored":
      return;
  }
}
