// Webhook bodies in Shopify's REST shapes (snake_case, numeric ids beside the GID).
import { gid, type InventoryItem, type Level, type Location, type Product, type ShopState } from "./state.ts";
import { shopifyDateTime } from "./time.ts";

export const levelPayload = (level: Level) => ({
  inventory_item_id: level.itemId,
  location_id: level.locationId,
  available: level.quantities.available,
  updated_at: shopifyDateTime(level.updatedAt),
  admin_graphql_api_id: `gid://shopify/InventoryLevel/${level.locationId}?inventory_item_id=${level.itemId}`,
});

export const itemPayload = (item: InventoryItem) => ({
  id: item.id,
  sku: item.sku,
  cost: item.cost,
  tracked: item.tracked,
  requires_shipping: true,
  created_at: shopifyDateTime(item.createdAt),
  updated_at: shopifyDateTime(item.updatedAt),
  admin_graphql_api_id: gid("InventoryItem", item.id),
});

export const productPayload = (shop: ShopState, product: Product) => ({
  id: product.id,
  title: product.title,
  handle: product.handle,
  status: product.status.toLowerCase(),
  vendor: product.vendor,
  product_type: product.productType,
  tags: product.tags.join(", "),
  created_at: shopifyDateTime(product.createdAt),
  updated_at: shopifyDateTime(product.updatedAt),
  admin_graphql_api_id: gid("Product", product.id),
  variants: (shop.variantsByProduct.get(product.id) ?? []).map((v) => ({
    id: v.id,
    product_id: product.id,
    title: v.title,
    sku: v.sku,
    price: v.price,
    barcode: v.barcode,
    inventory_policy: v.inventoryPolicy.toLowerCase(),
    taxable: v.taxable,
    inventory_item_id: v.inventoryItemId,
    created_at: shopifyDateTime(v.createdAt),
    updated_at: shopifyDateTime(v.updatedAt),
    admin_graphql_api_id: gid("ProductVariant", v.id),
  })),
});

/** products/delete carries the id alone. */
export const deletedProductPayload = (productId: number) => ({ id: productId });

/** inventory_levels/disconnect: the pair whose level went. */
export const disconnectedLevelPayload = (itemId: number, locationId: number) => ({
  inventory_item_id: itemId,
  location_id: locationId,
});

export const deletedLocationPayload = (locationId: number) => ({ id: locationId });

/** locations/deactivate: the location as it is now. */
export const deactivatedLocationPayload = (location: Location) => ({
  id: location.id,
  name: location.name,
  active: false,
  updated_at: shopifyDateTime(location.updatedAt),
  admin_graphql_api_id: gid("Location", location.id),
});
