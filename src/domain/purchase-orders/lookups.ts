/**
 * Everything the lines (and the order) of one request refer to, read up front in one statement,
 * never one per line: the variants and the supplier's catalog rows of the lines' items, the locations
 * and tax rates named, and for a new order its supplier and the store's ship-to default.
 */
import type { Selectable } from "kysely";
import { arrayValue } from "../../db/bulk.ts";
import type { Db } from "../../db/database.ts";
import { hotSql } from "../../db/prepared.ts";
import type { VariantsTable } from "../../db/tables/catalog.ts";
import type { SupplierCatalogItemsTable } from "../../db/tables/suppliers.ts";
import { defaultLocationIdSql } from "../catalog/index.ts";
import type { DetailCollector } from "../errors.ts";
import type { TierColumns } from "../suppliers/index.ts";

/** A variant's fields a line takes from the mirror (its deletion time as the database's JSON text). */
export type VariantRow = Pick<
  Selectable<VariantsTable>,
  | "id"
  | "product_id"
  | "inventory_item_id"
  | "title"
  | "product_title"
  | "sku"
  | "barcode"
  | "weight_grams"
  | "unit_cost"
  | "unit_cost_currency"
> & { deleted_at: string | null };

/** A supplier's catalog row as a line's cost, SKU and warnings use it. */
export type CatalogItemRow = Pick<
  Selectable<SupplierCatalogItemsTable>,
  "inventory_item_id" | "supplier_sku" | "pack_size" | "pack_unit" | "min_order_qty"
> &
  TierColumns;

export interface TaxRateRef {
  id: number;
  name: string;
  rate_percent: string;
}

/** The order's supplier as a new order or a change of supplier needs it. */
export interface SupplierRef {
  id: number;
  currency: string | null;
  default_updates_stock: boolean | null;
  archived: boolean;
}

export interface Lookups {
  variantsById: Map<number, VariantRow>;
  variantsByItem: Map<number, VariantRow>;
  catalogByItem: Map<number, CatalogItemRow>;
  /** Locations of the store the API shows (active, not hidden). */
  locations: Map<number, { id: number; name: string }>;
  /** Locations of the store, not hidden, that the platform no longer has active (deactivated or deleted). */
  inactiveLocations: Set<number>;
  taxRates: Map<number, TaxRateRef>;
  /** The supplier when asked for (`supplier`), else null; also null when the store has no such one. */
  supplier: SupplierRef | null;
  /** The store's ship-to default when asked for (`defaultLocation`): as catalog's `defaultLocation`. */
  defaultLocationId: number | null;
}

export interface LookupRequest {
  supplierId: number;
  variantIds: Iterable<number>;
  itemIds: Iterable<number>;
  locationIds: Iterable<number>;
  taxRateIds: Iterable<number>;
  /** Read the supplier (`supplierId`) too. */
  supplier?: boolean;
  /** Read the store's default ship-to location too. */
  defaultLocation?: boolean;
}

interface LookupsRow {
  supplier_json: string | null;
  default_location_id: number | null;
  variants_json: string | null;
  catalog_json: string | null;
  locations_json: string | null;
  tax_rates_json: string | null;
}

/**
 * A variant of the store by a unique key, one index probe per id given: as a lateral subquery with a
 * limit the planner cannot turn it into a join, so a kept statement's generic plan, made without the
 * array's values (and on PostgreSQL maybe without statistics: autovacuum may be off), cannot choose
 * to scan the store's every variant and compare each with every id given (a 100-line order on a
 * 10,000-variant store: 3 ms more of the backend a request).
 */
const VARIANT_BY = `select v.id, v.product_id, v.inventory_item_id, v.title, v.product_title, v.sku, v.barcode,
      v.weight_grams, v.unit_cost, v.unit_cost_currency, v.deleted_at
    from variants v where v.store_id = $1`;

/**
 * One statement for every part (on the embedded database a statement in a transaction is a crossing
 * to its thread and back; a 100-line order's create read four). Each part is a JSON text of the
 * columns used, numerics as text so no amount passes through a float; a part not asked for has an
 * empty array or a false switch and reads nothing. The default location is the catalog's rule, its
 * text taken from there (`defaultLocationIdSql`); a location named is the store's when not hidden,
 * usable when active too.
 */
const lookupsQuery = hotSql<
  [
    storeId: number,
    supplierId: number | null,
    variantIds: unknown,
    itemIds: unknown,
    locationIds: unknown,
    taxRateIds: unknown,
    withSupplier: boolean,
    withDefaultLocation: boolean,
  ],
  LookupsRow
>(
  "stockroom_order_lookups",
  `with found as (
  select v.* from unnest($3::bigint[]) as i(id)
    cross join lateral (${VARIANT_BY} and v.id = i.id limit 1) v
  union all
  select v.* from unnest($4::bigint[]) as i(item)
    cross join lateral (${VARIANT_BY} and v.inventory_item_id = i.item limit 1) v
)
select
  (select json_build_object('id', s.id, 'currency', s.currency,
      'default_updates_stock', s.default_updates_stock, 'archived', s.archived)::text
    from suppliers s where $7 and s.store_id = $1 and s.id = $2) as supplier_json,
  (${defaultLocationIdSql("$1", "$8")}) as default_location_id,
  (select json_agg(json_build_object('id', v.id, 'product_id', v.product_id,
      'inventory_item_id', v.inventory_item_id, 'title', v.title, 'product_title', v.product_title,
      'sku', v.sku, 'barcode', v.barcode, 'weight_grams', v.weight_grams,
      'unit_cost', v.unit_cost::text, 'unit_cost_currency', v.unit_cost_currency,
      'deleted_at', v.deleted_at))::text
    from found v) as variants_json,
  (select json_agg(json_build_object('inventory_item_id', c.inventory_item_id,
      'supplier_sku', c.supplier_sku, 'pack_size', c.pack_size, 'pack_unit', c.pack_unit,
      'min_order_qty', c.min_order_qty, 'effective_tiers', c.effective_tiers,
      'effective_from', c.effective_from, 'effective_currency', c.effective_currency,
      'upcoming_tiers', c.upcoming_tiers, 'upcoming_from', c.upcoming_from,
      'upcoming_currency', c.upcoming_currency))::text
    from (select inventory_item_id as item from found union select unnest($4::bigint[])) w
    cross join lateral (select * from supplier_catalog_items c
      where c.store_id = $1 and c.supplier_id = $2 and c.inventory_item_id = w.item limit 1) c) as catalog_json,
  (select json_agg(json_build_object('id', l.id, 'name', l.name, 'active', l.active))::text
    from locations l
    where l.store_id = $1 and l.id = any($5::bigint[]) and not l.hidden) as locations_json,
  (select json_agg(json_build_object('id', t.id, 'name', t.name, 'rate_percent', t.rate_percent::text))::text
    from tax_rates t where t.store_id = $1 and t.id = any($6::bigint[])) as tax_rates_json`,
  { priority: false },
);

function parsed<T>(json: string | null): T[] {
  return json === null ? [] : (JSON.parse(json) as T[]);
}

/** Everything the lines (and the order) of one request refer to; no statement when nothing is. */
export async function fetchLookups(db: Db, storeId: number, req: LookupRequest): Promise<Lookups> {
  const variantIds = [...new Set(req.variantIds)];
  const itemIds = [...new Set(req.itemIds)];
  const locationIds = [...new Set(req.locationIds)];
  const taxRateIds = [...new Set(req.taxRateIds)];
  const lookups: Lookups = {
    variantsById: new Map(),
    variantsByItem: new Map(),
    catalogByItem: new Map(),
    locations: new Map(),
    inactiveLocations: new Set(),
    taxRates: new Map(),
    supplier: null,
    defaultLocationId: null,
  };
  const anything =
    variantIds.length + itemIds.length + locationIds.length + taxRateIds.length > 0 ||
    req.supplier === true ||
    req.defaultLocation === true;
  if (!anything) return lookups;
  const [row] = await lookupsQuery.run(
    db,
    storeId,
    req.supplierId ?? null,
    arrayValue("bigint", variantIds),
    arrayValue("bigint", itemIds),
    arrayValue("bigint", locationIds),
    arrayValue("bigint", taxRateIds),
    req.supplier === true,
    req.defaultLocation === true,
  );
  for (const v of parsed<VariantRow>(row.variants_json)) {
    lookups.variantsById.set(Number(v.id), v);
    lookups.variantsByItem.set(Number(v.inventory_item_id), v);
  }
  for (const c of parsed<CatalogItemRow>(row.catalog_json))
    lookups.catalogByItem.set(Number(c.inventory_item_id), c);
  for (const l of parsed<{ id: number; name: string; active: boolean }>(row.locations_json))
    if (l.active) lookups.locations.set(Number(l.id), { id: Number(l.id), name: l.name });
    else lookups.inactiveLocations.add(Number(l.id));
  for (const t of parsed<TaxRateRef>(row.tax_rates_json)) lookups.taxRates.set(t.id, t);
  lookups.supplier = row.supplier_json === null ? null : (JSON.parse(row.supplier_json) as SupplierRef);
  lookups.defaultLocationId = row.default_location_id === null ? null : Number(row.default_location_id);
  return lookups;
}

/**
 * Checks a location named in a request body (docs/decisions.md, "Shopify webhooks and
 * reconciliation", one code for one refusal): one the store shows is taken; one the store has but the
 * platform no longer has active (deactivated or deleted there) is `inactive`, as the ledger answers
 * when stock would go there; anything else (never the store's, another store's, or hidden in the
 * store's settings, which the API never shows: 404 by id) is `not_found`. Answers whether it is taken.
 */
export function checkNamedLocation(
  lookups: Pick<Lookups, "locations" | "inactiveLocations">,
  locationId: number,
  field: string,
  problems: DetailCollector,
): boolean {
  if (lookups.locations.has(locationId)) return true;
  if (lookups.inactiveLocations.has(locationId))
    problems.add(field, "inactive", `location ${locationId} is no longer active on the platform`);
  else problems.add(field, "not_found", "is not a location of this store");
  return false;
}
