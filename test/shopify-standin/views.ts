// The shop's records as the Admin API presents them: GIDs, ISO times, decimal strings, and relations as
// functions that graphql's default resolver calls with the field's arguments.
import { GraphQLError } from "graphql";
import { type ConnectionArgs, connection, type Paging } from "./connection.ts";
import {
  gid,
  type InventoryItem,
  type Level,
  type Location,
  type Product,
  QUANTITY_NAMES,
  type QuantityName,
  type ShopState,
  type Variant,
} from "./state.ts";
import { shopifyDateTime } from "./time.ts";

export type Views = ReturnType<typeof viewsOf>;

/** `bulk`: inside a bulk operation, connections need no `first` and return everything. */
export function viewsOf(shop: ShopState, bulk: boolean) {
  const paging: Paging = bulk ? "bulk" : { limit: shop.pagingLimit };
  const common = (type: string, r: { id: number; createdAt: Date; updatedAt: Date }) => ({
    __typename: type,
    id: gid(type, r.id),
    legacyResourceId: String(r.id),
    createdAt: shopifyDateTime(r.createdAt),
    updatedAt: shopifyDateTime(r.updatedAt),
  });
  const image = (i: { url: string; altText: string | null }) => ({
    __typename: "Image",
    url: i.url,
    altText: i.altText,
  });
  const variantsOf = (productId: number) => shop.variantsByProduct.get(productId) ?? [];
  const levelsOfItem = (itemId: number) => shop.levelsByItem.get(itemId) ?? [];

  const product = (p: Product) => ({
    ...common("Product", p),
    title: p.title,
    handle: p.handle,
    status: p.status,
    vendor: p.vendor,
    productType: p.productType,
    tags: p.tags,
    options: (args: { first?: number | null }) =>
      p.options.slice(0, args.first ?? undefined).map((o, i) => ({
        __typename: "ProductOption",
        id: `gid://shopify/ProductOption/${p.id}${i + 1}`,
        name: o.name,
        position: i + 1,
        values: o.values,
      })),
    featuredMedia: p.image && {
      __typename: "MediaImage",
      id: gid("MediaImage", p.id),
      alt: p.image.altText,
      mediaContentType: "IMAGE",
      status: "READY",
      preview: { __typename: "MediaPreviewImage", status: "READY", image: image(p.image) },
    },
    tracksInventory: true,
    variants: (args: ConnectionArgs) => connection(variantsOf(p.id), args, variant, paging),
    variantsCount: () => ({ count: variantsOf(p.id).length, precision: "EXACT" }),
  });

  const variant = (v: Variant) => ({
    ...common("ProductVariant", v),
    sku: v.sku,
    title: v.title,
    displayName: `${shop.products.get(v.productId)?.title} - ${v.title}`,
    price: v.price,
    compareAtPrice: null,
    barcode: v.barcode,
    inventoryPolicy: v.inventoryPolicy,
    taxable: v.taxable,
    // Deprecated in favour of `media`, still answered in 2026-10.
    image: v.image && image(v.image),
    position: () => variantsOf(v.productId).indexOf(v) + 1,
    inventoryQuantity: () => levelsOfItem(v.inventoryItemId).reduce((n, l) => n + l.quantities.available, 0),
    product: () => product(shop.products.get(v.productId)!),
    inventoryItem: () => item(shop.items.get(v.inventoryItemId)!),
  });

  const item = (i: InventoryItem) => ({
    ...common("InventoryItem", i),
    sku: i.sku,
    tracked: i.tracked,
    requiresShipping: true,
    measurement: {
      __typename: "InventoryItemMeasurement",
      id: gid("InventoryItemMeasurement", i.id),
      weight: i.weight && { __typename: "Weight", ...i.weight },
    },
    unitCost: i.cost === null ? null : { amount: i.cost, currencyCode: shop.currencyCode },
    variant: () => variant(shop.variantByItem.get(i.id)!),
    inventoryLevels: (args: ConnectionArgs) => connection(levelsOfItem(i.id), args, level, paging),
    inventoryLevel: (args: { locationId: string }) => levelAt(i.id, args.locationId),
  });

  const location = (l: Location) => ({
    ...common("Location", l),
    name: l.name,
    isActive: l.isActive,
    address: { __typename: "LocationAddress", ...l.address },
    isFulfillmentService: l.fulfillmentService !== null,
    fulfillmentService: l.fulfillmentService && {
      __typename: "FulfillmentService",
      id: gid("FulfillmentService", l.id),
      handle: l.fulfillmentService,
      serviceName: l.fulfillmentService,
      type: "THIRD_PARTY",
    },
    inventoryLevels: (args: ConnectionArgs) =>
      connection(shop.levelsByLocation.get(l.id) ?? [], args, level, paging),
    inventoryLevel: (args: { inventoryItemId: string }) => {
      const found = (shop.levelsByLocation.get(l.id) ?? []).find(
        (v) => gid("InventoryItem", v.itemId) === args.inventoryItemId,
      );
      return found ? level(found) : null;
    },
  });

  const levelAt = (itemId: number, locationGid: string) => {
    const found = levelsOfItem(itemId).find((l) => gid("Location", l.locationId) === locationGid);
    return found ? level(found) : null;
  };

  const level = (l: Level) => ({
    ...common("InventoryLevel", l),
    // Shopify's level GID names the location and the item: it is not unique by its number alone.
    id: `gid://shopify/InventoryLevel/${l.locationId}?inventory_item_id=${l.itemId}`,
    isActive: true,
    canDeactivate: true,
    item: () => item(shop.items.get(l.itemId)!),
    location: () => location(shop.locations.get(l.locationId)!),
    quantities: (args: { names: string[] }) =>
      args.names.map((name) => {
        if (!QUANTITY_NAMES.includes(name as QuantityName)) {
          throw new GraphQLError(`${name} is not a valid quantity name.`, {
            extensions: { code: "BAD_REQUEST" },
          });
        }
        return {
          __typename: "InventoryQuantity",
          id: `gid://shopify/InventoryQuantity/${l.locationId}?inventory_item_id=${l.itemId}&name=${name}`,
          name,
          quantity: l.quantities[name as QuantityName],
          updatedAt: shopifyDateTime(l.updatedAt),
        };
      }),
  });

  return { product, variant, item, location, level };
}
