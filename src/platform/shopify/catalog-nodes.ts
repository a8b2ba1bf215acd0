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
 * connector"). The import and the incremental reads select these same fields, so both paths bring the
 * same record.
 */
// A product's image is its featured media's preview (the non-deprecated path; `featuredImage` is
// deprecated). A variant's is the deprecated `image`: its replacement `media` is a connection, and a
// bulk query cannot nest a third connection level under products and variants.
export const PRODUCT_FIELDS =
  "id title handle vendor productType status tags options { name position values } featuredMedia { preview { image { url } } } createdAt updatedAt";
export const VARIANT_FIELDS =
  "id title sku barcode price compareAtPrice inventoryPolicy taxable image { url } createdAt updatedAt inventoryItem { id tracked updatedAt unitCost { amount currencyCode } measurement { weight { unit value } } }";
export const LOCATION_FIELDS =
  "id name isActive fulfillmentService { handle } address { address1 address2 city provinceCode zip country countryCode phone } createdAt updatedAt";
export const LEVEL_FIELDS =
  'updatedAt item { id } quantities(names: ["available", "on_hand", "committed", "incoming"]) { name quantity }';

export interface ProductNode {
  id: string;
  title: string;
  handle: string | null;
  vendor: string | null;
  productType: string | null;
  status: string;
  tags: string[];
  options: Array<{ name: string; position: number; values: string[] }>;
  featuredMedia: { preview: { image: { url: string } | null } | null } | null;
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
  inventoryPolicy: string;
  taxable: boolean;
  image: { url: string } | null;
  createdAt: string;
  updatedAt: string;
  inventoryItem: {
    id: string;
    tracked: boolean;
    updatedAt: string;
    unitCost: { amount: string; currencyCode: string } | null;
    measurement: { weight: { unit: string; value: number } | null };
  };
}

export interface LocationNode {
  id: string;
  name: string;
  isActive: boolean;
  fulfillmentService: { handle: string } | null;
  address: {
    address1: string | null;
    address2: string | null;
    city: string | null;
    provinceCode: string | null;
    zip: string | null;
    country: string | null;
    countryCode: string | null;
    phone: string | null;
  };
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

const emptyToNull = (value: string | null | undefined) =>
  value === null || value === undefined || value === "" ? null : value;

/** Grams in one unit of Shopify's WeightUnit; the mirror keeps whole grams (Variant `weight_grams`). */
const GRAMS_PER_UNIT: Record<string, number> = {
  GRAMS: 1,
  KILOGRAMS: 1000,
  OUNCES: 28.349523125,
  POUNDS: 453.59237,
};

export function weightInGrams(weight: { unit: string; value: number } | null): number {
  if (weight === null) return 0;
  const grams = weight.value * (GRAMS_PER_UNIT[weight.unit] ?? 0);
  return Math.max(0, Math.round(grams));
}

export function toProduct(node: ProductNode): PlatformProduct {
  return {
    id: fromGid(node.id, "Product"),
    title: node.title,
    handle: emptyToNull(node.handle),
    vendor: emptyToNull(node.vendor),
    productType: emptyToNull(node.productType),
    status: STATUSES[node.status] ?? "draft",
    tags: node.tags,
    options: [...node.options]
      .sort((a, b) => a.position - b.position)
      .map((o) => ({ name: o.name, position: o.position, values: o.values })),
    imageUrl: node.featuredMedia?.preview?.image?.url ?? null,
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
    weightGrams: weightInGrams(node.inventoryItem.measurement.weight),
    // DENY / CONTINUE, in the lower case the contract's other platform reports.
    inventoryPolicy: node.inventoryPolicy.toLowerCase(),
    taxable: node.taxable,
    imageUrl: node.image?.url ?? null,
    inventoryItem: {
      id: fromGid(node.inventoryItem.id, "InventoryItem"),
      tracked: node.inventoryItem.tracked,
      unitCost: cost?.amount ?? null,
      unitCostCurrency: cost?.currencyCode ?? null,
      updatedAt: new Date(node.inventoryItem.updatedAt),
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
    // The merchant's own locations have no fulfillment service: Shopify's "manual".
    fulfillmentService: node.fulfillmentService?.handle ?? "manual",
    address: {
      line1: emptyToNull(node.address.address1),
      line2: emptyToNull(node.address.address2),
      city: emptyToNull(node.address.city),
      province_code: emptyToNull(node.address.provinceCode),
      zip: emptyToNull(node.address.zip),
      country: emptyToNull(node.address.country),
      country_code: emptyToNull(node.address.countryCode),
      phone: emptyToNull(node.address.phone),
    },
    createdAt: new Date(node.createdAt),
    updatedAt: new Date(node.updatedAt),
  };
}

/**
 * A level report; `readAt`: when the read that brought it was taken (a paged read's or a read-back's
 * request start), none for a bulk operation's (read at some moment of a run that can last minutes).
 */
export function toLevel(
  node: LevelNode,
  locationId: number,
  readAt: Date | null = null,
): PlatformInventoryLevel {
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
    ...(readAt ? { readAt } : {}),
  };
}

/** A level node with the id of the location it was read under. */
export interface LocatedLevelNode {
  node: LevelNode;
  locationId: number;
  /** When the read that brought it was taken (toLevel). */
  readAt?: Date | null;
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
    .map(({ node, locationId, readAt }) => toLevel(node, locationId, readAt ?? null))
    .sort((a, b) => a.inventoryItemId - b.inventoryItemId || a.locationId - b.locationId);
}
