/**
 * A purchase order's money (docs/decisions.md, "Money"): line totals, charges in the order currency, tax and
 * totals. Pure: no I/O, no validation of business rules beyond what keeps the arithmetic meaningful.
 */
import Big from "big.js";
import { divideRoundHalfUp, formatMoney, minorUnits, roundMoney, sumMoney } from "./money.ts";

const ZERO = new Big("0");
const HUNDRED = new Big("100");

export interface OrderLineMoneyInput {
  /** Ordered units (an integer). */
  quantity: number;
  /** Unit cost before discount, in the order currency, up to 8 places. */
  unitCost: Big;
  /** 0–100, or null for no discount. */
  discountPercent: Big | null;
  taxable: boolean;
  /** The line's own rate; null takes the order's rate (and a null order rate means 0). */
  taxRatePercent: Big | null;
}

export interface OrderChargeMoneyInput {
  /** Amount in the charge's own currency. */
  amount: Big;
  currency: string;
  /** 1 unit of the charge currency = this many units of the order currency (1 when the same). */
  rateToOrderCurrency: Big;
  /** Overrides the order's rate for this charge when given (only used when charges are taxable). */
  taxRatePercent?: Big | null;
}

export interface OrderMoneyInput {
  currency: string;
  taxesIncluded: boolean;
  chargesTaxable: boolean;
  orderTaxRatePercent: string | Big | null;
  lines: readonly OrderLineMoneyInput[];
  charges: readonly OrderChargeMoneyInput[];
}

export interface OrderTotals {
  lines: { lineTotal: Big; taxAmount: Big }[];
  charges: { amountInOrderCurrency: Big; taxAmount: Big }[];
  /** Sum of line totals. */
  subtotal: Big;
  /** Sum of charges in the order currency. */
  chargesTotal: Big;
  /** Sum of the per-line and per-charge tax amounts. */
  tax: Big;
  /** subtotal + charges (+ tax unless taxes are included in the amounts). */
  total: Big;
}

/**
 * line_total = round(quantity × unit_cost × (1 − discount/100)), half-up to the currency.
 * Computed as quantity × unit_cost × (100 − discount) / 100 so the only rounding is the final one.
 */
export function lineTotal(
  quantity: number,
  unitCost: Big,
  discountPercent: Big | null,
  currency: string,
): Big {
  if (!Number.isSafeInteger(quantity)) throw new RangeError("quantity must be an integer");
  const keptPercent = HUNDRED.minus(discountPercent ?? ZERO);
  const gross = unitCost.times(String(quantity)).times(keptPercent);
  return divideRoundHalfUp(gross, HUNDRED, minorUnits(currency));
}

/**
 * Tax on one amount at `ratePercent`, rounded to the currency.
 * Taxes included: the amount already holds the tax, so it is extracted as amount × r / (100 + r).
 * Taxes excluded: tax is added on top as amount × r / 100.
 */
export function taxOn(amount: Big, ratePercent: Big, taxesIncluded: boolean, currency: string): Big {
  if (ratePercent.eq(ZERO)) return ZERO;
  const places = minorUnits(currency);
  const denominator = taxesIncluded ? HUNDRED.plus(ratePercent) : HUNDRED;
  return divideRoundHalfUp(amount.times(ratePercent), denominator, places);
}

/**
 * Computes every amount of an order, all at the currency's minor units.
 *
 * Rounding choice: tax is rounded per line and per charge, then summed. The order's tax is therefore
 * exactly the sum of the tax amounts shown on its lines and charges (what an invoice lists), at the
 * cost of possibly differing by a few minor units from tax computed once on the grand total.
 */
export function computeOrderTotals(input: OrderMoneyInput): OrderTotals {
  const { currency, taxesIncluded } = input;
  const orderRate = input.orderTaxRatePercent === null ? ZERO : new Big(input.orderTaxRatePercent);

  const lines = input.lines.map((line) => {
    const total = lineTotal(line.quantity, line.unitCost, line.discountPercent, currency);
    const rate = line.taxRatePercent ?? orderRate;
    const taxAmount = line.taxable ? taxOn(total, rate, taxesIncluded, currency) : ZERO;
    return { lineTotal: total, taxAmount };
  });

  const charges = input.charges.map((charge) => {
    const amountInOrderCurrency = roundMoney(charge.amount.times(charge.rateToOrderCurrency), currency);
    const rate = charge.taxRatePercent ?? orderRate;
    const taxAmount = input.chargesTaxable
      ? taxOn(amountInOrderCurrency, rate, taxesIncluded, currency)
      : ZERO;
    return { amountInOrderCurrency, taxAmount };
  });

  const subtotal = sumMoney(lines.map((l) => l.lineTotal));
  const chargesTotal = sumMoney(charges.map((c) => c.amountInOrderCurrency));
  const tax = sumMoney([...lines.map((l) => l.taxAmount), ...charges.map((c) => c.taxAmount)]);
  const total = taxesIncluded ? subtotal.plus(chargesTotal) : subtotal.plus(chargesTotal).plus(tax);
  return { lines, charges, subtotal, chargesTotal, tax, total };
}

/** The contract's `totals` object: `{currency, subtotal, charges, tax, total}` as decimal strings. */
export function formatOrderTotals(
  totals: Pick<OrderTotals, "subtotal" | "chargesTotal" | "tax" | "total">,
  currency: string,
): { currency: string; subtotal: string; charges: string; tax: string; total: string } {
  return {
    currency,
    subtotal: formatMoney(totals.subtotal, currency),
    charges: formatMoney(totals.chargesTotal, currency),
    tax: formatMoney(totals.tax, currency),
    total: formatMoney(totals.total, currency),
  };
}
