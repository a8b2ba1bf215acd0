import type { Generated } from "kysely";
import type { GeneratedJson, GeneratedTimestamp, Json, Numeric, Timestamp } from "./foundation.ts";

export interface ProductsTable {
  store_id: number;
  id: number;
  title: string;
  handle: string | null;
  vendor: string | null;
  product_type: string | null;
  status: Generated<string>;
  tags: Generated<string[]>;
  options: GeneratedJson<unknown[]>;
  image_url: string | null;
  platform_updated_at: Timestamp | null;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export interface VariantsTable {
  store_id: number;
  id: number;
  product_id: number;
  inventory_item_id: number;
  title: string;
  product_title: string;
  sku: string | null;
  barcode: string | null;
  position: Generated<number>;
  price: Generated<Numeric>;
  compare_at_price: Numeric | null;
  unit_cost: Numeric | null;
  unit_cost_currency: string | null;
  weight_grams: Generated<number>;
  inventory_tracked: Generated<boolean>;
  inventory_policy: Generated<string>;
  taxable: Generated<boolean>;
  image_url: string | null;
  platform_updated_at: Timestamp | null;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export interface LocationsTable {
  store_id: number;
  id: number;
  name: string;
  active: Generated<boolean>;
  /** Hidden by the store's settings: not offered through the API. */
  hidden: Generated<boolean>;
  fulfillment_service: Generated<string>;
  address: GeneratedJson<Record<string, string | null>>;
  platform_updated_at: Timestamp | null;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export interface InventoryLevelsTable {
  store_id: number;
  id: Generated<number>;
  inventory_item_id: number;
  location_id: number;
  available: Generated<number>;
  on_hand: Generated<number>;
  committed: Generated<number>;
  incoming: Generated<number>;
  platform_updated_at: Timestamp | null;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export interface StockMovementsTable {
  id: Generated<number>;
  store_id: number;
  /** The record whose `platform_sync` reports this movement: purchase_order, receipt, stock_adjustment. */
  subject_type: string;
  subject_id: number;
  inventory_item_id: number;
  location_id: number;
  available_delta: Generated<number>;
  on_hand_delta: Generated<number>;
  incoming_delta: Generated<number>;
  /** Item unit cost to set on the platform with this movement (a receipt's landed cost), if any. */
  unit_cost: Numeric | null;
  unit_cost_currency: string | null;
  /** Why stock moved, e.g. `received`, `receipt_voided`, `incoming`, or an adjustment reason. */
  reason: string;
  /** Ledger document reference sent to the platform (e.g. `stockroom://receipts/12`). */
  reference: string | null;
  push_batch_id: number | null;
  pushed_at: Timestamp | null;
  created_at: GeneratedTimestamp;
}

export interface PlatformSyncStatesTable {
  store_id: number;
  subject_type: string;
  subject_id: number;
  state: "pending" | "synced" | "failed";
  attempted_at: Timestamp | null;
  error: string | null;
  updated_at: GeneratedTimestamp;
}

export interface CatalogTables {
  products: ProductsTable;
  variants: VariantsTable;
  locations: LocationsTable;
  inventory_levels: InventoryLevelsTable;
  stock_movements: StockMovementsTable;
  platform_sync_states: PlatformSyncStatesTable;
}
