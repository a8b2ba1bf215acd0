/**
 * What an order's money may be: inputs and the amounts computed from them stay within what the
 * columns hold (unit costs numeric(20,8), amounts numeric(20,4), rates numeric(24,12)), so a value
 * beyond is a 422 `out_of_range` on the field instead of a database error. Amounts are bounded like
 * payments and receipts (below 10^15), so an order can always be paid in full.
 */
import Big from "big.js";
import type { DetailCollector } from "../errors.ts";
import type { ComputedMoney } from "./totals.ts";

/** A line's unit cost is below this (as receipts and supplier catalogs). */
export const MAX_UNIT_COST = new Big("1e12");
/** Every stored amount (charges, line totals, tax, order totals) is below this. */
export const MAX_AMOUNT = new Big("1e15");
/** An exchange rate (and a charge's rate to the order currency) is below this. */
export const MAX_RATE = new Big("1e12");

export function isWithin(value: Big | string, limit: Big): boolean {
  return new Big(value).abs().lt(limit);
}

/**
 * Adds a problem for every computed amount beyond MAX_AMOUNT: a line's on `lineField(index)`
 * (its unit cost, which with the quantity makes it), a charge's on its amount; when those are all
 * within, the order's totals on `lines` (subtotal, tax, total) or `charges` (charges total).
 */
export function checkComputedMoney(
  money: ComputedMoney,
  problems: DetailCollector,
  lineField: (index: number) => string,
): void {
  const beyond = `is more than an order amount can be (below ${MAX_AMOUNT.toFixed()})`;
  let found = false;
  money.lines.forEach((line, index) => {
    if (isWithin(line.line_total, MAX_AMOUNT) && isWithin(line.tax_amount, MAX_AMOUNT)) return;
    problems.add(lineField(index), "out_of_range", `with the quantity, the line total ${beyond}`);
    found = true;
  });
  money.charges.forEach((charge, index) => {
    if (isWithin(charge.amount_in_order_currency, MAX_AMOUNT) && isWithin(charge.tax_amount, MAX_AMOUNT))
      return;
    problems.add(`charges.${index}.amount`, "out_of_range", `in the order currency ${beyond}`);
    found = true;
  });
  // The totals of amounts already refused would only repeat the problem.
  if (found) return;
  const { subtotal, charges_total, tax_total, total } = money.order;
  if (!isWithin(charges_total, MAX_AMOUNT))
    problems.add("charges", "out_of_range", `together, the charges' total ${beyond}`);
  if (!isWithin(subtotal, MAX_AMOUNT) || !isWithin(tax_total, MAX_AMOUNT) || !isWithin(total, MAX_AMOUNT))
    problems.add("lines", "out_of_range", `together, the order's total ${beyond}`);
}
