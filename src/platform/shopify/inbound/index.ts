/**
 * Shopify's inbound side (issue 19; docs/decisions.md, "Shopify webhooks and reconciliation"): the
 * webhook intake, its jobs, reconciliation and their periodic tasks. The module wiring
 * (src/modules/shopify-inbound.ts) takes them from here.
 */
export { takeWebhook, UNINSTALLED_REASON, type WebhookDelivery, type WebhookOutcome } from "./intake.ts";
export {
  LEVEL_DISCONNECTED_JOB,
  PRODUCT_DELETED_JOB,
  RECONCILE_JOB,
  RECONCILE_SCAN_TASK,
  SHOP_REDACT_JOB,
  WEBHOOK_EVENTS_PRUNE_TASK,
} from "./job-types.ts";
export { levelDisconnectedJobHandler } from "./level-dropped.ts";
export { reconcileScanTask, webhookEventsPruneTask } from "./periodic.ts";
export { productDeletedJobHandler } from "./product-deleted.ts";
export { reconcileJobHandler, reconcileShop } from "./reconcile.ts";
export { type ReconciliationStatus, reconciliationStatus } from "./reconcile-state.ts";
export { redactShop, shopRedactJobHandler } from "./redact.ts";
