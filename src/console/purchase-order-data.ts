import type { FastifyRequest } from "fastify";
import { AdminError } from "./admin.ts";
import { idOf, PageNotFound } from "./context.ts";
import { storePath } from "./layout.ts";
import { storeApi } from "./store-api.ts";

/**
 * What the purchase order pages share (the order's page, its lifecycle, receiving and payments): the
 * order as the public API presents it (`GET /v2/purchase_orders/{id}`: lines, charges, receipts and
 * payments in one answer; only the fields the pages show), how a status and a line read to the user,
 * and loading one order as the signed-in user.
 */

export interface OrderLine {
  id: number;
  position: number;
  product_title: string | null;
  variant_title: string | null;
  sku: string | null;
  supplier_sku: string | null;
  barcode: string | null;
  /** The line's own destination; null goes to the order's location. */
  location_id: number | null;
  quantity: number;
  received_quantity: number;
  cancelled_quantity: number;
  outstanding_quantity: number;
  unit_cost: string;
  discount_percent: number | null;
  line_total: string;
}

export interface OrderCharge {
  id: number;
  kind: string;
  label: string | null;
  amount: string;
  currency: string;
  amount_in_order_currency: string;
  tax_amount: string;
}

export interface OrderTotals {
  currency: string;
  subtotal: string;
  charges: string;
  tax: string;
  total: string;
}

export interface ReceiptRecord {
  id: number;
  received_at: string | null;
  voided_at: string | null;
  location: { id: number; name: string } | null;
  invoice: { reference: string | null; date: string | null; total: string | null };
  note: string | null;
  lines: {
    line_id: number;
    quantity: number;
    surplus_quantity: number;
    rejected_quantity: number;
    unit_cost: string;
    landed_unit_cost: string;
  }[];
}

export interface PaymentRecord {
  id: number;
  amount: string;
  currency: string;
  paid_on: string;
  method: string;
  reference: string | null;
  note: string | null;
}

export type OrderStatus = "draft" | "ordered" | "in_transit" | "partial" | "received" | "closed";

export interface Order {
  id: number;
  number: string;
  status: OrderStatus;
  type: "purchase" | "return";
  archived: boolean;
  supplier: { id: number; name: string };
  currency: string;
  payment_status: "unpaid" | "partial" | "paid";
  expected_at: string | null;
  location: { id: number; name: string } | null;
  totals: OrderTotals;
  lines: OrderLine[];
  charges: OrderCharge[];
  platform_sync: { state: string; attempted_at: string | null; error: string | null } | null;
  reference: string | null;
  supplier_order_number: string | null;
  invoice_number: string | null;
  notes: string | null;
  payment_due_on: string | null;
  paid_at: string | null;
  ordered_at: string | null;
  sent_at: string | null;
  in_transit_at: string | null;
  received_at: string | null;
  closed_at: string | null;
  created_at: string;
  updated_at: string;
  receipts: ReceiptRecord[];
  payments: PaymentRecord[];
}

/** The statuses an order takes deliveries in (a draft was never placed; received and closed are done). */
export const RECEIVABLE: readonly string[] = ["ordered", "in_transit", "partial"];

export const ORDER_STATUSES: readonly OrderStatus[] = [
  "draft",
  "ordered",
  "in_transit",
  "partial",
  "received",
  "closed",
];

const STATUS_WORDS: Record<OrderStatus, string> = {
  draft: "Draft",
  ordered: "Ordered",
  in_transit: "In transit",
  partial: "Partly received",
  received: "Received",
  closed: "Closed",
};

export const statusWords = (status: string): string =>
  STATUS_WORDS[status as OrderStatus] ?? status.replace(/_/g, " ");

const PAYMENT_WORDS: Record<string, string> = { unpaid: "Unpaid", partial: "Partly paid", paid: "Paid" };

export const paymentWords = (status: string): string => PAYMENT_WORDS[status] ?? status;

/**
 * Where the order's incoming quantities stand on the store's platform, in words ("synced" is the API's):
 * a failed push says why.
 */
const SYNC_WORDS: Record<string, string> = {
  synced: "Up to date",
  pending: "Waiting to be sent",
  failed: "Failed",
};

/**
 * A record that never had anything to send (a draft moves no stock, an order whose incoming was never
 * pushed) is "synced" with no attempt in the API; "Up to date" would suggest the platform has seen it.
 */
export const syncWords = (sync: {
  state: string;
  error: string | null;
  attempted_at?: string | null;
}): string =>
  sync.state === "synced" && !sync.attempted_at
    ? "Nothing to send yet"
    : `${SYNC_WORDS[sync.state] ?? sync.state}${sync.error ? ` (${sync.error})` : ""}`;

/** A charge's kind in the words the draft editor offers it ("Shipping"), on every page that shows one. */
export const CHARGE_KIND_WORDS = { shipping: "Shipping", other: "Other" } as const;

export const chargeKindWords = (kind: string): string =>
  CHARGE_KIND_WORDS[kind as keyof typeof CHARGE_KIND_WORDS] ?? kind.replace(/_/g, " ");

export const ordersPath = (storeId: number, rest = "") => storePath(storeId, `/purchase_orders${rest}`);

/** The order as the signed-in user may read it; another store's or an unknown one is the 404 page. */
export async function loadOrder(request: FastifyRequest, rawId: unknown): Promise<Order> {
  try {
    return (await storeApi(request).get<{ data: Order }>(`/purchase_orders/${idOf(rawId)}`)).data;
  } catch (error) {
    if (error instanceof AdminError && error.status === 404)
      throw new PageNotFound("This store has no such purchase order.");
    throw error;
  }
}

/** "Blue mug – Large", without the platform's "Default Title". */
export function lineLabel(line: Pick<OrderLine, "product_title" | "variant_title">): string {
  const variant = line.variant_title && line.variant_title !== "Default Title" ? line.variant_title : null;
  return [line.product_title, variant].filter(Boolean).join(" – ") || "Untitled item";
}
