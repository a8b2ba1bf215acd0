import { sql } from "kysely";
import type { Db } from "../../db/database.ts";
import { hotQuery, readAheadOf } from "../../db/prepared.ts";
import { AppError, notFound } from "../errors.ts";
import type { LocationRow, ProductRow, VariantRow } from "./presenters.ts";
import { variantJson } from "./variant-json.ts";

/**
 * Reads of the catalog mirror, always within one store. Other modules resolve items and locations
 * through here (variants by variant id or inventory item id, visible locations).
 */

export function productsQuery(db: Db, storeId: number) {
  return db
    .selectFrom("products as p")
    .selectAll("p")
    .select((eb) =>
      eb
        .selectFrom("variants as v")
        .select(eb.fn.countAll<number>().as("n"))
        .whereRef("v.store_id", "=", "p.store_id")
        .whereRef("v.product_id", "=", "p.id")
        .where("v.deleted_at", "is", null)
        .as("variants_count"),
    )
    .where("p.store_id", "=", storeId);
}

export async function getProduct(db: Db, storeId: number, id: number): Promise<ProductRow> {
  const row = await productsQuery(db, storeId).where("p.id", "=", id).executeTakeFirst();
  if (!row) throw notFound("product");
  return { ...row, variants_count: Number(row.variants_count ?? 0) };
}

/** Variants of the given products (deleted ones left out), by product then position. */
export async function variantsOfProducts(
  db: Db,
  storeId: number,
  productIds: readonly number[],
): Promise<Map<number, VariantRow[]>> {
  const map = new Map<number, VariantRow[]>();
  if (productIds.length === 0) return map;
  const rows = await db
    .selectFrom("variants")
    .selectAll()
    .where("store_id", "=", storeId)
    .where("product_id", "in", [...productIds])
    .where("deleted_at", "is", null)
    .orderBy("product_id")
    .orderBy("position")
    .orderBy("id")
    .execute();
  for (const id of productIds) map.set(id, []);
  for (const row of rows) map.get(row.product_id)?.push(row);
  return map;
}

/**
 * `GET /v2/variants/{id}`'s one statement besides the key lookup, compiled once and a named prepared
 * statement on each PostgreSQL connection (no parse and plan per request; issue 22). The variant comes
 * back as the contract's JSON text (variant-json.ts, with its store's currency), so the API neither
 * parses its 20-odd fields nor presents and serializes them.
 */
const variantJsonById = hotQuery("stockroom_variant_json_by_id", (db: Db) =>
  db
    .selectFrom("variants as v")
    .innerJoin("stores as st", "st.id", "v.store_id")
    .select(variantJson(sql<string>`st.currency`).as("row_json"))
    .where("v.store_id", "=", 0)
    .where("v.id", "=", 0),
);

/** The same read, sent with the key lookup by authentication on PostgreSQL (db/prepared.ts). */
export const variantReadAhead = readAheadOf(variantJsonById, Number.MAX_SAFE_INTEGER);

/**
 * One variant (deleted ones too: orders and history point at them) as the contract's JSON text, or
 * 404; `ahead`: its rows as variantReadAhead read them with the key lookup, when it did.
 */
export async function getVariantJson(
  db: Db,
  storeId: number,
  id: number,
  ahead?: readonly { row_json: string }[],
): Promise<string> {
  const [row] = ahead ?? (await variantJsonById.run(db, storeId, id));
  if (!row) throw notFound("variant");
  return row.row_json;
}

/** Variants of this store by variant id and by inventory item id (one query each; missing ones absent). */
export async function findVariants(
  db: Db,
  storeId: number,
  ids: { variantIds?: readonly number[]; inventoryItemIds?: readonly number[] },
): Promise<{ byVariantId: Map<number, VariantRow>; byInventoryItemId: Map<number, VariantRow> }> {
  const byVariantId = new Map<number, VariantRow>();
  const byInventoryItemId = new Map<number, VariantRow>();
  const variantIds = [...new Set(ids.variantIds ?? [])];
  const itemIds = [...new Set(ids.inventoryItemIds ?? [])];
  if (variantIds.length === 0 && itemIds.length === 0) return { byVariantId, byInventoryItemId };
  const rows = await db
    .selectFrom("variants")
    .selectAll()
    .where("store_id", "=", storeId)
    .where((eb) => {
      const ors = [];
      if (variantIds.length > 0) ors.push(eb("id", "in", variantIds));
      if (itemIds.length > 0) ors.push(eb("inventory_item_id", "in", itemIds));
      return eb.or(ors);
    })
    .execute();
  for (const row of rows) {
    byVariantId.set(row.id, row);
    byInventoryItemId.set(row.inventory_item_id, row);
  }
  return { byVariantId, byInventoryItemId };
}

/** A location the store offers through the API (not hidden in its settings); 404 otherwise. */
export async function getVisibleLocation(db: Db, storeId: number, id: number): Promise<LocationRow> {
  const row = await db
    .selectFrom("locations")
    .selectAll()
    .where("store_id", "=", storeId)
    .where("id", "=", id)
    .where("hidden", "=", false)
    .executeTakeFirst();
  if (!row) throw notFound("location");
  return row;
}

/**
 * Hides a location as the store's initial settings hide it (store creation): its updated_at stays the
 * one its import set.
 */
export async function hideImportedLocation(trx: Db, storeId: number, locationId: number): Promise<void> {
  await trx
    .updateTable("locations")
    .set({ hidden: true })
    .where("store_id", "=", storeId)
    .where("id", "=", locationId)
    .execute();
}

/** Every location of the store, hidden ones included (the admin's view of its settings). */
export function allLocations(db: Db, storeId: number): Promise<LocationRow[]> {
  return db.selectFrom("locations").selectAll().where("store_id", "=", storeId).orderBy("id").execute();
}

/** Hides a location from the API or shows it again; updated_at moves only when `hidden` changes. */
export async function setLocationHidden(
  db: Db,
  storeId: number,
  locationId: number,
  hidden: boolean,
  now: Date,
): Promise<LocationRow> {
  const row = await db
    .updateTable("locations")
    .set({
      hidden,
      updated_at: sql<Date>`case when hidden = ${hidden} then updated_at else ${now}::timestamptz end`,
    })
    .where("store_id", "=", storeId)
    .where("id", "=", locationId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new AppError("not_found", "No such location in this store.");
  return row;
}
