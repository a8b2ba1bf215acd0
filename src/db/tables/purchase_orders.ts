import type { ColumnType, Generated } from "kysely";
import type { DateOnly, GeneratedJson, GeneratedTimestamp, Json, Numeric, Timestamp } from "./foundation.ts";

/** A `numeric` column with a database default (Generated<Numeric> would nest two ColumnTypes). */
export type GeneratedNumeric = ColumnType<string, string | undefined, string>;

export type PurchaseOrderStatus = "draft" | "ordered" | "in_transit" | "partial" | "received" | "closed";

export interface TaxRatesTable {
  id: Generated<number>;
  store_id: number;
  name: string;
  rate_percent: Numeric;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export interface ExchangeRatesTable {
  store_id: number;
  currency: string;
  rate_to_base: Numeric;
  date: DateOnly;
}

export interface PurchaseOrdersTable {
  id: Generated<number>;
  store_id: number;
  sequential_id: number;
  number: string;
  status: Generated<PurchaseOrderStatus>;
  type: Generated<"purchase" | "return">;
  return_reason: string | null;
  return_source_po_id: number | null;
  archived: Generated<boolean>;
  archived_at: Timestamp | null;
  source: Generated<string>;
  supplier_id: number;
  currency: string;
  exchange_rate: GeneratedNumeric;
  exchange_rate_base_currency: string;
  exchange_rate_date: DateOnly;
  exchange_rate_source: Generated<"store_rates" | "manual" | "identity">;
  reference: string | null;
  customer_order_number: string | null;
  supplier_order_number: string | null;
  invoice_number: string | null;
  account_number: string | null;
  notes: string | null;
  expected_at: DateOnly | null;
  payment_due_on: DateOnly | null;
  payment_status: Generated<"unpaid" | "partial" | "paid">;
  paid_at: Timestamp | null;
  location_id: number;
  updates_stock: Generated<boolean>;
  ships_to_customer: Generated<boolean>;
  ship_to_override: string | null;
  bill_to_override: string | null;
  tax_rate_id: number | null;
  /** Snapshot of the order's tax rate when it was set (the rate row may change or go later). */
  tax_rate_name: string | null;
  tax_rate_percent: GeneratedNumeric;
  taxes_included: Generated<boolean>;
  charges_taxable: Generated<boolean>;
  subtotal: GeneratedNumeric;
  charges_total: GeneratedNumeric;
  tax_total: GeneratedNumeric;
  total: GeneratedNumeric;
  sent_at: Timestamp | null;
  ordered_at: Timestamp | null;
  in_transit_at: Timestamp | null;
  received_at: Timestamp | null;
  closed_at: Timestamp | null;
  /** Day (store timezone) of the last purchase_order.overdue event, so the scan fires once a day. */
  last_overdue_on: DateOnly | null;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export interface PurchaseOrderLinesTable {
  id: Generated<number>;
  store_id: number;
  purchase_order_id: number;
  position: number;
  product_title: string | null;
  variant_title: string | null;
  sku: string | null;
  supplier_sku: string | null;
  barcode: string | null;
  pack_code: string | null;
  inventory_item_id: number | null;
  variant_id: number | null;
  product_id: number | null;
  location_id: number | null;
  quantity: number;
  cancelled_quantity: Generated<number>;
  received_quantity: Generated<number>;
  unit_cost: GeneratedNumeric;
  discount_percent: Numeric | null;
  line_total: GeneratedNumeric;
  tax_amount: GeneratedNumeric;
  taxable: Generated<boolean>;
  tax_rate_id: number | null;
  tax_rate_percent: GeneratedNumeric;
  weight_grams: Generated<number>;
  supplier_note: string | null;
  internal_note: string | null;
  /** Supplier catalog warnings computed when the line was written (additive `warnings` field). */
  warnings: GeneratedJson<LineWarning[]>;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export interface LineWarning {
  code: "below_min_order_qty" | "not_pack_multiple" | "converted_cost" | "no_cost";
  message: string;
  /** The quantity the catalog terms suggest; null on the cost warnings. */
  suggested_quantity: number | null;
}

export interface PurchaseOrderCountersTable {
  store_id: number;
  last_sequential_id: number;
}

export interface PurchaseOrderChargesTable {
  id: Generated<number>;
  store_id: number;
  purchase_order_id: number;
  position: number;
  kind: Generated<"shipping" | "other">;
  label: string | null;
  amount: Numeric;
  currency: string;
  amount_in_order_currency: Numeric;
  /** 1 unit of the charge currency = this many units of the order currency, fixed when written. */
  rate_to_order_currency: GeneratedNumeric;
  tax_amount: GeneratedNumeric;
  billed_by_supplier: Generated<boolean>;
  allocation_method: Generated<"value" | "quantity" | "weight" | "custom" | "none">;
  custom_split: Json<Array<{ position: number; amount: string }>> | null;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export interface PurchaseOrderHistoryTable {
  id: Generated<number>;
  store_id: number;
  purchase_order_id: number;
  type: string;
  at: Timestamp;
  by_name: string;
  via: string | null;
  data: GeneratedJson<Record<string, unknown>>;
}

export interface PurchaseOrdersTables {
  tax_rates: TaxRatesTable;
  exchange_rates: ExchangeRatesTable;
  purchase_order_counters: PurchaseOrderCountersTable;
  purchase_orders: PurchaseOrdersTable;
  purchase_order_lines: PurchaseOrderLinesTable;
  purchase_order_charges: PurchaseOrderChargesTable;
  purchase_order_history: PurchaseOrderHistoryTable;
}
