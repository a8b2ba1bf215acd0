/** Stored lines and charges as the drafts (and charge inputs) a write recomputes them from. */
import Big from "big.js";
import type { ChargeDraft, ChargeInput } from "./charges.ts";
import { type LineDraft, lineColumnsOf } from "./lines.ts";
import type { ChargeRow, LineRow } from "./presenter.ts";

export function lineDraftOf(l: LineRow): LineDraft {
  return { id: l.id, ...lineColumnsOf(l), warnings: l.warnings ?? [], created_at: l.created_at };
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
