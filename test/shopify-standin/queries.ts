// The query root: the reads a connector makes (shop, catalog, locations, levels, bulk operations, nodes).
import type { BulkRunner } from "./bulk.ts";
import { type ConnectionArgs, checkInputArray, connection, type Paging } from "./connection.ts";
import { gid, parseGid, type ShopState } from "./state.ts";
import type { Views } from "./views.ts";

export function queryRoot(shop: ShopState, views: Views, bulk: BulkRunner, inBulk: boolean) {
  const paging: Paging = inBulk ? "bulk" : { limit: shop.pagingLimit };
  const byId = (id: string): unknown => {
    const type = /^gid:\/\/shopify\/(\w+)\//.exec(id)?.[1];
    const n = type ? parseGid(id, type) : null;
    if (n === null) return null;
    if (type === "Product") return lookup(shop.products, n, views.product);
    if (type === "ProductVariant") return lookup(shop.variants, n, views.variant);
    if (type === "InventoryItem") return lookup(shop.items, n, views.item);
    if (type === "Location") return lookup(shop.locations, n, views.location);
    if (type === "BulkOperation") return bulk.viewOf(shop, n);
    return null;
  };
  // A root field of one type answers null for another type's GID, as Shopify does.
  const typed = (id: string, type: string) => (parseGid(id, type) === null ? null : byId(id));
  return {
    shop: () => ({
      __typename: "Shop",
      id: gid("Shop", 1),
      name: shop.name,
      myshopifyDomain: shop.domain,
      currencyCode: shop.currencyCode,
      ianaTimezone: shop.ianaTimezone,
    }),
    products: (args: ConnectionArgs) => connection(shop.products.values(), args, views.product, paging),
    productVariants: (args: ConnectionArgs) =>
      connection(shop.variants.values(), args, views.variant, paging),
    inventoryItems: (args: ConnectionArgs) => connection(shop.items.values(), args, views.item, paging),
    locations: (args: ConnectionArgs & { includeInactive?: boolean }) =>
      connection(
        [...shop.locations.values()].filter((l) => l.isActive || args.includeInactive),
        args,
        views.location,
        paging,
        "NAME",
      ),
    product: (args: { id: string }) => typed(args.id, "Product"),
    productVariant: (args: { id: string }) => typed(args.id, "ProductVariant"),
    inventoryItem: (args: { id: string }) => typed(args.id, "InventoryItem"),
    location: (args: { id?: string }) =>
      args.id
        ? typed(args.id, "Location")
        : views.location([...shop.locations.values()].find((l) => l.isActive)!),
    node: (args: { id: string }) => byId(args.id),
    nodes: (args: { ids: string[] }) => {
      checkInputArray(args.ids.length, ["nodes", "ids"]);
      return args.ids.map(byId);
    },
    bulkOperation: (args: { id: string }) => typed(args.id, "BulkOperation"),
    currentBulkOperation: (args: { type?: string }) => bulk.current(shop, args.type ?? "QUERY"),
  };
}

function lookup<T>(map: Map<number, T>, id: number, view: (row: T) => unknown): unknown {
  const row = map.get(id);
  return row === undefined ? null : view(row);
}
