/** The catalog's lists: products, variants and visible locations, keyset-paged, oldest update first. */

import { sql } from "kysely";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { keysetJsonPage } from "../../db/json-text.ts";
import { type KeysetSpec, keysetPage, type Page, type PageRequest } from "../../db/keyset-paging.ts";
import { prefixQuery } from "../../db/text-search.ts";
import type { LocationRow, ProductRow } from "./presenters.ts";
import { productsQuery } from "./repository.ts";
import { variantJson } from "./variant-json.ts";

export interface ProductFilters {
  status?: "active" | "draft" | "archived";
  vendor?: string;
  /** Not a filter, but the cursor is bound to it (a page with variants continues with variants). */
  include?: "variants";
}

export async function listProducts(
  ctx: AppContext,
  db: Db,
  storeId: number,
  filters: ProductFilters,
  paging: PageRequest,
): Promise<Page<ProductRow>> {
  const { status, vendor, include } = filters;
  let query = productsQuery(db, storeId);
  if (status !== undefined) query = query.where("p.status", "=", status);
  if (vendor !== undefined) query = query.where("p.vendor", "=", vendor);
  const page = await keysetPage(
    query,
    paging,
    {
      timeColumn: "p.updated_at",
      idColumn: "p.id",
      direction: "asc",
      binding: { list: "products", store: storeId, status, vendor, include },
    },
    ctx.cursorSecret,
    (row) => ({ time: row.updated_at, id: row.id }),
  );
  return { ...page, data: page.data.map((p) => ({ ...p, variants_count: Number(p.variants_count ?? 0) })) };
}

export interface VariantFilters {
  product_id?: number;
  /** One SKU, or several (`sku=A&sku=B`, up to 250): the variants having any of them, exactly. */
  sku?: string | readonly string[];
  barcode?: string;
  /** Words of product title, variant title, SKU or barcode, each a prefix (db/text-search.ts). */
  q?: string;
  /** The variants of these inventory items (one each: the variants_item index). */
  inventory_item_ids?: number[];
}

/**
 * The same page as `GET /v2/variants`'s body, written by the database (db/json-text.ts): each variant
 * as presentVariant shapes it for a store whose currency is `storeCurrency`.
 */
export function listVariantsJson(
  ctx: AppContext,
  db: Db,
  store: { id: number; currency: string },
  filters: VariantFilters,
  paging: PageRequest,
): Promise<string> {
  const query = variantListQuery(db, store.id, filters).select([
    variantJson(sql<string>`${store.currency}::text`).as("row_json"),
    "v.updated_at as page_time",
    "v.id as page_id",
  ]);
  return keysetJsonPage(db, query, paging, variantListSpec(store.id, filters), ctx.cursorSecret);
}

function variantListQuery(db: Db, storeId: number, filters: VariantFilters) {
  const { product_id, sku, barcode, q, inventory_item_ids } = filters;
  // A deleted variant leaves the list (it is still read by id: orders and history point at it).
  let query = db
    .selectFrom("variants as v")
    .where("v.store_id", "=", storeId)
    .where("v.deleted_at", "is", null);
  if (product_id !== undefined) query = query.where("v.product_id", "=", product_id);
  if (typeof sku === "string") query = query.where("v.sku", "=", sku);
  else if (sku !== undefined) query = query.where("v.sku", "in", [...sku]);
  if (barcode !== undefined) query = query.where("v.barcode", "=", barcode);
  if (inventory_item_ids !== undefined) query = query.where("v.inventory_item_id", "in", inventory_item_ids);
  // The expression of the variants_search index (migration 016), word for word, so the index serves it.
  if (q !== undefined) {
    query = query.where(
      sql<boolean>`variant_search_vector(v.product_title, v.title, v.sku, v.barcode) @@ to_tsquery('simple', ${prefixQuery(q)})`,
    );
  }
  return query;
}

function variantListSpec(storeId: number, filters: VariantFilters): KeysetSpec {
  const { product_id, sku, barcode, q, inventory_item_ids } = filters;
  return {
    timeColumn: "v.updated_at",
    idColumn: "v.id",
    direction: "asc",
    binding: {
      list: "variants",
      store: storeId,
      product_id,
      sku,
      barcode,
      q,
      inventory_item_id: inventory_item_ids?.join(","),
    },
  };
}

/** Active locations the store has not hidden. */
export function listVisibleLocations(
  ctx: AppContext,
  db: Db,
  storeId: number,
  paging: PageRequest,
): Promise<Page<LocationRow>> {
  const query = db
    .selectFrom("locations as l")
    .selectAll("l")
    .where("l.store_id", "=", storeId)
    .where("l.active", "=", true)
    .where("l.hidden", "=", false);
  return keysetPage(
    query,
    paging,
    {
      timeColumn: "l.updated_at",
      idColumn: "l.id",
      direction: "asc",
      binding: { list: "locations", store: storeId },
    },
    ctx.cursorSecret,
    (row) => ({ time: row.updated_at, id: row.id }),
  );
}
