import type { Generated } from "kysely";
import type { DateOnly, GeneratedJson, GeneratedTimestamp, Json, Numeric, Timestamp } from "./foundation.ts";

export interface SuppliersTable {
  id: Generated<number>;
  store_id: number;
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
  email_cc: Generated<string[]>;
  currency: string | null;
  location_account_numbers: GeneratedJson<Record<string, string>>;
  lead_time_days: number | null;
  min_order_value: Numeric | null;
  free_freight_threshold: Numeric | null;
  taxable: Generated<boolean>;
  ships_direct: Generated<boolean>;
  auto_restock: Generated<boolean>;
  exclude_from_reorder: Generated<boolean>;
  default_updates_stock: boolean | null;
  address_line1: string | null;
  address_line2: string | null;
  city: string | null;
  province: string | null;
  zip: string | null;
  country: string | null;
  match_vendors: Generated<string[]>;
  match_tags: Generated<string[]>;
  match_exclude_tags: Generated<string[]>;
  dropship_tags: Generated<string[]>;
  archived: Generated<boolean>;
  archived_at: Timestamp | null;
  merged_into_id: number | null;
  /** Linked to a supplier network (admin API); such a supplier cannot be merged away. */
  network_linked: Generated<boolean>;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

/** A price tier as stored: `price` is a decimal string. */
export interface StoredTier {
  min_qty: number;
  price: string;
}

export interface SupplierCatalogItemsTable {
  id: Generated<number>;
  store_id: number;
  supplier_id: number;
  inventory_item_id: number;
  supplier_sku: string | null;
  pack_size: Generated<number>;
  pack_unit: Generated<string>;
  min_order_qty: Generated<number>;
  is_primary: Generated<boolean>;
  source: Generated<string>;
  effective_tiers: Json<StoredTier[]> | null;
  effective_from: DateOnly | null;
  effective_currency: string | null;
  upcoming_tiers: Json<StoredTier[]> | null;
  upcoming_from: DateOnly | null;
  upcoming_currency: string | null;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export interface SuppliersTables {
  suppliers: SuppliersTable;
  supplier_catalog_items: SupplierCatalogItemsTable;
}
