/**
 * Landed cost (docs/decisions.md, "Money" and "Receipts and payments"): how an order's charges are spread
 * over its lines, how each line's share is handed out across (possibly partial) receipts, and the resulting
 * landed unit cost.
 *
 * Two steps, both exact:
 * 1. `allocateChargeOverLines` splits each charge over the ORDER lines by its allocation method, with
 *    largest-remainder rounding so the line shares sum exactly to the charge. `lineChargeShares` sums
 *    those over all charges: one share per order line.
 * 2. `allocateToReceiptLine` hands a line's share out to the receipts of that line, cumulatively
 *    pro rata to units received, so that once the line is complete its receipts hold exactly the share.
 */
import Big from "big.js";
import {
  allocateLargestRemainder,
  divideRoundHalfUp,
  minorUnits,
  roundHalfUp,
  UNIT_COST_PLACES,
} from "./money.ts";

const ZERO = new Big("0");

export type AllocationMethod = "value" | "quantity" | "weight" | "custom" | "none";

export interface CustomSplitEntry {
  /** The order line's `position`. */
  position: number;
  /** Part of the charge, in the charge's own currency (the split sums to the charge's `amount`). */
  amount: Big;
}

export interface AllocatableCharge {
  /** The charge converted to the order currency (PurchaseOrderCharge.amount_in_order_currency). */
  amountInOrderCurrency: Big;
  method: AllocationMethod;
  /** Required for `custom`, ignored otherwise. */
  customSplit?: readonly CustomSplitEntry[] | null;
}

export interface AllocationLine {
  position: number;
  /** Units the line carries for allocation (see the note on cancelled units in `allocateToReceiptLine`). */
  quantity: number;
  /** The line's value in the order currency, normally its line_total (after discount). */
  lineValue: Big;
  /** Weight of one unit. */
  weightGrams: number;
}

/**
 * One charge's share of each order line, in the order currency at its minor units; the shares sum
 * exactly to `amountInOrderCurrency` (for every method but `none`, which allocates nothing: all zeros).
 *
 * - value: in proportion to `lineValue`; all values zero → by quantity.
 * - quantity: in proportion to `quantity`.
 * - weight: in proportion to `weightGrams × quantity`; all weights zero → by quantity.
 * - custom: in proportion to the `customSplit` amount of each line's position (a line absent from the
 *   split gets nothing). When the split is in the order currency and sums to the charge, each line gets
 *   exactly its split amount; when the charge is in another currency, the split amounts act as weights,
 *   so the converted parts still sum exactly to the converted charge.
 * Whenever every weight is zero (e.g. every quantity is zero), the charge is split equally.
 * Throws RangeError on a custom split naming a position no line has (validate first with
 * `validateCustomSplit`), on negative weights, or on a non-zero charge over no lines.
 */
export function allocateChargeOverLines(
  charge: AllocatableCharge,
  lines: readonly AllocationLine[],
  currency: string,
): Big[] {
  const places = minorUnits(currency);
  if (charge.method === "none") return lines.map(() => ZERO);
  return allocateLargestRemainder(
    roundHalfUp(charge.amountInOrderCurrency, places),
    weightsFor(charge, lines),
    places,
  );
}

function weightsFor(charge: AllocatableCharge, lines: readonly AllocationLine[]): Big[] {
  const byQuantity = () => lines.map((l) => new Big(String(l.quantity)));
  const orByQuantity = (weights: Big[]) => (weights.every((w) => w.eq(ZERO)) ? byQuantity() : weights);
  switch (charge.method) {
    case "value":
      return orByQuantity(lines.map((l) => l.lineValue));
    case "quantity":
      return byQuantity();
    case "weight":
      return orByQuantity(lines.map((l) => new Big(String(l.weightGrams)).times(String(l.quantity))));
    case "custom":
      return customWeights(charge.customSplit ?? [], lines);
    case "none":
      return lines.map(() => ZERO);
  }
}

function customWeights(split: readonly CustomSplitEntry[], lines: readonly AllocationLine[]): Big[] {
  const byPosition = new Map<number, Big>();
  for (const entry of split) {
    byPosition.set(entry.position, (byPosition.get(entry.position) ?? ZERO).plus(entry.amount));
  }
  const known = new Set(lines.map((l) => l.position));
  for (const position of byPosition.keys()) {
    if (!known.has(position))
      throw new RangeError(`custom_split names position ${position}, which no line has`);
  }
  return lines.map((l) => byPosition.get(l.position) ?? ZERO);
}

export type CustomSplitProblem = {
  code: "unknown_position" | "duplicate_position" | "must_not_be_negative" | "split_mismatch";
  message: string;
  /** Index into the split array, when the problem is one entry. */
  index?: number;
};

/**
 * Checks a custom split against the charge (amount in the charge's currency) and the order's line
 * positions: every position known and named once, no negative amount, amounts summing exactly to the
 * charge. Returns the problems found (empty when valid), for the route to turn into validation details.
 */
export function validateCustomSplit(
  split: readonly CustomSplitEntry[],
  chargeAmount: Big,
  linePositions: readonly number[],
): CustomSplitProblem[] {
  const problems: CustomSplitProblem[] = [];
  const known = new Set(linePositions);
  const seen = new Set<number>();
  split.forEach((entry, index) => {
    if (!known.has(entry.position)) {
      problems.push({ code: "unknown_position", message: `no line has position ${entry.position}`, index });
    } else if (seen.has(entry.position)) {
      problems.push({
        code: "duplicate_position",
        message: `position ${entry.position} appears twice`,
        index,
      });
    }
    seen.add(entry.position);
    if (entry.amount.lt(ZERO))
      problems.push({ code: "must_not_be_negative", message: "must not be negative", index });
  });
  const total = split.reduce((acc, e) => acc.plus(e.amount), ZERO);
  if (!total.eq(chargeAmount)) {
    problems.push({
      code: "split_mismatch",
      message: `custom_split sums to ${total.toFixed()} but the charge is ${chargeAmount.toFixed()}`,
    });
  }
  return problems;
}

/**
 * Every order line's share of all the charges together (sum over charges of
 * `allocateChargeOverLines`). The shares sum exactly to the total of the charges whose method is not
 * `none` (the allocatable charges).
 */
export function lineChargeShares(
  charges: readonly AllocatableCharge[],
  lines: readonly AllocationLine[],
  currency: string,
): Big[] {
  const shares = lines.map(() => ZERO);
  for (const charge of charges) {
    allocateChargeOverLines(charge, lines, currency).forEach((part, i) => {
      shares[i] = shares[i].plus(part);
    });
  }
  return shares;
}

export interface ReceiptLineAllocationInput {
  /** The order line's share of the charges (from `lineChargeShares`), in the order currency. */
  share: Big;
  /** Units the line is complete at: its quantity less cancelled units. */
  lineQuantity: number;
  /** Good units already received on this line by earlier, non-voided receipts (surplus included). */
  alreadyReceivedUnits: number;
  /** Charge amount those earlier, non-voided receipts were allocated for this line. */
  alreadyAllocated: Big;
  /** Good units this receipt takes in on the line (surplus included, rejected units excluded). */
  receivingNowUnits: number;
  /** The order currency. */
  currency: string;
}

/**
 * The `allocated_charge_amount` of one receipt line.
 *
 * Semantics: after each receipt, the amount allocated to the line over all its receipts is the
 * line's share pro rata to the units received so far, rounded half-up to the currency:
 *     target(u) = round(share × min(u, lineQuantity) / lineQuantity)
 * and this receipt gets `target(alreadyReceived + now) − alreadyAllocated`. Consequences:
 * - Once the line is complete (u ≥ lineQuantity) its receipts hold exactly `share`, whatever the
 *   sequence of partial receipts; the receipt completing the line absorbs every rounding difference.
 * - Working on the cumulative figure (rather than rounding each receipt's own units) keeps rounding
 *   from piling up: e.g. share 0.02 over 4 units received one by one gives 0.01, 0.00, 0.01, 0.00, never
 *   a negative last step as per-receipt rounding (0.01 × 3, then −0.01) would.
 * - Surplus units (beyond lineQuantity) earn no additional share; on a receipt they spread the amount
 *   over more units (see `landedUnitCost`).
 * - Voiding a receipt drops its units and amount from the "already" figures, so the next receipt picks
 *   the difference up; if a line's share changed since earlier receipts (charges edited), the next
 *   receipt likewise corrects toward the new target, which can make its amount negative.
 * - Cancelled units: pass `lineQuantity` = quantity − cancelled at the time of the receipt. A line whose
 *   remainder is cancelled after a partial receipt, with no later receipt, keeps its unallocated rest
 *   unallocated: no received unit exists to carry it.
 * - `lineQuantity` ≤ 0 (nothing left to expect): any units received carry the whole share.
 */
export function allocateToReceiptLine(input: ReceiptLineAllocationInput): Big {
  const { share, lineQuantity, alreadyReceivedUnits, receivingNowUnits, alreadyAllocated, currency } = input;
  for (const [name, n] of [
    ["lineQuantity", lineQuantity],
    ["alreadyReceivedUnits", alreadyReceivedUnits],
    ["receivingNowUnits", receivingNowUnits],
  ] as const) {
    if (!Number.isSafeInteger(n)) throw new RangeError(`${name} must be an integer`);
  }
  if (alreadyReceivedUnits < 0 || receivingNowUnits < 0) throw new RangeError("units must not be negative");
  const places = minorUnits(currency);
  const received = alreadyReceivedUnits + receivingNowUnits;
  let target: Big;
  if (lineQuantity <= 0) target = received > 0 ? share : ZERO;
  else if (received >= lineQuantity) target = share;
  else target = divideRoundHalfUp(share.times(String(received)), new Big(String(lineQuantity)), places);
  return roundHalfUp(target, places).minus(alreadyAllocated);
}

export interface LandedUnitCostInput {
  /** The receipt line's booked unit cost in the order currency (after discount or overridden). */
  bookedUnitCost: Big;
  /** The receipt line's `allocated_charge_amount`, in the order currency. */
  allocatedAmount: Big;
  /** Good units on the receipt line (surplus included); the allocated amount is spread over them. */
  units: number;
  /** Order currency → store currency. */
  exchangeRate: Big;
}

/**
 * landed_unit_cost = (booked unit cost + allocated / units) × exchange_rate, in the store currency,
 * rounded half-up to 8 places (computed as (booked × units + allocated) × rate / units, one rounding).
 * With 0 units there is nothing to spread the charges over: booked × rate.
 */
export function landedUnitCost(input: LandedUnitCostInput): Big {
  const { bookedUnitCost, allocatedAmount, units, exchangeRate } = input;
  if (!Number.isSafeInteger(units) || units < 0) throw new RangeError("units must be a non-negative integer");
  // Nothing allocated: (booked × units) × rate / units is booked × rate exactly, one rounding either way.
  if (units === 0 || allocatedAmount.eq(0))
    return roundHalfUp(bookedUnitCost.times(exchangeRate), UNIT_COST_PLACES);
  const unitsBig = new Big(String(units));
  const numerator = bookedUnitCost.times(unitsBig).plus(allocatedAmount).times(exchangeRate);
  return divideRoundHalfUp(numerator, unitsBig, UNIT_COST_PLACES);
}
