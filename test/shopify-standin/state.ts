// What one shop holds in the stand-in: its catalog, locations and inventory levels, its webhook
// subscriptions and the answers remembered for idempotency keys. Ids are numbers of Shopify's size
// (10^13 and up) so a connector that squeezes them into 32 bits fails here too.
import { PAGING_LIMIT } from "./connection.ts";
export const QUANTITY_NAMES = [
  "available",
  "committed",
  "damaged",
  "incoming",
  "on_hand",
  "quality_control",
  "reserved",
  "safety_stock",
] as const;
export type QuantityName = (typeof QUANTITY_NAMES)[number];

interface Record_ {
  id: number;
  createdAt: Date;
  updatedAt: Date;
}
export interface Image {
  url: string;
  altText: string | null;
}
export interface Product extends Record_ {
  title: string;
  handle: string;
  status: "ACTIVE" | "ARCHIVED" | "DRAFT" | "UNLISTED";
  vendor: string;
  productType: string;
  tags: string[];
  /** Every product has at least one option (Shopify's "Title" / "Default Title" for one variant). */
  options: Array<{ name: string; values: string[] }>;
  /** The featured media's preview image (null: no media). */
  image: Image | null;
}
export interface Variant extends Record_ {
  productId: number;
  inventoryItemId: number;
  sku: string | null;
  title: string;
  price: string;
  barcode: string | null;
  inventoryPolicy: "DENY" | "CONTINUE";
  taxable: boolean;
  image: Image | null;
}
export type WeightUnit = "GRAMS" | "KILOGRAMS" | "OUNCES" | "POUNDS";
export interface InventoryItem extends Record_ {
  sku: string | null;
  cost: string | null;
  tracked: boolean;
  /** The item's measurement weight (null: none recorded). */
  weight: { value: number; unit: WeightUnit } | null;
}
export interface LocationAddress {
  address1: string | null;
  address2: string | null;
  city: string | null;
  province: string | null;
  provinceCode: string | null;
  zip: string | null;
  country: string | null;
  countryCode: string | null;
  phone: string | null;
}
export interface Location extends Record_ {
  name: string;
  isActive: boolean;
  address: LocationAddress;
  /** The fulfillment service's handle for a service's location; null for the merchant's own. */
  fulfillmentService: string | null;
}
export interface Level extends Record_ {
  itemId: number;
  locationId: number;
  quantities: Record<QuantityName, number>;
}
export interface Subscription extends Record_ {
  topic: string;
  uri: string;
}

let nextId = 10_000_000_000_000;
export const newId = () => ++nextId;

export const gid = (type: string, id: number) => `gid://shopify/${type}/${id}`;

export function parseGid(value: unknown, type: string): number | null {
  const match = typeof value === "string" ? /^gid:\/\/shopify\/(\w+)\/(\d+)$/.exec(value) : null;
  return match && match[1] === type ? Number(match[2]) : null;
}

export interface NewVariant {
  sku: string;
  price?: string;
  cost?: string | null;
  available?: number;
}

export class ShopState {
  readonly products = new Map<number, Product>();
  readonly variants = new Map<number, Variant>();
  readonly items = new Map<number, InventoryItem>();
  readonly locations = new Map<number, Location>();
  readonly levels = new Map<string, Level>();
  // Lookups by owner, so a read of 10,000 variants never scans every level per variant.
  readonly variantsByProduct = new Map<number, Variant[]>();
  readonly variantByItem = new Map<number, Variant>();
  readonly levelsByItem = new Map<number, Level[]>();
  readonly levelsByLocation = new Map<number, Level[]>();
  readonly subscriptions: Subscription[] = [];
  /** How deep a paginated read goes (Shopify: 25,000 objects); a test lowers it to reach it cheaply. */
  pagingLimit = PAGING_LIMIT;
  /**
   * idempotency key → the input it came with and the payload answered (or a burned key); `inProgress`
   * while the request that took the key has not answered yet (a test's hold: holdNextAdjust).
   */
  readonly idempotency = new Map<
    string,
    { fingerprint: string; payload: unknown; failed: boolean; inProgress?: boolean }
  >();

  constructor(
    readonly domain: string,
    public name: string,
    readonly currencyCode: string,
    readonly ianaTimezone: string,
    private readonly now: () => Date,
  ) {}

  private stamp(): Record_ {
    const at = this.now();
    return { id: newId(), createdAt: at, updatedAt: at };
  }

  addLocation(name: string): Location {
    const location: Location = {
      ...this.stamp(),
      name,
      isActive: true,
      address: {
        address1: "1 Main Street",
        address2: null,
        city: "Ottawa",
        province: "Ontario",
        provinceCode: "ON",
        zip: "K1A 0A1",
        country: "Canada",
        countryCode: "CA",
        phone: null,
      },
      fulfillmentService: null,
    };
    this.locations.set(location.id, location);
    return location;
  }

  /** A product and its variants, each stocked at every active location with `available` units. */
  addProduct(title: string, variants: NewVariant[]): { product: Product; variants: Variant[] } {
    const product: Product = {
      ...this.stamp(),
      title,
      handle: title.toLowerCase().replace(/[^a-z0-9]+/g, "-"),
      status: "ACTIVE",
      vendor: "Stand-in",
      productType: "",
      tags: [],
      options: [
        {
          name: "Title",
          values: variants.map((_, i) => (variants.length === 1 ? "Default Title" : `Option ${i + 1}`)),
        },
      ],
      image: null,
    };
    this.products.set(product.id, product);
    const created = variants.map((v, i) => {
      const item: InventoryItem = {
        ...this.stamp(),
        sku: v.sku,
        cost: v.cost ?? null,
        tracked: true,
        weight: { value: 0, unit: "KILOGRAMS" },
      };
      this.items.set(item.id, item);
      const variant: Variant = {
        ...this.stamp(),
        productId: product.id,
        inventoryItemId: item.id,
        sku: v.sku,
        title: variants.length === 1 ? "Default Title" : `Option ${i + 1}`,
        price: v.price ?? "10.00",
        barcode: null,
        inventoryPolicy: "DENY",
        taxable: true,
        image: null,
      };
      this.variants.set(variant.id, variant);
      push(this.variantsByProduct, product.id, variant);
      this.variantByItem.set(item.id, variant);
      for (const location of this.locations.values()) {
        if (location.isActive) this.stock(item.id, location.id, v.available ?? 0);
      }
      return variant;
    });
    return { product, variants: created };
  }

  stock(itemId: number, locationId: number, available: number): Level {
    const known = this.level(itemId, locationId);
    if (known) return known;
    const quantities = Object.fromEntries(QUANTITY_NAMES.map((n) => [n, 0])) as Record<QuantityName, number>;
    quantities.available = available;
    quantities.on_hand = available;
    const level = { ...this.stamp(), itemId, locationId, quantities };
    this.levels.set(`${itemId}:${locationId}`, level);
    push(this.levelsByItem, itemId, level);
    push(this.levelsByLocation, locationId, level);
    return level;
  }

  /** A product is deleted with its variants, their inventory items and their levels. */
  removeProduct(productId: number): void {
    for (const variant of [...(this.variantsByProduct.get(productId) ?? [])]) this.removeVariant(variant.id);
    this.variantsByProduct.delete(productId);
    this.products.delete(productId);
  }

  /** A variant is deleted with its inventory item and the item's levels. */
  removeVariant(variantId: number): void {
    const variant = this.variants.get(variantId);
    if (!variant) return;
    this.variants.delete(variantId);
    const siblings = this.variantsByProduct.get(variant.productId) ?? [];
    siblings.splice(siblings.indexOf(variant), 1);
    this.items.delete(variant.inventoryItemId);
    this.variantByItem.delete(variant.inventoryItemId);
    for (const level of this.levelsByItem.get(variant.inventoryItemId) ?? []) {
      this.levels.delete(`${level.itemId}:${level.locationId}`);
      const atLocation = this.levelsByLocation.get(level.locationId) ?? [];
      atLocation.splice(atLocation.indexOf(level), 1);
    }
    this.levelsByItem.delete(variant.inventoryItemId);
  }

  /** A level goes (the item is no longer stocked there); the item and the location stay. */
  removeLevel(itemId: number, locationId: number): void {
    const level = this.level(itemId, locationId);
    if (!level) return;
    this.levels.delete(`${itemId}:${locationId}`);
    for (const [map, key] of [
      [this.levelsByItem, itemId],
      [this.levelsByLocation, locationId],
    ] as const) {
      const list = map.get(key) ?? [];
      list.splice(list.indexOf(level), 1);
    }
  }

  /** A location is deleted with the levels it held. */
  removeLocation(locationId: number): void {
    for (const level of [...(this.levelsByLocation.get(locationId) ?? [])])
      this.removeLevel(level.itemId, locationId);
    this.levelsByLocation.delete(locationId);
    this.locations.delete(locationId);
  }

  level(itemId: number, locationId: number): Level | undefined {
    return this.levels.get(`${itemId}:${locationId}`);
  }

  /** A catalog of `products` × `variantsPerProduct` variants at `locations` locations (created if missing). */
  seed(options: { products: number; variantsPerProduct?: number; locations?: number; available?: number }) {
    while (this.locations.size < (options.locations ?? 1))
      this.addLocation(`Location ${this.locations.size + 1}`);
    for (let p = 1; p <= options.products; p++) {
      const variants = Array.from({ length: options.variantsPerProduct ?? 1 }, (_, v) => ({
        sku: `SKU-${p}-${v + 1}`,
        price: "19.99",
        cost: "7.50",
        available: options.available ?? 10,
      }));
      this.addProduct(`Product ${p}`, variants);
    }
  }
}

function push<T>(map: Map<number, T[]>, key: number, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
