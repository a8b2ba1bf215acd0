import Big from "big.js";
import type { Selectable } from "kysely";
import type { Db } from "../../db/database.ts";
import type { StoredTier, SupplierCatalogItemsTable } from "../../db/tables/suppliers.ts";
import { formatUnitCost } from "../money.ts";

/**
 * Supplier catalog price lists (docs/decisions.md, "Suppliers and their catalogs" and "Money").
 *
 * A catalog row stores two tier sets: `effective` (in force) and `upcoming` (starts on `upcoming_from`,
 * a date in the store's timezone). Nothing promotes `upcoming` on a timer: every reader evaluates the
 * row for a date with `tierSetsOn`, so on and after `upcoming_from` the upcoming set *is* the effective
 * one. Writes fold a due upcoming set into the effective columns (`promoteDue`) before changing a row.
 */

export type CatalogRow = Selectable<SupplierCatalogItemsTable>;

export interface TierSet {
  currency: string;
  /** `YYYY-MM-DD` or null (in force with no start date). */
  effectiveFrom: string | null;
  /** Ascending by min_qty, unique min_qty, prices as plain decimal strings. */
  tiers: StoredTier[];
}

export interface TierSetsOnDate {
  effective: TierSet | null;
  upcoming: TierSet | null;
}

function setOf(tiers: StoredTier[] | null, from: string | null, currency: string | null): TierSet | null {
  if (!tiers || tiers.length === 0 || !currency) return null;
  return { currency, effectiveFrom: from, tiers: [...tiers].sort((a, b) => a.min_qty - b.min_qty) };
}

/** The columns of a catalog row that hold its effective and upcoming price tiers. */
export type TierColumns = Pick<
  CatalogRow,
  | "effective_tiers"
  | "effective_from"
  | "effective_currency"
  | "upcoming_tiers"
  | "upcoming_from"
  | "upcoming_currency"
>;

/** The effective and upcoming sets of a row as they stand on `date` (`YYYY-MM-DD`). */
export function tierSetsOn(row: TierColumns, date: string): TierSetsOnDate {
  const upcoming = setOf(row.upcoming_tiers, row.upcoming_from, row.upcoming_currency);
  if (upcoming && row.upcoming_from !== null && row.upcoming_from <= date) {
    return { effective: upcoming, upcoming: null };
  }
  return { effective: setOf(row.effective_tiers, row.effective_from, row.effective_currency), upcoming };
}

/** The tier columns of a row with a due upcoming set moved into the effective ones. */
export function promoteDue(row: TierColumns, today: string): TierColumns {
  if (row.upcoming_from === null || row.upcoming_from > today || !row.upcoming_tiers) return row;
  return {
    effective_tiers: row.upcoming_tiers,
    effective_from: row.upcoming_from,
    effective_currency: row.upcoming_currency,
    upcoming_tiers: null,
    upcoming_from: null,
    upcoming_currency: null,
  };
}

/** The tier for a quantity: the highest `min_qty` ≤ quantity, or null when the quantity is below all. */
export function tierFor(tiers: readonly StoredTier[], quantity: number): StoredTier | null {
  let best: StoredTier | null = null;
  for (const tier of tiers) {
    if (tier.min_qty <= quantity && (best === null || tier.min_qty > best.min_qty)) best = tier;
  }
  return best;
}

/** The lowest-`min_qty` tier: the catalog row's headline `price`. */
export function lowestTier(tiers: readonly StoredTier[]): StoredTier | null {
  let best: StoredTier | null = null;
  for (const tier of tiers) if (best === null || tier.min_qty < best.min_qty) best = tier;
  return best;
}

/** A tier price as it goes out: at least the currency's minor units, up to 8 places. */
export function formatTierPrice(price: string, currency: string): string {
  return formatUnitCost(new Big(price), currency);
}

/** What a purchase order line needs from a supplier's catalog row for one item. */
export interface SupplierItemTerms {
  inventoryItemId: number;
  /** Unit cost of the tier for the quantity (formatted decimal string), null when no tier applies. */
  unitCost: string | null;
  /** Currency of the tier set in force on the date (the supplier's currency when it was written). */
  currency: string | null;
  supplierSku: string | null;
  minOrderQty: number;
  packSize: number;
  packUnit: string;
  isPrimary: boolean;
}

/**
 * Supplier terms for several items at once, in one query: for each item the supplier has a catalog row
 * for, the unit cost of the tier in force on `onDate` (`YYYY-MM-DD`, store timezone) for the item's
 * quantity (the highest `min_qty` ≤ quantity; quantity defaults to 1), plus SKU, minimum and pack size.
 * Items without a catalog row are absent from the map. Pass the transaction when inside one.
 */
export async function supplierPriceFor(
  db: Db,
  storeId: number,
  supplierId: number,
  inventoryItemIds: readonly number[],
  quantityByItem: ReadonlyMap<number, number>,
  onDate: string,
): Promise<Map<number, SupplierItemTerms>> {
  const result = new Map<number, SupplierItemTerms>();
  const ids = [...new Set(inventoryItemIds)];
  if (ids.length === 0) return result;
  const rows = await db
    .selectFrom("supplier_catalog_items")
    .selectAll()
    .where("store_id", "=", storeId)
    .where("supplier_id", "=", supplierId)
    .where("inventory_item_id", "in", ids)
    .execute();
  for (const row of rows) {
    const itemId = Number(row.inventory_item_id);
    const { effective } = tierSetsOn(row, onDate);
    const tier = effective ? tierFor(effective.tiers, quantityByItem.get(itemId) ?? 1) : null;
    result.set(itemId, {
      inventoryItemId: itemId,
      unitCost: tier && effective ? formatTierPrice(tier.price, effective.currency) : null,
      currency: effective?.currency ?? null,
      supplierSku: row.supplier_sku,
      minOrderQty: row.min_order_qty,
      packSize: row.pack_size,
      packUnit: row.pack_unit,
      isPrimary: row.is_primary,
    });
  }
  return result;
}
