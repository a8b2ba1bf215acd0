/**
 * Everything the lines (and the order) of one request refer to, read up front: one query per table,
 * never one per line.
 */
import type { Selectable } from "kysely";
import type { Db } from "../../db/database.ts";
import type { VariantsTable } from "../../db/tables/catalog.ts";
import type { SupplierCatalogItemsTable } from "../../db/tables/suppliers.ts";
import type { DetailCollector } from "../errors.ts";

export type VariantRow = Selectable<VariantsTable>;
export type CatalogItemRow = Selectable<SupplierCatalogItemsTable>;

export interface TaxRateRef {
  id: number;
  name: string;
  rate_percent: string;
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
}

export interface LookupRequest {
  supplierId: number;
  variantIds: Iterable<number>;
  itemIds: Iterable<number>;
  locationIds: Iterable<number>;
  taxRateIds: Iterable<number>;
}

/** Everything the lines (and the order) of one request refer to, one query per table. */
export async function fetchLookups(db: Db, storeId: number, req: LookupRequest): Promise<Lookups> {
  const variantIds = [...new Set(req.variantIds)];
  const itemIds = [...new Set(req.itemIds)];
  const locationIds = [...new Set(req.locationIds)];
  const taxRateIds = [...new Set(req.taxRateIds)];
  const anyItems = variantIds.length > 0 || itemIds.length > 0;
  const [variants, catalog, locations, taxRates] = await Promise.all([
    anyItems
      ? db
          .selectFrom("variants")
          .selectAll()
          .where("store_id", "=", storeId)
          .where((eb) => {
            const ors = [];
            if (variantIds.length > 0) ors.push(eb("id", "in", variantIds));
            if (itemIds.length > 0) ors.push(eb("inventory_item_id", "in", itemIds));
            return eb.or(ors);
          })
          .execute()
      : Promise.resolve([] as VariantRow[]),
    anyItems
      ? db
          .selectFrom("supplier_catalog_items")
          .selectAll()
          .where("store_id", "=", storeId)
          .where("supplier_id", "=", req.supplierId)
          .where((eb) => {
            const ors = [];
            if (itemIds.length > 0) ors.push(eb("inventory_item_id", "in", itemIds));
            if (variantIds.length > 0)
              ors.push(
                eb(
                  "inventory_item_id",
                  "in",
                  eb
                    .selectFrom("variants")
                    .select("inventory_item_id")
                    .where("store_id", "=", storeId)
                    .where("id", "in", variantIds),
                ),
              );
            return eb.or(ors);
          })
          .execute()
      : Promise.resolve([] as CatalogItemRow[]),
    locationIds.length > 0
      ? db
          .selectFrom("locations")
          .select(["id", "name", "active"])
          .where("store_id", "=", storeId)
          .where("id", "in", locationIds)
          .where("hidden", "=", false)
          .execute()
      : Promise.resolve([]),
    taxRateIds.length > 0
      ? db
          .selectFrom("tax_rates")
          .select(["id", "name", "rate_percent"])
          .where("store_id", "=", storeId)
          .where("id", "in", taxRateIds)
          .execute()
      : Promise.resolve([]),
  ]);
  const lookups: Lookups = {
    variantsById: new Map(),
    variantsByItem: new Map(),
    catalogByItem: new Map(),
    locations: new Map(),
    inactiveLocations: new Set(),
    taxRates: new Map(),
  };
  for (const v of variants) {
    lookups.variantsById.set(Number(v.id), v);
    lookups.variantsByItem.set(Number(v.inventory_item_id), v);
  }
  for (const c of catalog) lookups.catalogByItem.set(Number(c.inventory_item_id), c);
  for (const l of locations)
    if (l.active) lookups.locations.set(Number(l.id), { id: Number(l.id), name: l.name });
    else lookups.inactiveLocations.add(Number(l.id));
  for (const t of taxRates) lookups.taxRates.set(t.id, t);
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
