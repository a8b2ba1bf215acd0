/**
 * The only list of fields a purchase order, its lines and charges, a receipt and a payment show
 * (contract shapes; additive fields marked). Pure: rows in, plain objects out.
 */
import type { Selectable } from "kysely";
import type {
  LineWarning,
  PurchaseOrderChargesTable,
  PurchaseOrderLinesTable,
  PurchaseOrdersTable,
} from "../../db/tables/purchase_orders.ts";
import type { PaymentsTable, ReceiptLinesTable, ReceiptsTable } from "../../db/tables/receipts_payments.ts";
import { moneyText, unitCostText } from "../money.ts";
import type { SyncState } from "../stock/index.ts";
import { outstandingOf } from "./transitions.ts";

export type OrderRow = Selectable<PurchaseOrdersTable>;
export type LineRow = Selectable<PurchaseOrderLinesTable>;
export type ChargeRow = Selectable<PurchaseOrderChargesTable>;
export type ReceiptRow = Selectable<ReceiptsTable>;
/** What a receipt line's presentation (and the order's receiving history) reads of its row. */
export type ReceiptLineRow = Pick<
  Selectable<ReceiptLinesTable>,
  | "id"
  | "receipt_id"
  | "line_id"
  | "quantity"
  | "surplus_quantity"
  | "rejected_quantity"
  | "unit_cost"
  | "landed_unit_cost"
  | "allocated_charge_amount"
  | "unordered"
>;

/** The receipt_lines columns of a ReceiptLineRow, for queries. */
export const RECEIPT_LINE_COLUMNS = [
  "id",
  "receipt_id",
  "line_id",
  "quantity",
  "surplus_quantity",
  "rejected_quantity",
  "unit_cost",
  "landed_unit_cost",
  "allocated_charge_amount",
  "unordered",
] as const satisfies ReadonlyArray<keyof ReceiptLineRow>;
export type PaymentRow = Selectable<PaymentsTable>;

export type LocationAddress = Record<string, string | null>;

/** An order row with what its presenter needs from other tables (supplier name, location). */
export interface OrderRecord extends OrderRow {
  supplier_name: string | null;
  location_name: string | null;
  location_address: LocationAddress | null;
}

export interface LocationRef {
  id: number;
  name: string;
}

export function locationRef(id: number, name: string | null | undefined): LocationRef {
  return { id, name: name ?? `Location ${id}` };
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
const num = (v: string | null): number | null => (v === null ? null : Number(v));

export function presentLine(line: LineRow, currency: string) {
  return {
    id: line.id,
    position: line.position,
    product_title: line.product_title,
    variant_title: line.variant_title,
    sku: line.sku,
    supplier_sku: line.supplier_sku,
    barcode: line.barcode,
    pack_code: line.pack_code,
    inventory_item_id: line.inventory_item_id,
    variant_id: line.variant_id,
    product_id: line.product_id,
    location_id: line.location_id,
    quantity: line.quantity,
    cancelled_quantity: line.cancelled_quantity,
    received_quantity: line.received_quantity,
    outstanding_quantity: outstandingOf(line),
    unit_cost: unitCostText(line.unit_cost, currency),
    discount_percent: num(line.discount_percent),
    line_total: moneyText(line.line_total, currency),
    taxable: line.taxable,
    // The rate that applies: 0 on a line that is not taxable.
    tax_rate_percent: line.taxable ? Number(line.tax_rate_percent) : 0,
    weight_grams: line.weight_grams,
    supplier_note: line.supplier_note,
    internal_note: line.internal_note,
    // additive
    tax_rate_id: line.tax_rate_id,
    tax_amount: moneyText(line.tax_amount, currency),
    warnings: (line.warnings ?? []).map((w: LineWarning) => ({
      code: w.code,
      message: w.message,
      suggested_quantity: w.suggested_quantity,
    })),
  };
}

export function presentCharge(charge: ChargeRow, orderCurrency: string) {
  return {
    id: charge.id,
    kind: charge.kind,
    label: charge.label,
    amount: moneyText(charge.amount, charge.currency),
    currency: charge.currency,
    amount_in_order_currency: moneyText(charge.amount_in_order_currency, orderCurrency),
    tax_amount: moneyText(charge.tax_amount, orderCurrency),
    billed_by_supplier: charge.billed_by_supplier,
    allocation_method: charge.allocation_method,
    // additive
    position: charge.position,
    custom_split: charge.custom_split
      ? charge.custom_split.map((s) => ({
          position: s.position,
          amount: moneyText(s.amount, charge.currency),
        }))
      : null,
  };
}

function shipToAddress(order: OrderRecord) {
  if (order.ship_to_override !== null) {
    return {
      name: null,
      text: order.ship_to_override,
      line1: null,
      line2: null,
      city: null,
      province_code: null,
      zip: null,
      country: null,
      country_code: null,
      phone: null,
    };
  }
  const a = order.location_address;
  if (!a) return null;
  const pick = (k: string) => (typeof a[k] === "string" ? (a[k] as string) : null);
  return {
    name: order.location_name,
    text: null,
    line1: pick("line1"),
    line2: pick("line2"),
    city: pick("city"),
    province_code: pick("province_code"),
    zip: pick("zip"),
    country: pick("country"),
    country_code: pick("country_code"),
    phone: pick("phone"),
  };
}

/** PurchaseOrderSummary: the list row (everything but receipts and payments). */
export function presentPurchaseOrderSummary(
  order: OrderRecord,
  lines: readonly LineRow[],
  charges: readonly ChargeRow[],
  sync: SyncState,
) {
  const currency = order.currency;
  return {
    id: order.id,
    sequential_id: order.sequential_id,
    number: order.number,
    status: order.status,
    type: order.type,
    archived: order.archived,
    archived_at: iso(order.archived_at),
    source: order.source,
    supplier: { id: order.supplier_id, name: order.supplier_name ?? "" },
    supplier_id: order.supplier_id,
    currency,
    exchange_rate: {
      rate: Number(order.exchange_rate),
      base_currency: order.exchange_rate_base_currency,
      date: order.exchange_rate_date,
      source: order.exchange_rate_source,
    },
    reference: order.reference,
    customer_order_number: order.customer_order_number,
    supplier_order_number: order.supplier_order_number,
    invoice_number: order.invoice_number,
    account_number: order.account_number,
    notes: order.notes,
    expected_at: order.expected_at,
    payment_due_on: order.payment_due_on,
    payment_status: order.payment_status,
    paid_at: iso(order.paid_at),
    location: locationRef(order.location_id, order.location_name),
    updates_stock: order.updates_stock,
    ships_to_customer: order.ships_to_customer,
    ship_to_address: shipToAddress(order),
    tax: {
      rate_id: order.tax_rate_id,
      name: order.tax_rate_name,
      rate_percent: Number(order.tax_rate_percent),
      taxes_included: order.taxes_included,
      charges_taxable: order.charges_taxable,
    },
    totals: {
      currency,
      subtotal: moneyText(order.subtotal, currency),
      charges: moneyText(order.charges_total, currency),
      tax: moneyText(order.tax_total, currency),
      total: moneyText(order.total, currency),
    },
    lines: lines.map((l) => presentLine(l, currency)),
    charges: charges.map((c) => presentCharge(c, currency)),
    platform_sync: sync,
    sent_at: iso(order.sent_at),
    ordered_at: iso(order.ordered_at),
    in_transit_at: iso(order.in_transit_at),
    received_at: iso(order.received_at),
    closed_at: iso(order.closed_at),
    created_at: order.created_at.toISOString(),
    updated_at: order.updated_at.toISOString(),
    // additive
    return_reason: order.return_reason,
    return_source_po_id: order.return_source_po_id,
    ship_to_override: order.ship_to_override,
    bill_to_override: order.bill_to_override,
  };
}

export type PurchaseOrderSummary = ReturnType<typeof presentPurchaseOrderSummary>;

export interface ReceiptPresentExtra {
  /** The order's currency (invoice total, booked unit costs, allocated charges). */
  currency: string;
  /** The store currency (landed unit costs). */
  storeCurrency: string;
  /** Name of the receipt's location in the mirror (null when unknown). */
  locationName: string | null;
}

export function presentReceiptLine(line: ReceiptLineRow, extra: ReceiptPresentExtra) {
  return {
    id: line.id,
    line_id: line.line_id,
    quantity: line.quantity,
    surplus_quantity: line.surplus_quantity,
    rejected_quantity: line.rejected_quantity,
    unit_cost: unitCostText(line.unit_cost, extra.currency),
    landed_unit_cost: unitCostText(line.landed_unit_cost, extra.storeCurrency),
    allocated_charge_amount: moneyText(String(line.allocated_charge_amount), extra.currency),
  };
}

/** Receipt, exactly the contract's shape. `lines` are this receipt's rows (any order; sorted by id). */
export function presentReceipt(
  row: ReceiptRow,
  lines: readonly ReceiptLineRow[],
  sync: SyncState,
  extra: ReceiptPresentExtra,
) {
  return {
    id: row.id,
    purchase_order_id: row.purchase_order_id,
    received_at: iso(row.received_at),
    voided_at: iso(row.voided_at),
    source: row.source,
    location: locationRef(row.location_id, extra.locationName),
    invoice: {
      reference: row.invoice_reference,
      date: row.invoice_date,
      total: row.invoice_total === null ? null : moneyText(String(row.invoice_total), extra.currency),
    },
    exchange_rate: Number(row.exchange_rate),
    rejected_disposition: row.rejected_disposition,
    note: row.note,
    lines: [...lines].sort((a, b) => a.id - b.id).map((l) => presentReceiptLine(l, extra)),
    platform_sync: sync,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export type PresentedReceipt = ReturnType<typeof presentReceipt>;

export function presentPayment(row: PaymentRow) {
  return {
    id: row.id,
    amount: moneyText(row.amount, row.currency),
    currency: row.currency,
    paid_on: row.paid_on,
    method: row.method,
    reference: row.reference,
    note: row.note,
    created_at: row.created_at.toISOString(),
  };
}

export type PresentedPayment = ReturnType<typeof presentPayment>;

/** PurchaseOrder: the summary plus receipts (oldest first) and payments (oldest first). */
export function presentPurchaseOrder(parts: {
  order: OrderRecord;
  lines: readonly LineRow[];
  charges: readonly ChargeRow[];
  sync: SyncState;
  receipts: readonly PresentedReceipt[];
  payments: readonly PaymentRow[];
}) {
  return {
    ...presentPurchaseOrderSummary(parts.order, parts.lines, parts.charges, parts.sync),
    receipts: [...parts.receipts],
    payments: parts.payments.map(presentPayment),
  };
}

export type PurchaseOrder = ReturnType<typeof presentPurchaseOrder>;
