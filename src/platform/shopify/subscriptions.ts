/**
 * The shop's webhook subscriptions (decisions section 12): created in a job once a store is attached,
 * and again when it is reconnected (a re-install drops them). Each topic is one
 * `webhookSubscriptionCreate` to SHOPIFY_APP_URL/shopify/webhooks; one that already exists counts as
 * created. The compliance topics are configured with the app, not subscribed.
 */
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { type JobHandler, PermanentJobError } from "../../jobs/worker.ts";
import { PlatformPermanentError } from "../connector.ts";
import { refuseOnUserErrors } from "./client.ts";
import { shopifyClientFor } from "./shop-client.ts";
import { findShopByStore } from "./shops.ts";

export const SUBSCRIBE_JOB = "shopify.subscribe";

/** What the service listens to: the catalog, the levels, the app's own lifecycle and bulk results. */
export const WEBHOOK_TOPICS = [
  "PRODUCTS_CREATE",
  "PRODUCTS_UPDATE",
  "PRODUCTS_DELETE",
  "INVENTORY_ITEMS_CREATE",
  "INVENTORY_ITEMS_UPDATE",
  "INVENTORY_ITEMS_DELETE",
  "INVENTORY_LEVELS_CONNECT",
  "INVENTORY_LEVELS_UPDATE",
  "INVENTORY_LEVELS_DISCONNECT",
  "LOCATIONS_CREATE",
  "LOCATIONS_UPDATE",
  "LOCATIONS_DELETE",
  "LOCATIONS_ACTIVATE",
  "LOCATIONS_DEACTIVATE",
  "APP_UNINSTALLED",
  "BULK_OPERATIONS_FINISH",
] as const;

const SUBSCRIBE = `mutation StockroomWebhookSubscribe($topic: WebhookSubscriptionTopic!, $uri: String!) {
  webhookSubscriptionCreate(topic: $topic, webhookSubscription: { uri: $uri, format: JSON }) {
    webhookSubscription { id }
    userErrors { field message }
  }
}`;

interface SubscribeAnswer {
  webhookSubscriptionCreate: {
    webhookSubscription: { id: string } | null;
    userErrors: Array<{ field: string[] | null; message: string }>;
  } | null;
}

/** Shopify's answer when the app already has this topic at this address. */
const ALREADY_EXISTS = /already been taken|already exists/i;

/** The address Shopify delivers to, or null when SHOPIFY_APP_URL is not set (nothing to subscribe). */
export function webhookAddress(ctx: AppContext): string | null {
  return ctx.config.shopify.appUrl ? `${ctx.config.shopify.appUrl}/shopify/webhooks` : null;
}

/** Asks for the store's subscriptions to be (re)created, in the caller's transaction. */
export async function requestSubscriptions(ctx: AppContext, trx: Db, storeId: number): Promise<void> {
  await ctx.jobs.enqueue(
    trx,
    SUBSCRIBE_JOB,
    { store_id: storeId },
    { storeId, dedupeKey: `${SUBSCRIBE_JOB}:${storeId}`, maxAttempts: 8 },
  );
}

/** Creates every topic's subscription of the store's shop; answers the topics created or found. */
export async function subscribeShop(ctx: AppContext, storeId: number): Promise<string[]> {
  const uri = webhookAddress(ctx);
  const row = await findShopByStore(ctx.db, storeId);
  // No address, no shop (erased), or a disconnected one (its reconnection asks again): nothing to do.
  if (uri === null || !row || row.status === "disconnected") return [];
  const client = shopifyClientFor(ctx, row);
  const done: string[] = [];
  for (const topic of WEBHOOK_TOPICS) {
    const { data } = await client.graphql<SubscribeAnswer>(SUBSCRIBE, { topic, uri }, 10);
    const payload = data.webhookSubscriptionCreate;
    const errors = payload?.userErrors ?? [];
    if (errors.length > 0 && errors.every((e) => ALREADY_EXISTS.test(e.message))) {
      done.push(topic);
      continue;
    }
    refuseOnUserErrors(`webhookSubscriptionCreate ${topic}`, payload);
    done.push(topic);
  }
  return done;
}

export const subscribeJobHandler: JobHandler = {
  type: SUBSCRIBE_JOB,
  async run(ctx, job) {
    const storeId = Number(job.payload.store_id);
    if (!Number.isInteger(storeId)) throw new PermanentJobError("store_id: is not an integer");
    try {
      await subscribeShop(ctx, storeId);
    } catch (error) {
      if (error instanceof PlatformPermanentError) throw new PermanentJobError(error.message);
      throw error;
    }
  },
};
