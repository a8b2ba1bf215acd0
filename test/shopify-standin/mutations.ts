// The mutation root: inventory adjustments, item costs, webhook subscriptions and bulk queries.
import type { GraphQLResolveInfo } from "graphql";
import { type AdjustHost, adjustQuantities } from "./adjust.ts";
import type { BulkRunner } from "./bulk.ts";
import { gid, newId, parseGid, type ShopState } from "./state.ts";
import { shopifyDateTime } from "./time.ts";
import type { Views } from "./views.ts";

export interface MutationHost extends AdjustHost {
  apiVersion: string;
  itemChanged(shop: ShopState, itemId: number): void;
}

export function mutationRoot(shop: ShopState, views: Views, bulk: BulkRunner, host: MutationHost) {
  return {
    inventoryAdjustQuantities: (args: { input: any }, _context: unknown, info: GraphQLResolveInfo) =>
      adjustQuantities(shop, views, host, args.input, info),

    inventoryItemUpdate: (args: {
      id: string;
      input: { cost?: string | null; sku?: string; tracked?: boolean };
    }) => {
      const itemId = parseGid(args.id, "InventoryItem");
      const item = itemId === null ? undefined : shop.items.get(itemId);
      if (!item)
        return {
          inventoryItem: null,
          userErrors: [{ field: ["id"], message: "Inventory item does not exist" }],
        };
      const { cost, sku, tracked } = args.input;
      if (cost != null && !/^\d+(\.\d+)?$/.test(String(cost))) {
        return {
          inventoryItem: null,
          userErrors: [{ field: ["input", "cost"], message: "Cost must be a positive amount" }],
        };
      }
      if (cost !== undefined) item.cost = cost === null ? null : String(cost);
      if (sku !== undefined) item.sku = sku;
      if (tracked !== undefined) item.tracked = tracked;
      item.updatedAt = host.now();
      host.itemChanged(shop, item.id);
      return { inventoryItem: views.item(item), userErrors: [] };
    },

    webhookSubscriptionCreate: (args: { topic: string; webhookSubscription: { uri?: string | null } }) => {
      const uri = args.webhookSubscription.uri;
      if (!uri)
        return {
          webhookSubscription: null,
          userErrors: [{ field: ["webhookSubscription", "uri"], message: "Address can't be blank" }],
        };
      if (shop.subscriptions.some((s) => s.topic === args.topic && s.uri === uri)) {
        return {
          webhookSubscription: null,
          userErrors: [
            {
              field: ["webhookSubscription", "callbackUrl"],
              message: "Address for this topic has already been taken",
            },
          ],
        };
      }
      const at = host.now();
      const subscription = { id: newId(), createdAt: at, updatedAt: at, topic: args.topic, uri };
      shop.subscriptions.push(subscription);
      return {
        webhookSubscription: {
          __typename: "WebhookSubscription",
          id: gid("WebhookSubscription", subscription.id),
          legacyResourceId: String(subscription.id),
          topic: subscription.topic,
          uri,
          format: "JSON",
          includeFields: [],
          filter: null,
          name: null,
          apiVersion: { handle: host.apiVersion, displayName: host.apiVersion, supported: true },
          createdAt: shopifyDateTime(at),
          updatedAt: shopifyDateTime(at),
        },
        userErrors: [],
      };
    },

    bulkOperationRunQuery: (args: { query: string }) => bulk.run(shop, args.query),

    bulkOperationCancel: (args: { id: string }) => {
      const id = parseGid(args.id, "BulkOperation");
      return id === null
        ? { bulkOperation: null, userErrors: [{ field: ["id"], message: "Bulk operation does not exist" }] }
        : bulk.cancel(shop, id);
    },
  };
}
