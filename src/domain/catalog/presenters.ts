import type { Selectable } from "kysely";
import type {
  InventoryLevelsTable,
  LocationsTable,
  ProductsTable,
  VariantsTable,
} from "../../db/tables/catalog.ts";
import { moneyText, unitCostText } from "../money.ts";

export { moneyText, unitCostText };

/** The contract's catalog mirror shapes; every field present, null when empty. */

export type ProductRow = Selectable<ProductsTable> & { variants_count: number };
export type VariantRow = Selectable<VariantsTable>;
export type LocationRow = Selectable<LocationsTable>;
export type LevelRow = Selectable<InventoryLevelsTable>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function presentVariant(row: VariantRow, storeCurrency: string) {
  return {
    id: row.id,
    product_id: row.product_id,
    inventory_item_id: row.inventory_item_id,
    title: row.title,
    product_title: row.product_title,
    sku: row.sku,
    barcode: row.barcode,
    position: row.position,
    price: moneyText(row.price, storeCurrency),
    compare_at_price: row.compare_at_price === null ? null : moneyText(row.compare_at_price, storeCurrency),
    unit_cost:
      row.unit_cost === null ? null : unitCostText(row.unit_cost, row.unit_cost_currency ?? storeCurrency),
    unit_cost_currency: row.unit_cost === null ? null : (row.unit_cost_currency ?? storeCurrency),
    weight_grams: row.weight_grams,
    inventory_tracked: row.inventory_tracked,
    inventory_policy: row.inventory_policy,
    taxable: row.taxable,
    image_url: row.image_url,
    platform_updated_at: iso(row.platform_updated_at),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export type VariantView = ReturnType<typeof presentVariant>;

export function presentProduct(row: ProductRow, variants: VariantView[] | null) {
  return {
    id: row.id,
    title: row.title,
    handle: row.handle,
    vendor: row.vendor,
    product_type: row.product_type,
    status: row.status as "active" | "draft" | "archived",
    tags: row.tags,
    options: row.options as Array<{ name: string; position: number; values: string[] }>,
    image_url: row.image_url,
    variants_count: Number(row.variants_count),
    variants,
    platform_updated_at: iso(row.platform_updated_at),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

const ADDRESS_FIELDS = [
  "line1",
  "line2",
  "city",
  "province_code",
  "zip",
  "country",
  "country_code",
  "phone",
] as const;

export function presentLocation(row: LocationRow) {
  const address = Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, row.address?.[f] ?? null])) as Record<
    (typeof ADDRESS_FIELDS)[number],
    string | null
  >;
  return {
    id: row.id,
    name: row.name,
    active: row.active,
    fulfillment_service: row.fulfillment_service,
    address,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function presentLevel(row: LevelRow) {
  return {
    id: row.id,
    inventory_item_id: row.inventory_item_id,
    location_id: row.location_id,
    available: row.available,
    on_hand: row.on_hand,
    committed: row.committed,
    incoming: row.incoming,
    platform_updated_at: iso(row.platform_updated_at),
    updated_at: row.updated_at.toISOString(),
  };
}
