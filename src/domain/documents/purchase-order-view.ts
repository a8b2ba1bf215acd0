/**
 * What the purchase order PDF is rendered from.
 *
 * The order part mirrors the contract's PurchaseOrder JSON exactly as the presenter returns it
 * (snake_case, money as decimal strings, `null` for "no value"), so the route can pass the
 * presenter output straight in. Every type here is structural and read-only and lists only the
 * fields the document prints: a full PurchaseOrder, Supplier or store record is assignable as is,
 * and extra fields are ignored. String fields the contract types as plain strings are widened to
 * `string | null` so that sparse records (custom lines, suppliers without an address) fit too.
 */

/** A decimal string such as "1234.50" or "0.12345678" (never a float). */
export type DecimalString = string;

/** A postal address; every part optional, printed in this order when present. */
export interface AddressView {
  readonly name?: string | null;
  readonly company?: string | null;
  readonly line1?: string | null;
  readonly line2?: string | null;
  readonly city?: string | null;
  readonly province?: string | null;
  readonly province_code?: string | null;
  readonly zip?: string | null;
  readonly country?: string | null;
  /** ISO 3166-1 alpha-2 when known (platform locations); picks the country's address format. */
  readonly country_code?: string | null;
  readonly phone?: string | null;
  /** The order's typed ship-to override, printed as its lines instead of the parts. */
  readonly text?: string | null;
}

export interface PurchaseOrderLineView {
  readonly position?: number;
  readonly sku: string | null;
  readonly supplier_sku: string | null;
  readonly product_title: string | null;
  readonly variant_title: string | null;
  readonly quantity: number;
  readonly cancelled_quantity?: number;
  readonly received_quantity: number;
  readonly outstanding_quantity: number;
  readonly unit_cost: DecimalString;
  readonly discount_percent: number | null;
  readonly line_total: DecimalString;
  /** A note meant for the supplier; printed under the titles. */
  readonly supplier_note?: string | null;
}

export interface PurchaseOrderChargeView {
  readonly kind: string;
  readonly label: string | null;
  readonly amount: DecimalString;
  readonly currency: string;
  /** The charge converted into the order currency; what the totals add up. */
  readonly amount_in_order_currency: DecimalString;
}

export interface PurchaseOrderTotalsView {
  readonly currency: string;
  readonly subtotal: DecimalString;
  readonly charges: DecimalString;
  readonly tax: DecimalString;
  readonly total: DecimalString;
}

export interface PurchaseOrderTaxView {
  readonly name: string | null;
  readonly rate_percent: number;
  readonly taxes_included?: boolean;
}

/** The ordering store: printed as the buyer block and, by default, as bill-to. */
export interface StoreView {
  readonly name: string;
  readonly domain?: string | null;
  /** Postal address, one printed line per entry. */
  readonly address_lines?: readonly string[] | null;
  readonly email?: string | null;
  readonly phone?: string | null;
  /** IANA zone used to print timestamps (ordered_at) as dates; UTC when absent. */
  readonly timezone?: string | null;
}

/** The supplier record (contract Supplier shape, the fields the document prints). */
export interface SupplierView {
  readonly name: string;
  readonly company_name: string | null;
  readonly contact_name: string | null;
  readonly email: string | null;
  readonly phone: string | null;
  readonly account_number?: string | null;
  readonly address: {
    readonly line1: string | null;
    readonly line2: string | null;
    readonly city: string | null;
    readonly province: string | null;
    readonly zip: string | null;
    readonly country: string | null;
  } | null;
}

/** The order itself: the contract's PurchaseOrder, minus what the document never prints. */
export interface PurchaseOrderView {
  readonly number: string;
  readonly status: string;
  readonly type?: string;
  readonly currency?: string;
  readonly reference?: string | null;
  readonly supplier_order_number?: string | null;
  readonly account_number?: string | null;
  readonly notes: string | null;
  /** Date (YYYY-MM-DD). */
  readonly expected_at: string | null;
  /** Date (YYYY-MM-DD). */
  readonly payment_due_on?: string | null;
  /** Timestamps (ISO 8601 UTC). */
  readonly ordered_at: string | null;
  readonly created_at: string;
  readonly updated_at?: string;
  readonly location: { readonly id: number; readonly name: string } | null;
  /** Shape not fixed by the contract: an address object, free text, or null (then the location is used). */
  readonly ship_to_address: AddressView | string | null;
  readonly tax: PurchaseOrderTaxView | null;
  readonly totals: PurchaseOrderTotalsView;
  readonly lines: readonly PurchaseOrderLineView[];
  readonly charges: readonly PurchaseOrderChargeView[];
}

/**
 * Everything one rendering needs: the order as the API returns it, plus the store and the full
 * supplier record (replacing the order's `{id, name}` supplier reference) and the bill-to text the
 * caller chose (e.g. the order's bill_to_override); `null` prints the store's name and address.
 */
export type PurchaseOrderDocument = PurchaseOrderView & {
  readonly store: StoreView;
  readonly supplier: SupplierView;
  readonly bill_to: string | null;
};
