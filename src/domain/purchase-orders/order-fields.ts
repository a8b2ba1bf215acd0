/** An order's input (create and PATCH bodies) and the stored fields it becomes. */
import type { ChargeInput } from "./charges.ts";
import type { LineInput } from "./lines.ts";
import type { MoneySettings } from "./totals.ts";

export interface OrderInput {
  supplier_id?: number;
  number?: string | null;
  currency?: string | null;
  type?: "purchase" | "return";
  return_reason?: string | null;
  return_source_po_id?: number | null;
  location_id?: number | null;
  tax_rate_id?: number | null;
  taxes_included?: boolean;
  charges_taxable?: boolean;
  reference?: string | null;
  customer_order_number?: string | null;
  supplier_order_number?: string | null;
  invoice_number?: string | null;
  account_number?: string | null;
  notes?: string | null;
  expected_at?: string | null;
  payment_due_on?: string | null;
  ship_to_override?: string | null;
  bill_to_override?: string | null;
  ships_to_customer?: boolean;
  updates_stock?: boolean;
  /** Additive to the contract: sets the order's exchange rate with source `manual`; null reverts. */
  exchange_rate?: number | string | null;
  lines?: LineInput[];
  charges?: ChargeInput[];
}

/** Order columns the API sets directly from input fields of the same name. */
export const PLAIN_FIELDS = [
  "return_reason",
  "return_source_po_id",
  "taxes_included",
  "charges_taxable",
  "reference",
  "customer_order_number",
  "supplier_order_number",
  "invoice_number",
  "account_number",
  "notes",
  "expected_at",
  "payment_due_on",
  "ship_to_override",
  "bill_to_override",
  "ships_to_customer",
  "updates_stock",
  "type",
] as const;

/** The order's stored fields (what create writes and PATCH changes). */
export interface OrderFields extends MoneySettings {
  supplier_id: number;
  number: string | null;
  type: "purchase" | "return";
  return_reason: string | null;
  return_source_po_id: number | null;
  location_id: number;
  tax_rate_name: string | null;
  reference: string | null;
  customer_order_number: string | null;
  supplier_order_number: string | null;
  invoice_number: string | null;
  account_number: string | null;
  notes: string | null;
  expected_at: string | null;
  payment_due_on: string | null;
  ship_to_override: string | null;
  bill_to_override: string | null;
  ships_to_customer: boolean;
  updates_stock: boolean;
  exchange_rate: string;
  exchange_rate_base_currency: string;
  exchange_rate_date: string;
  exchange_rate_source: "identity" | "store_rates" | "manual";
}
