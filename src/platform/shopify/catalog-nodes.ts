import type {
  PlatformInventoryLevel,
  PlatformLocation,
  PlatformProduct,
  PlatformVariant,
  ProductStatus,
} from "../connector.ts";
import { fromGid } from "./gids.ts";

/**
 * Shopify's catalog nodes as the platform shapes the mirror takes (docs/decisions.md, "Shopify
 * connector"). The fields selected are the ones the documents in catalog-import.ts ask for; what they
 * do not ask for yet (tags, options, images, weight, inventory policy, taxable, addresses) takes the
 * neutral value written beside it.
 */
export const PRODUCT_FIELDS = "id title handle vendor productType status createdAt updatedAt";
export const VARIANT_FIELDS =
  "id title sku barcode price compareAtPrice createdAt updatedAt inventoryItem { id tracked unitCost { amount currencyCode } }";
export const LOCATION_FIELDS = "id name isActive createdAt updatedAt";
export const LEVEL_FIELDS =
  'updatedAt item { id } quantities(names: ["available", "on_hand", "committed", "incoming"]) { name quantity }';

export interface ProductNode {
  id: string;
  title: string;
  handle: string | null;
  vendor: string | null;
  productType: string | null;
  status: string;
  createdAt: string;
  updatedAt: string;
}

export interface VariantNode {
  id: string;
  title: string;
  sku: string | null;
  barcode: string | null;
  price: string;
  compareAtPrice: string | null;
  createdAt: string;
  updatedAt: string;
  inventoryItem: { id: string; tracked: boolean; unitCost: { amount: string; currencyCode: string } | null };
}

export interface LocationNode {
  id: string;
  name: string;
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface LevelNode {
  updatedAt: string;
  item: { id: string };
  quantities: Array<{ name: string; quantity: number }>;
}

const STATUSES: Record<string, ProductStatus> = {
  ACTIVE: "active",
  DRAFT: "draft",
  ARCHIVED: "archived",
  // Listed nowhere but reachable by link: for Stockroom the product is live (docs/decisions.md, "Shopify connector").
  UNLISTED: "active",
};

const emptyToNull = (value: string | null) => (value === null || value === "" ? null : value);

export function toProduct(node: ProductNode): PlatformProduct {
  return {
    id: fromGid(node.id, "Product"),
    title: node.title,
    handle: emptyToNull(node.handle),
    vendor: emptyToNull(node.vendor),
    productType: emptyToNull(node.productType),
    status: STATUSES[node.status] ?? "draft",
    tags: [],
    options: [],
    imageUrl: null,
    createdAt: new Date(node.createdAt),
    updatedAt: new Date(node.updatedAt),
  };
}

/** `position`: the variant's place among its product's variants by id, from 1. */
export function toVariant(node: VariantNode, productId: number, position: number): PlatformVariant {
  const cost = node.inventoryItem.unitCost;
  return {
    id: fromGid(node.id, "ProductVariant"),
    productId,
    title: node.title,
    sku: emptyToNull(node.sku),
    barcode: emptyToNull(node.barcode),
    position,
    price: node.price,
    compareAtPrice: node.compareAtPrice,
    weightGrams: 0,
    inventoryPolicy: "deny",
    taxable: true,
    imageUrl: null,
    inventoryItem: {
      id: fromGid(node.inventoryItem.id, "InventoryItem"),
      tracked: node.inventoryItem.tracked,
      unitCost: cost?.amount ?? null,
      unitCostCurrency: cost?.currencyCode ?? null,
    },
    createdAt: new Date(node.createdAt),
    updatedAt: new Date(node.updatedAt),
  };
}

export function toLocation(node: LocationNode): PlatformLocation {
  return {
    id: fromGid(node.id, "Location"),
    name: node.name,
    active: node.isActive,
    fulfillmentService: "manual",
    address: {
      line1: null,
      line2: null,
      city: null,
      province_code: null,
      zip: null,
      country: null,
      country_code: null,
      phone: null,
    },
    createdAt: new Date(node.createdAt),
    updatedAt: new Date(node.updatedAt),
  };
}

export function toLevel(node: LevelNode, locationId: number): PlatformInventoryLevel {
  const quantity = (name: string) => node.quantities.find((q) => q.name === name)?.quantity ?? 0;
  const updatedAt = new Date(node.updatedAt);
  return {
    inventoryItemId: fromGid(node.item.id, "InventoryItem"),
    locationId,
    available: quantity("available"),
    onHand: quantity("on_hand"),
    committed: quantity("committed"),
    incoming: quantity("incoming"),
    version: updatedAt.getTime(),
    updatedAt,
  };
}

/** A level node with the id of the location it was read under. */
export interface LocatedLevelNode {
  node: LevelNode;
  locationId: number;
}

// The import and the change feed hand out their lists in one order (by id; levels by item, then
// location), whatever order Shopify answered in: these map and sort for both.

export function toLocations(nodes: readonly LocationNode[]): PlatformLocation[] {
  return nodes.map(toLocation).sort((a, b) => a.id - b.id);
}

export function toProducts(nodes: readonly ProductNode[]): PlatformProduct[] {
  return nodes.map(toProduct).sort((a, b) => a.id - b.id);
}

export function toLevels(nodes: readonly LocatedLevelNode[]): PlatformInventoryLevel[] {
  return nodes
    .map(({ node, locationId }) => toLevel(node, locationId))
    .sort((a, b) => a.inventoryItemId - b.inventoryItemId || a.locationId - b.locationId);
}
