/**
 * A receipt's share of the order's charges: each charge is split over the order's lines
 * by its method, and a line's share is handed out across its receipts cumulatively pro rata to units
 * received, so the receipt that completes a line holds the rest of its share. See compute.ts for the
 * rules on lines that can no longer carry charges and on lines a receipt added.
 */
import Big from "big.js";
import { type AllocationLine, allocateToReceiptLine, lineChargeShares } from "../landed-cost.ts";
import { allocateLargestRemainder } from "../money.ts";
import { lineTotal } from "../order-totals.ts";
import type { ReceiptOrder, ReceiptOrderLine } from "./compute.ts";
import { type LineQuantities, outstanding } from "./quantities.ts";

const ZERO = new Big(0);

/** A receipt entry as the allocation sees it: its order line (null: unordered) and good units. */
export interface ChargeTaker {
  line: ReceiptOrderLine | null;
  quantity: number;
  allocatedChargeAmount: Big;
}

/**
 * Sets each entry's `allocatedChargeAmount`, given the lines as they stand after this receipt
 * (`after`); amounts at the currency's `places`.
 */
export function allocateReceiptCharges(
  order: ReceiptOrder,
  drafts: readonly ChargeTaker[],
  after: (line: ReceiptOrderLine) => LineQuantities,
  places: number,
): void {
  // An order with no charges whose lines hold no allocation (most orders): every share is zero, so is
  // every entry's amount, and nothing is left to settle; the shares' line values (big.js arithmetic
  // over every line of the order) are not computed for nothing. Once charges were allocated and then
  // removed, the lines hold amounts and the full rules run.
  if (order.charges.length === 0 && order.lines.every((l) => l.allocated.eq(ZERO))) {
    for (const d of drafts) if (d.line && !d.line.unordered) d.allocatedChargeAmount = ZERO;
    return;
  }
  const currency = order.currency;
  const allocLines = order.lines.filter((l) => !l.unordered);
  const shares = allocationShares(order, allocLines, after, places, drafts);

  const soFar = new Map<number, { units: number; allocated: Big }>();
  for (const d of drafts) {
    if (d.line && !d.line.unordered) {
      const line = d.line;
      const s = soFar.get(line.id) ?? { units: line.received_quantity, allocated: line.allocated };
      const a = after(line);
      d.allocatedChargeAmount = allocateToReceiptLine({
        share: shares.adjusted.get(line.id) ?? ZERO,
        lineQuantity: a.quantity - a.cancelled_quantity,
        alreadyReceivedUnits: s.units,
        alreadyAllocated: s.allocated,
        receivingNowUnits: d.quantity,
        currency,
      });
      soFar.set(line.id, {
        units: s.units + d.quantity,
        allocated: s.allocated.plus(d.allocatedChargeAmount),
      });
    }
  }

  // The receipt completing the order settles any rest, so a complete order always holds exactly the
  // allocatable charges (the rest is zero unless charges, lines or cancellations changed on the way).
  const completes = order.lines.every((l) => outstanding(after(l)) === 0);
  if (completes && drafts.length > 0) {
    const allocatable = [...shares.raw].reduce((s, v) => s.plus(v), ZERO);
    let held = order.lines.reduce((s, l) => s.plus(l.allocated), ZERO);
    for (const d of drafts) held = held.plus(d.allocatedChargeAmount);
    const rest = allocatable.minus(held);
    if (!rest.eq(ZERO)) {
      const takers = drafts.some((d) => d.quantity > 0) ? drafts.filter((d) => d.quantity > 0) : [drafts[0]];
      const parts = allocateLargestRemainder(
        rest,
        takers.map((d) => new Big(Math.max(d.quantity, 0))),
        places,
      );
      takers.forEach((d, k) => {
        d.allocatedChargeAmount = d.allocatedChargeAmount.plus(parts[k]);
      });
    }
  }
}

/**
 * Each allocation line's share of the charges, adjusted so that lines which can no longer carry
 * charges keep exactly what they already hold and the rest goes to the lines that still can.
 */
function allocationShares(
  order: ReceiptOrder,
  allocLines: readonly ReceiptOrderLine[],
  after: (l: ReceiptOrderLine) => LineQuantities,
  places: number,
  drafts: readonly { line: ReceiptOrderLine | null; quantity: number }[],
): { raw: Big[]; adjusted: Map<number, Big> } {
  const currency = order.currency;
  const result = new Map<number, Big>();
  if (allocLines.length === 0) return { raw: [], adjusted: result };
  const positions = new Set(allocLines.map((l) => l.position));
  const charges = order.charges.map((c) =>
    c.method === "custom"
      ? { ...c, customSplit: (c.customSplit ?? []).filter((e) => positions.has(e.position)) }
      : c,
  );
  const inputs: AllocationLine[] = allocLines.map((l) => {
    const a = after(l);
    const expected = Math.max(0, a.quantity - a.cancelled_quantity);
    return {
      position: l.position,
      quantity: expected,
      lineValue: lineTotal(
        expected,
        new Big(l.unit_cost),
        l.discount_percent === null ? null : new Big(l.discount_percent),
        currency,
      ),
      weightGrams: l.weight_grams,
    };
  });
  const shares = lineChargeShares(charges, inputs, currency);

  const receivingNow = new Set(drafts.filter((d) => d.line && d.quantity > 0).map((d) => d.line!.id));
  const carriers: number[] = [];
  let held = ZERO;
  allocLines.forEach((l, i) => {
    const completeBefore = outstanding(l) === 0;
    const a = after(l);
    const deadAfter = outstanding(a) === 0 && a.received_quantity === 0;
    const canCarry = !completeBefore && (!deadAfter || receivingNow.has(l.id));
    if (canCarry) {
      carriers.push(i);
      result.set(l.id, shares[i]);
    } else {
      result.set(l.id, l.allocated);
      held = held.plus(shares[i].minus(l.allocated));
    }
  });
  if (!held.eq(ZERO) && carriers.length > 0) {
    const weights = carriers.map((i) => (shares[i].gt(ZERO) ? shares[i] : ZERO));
    const parts = allocateLargestRemainder(held.round(places, 1), weights, places);
    carriers.forEach((i, k) => {
      const id = allocLines[i].id;
      result.set(id, (result.get(id) ?? ZERO).plus(parts[k]));
    });
  }
  return { raw: shares, adjusted: result };
}
