import type { ColumnType, Generated } from "kysely";
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
  /** Deleted on the platform (the row stays: orders and history refer to it). */
  deleted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
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
  /** numeric with a default: read as a decimal string. */
  price: ColumnType<string, string | undefined, string>;
  compare_at_price: Numeric | null;
  unit_cost: Numeric | null;
  unit_cost_currency: string | null;
  /**
   * The platform's updatedAt of the item when `unit_cost` was read or set, and when (service clock)
   * that read began or the setting push was answered; null: not known (migration 049).
   */
  unit_cost_version: ColumnType<Date | null, Date | null | undefined, Date | null>;
  unit_cost_read_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  weight_grams: Generated<number>;
  inventory_tracked: Generated<boolean>;
  inventory_policy: Generated<string>;
  taxable: Generated<boolean>;
  image_url: string | null;
  platform_updated_at: Timestamp | null;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
  /** Deleted on the platform (the row stays: orders, receipts and price lists refer to it). */
  deleted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
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
  /** When the mirror found it gone from the platform's list (deleted there; migration 045). */
  deleted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
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
  /**
   * The level as the platform last reported it (sync or push answer), and that report's version.
   * The visible columns above = these + the deltas of this store's movements not yet acknowledged.
   */
  platform_available: Generated<number>;
  platform_on_hand: Generated<number>;
  platform_committed: Generated<number>;
  platform_incoming: Generated<number>;
  platform_version: number | null;
  /** When our read of that report was taken: orders reports of one version (migration 038). */
  platform_read_at: Timestamp | null;
  /**
   * The newest report not adopted because a push of the level was in flight (it may hold that push's
   * change or not); adopted when none is. Null version: none kept (migration 037).
   */
  reported_available: number | null;
  reported_on_hand: number | null;
  reported_committed: number | null;
  reported_incoming: number | null;
  reported_version: number | null;
  reported_updated_at: Timestamp | null;
  reported_read_at: Timestamp | null;
  /**
   * How many of the store's movements at the level the platform has not acknowledged (migration 040):
   * zero after an acknowledgement means no other push of the level is in flight.
   */
  unacknowledged: Generated<number>;
  /** When the platform dropped the level (no longer stocked there); null while it has it (migration 043). */
  dropped_at: Timestamp | null;
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
  pushed_at: Timestamp | null;
  /**
   * Committed before a push sent it alone (not in a batch): with `pushed_at` null, in flight
   * (migration 037). A batched movement's mark is `push_batch_movements.in_flight` (migration 039).
   */
  push_sent_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /**
   * When it was first sent in its record's own document: the platform may hold it under that
   * document's key, so it never goes in a batch (migration 042). Kept when the job fails for good
   * (push_sent_at comes off then); off only when that document certainly moved nothing.
   */
  push_key_sent_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Acknowledged without reaching the platform: it no longer has the item (migration 021). */
  push_skipped_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: GeneratedTimestamp;
}

/** A movement put in a push batch and not acknowledged yet (migration 039). */
export interface PushBatchMovementsTable {
  movement_id: number;
  store_id: number;
  batch_id: number;
  /** Sent and not acknowledged: its level adopts no report meanwhile. */
  in_flight: boolean;
  /** The movement's level, so the marks in flight are found by level (migration 046). */
  inventory_item_id: number;
  location_id: number;
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

export interface MirrorSyncStatesTable {
  store_id: number;
  /** The connector's opaque watermark: changes after it are still to be pulled. */
  watermark: string | null;
  /** Counts the commits of the mirror's state: a sync batch applies only if it is still as read. */
  generation: Generated<number>;
  synced_at: Timestamp | null;
  last_error: string | null;
  updated_at: GeneratedTimestamp;
}

export interface AlertSettingsTable {
  store_id: number;
  low_stock_threshold: number | null;
  updated_at: GeneratedTimestamp;
}

export interface AlertItemRulesTable {
  id: Generated<number>;
  store_id: number;
  inventory_item_id: number;
  location_id: number | null;
  reorder_point: number | null;
  max_stock: number | null;
}

// ---- The simulated platform ("platform side") ----

export interface SimStoresTable {
  store_id: number;
  change_seq: Generated<number>;
  fault_mode: Generated<"ok" | "down" | "reject">;
  fault_remaining: number | null;
  created_at: GeneratedTimestamp;
}

export interface SimLocationsTable {
  store_id: number;
  id: number;
  name: string;
  active: Generated<boolean>;
  fulfillment_service: Generated<string>;
  address: GeneratedJson<Record<string, string | null>>;
  change_seq: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SimProductsTable {
  store_id: number;
  id: number;
  title: string;
  handle: string;
  vendor: string | null;
  product_type: string | null;
  status: Generated<string>;
  tags: Generated<string[]>;
  options: GeneratedJson<unknown[]>;
  image_url: string | null;
  change_seq: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SimVariantsTable {
  store_id: number;
  id: number;
  product_id: number;
  inventory_item_id: number;
  title: string;
  sku: string | null;
  barcode: string | null;
  position: number;
  price: Numeric;
  compare_at_price: Numeric | null;
  weight_grams: Generated<number>;
  inventory_policy: Generated<string>;
  taxable: Generated<boolean>;
  image_url: string | null;
  tracked: Generated<boolean>;
  unit_cost: Numeric | null;
  unit_cost_currency: string | null;
  change_seq: number;
  /** Change number of the item's last unit cost set by a push (null: never set that way). */
  cost_seq: Generated<number | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SimInventoryLevelsTable {
  store_id: number;
  inventory_item_id: number;
  location_id: number;
  available: Generated<number>;
  on_hand: Generated<number>;
  committed: Generated<number>;
  incoming: Generated<number>;
  change_seq: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SimPushKeysTable {
  store_id: number;
  key: string;
  result: Json<unknown>;
  created_at: Timestamp;
}

export interface CatalogTables {
  products: ProductsTable;
  variants: VariantsTable;
  locations: LocationsTable;
  inventory_levels: InventoryLevelsTable;
  stock_movements: StockMovementsTable;
  push_batch_movements: PushBatchMovementsTable;
  platform_sync_states: PlatformSyncStatesTable;
  mirror_sync_states: MirrorSyncStatesTable;
  alert_settings: AlertSettingsTable;
  alert_item_rules: AlertItemRulesTable;
  sim_stores: SimStoresTable;
  sim_locations: SimLocationsTable;
  sim_products: SimProductsTable;
  sim_variants: SimVariantsTable;
  sim_inventory_levels: SimInventoryLevelsTable;
  sim_push_keys: SimPushKeysTable;
}
