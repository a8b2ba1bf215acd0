import type { Insertable, Updateable } from "kysely";
import type { Db } from "../../db/database.ts";
import type { SupplierCatalogItemsTable, SuppliersTable } from "../../db/tables/suppliers.ts";
import type { SupplierRow } from "./presenter.ts";
import type { CatalogRow } from "./pricing.ts";

/** SQL for suppliers and their catalogs. Every function takes the store id; no rules here. */

export type SupplierInsert = Insertable<SuppliersTable>;
export type SupplierUpdate = Updateable<SuppliersTable>;
export type CatalogInsert = Insertable<SupplierCatalogItemsTable>;
export type CatalogUpdate = Updateable<SupplierCatalogItemsTable>;

export async function findSupplier(
  db: Db,
  storeId: number,
  id: number,
  options: { forUpdate?: boolean } = {},
): Promise<SupplierRow | undefined> {
  let query = db.selectFrom("suppliers").selectAll().where("store_id", "=", storeId).where("id", "=", id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Several suppliers, locked in id order (so two merges can't deadlock each other). */
export async function lockSuppliers(db: Db, storeId: number, ids: readonly number[]): Promise<SupplierRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom("suppliers")
    .selectAll()
    .where("store_id", "=", storeId)
    .where("id", "in", [...new Set(ids)])
    .orderBy("id")
    .forUpdate()
    .execute();
}

export async function insertSupplier(db: Db, values: SupplierInsert): Promise<SupplierRow> {
  return db.insertInto("suppliers").values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updateSupplierRow(
  db: Db,
  storeId: number,
  id: number,
  set: SupplierUpdate,
): Promise<SupplierRow> {
  return db
    .updateTable("suppliers")
    .set(set)
    .where("store_id", "=", storeId)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateSuppliers(
  db: Db,
  storeId: number,
  ids: readonly number[],
  set: SupplierUpdate,
): Promise<SupplierRow[]> {
  if (ids.length === 0) return [];
  return db
    .updateTable("suppliers")
    .set(set)
    .where("store_id", "=", storeId)
    .where("id", "in", [...ids])
    .returningAll()
    .execute();
}

export function supplierListQuery(db: Db, storeId: number, archived: "active" | "archived" | "all") {
  let query = db.selectFrom("suppliers as s").where("s.store_id", "=", storeId);
  if (archived === "active") query = query.where("s.archived", "=", false);
  if (archived === "archived") query = query.where("s.archived", "=", true);
  return query;
}

// ---------------------------------------------------------------------------------------------------
// Catalog

export async function catalogRowsFor(
  db: Db,
  storeId: number,
  supplierIds: readonly number[],
  options: { inventoryItemIds?: readonly number[]; forUpdate?: boolean } = {},
): Promise<CatalogRow[]> {
  if (supplierIds.length === 0) return [];
  if (options.inventoryItemIds && options.inventoryItemIds.length === 0) return [];
  let query = db
    .selectFrom("supplier_catalog_items")
    .selectAll()
    .where("store_id", "=", storeId)
    .where("supplier_id", "in", [...supplierIds]);
  if (options.inventoryItemIds) query = query.where("inventory_item_id", "in", [...options.inventoryItemIds]);
  query = query.orderBy("id");
  if (options.forUpdate) query = query.forUpdate();
  return query.execute();
}

export async function insertCatalogRow(db: Db, values: CatalogInsert): Promise<CatalogRow> {
  return db.insertInto("supplier_catalog_items").values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updateCatalogRow(
  db: Db,
  storeId: number,
  id: number,
  set: CatalogUpdate,
): Promise<CatalogRow> {
  return db
    .updateTable("supplier_catalog_items")
    .set(set)
    .where("store_id", "=", storeId)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateCatalogRowsById(
  db: Db,
  storeId: number,
  ids: readonly number[],
  set: CatalogUpdate,
): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db
    .updateTable("supplier_catalog_items")
    .set(set)
    .where("store_id", "=", storeId)
    .where("id", "in", [...ids])
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function deleteCatalogRowsById(
  db: Db,
  storeId: number,
  ids: readonly number[],
): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db
    .deleteFrom("supplier_catalog_items")
    .where("store_id", "=", storeId)
    .where("id", "in", [...ids])
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Clears every other supplier's primary pin on an item. */
export async function clearOtherPrimaries(
  db: Db,
  storeId: number,
  inventoryItemId: number,
  keepSupplierId: number,
  now: Date,
): Promise<void> {
  await db
    .updateTable("supplier_catalog_items")
    .set({ is_primary: false, updated_at: now })
    .where("store_id", "=", storeId)
    .where("inventory_item_id", "=", inventoryItemId)
    .where("supplier_id", "<>", keepSupplierId)
    .where("is_primary", "=", true)
    .execute();
}

export async function deleteCatalogRow(
  db: Db,
  storeId: number,
  supplierId: number,
  inventoryItemId: number,
): Promise<boolean> {
  const result = await db
    .deleteFrom("supplier_catalog_items")
    .where("store_id", "=", storeId)
    .where("supplier_id", "=", supplierId)
    .where("inventory_item_id", "=", inventoryItemId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export function catalogListQuery(db: Db, storeId: number, supplierId: number) {
  return db
    .selectFrom("supplier_catalog_items as c")
    .selectAll("c")
    .where("c.store_id", "=", storeId)
    .where("c.supplier_id", "=", supplierId);
}
