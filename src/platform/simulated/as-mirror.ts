import type { Selectable } from "kysely";
import type { SimProductsTable, SimVariantsTable } from "../../db/tables/catalog.ts";
import type { ProductRow, VariantRow } from "../../domain/catalog/index.ts";

/**
 * A simulator product as the mirror would hold it once synced, so the admin can answer with the
 * catalog's own presentation before the sync has run.
 */
export function asMirrorProduct(p: Selectable<SimProductsTable>, variantsCount: number): ProductRow {
  return { ...p, platform_updated_at: p.updated_at, variants_count: variantsCount, deleted_at: null };
}

/** A simulator variant as the mirror would hold it once synced (see asMirrorProduct). */
export function asMirrorVariant(v: Selectable<SimVariantsTable>, productTitle: string): VariantRow {
  return {
    store_id: v.store_id,
    id: v.id,
    product_id: v.product_id,
    inventory_item_id: v.inventory_item_id,
    title: v.title,
    product_title: productTitle,
    sku: v.sku,
    barcode: v.barcode,
    position: v.position,
    price: v.price,
    compare_at_price: v.compare_at_price,
    unit_cost: v.unit_cost,
    unit_cost_currency: v.unit_cost_currency,
    unit_cost_version: null,
    unit_cost_read_at: null,
    weight_grams: v.weight_grams,
    inventory_tracked: v.tracked,
    inventory_policy: v.inventory_policy,
    taxable: v.taxable,
    image_url: v.image_url,
    platform_updated_at: v.updated_at,
    created_at: v.created_at,
    updated_at: v.updated_at,
    deleted_at: null,
  };
}
