/**
 * An order's stored money (line totals and tax, charge conversions and tax, order totals), computed by
 * order-totals.ts from the order's settings, lines and charges.
 */
import Big from "big.js";
import type { Db } from "../../db/database.ts";
import { computeOrderTotals, type OrderTotals } from "../order-totals.ts";
import { refreshPaymentStatus } from "./payment-status.ts";
import { orderCharges, orderLines, updateChargeMoney, updateLineMoney } from "./repository.ts";

export interface MoneySettings {
  currency: string;
  taxes_included: boolean;
  charges_taxable: boolean;
  /** The order's tax rate (null: no rate, 0 %). */
  tax_rate_id: number | null;
  tax_rate_percent: string;
}

export interface MoneyLine {
  quantity: number;
  unit_cost: string;
  discount_percent: string | null;
  taxable: boolean;
  /** The line's own rate id; null takes the order's. */
  tax_rate_id: number | null;
  /** The line's own rate (used only when tax_rate_id is set). */
  tax_rate_percent: string;
}

export interface MoneyCharge {
  amount: string;
  currency: string;
  rate_to_order_currency: string;
}

export interface ComputedMoney {
  totals: OrderTotals;
  /** Per line: line_total, tax_amount and the effective rate to store on the line. */
  lines: { line_total: string; tax_amount: string; tax_rate_percent: string }[];
  charges: { amount_in_order_currency: string; tax_amount: string }[];
  order: { subtotal: string; charges_total: string; tax_total: string; total: string };
}

export function effectiveLineRate(settings: MoneySettings, line: MoneyLine): string {
  if (line.tax_rate_id !== null) return line.tax_rate_percent;
  return settings.tax_rate_id !== null ? settings.tax_rate_percent : "0";
}

export function computeMoney(
  settings: MoneySettings,
  lines: readonly MoneyLine[],
  charges: readonly MoneyCharge[],
): ComputedMoney {
  const totals = computeOrderTotals({
    currency: settings.currency,
    taxesIncluded: settings.taxes_included,
    chargesTaxable: settings.charges_taxable,
    orderTaxRatePercent: settings.tax_rate_id !== null ? settings.tax_rate_percent : null,
    lines: lines.map((l) => ({
      quantity: l.quantity,
      unitCost: new Big(l.unit_cost),
      discountPercent: l.discount_percent === null ? null : new Big(l.discount_percent),
      taxable: l.taxable,
      taxRatePercent: new Big(effectiveLineRate(settings, l)),
    })),
    charges: charges.map((c) => ({
      amount: new Big(c.amount),
      currency: c.currency,
      rateToOrderCurrency: new Big(c.rate_to_order_currency),
    })),
  });
  return {
    totals,
    lines: totals.lines.map((l, i) => ({
      line_total: l.lineTotal.toString(),
      tax_amount: l.taxAmount.toString(),
      tax_rate_percent: effectiveLineRate(settings, lines[i]),
    })),
    charges: totals.charges.map((c) => ({
      amount_in_order_currency: c.amountInOrderCurrency.toString(),
      tax_amount: c.taxAmount.toString(),
    })),
    order: {
      subtotal: totals.subtotal.toString(),
      charges_total: totals.chargesTotal.toString(),
      tax_total: totals.tax.toString(),
      total: totals.total.toString(),
    },
  };
}

/**
 * Recomputes and stores the money of an order from its rows (after lines were added or changed
 * outside the order service, e.g. unordered lines of a receipt), then refreshes payment_status.
 * Only rows whose amounts changed are written, each table in one statement.
 */
export async function recomputeTotals(trx: Db, storeId: number, orderId: number): Promise<void> {
  const [order, lines, charges] = await Promise.all([
    trx
      .selectFrom("purchase_orders")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("id", "=", orderId)
      .executeTakeFirstOrThrow(),
    orderLines(trx, storeId, orderId),
    orderCharges(trx, storeId, orderId),
  ]);
  const money = computeMoney(order, lines, charges);
  await updateLineMoney(trx, storeId, lines, money.lines);
  await updateChargeMoney(trx, storeId, charges, money.charges);
  await trx
    .updateTable("purchase_orders")
    .set(money.order)
    .where("store_id", "=", storeId)
    .where("id", "=", orderId)
    .execute();
  await refreshPaymentStatus(trx, storeId, orderId);
}
