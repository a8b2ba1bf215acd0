/** What the receipt calls take: the request bodies as the routes validated them, and who calls. */
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import type { Actor } from "../purchase-orders/index.ts";

export interface ReceiptLineBody {
  line_id: number;
  quantity: number;
  rejected?: { quantity: number; reason?: string | null }[];
  unit_cost?: number | string;
  bin_location?: string | null;
  lot_number?: string | null;
  lot_expiry?: string | null;
  lot_manufactured?: string | null;
  lot_id?: number | null;
}

export interface UnorderedBody {
  variant_id?: number;
  inventory_item_id?: number;
  product_title?: string;
  sku?: string | null;
  quantity: number;
  unit_cost?: number | string;
  location_id?: number | null;
}

export interface ReceiptBody {
  location_id?: number;
  received_at?: string;
  note?: string | null;
  invoice_reference?: string | null;
  invoice_total?: number | string | null;
  invoice_date?: string | null;
  exchange_rate?: number;
  route_to_destinations?: boolean;
  rejected_disposition?: "replace" | "remove";
  lines?: ReceiptLineBody[];
  unordered?: UnorderedBody[];
}

export interface StoreRef {
  id: number;
  currency: string;
  timezone: string;
}

export interface ReceiptCall {
  ctx: AppContext;
  trx: Db;
  store: StoreRef;
  actor: Actor;
}
