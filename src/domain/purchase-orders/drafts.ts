/** Stored lines and charges as the drafts (and charge inputs) a write recomputes them from. */
import Big from "big.js";
import type { ChargeDraft, ChargeInput } from "./charges.ts";
import type { LineDraft } from "./lines.ts";
import type { ChargeRow, LineRow } from "./presenter.ts";

export function lineDraftOf(l: LineRow): LineDraft {
  return {
    id: l.id,
    position: l.position,
    product_title: l.product_title,
    variant_title: l.variant_title,
    sku: l.sku,
    supplier_sku: l.supplier_sku,
    barcode: l.barcode,
    pack_code: l.pack_code,
    inventory_item_id: l.inventory_item_id,
    variant_id: l.variant_id,
    product_id: l.product_id,
    location_id: l.location_id,
    quantity: l.quantity,
    cancelled_quantity: l.cancelled_quantity,
    received_quantity: l.received_quantity,
    unit_cost: l.unit_cost,
    discount_percent: l.discount_percent,
    taxable: l.taxable,
    tax_rate_id: l.tax_rate_id,
    tax_rate_percent: l.tax_rate_percent,
    weight_grams: l.weight_grams,
    supplier_note: l.supplier_note,
    internal_note: l.internal_note,
    warnings: l.warnings ?? [],
    created_at: l.created_at,
  };
}

export function chargeInputOf(c: ChargeRow): ChargeInput {
  return {
    kind: c.kind,
    label: c.label,
    // Stored with 4 places; the input rules allow the currency's minor units only.
    amount: new Big(c.amount).toString(),
    currency: c.currency,
    billed_by_supplier: c.billed_by_supplier,
    allocation_method: c.allocation_method,
    custom_split:
      c.custom_split?.map((e) => ({ position: e.position, amount: new Big(e.amount).toString() })) ?? null,
  };
}

export function chargeDraftOf(c: ChargeRow): ChargeDraft {
  return {
    position: c.position,
    kind: c.kind,
    label: c.label,
    amount: c.amount,
    currency: c.currency,
    rate_to_order_currency: c.rate_to_order_currency,
    billed_by_supplier: c.billed_by_supplier,
    allocation_method: c.allocation_method,
    custom_split: c.custom_split,
  };
}
