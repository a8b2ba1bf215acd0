import type { FastifyRequest } from "fastify";
import { AdminError } from "./admin.ts";
import { idOf, PageNotFound } from "./context.ts";
import { storeApi } from "./store-api.ts";

/**
 * A purchase order as the receiving and payment pages read it from the public API (`GET
 * /v2/purchase_orders/{id}`: lines, receipts and payments in one answer), with the fields they use.
 */

export interface OrderLine {
  id: number;
  position: number;
  product_title: string | null;
  variant_title: string | null;
  sku: string | null;
  supplier_sku: string | null;
  barcode: string | null;
  location_id: number | null;
  quantity: number;
  received_quantity: number;
  cancelled_quantity: number;
  outstanding_quantity: number;
  unit_cost: string;
  discount_percent: number | null;
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

export interface OrderRecord {
  id: number;
  number: string;
  status: string;
  currency: string;
  payment_status: "unpaid" | "partial" | "paid";
  paid_at: string | null;
  supplier: { id: number; name: string };
  location: { id: number; name: string } | null;
  totals: { currency: string; total: string };
  lines: OrderLine[];
  receipts: ReceiptRecord[];
  payments: PaymentRecord[];
}

/** The statuses an order takes deliveries in (a draft was never placed; received and closed are done). */
export const RECEIVABLE = ["ordered", "in_transit", "partial"];

/** The path's order, read as the signed-in user; another store's or a missing one is a 404 page. */
export async function loadOrderRecord(request: FastifyRequest, rawId: unknown): Promise<OrderRecord> {
  try {
    return (await storeApi(request).get<{ data: OrderRecord }>(`/purchase_orders/${idOf(rawId)}`)).data;
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
