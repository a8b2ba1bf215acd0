/**
 * The catalog as a platform reports it: what a connector's change feed hands the mirror (the levels
 * go to the stock module). Platform-neutral; the connector interface (platform/connector.ts) re-exports
 * these shapes for the connectors that build them.
 */

export type ProductStatus = "active" | "draft" | "archived";

export interface PlatformProductOption {
  name: string;
  position: number;
  values: string[];
}

export interface PlatformProduct {
  id: number;
  title: string;
  handle: string | null;
  vendor: string | null;
  productType: string | null;
  status: ProductStatus;
  tags: string[];
  options: PlatformProductOption[];
  imageUrl: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The platform's inventory item behind a variant: it carries the tracked flag and the unit cost. */
export interface PlatformInventoryItem {
  id: number;
  tracked: boolean;
  /** Decimal string or null. */
  unitCost: string | null;
  unitCostCurrency: string | null;
  /** The item's updatedAt on the platform, when it reports one: which of two reports of its cost is newer. */
  updatedAt?: Date | null;
}

export interface PlatformVariant {
  id: number;
  productId: number;
  title: string;
  sku: string | null;
  barcode: string | null;
  position: number;
  /** Decimal strings. */
  price: string;
  compareAtPrice: string | null;
  weightGrams: number;
  inventoryPolicy: string;
  taxable: boolean;
  imageUrl: string | null;
  inventoryItem: PlatformInventoryItem;
  createdAt: Date;
  updatedAt: Date;
}

export interface PlatformAddress {
  line1: string | null;
  line2: string | null;
  city: string | null;
  province_code: string | null;
  zip: string | null;
  country: string | null;
  country_code: string | null;
  phone: string | null;
}

export interface PlatformLocation {
  id: number;
  name: string;
  active: boolean;
  fulfillmentService: string;
  address: PlatformAddress;
  createdAt: Date;
  updatedAt: Date;
}

/** An inventory item's unit cost as the platform last set it (Shopify's InventoryItem.unitCost). */
export interface PlatformItemCost {
  inventoryItemId: number;
  unitCost: string | null;
  currency: string | null;
  /** The item's updatedAt on the platform with this cost, when it reports one (CostVersion). */
  updatedAt?: Date | null;
  /** When the read that brought it began, or the mutation that set it answered (service clock). */
  readAt?: Date | null;
}

/** The catalog part of one batch of platform changes. */
export interface CatalogFeed {
  products: PlatformProduct[];
  variants: PlatformVariant[];
  locations: PlatformLocation[];
  /** Unit costs changed on their own (a variant in `variants` carries its item's cost too). */
  itemCosts: PlatformItemCost[];
  /**
   * Complete variant lists of some products as the platform has them now: a mirrored variant of
   * one of these products that is not in its list was deleted.
   */
  variantSets?: Array<{ productId: number; variantIds: number[] }>;
  /** Products the platform no longer has (deleted with their variants). */
  removedProductIds?: number[];
  /**
   * Every location the platform has now, inactive ones included, when the batch read them all: a
   * mirrored location missing from it was deleted there. Absent: not read (nothing is concluded).
   */
  locationSet?: number[];
}
