import { shopifyWebhookRoutes } from "../http/routes/shopify-webhooks.ts";
import {
  levelDisconnectedJobHandler,
  productDeletedJobHandler,
  reconcileJobHandler,
  reconcileScanTask,
  shopRedactJobHandler,
  webhookEventsPruneTask,
} from "../platform/shopify/inbound/index.ts";
import type { Module } from "./module.ts";

/**
 * Shopify's inbound side (issue 19): POST /shopify/webhooks (signed deliveries become catalog syncs,
 * a disconnection, an erasure or a deleted product), the reconciliation of every connected shop's levels each
 * SHOPIFY_RECONCILE_INTERVAL, and the pruning of remembered event ids.
 */
export const shopifyInboundModule: Module = {
  name: "shopify-inbound",
  publicRoutes: shopifyWebhookRoutes,
  jobs: [reconcileJobHandler, shopRedactJobHandler, productDeletedJobHandler, levelDisconnectedJobHandler],
  periodic: [reconcileScanTask, webhookEventsPruneTask],
};
