import Big from "big.js";
import type { Selectable } from "kysely";
import type { SuppliersTable } from "../../db/tables/suppliers.ts";
import { formatMoney, isKnownCurrency, roundHalfUp } from "../money.ts";
import { type CatalogRow, formatTierPrice, lowestTier, type TierSet, tierSetsOn } from "./pricing.ts";

export type SupplierRow = Selectable<SuppliersTable>;

export interface SupplierView {
  id: number;
  name: string;
  company_name: string | null;
  type: string | null;
  contact_name: string | null;
  phone: string | null;
  account_number: string | null;
  payment_terms: string | null;
  notes: string | null;
  bill_to_address: string | null;
  email: string | null;
  email_cc: string[];
  currency: string | null;
  location_account_numbers: Record<string, string>;
  lead_time_days: number | null;
  min_order_value: string | null;
  free_freight_threshold: string | null;
  taxable: boolean;
  ships_direct: boolean;
  auto_restock: boolean;
  exclude_from_reorder: boolean;
  default_updates_stock: boolean | null;
  address: {
    line1: string | null;
    line2: string | null;
    city: string | null;
    province: string | null;
    zip: string | null;
    country: string | null;
  };
  match_vendors: string[];
  match_tags: string[];
  match_exclude_tags: string[];
  dropship_tags: string[];
  archived: boolean;
  archived_at: string | null;
  merged_into_id: number | null;
  created_at: string;
  updated_at: string;
}

/**
 * Supplier money (min_order_value, free_freight_threshold): exactly the minor units of the supplier's
 * currency ("250.00", JPY "250"); two places when the supplier has no currency.
 */
export function formatSupplierMoney(value: string | null, currency: string | null): string | null {
  if (value === null) return null;
  const amount = new Big(value);
  if (currency && isKnownCurrency(currency)) return formatMoney(amount, currency);
  return roundHalfUp(amount, 2).toFixed(2, 1);
}

/** The contract's Supplier, as GET /suppliers/{id} returns it and as supplier.* events carry it. */
export function presentSupplier(row: SupplierRow): SupplierView {
  return {
    id: row.id,
    name: row.name,
    company_name: row.company_name,
    type: row.type,
    contact_name: row.contact_name,
    phone: row.phone,
    account_number: row.account_number,
    payment_terms: row.payment_terms,
    notes: row.notes,
    bill_to_address: row.bill_to_address,
    email: row.email,
    email_cc: row.email_cc ?? [],
    currency: row.currency,
    location_account_numbers: row.location_account_numbers ?? {},
    lead_time_days: row.lead_time_days,
    min_order_value: formatSupplierMoney(row.min_order_value, row.currency),
    free_freight_threshold: formatSupplierMoney(row.free_freight_threshold, row.currency),
    taxable: row.taxable,
    ships_direct: row.ships_direct,
    auto_restock: row.auto_restock,
    exclude_from_reorder: row.exclude_from_reorder,
    default_updates_stock: row.default_updates_stock,
    address: {
      line1: row.address_line1,
      line2: row.address_line2,
      city: row.city,
      province: row.province,
      zip: row.zip,
      country: row.country,
    },
    match_vendors: row.match_vendors ?? [],
    match_tags: row.match_tags ?? [],
    match_exclude_tags: row.match_exclude_tags ?? [],
    dropship_tags: row.dropship_tags ?? [],
    archived: row.archived,
    archived_at: row.archived_at ? row.archived_at.toISOString() : null,
    merged_into_id: row.merged_into_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export interface PriceTierSetView {
  currency: string;
  effective_from: string | null;
  source: string;
  tiers: Array<{ min_qty: number; price: string }>;
}

export interface SupplierCatalogRowView {
  inventory_item_id: number;
  supplier_sku: string | null;
  pack_size: number;
  pack_unit: string;
  min_order_qty: number;
  is_primary: boolean;
  source: string;
  price: string | null;
  price_currency: string | null;
  price_list: { effective: PriceTierSetView | null; upcoming: PriceTierSetView | null };
  created_at: string;
  updated_at: string;
}

function presentTierSet(set: TierSet | null, source: string): PriceTierSetView | null {
  if (!set) return null;
  return {
    currency: set.currency,
    effective_from: set.effectiveFrom,
    source,
    tiers: set.tiers.map((t) => ({ min_qty: t.min_qty, price: formatTierPrice(t.price, set.currency) })),
  };
}

/**
 * The contract's SupplierCatalogRow as it stands on `today` (the store's date): an upcoming set whose
 * date has come is shown as the effective one. `price` is the lowest-min_qty tier of the effective set;
 * `price` and `price_currency` are null when no tier set is in force.
 */
export function presentCatalogRow(row: CatalogRow, today: string): SupplierCatalogRowView {
  const sets = tierSetsOn(row, today);
  const headline = sets.effective ? lowestTier(sets.effective.tiers) : null;
  return {
    inventory_item_id: Number(row.inventory_item_id),
    supplier_sku: row.supplier_sku,
    pack_size: row.pack_size,
    pack_unit: row.pack_unit,
    min_order_qty: row.min_order_qty,
    is_primary: row.is_primary,
    source: row.source,
    price: headline && sets.effective ? formatTierPrice(headline.price, sets.effective.currency) : null,
    price_currency: headline && sets.effective ? sets.effective.currency : null,
    price_list: {
      effective: presentTierSet(sets.effective, row.source),
      upcoming: presentTierSet(sets.upcoming, row.source),
    },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
