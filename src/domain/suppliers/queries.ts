/** Supplier lists: suppliers and a supplier's catalog rows, keyset-paged, oldest update first. */

import { sql } from "kysely";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { keysetJsonPage } from "../../db/json-text.ts";
import { keysetPage, type Page, type PageRequest } from "../../db/keyset-paging.ts";
import { hotQuery, readAheadOf } from "../../db/prepared.ts";
import { prefixQuery } from "../../db/text-search.ts";
import { notFound } from "../errors.ts";
import { localDate } from "../local-time.ts";
import { presentCatalogRow, type SupplierCatalogRowView, type SupplierRow } from "./presenter.ts";
import { catalogListQuery, supplierListQuery } from "./repository.ts";
import {
  ADDRESS_FIELDS,
  BOOLEAN_FIELDS,
  CONTACT_FIELDS,
  LIST_FIELDS,
  MONEY_FIELDS,
} from "./supplier-input.ts";
import { supplierJson } from "./supplier-json.ts";

export type ArchivedFilter = "active" | "archived" | "all";

/**
 * `GET /v2/suppliers`'s page as its body's JSON text, written by the database (db/json-text.ts): each
 * supplier as presentSupplier shapes it.
 */
export function listSuppliersJson(
  ctx: AppContext,
  db: Db,
  storeId: number,
  archived: ArchivedFilter,
  paging: PageRequest & { q?: string; name?: string },
): Promise<string> {
  const { q, name } = paging;
  let query = supplierListQuery(db, storeId, archived).select([
    supplierJson().as("row_json"),
    "s.updated_at as page_time",
    "s.id as page_id",
  ]);
  // The expression of the suppliers_name index (migration 031), word for word, so the index serves it.
  if (name !== undefined)
    query = query.where(sql<string>`lower(btrim(s.name))`, "=", sql<string>`lower(btrim(${name}))`);
  // The expression of the suppliers_search index (migration 016), word for word, so the index serves it.
  if (q !== undefined) {
    query = query.where(
      sql<boolean>`supplier_search_vector(s.name, s.company_name, s.contact_name, s.email, s.account_number) @@ to_tsquery('simple', ${prefixQuery(q)})`,
    );
  }
  return keysetJsonPage(
    db,
    query,
    paging,
    {
      timeColumn: "s.updated_at",
      idColumn: "s.id",
      direction: "asc",
      binding: { list: "suppliers", store: storeId, archived, q, name },
    },
    ctx.cursorSecret,
  );
}

/**
 * `GET /v2/suppliers/{id}`'s one statement besides the key lookup: compiled once and a named prepared
 * statement on each PostgreSQL connection, so the server neither parses nor plans it per request
 * (issue 22: a single-record read costs the server what the key lookup costs). Columns by name, not
 * `*`: a migration adding a column leaves the prepared statement valid (docs/decisions.md); a column
 * missing here fails the type check of getSupplier's return. SupplierInput's columns come from its
 * lists, the rest are the service's own.
 */
const supplierById = hotQuery("stockroom_supplier_by_id", (db: Db) =>
  db
    .selectFrom("suppliers")
    .select([
      "id",
      "store_id",
      "name",
      ...CONTACT_FIELDS,
      ...ADDRESS_FIELDS,
      ...LIST_FIELDS,
      "currency",
      "location_account_numbers",
      "lead_time_days",
      ...MONEY_FIELDS,
      ...BOOLEAN_FIELDS,
      "default_updates_stock",
      "archived",
      "archived_at",
      "merged_into_id",
      "network_linked",
      "created_at",
      "updated_at",
    ])
    .where("store_id", "=", 0)
    .where("id", "=", 0),
);

/** One supplier as stored, or 404 `not_found`. */
export async function getSupplier(db: Db, storeId: number, id: number): Promise<SupplierRow> {
  const [row] = await supplierById.run(db, storeId, id);
  if (!row) throw notFound("supplier");
  return row;
}

/**
 * `GET /v2/suppliers/{id}`'s statement: the supplier as the contract's JSON text (supplier-json.ts),
 * so the API neither parses its 40-odd fields nor presents and serializes them (issue 22 item 2).
 */
const supplierJsonById = hotQuery("stockroom_supplier_json_by_id", (db: Db) =>
  db
    .selectFrom("suppliers as s")
    .select(supplierJson().as("row_json"))
    .where("s.store_id", "=", 0)
    .where("s.id", "=", 0),
);

/** The same read, sent with the key lookup by authentication on PostgreSQL (db/prepared.ts). */
export const supplierReadAhead = readAheadOf(supplierJsonById, 2147483647);

/**
 * One supplier as the contract's JSON text, or 404 `not_found`; `ahead`: its rows as
 * supplierReadAhead read them with the key lookup, when it did.
 */
export async function getSupplierJson(
  db: Db,
  storeId: number,
  id: number,
  ahead?: readonly { row_json: string }[],
): Promise<string> {
  const [row] = ahead ?? (await supplierJsonById.run(db, storeId, id));
  if (!row) throw notFound("supplier");
  return row.row_json;
}

/**
 * A supplier's catalog rows, prices as they stand on the store's today; 404 when the supplier is not
 * the store's. `inventoryItemIds`: only those items' rows (the `supplier_catalog_items_key` index finds
 * each), so a page about a few items does not read the catalog.
 */
export async function listCatalogRows(
  ctx: AppContext,
  db: Db,
  store: { id: number; timezone: string },
  supplierId: number,
  paging: PageRequest,
  inventoryItemIds?: number[],
): Promise<Page<SupplierCatalogRowView>> {
  const storeId = store.id;
  await getSupplier(db, storeId, supplierId);
  let query = catalogListQuery(db, storeId, supplierId);
  if (inventoryItemIds !== undefined) query = query.where("c.inventory_item_id", "in", inventoryItemIds);
  const page = await keysetPage(
    query,
    paging,
    {
      timeColumn: "c.updated_at",
      idColumn: "c.id",
      direction: "asc",
      binding: {
        list: "supplier_catalog",
        store: storeId,
        supplier: supplierId,
        inventory_item_id: inventoryItemIds?.join(","),
      },
    },
    ctx.cursorSecret,
    (row) => ({ time: row.updated_at, id: row.id }),
  );
  const today = localDate(ctx.clock.now(), store.timezone);
  return { ...page, data: page.data.map((row) => presentCatalogRow(row, today)) };
}
