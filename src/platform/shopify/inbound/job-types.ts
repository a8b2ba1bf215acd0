/** The jobs and periodic tasks of Shopify's inbound side (webhooks and reconciliation). */
export const SHOP_REDACT_JOB = "shopify.shop-redact";
export const PRODUCT_DELETED_JOB = "shopify.product-deleted";
export const LEVEL_DISCONNECTED_JOB = "shopify.level-disconnected";
export const RECONCILE_JOB = "shopify.reconcile";
export const RECONCILE_SCAN_TASK = "shopify.reconcile-scan";
export const WEBHOOK_EVENTS_PRUNE_TASK = "shopify.webhook-events-prune";
