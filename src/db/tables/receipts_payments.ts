import type { Generated } from "kysely";
import type { DateOnly, GeneratedJson, GeneratedTimestamp, Numeric, Timestamp } from "./foundation.ts";
import type { GeneratedNumeric } from "./purchase_orders.ts";

export interface ReceiptsTable {
  id: Generated<number>;
  store_id: number;
  purchase_order_id: number;
  received_at: Timestamp | null;
  voided_at: Timestamp | null;
  source: Generated<string>;
  location_id: number;
  route_to_destinations: Generated<boolean>;
  invoice_reference: string | null;
  invoice_date: DateOnly | null;
  invoice_total: Numeric | null;
  /** Order currency to store currency, as booked. */
  exchange_rate: Numeric;
  rejected_disposition: Generated<"replace" | "remove">;
  note: string | null;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export interface ReceiptLinesTable {
  id: Generated<number>;
  store_id: number;
  receipt_id: number;
  line_id: number;
  /** Where the good units went (the receipt's location, or the line's with route_to_destinations). */
  location_id: number | null;
  quantity: number;
  surplus_quantity: Generated<number>;
  rejected_quantity: Generated<number>;
  rejected: GeneratedJson<Array<{ quantity: number; reason: string | null }>>;
  /** The line's outstanding quantity just before this receipt (what incoming was reduced by). */
  outstanding_before: Generated<number>;
  /** Units this receipt line added to the order line's cancelled_quantity (`rejected_disposition: remove`). */
  cancelled_added: Generated<number>;
  /** The order line was added by this receipt (an `unordered` entry). */
  unordered: Generated<boolean>;
  unit_cost: Numeric;
  landed_unit_cost: Numeric;
  allocated_charge_amount: GeneratedNumeric;
  bin_location: string | null;
  lot_number: string | null;
  lot_expiry: DateOnly | null;
  lot_manufactured: DateOnly | null;
  lot_id: number | null;
  created_at: GeneratedTimestamp;
}

export interface PaymentsTable {
  id: Generated<number>;
  store_id: number;
  purchase_order_id: number;
  amount: Numeric;
  currency: string;
  paid_on: DateOnly;
  method: Generated<string>;
  reference: string | null;
  note: string | null;
  created_at: GeneratedTimestamp;
}

export interface ReceiptsPaymentsTables {
  receipts: ReceiptsTable;
  receipt_lines: ReceiptLinesTable;
  payments: PaymentsTable;
}
