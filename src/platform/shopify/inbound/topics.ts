/**
 * What a webhook topic asks of Stockroom (docs/decisions.md, "Shopify webhooks and reconciliation").
 * Catalog and level topics only say "something changed": the payload is not applied, the incremental
 * read re-reads what changed (a level payload carries `available` alone, and deliveries arrive out of
 * order). `bulk_operations/finish` lets a waiting import go on now. The customers topics find nothing:
 * Stockroom keeps no customer data.
 */
export type WebhookWork =
  | "sync"
  | "product_deleted"
  | "level_disconnected"
  | "sync_now"
  | "uninstalled"
  | "shop_redact"
  | "no_customer_data"
  | "ignored";

const SYNC_TOPICS = new Set([
  "products/create",
  "products/update",
  "inventory_items/create",
  "inventory_items/update",
  "inventory_items/delete",
  "inventory_levels/connect",
  "inventory_levels/update",
  "locations/create",
  "locations/update",
  "locations/delete",
  "locations/activate",
  "locations/deactivate",
]);

export function workOfTopic(topic: string): WebhookWork {
  if (SYNC_TOPICS.has(topic)) return "sync";
  // The incremental read cannot see a deleted product: the delivery's id marks it (and a sync runs).
  if (topic === "products/delete") return "product_deleted";
  // Nor a level that is gone: the delivery names the level to read again (and a sync runs).
  if (topic === "inventory_levels/disconnect") return "level_disconnected";
  switch (topic) {
    case "bulk_operations/finish":
      return "sync_now";
    case "app/uninstalled":
      return "uninstalled";
    case "shop/redact":
      return "shop_redact";
    case "customers/data_request":
    case "customers/redact":
      return "no_customer_data";
    default:
      return "ignored";
  }
}
