import type { Generated } from "kysely";
import type { GeneratedTimestamp, Numeric, Timestamp } from "./foundation.ts";

export type StockAdjustmentStatus = "draft" | "applied" | "cancelled";

export interface StockAdjustmentsTable {
  id: Generated<number>;
  store_id: number;
  /** Per-store counter behind `number` (from stores.next_stock_adjustment_number). */
  sequential_id: number;
  /** `<store.stock_adjustment_prefix><4-digit sequential_id>`, e.g. `SA-0001`. */
  number: string;
  status: Generated<StockAdjustmentStatus>;
  source: Generated<string>;
  reason: Generated<string>;
  note: string | null;
  /** Platform location id. */
  location_id: number;
  /** The location's name when last set; shown when the mirror no longer has the location. */
  location_name: string;
  stocktake_id: number | null;
  reversal_of_id: number | null;
  applied_at: Timestamp | null;
  cancelled_at: Timestamp | null;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export interface StockAdjustmentLinesTable {
  id: Generated<number>;
  store_id: number;
  adjustment_id: number;
  /** 1-based order of the line in its adjustment. */
  position: number;
  product_title: string | null;
  variant_title: string | null;
  sku: string | null;
  barcode: string | null;
  inventory_item_id: number;
  variant_id: number;
  /** Signed, never 0. */
  delta: number;
  /** Recorded at apply (the mirror level at that moment; null on drafts and cancelled ones). */
  quantity_before: number | null;
  quantity_after: number | null;
  /** The variant's unit cost from the mirror when the line was written. */
  unit_cost: Numeric | null;
  unit_cost_currency: string | null;
  lot_id: number | null;
  lot_number: string | null;
  lot_units: number | null;
  /** Optional guard: apply refuses when the level is no longer this number. */
  expected_before: number | null;
}

export interface StockAdjustmentsTables {
  stock_adjustments: StockAdjustmentsTable;
  stock_adjustment_lines: StockAdjustmentLinesTable;
}
