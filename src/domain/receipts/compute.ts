/**
 * What a receipt books (docs/decisions.md, "Receipts and payments" and "Money"), as a pure function of the
 * order and the request: per receipt line the good, surplus and rejected units, the booked and landed unit
 * costs and the share of the order's charges; the order lines' received/cancelled changes; the order status
 * after; and the stock movements (available/on_hand up at the destination, incoming down by what was
 * outstanding).
 *
 * Charge allocation (exact): each charge is split over the order's lines by its method
 * (landed-cost.ts `lineChargeShares`, over each line's expected units = quantity − cancelled), and a
 * line's share is handed out across its receipts cumulatively pro rata to units received
 * (`allocateToReceiptLine`), so the receipt that completes a line holds the rest of its share. Lines
 * that can no longer carry charges (complete before this receipt, or complete after it with nothing
 * ever received) keep what they were given; the difference between their share and that (non-zero
 * only when charges, cancellations or lines changed since) is spread over the lines that still can,
 * so once every line is complete the receipts hold exactly the allocatable charges. Lines added by a
 * receipt (`unordered`) carry no charges: they were not part of what the charges were agreed for.
 */
import Big from "big.js";
import type { DetailCollector } from "../errors.ts";
import { type AllocatableCharge, landedUnitCost } from "../landed-cost.ts";
import { divideRoundHalfUp, minorUnits, UNIT_COST_PLACES } from "../money.ts";
import { type LineQuantities, outstanding } from "./quantities.ts";
import { allocateReceiptCharges } from "./receipt-charges.ts";

export { outstanding };

const ZERO = new Big(0);
const HUNDRED = new Big(100);

export type OrderStatus = "draft" | "ordered" | "in_transit" | "partial" | "received" | "closed";

export interface ReceiptOrderLine {
  id: number;
  position: number;
  quantity: number;
  cancelled_quantity: number;
  /** Good units received by non-voided receipts (surplus included). */
  received_quantity: number;
  /** Before discount, order currency. */
  unit_cost: string;
  discount_percent: string | null;
  weight_grams: number;
  inventory_item_id: number | null;
  /** The line's own platform location (null: the order's). */
  location_id: number | null;
  /** Charge amount allocated to this line by earlier, non-voided receipts. */
  allocated: Big;
  /** Added to the order by a receipt's `unordered` entry: carries no share of the charges. */
  unordered: boolean;
}

export interface ReceiptOrder {
  status: OrderStatus;
  currency: string;
  /** Order currency → store currency (the order's rate). */
  exchangeRate: Big;
  locationId: number;
  updatesStock: boolean;
  lines: readonly ReceiptOrderLine[];
  charges: readonly AllocatableCharge[];
}

export interface RejectedEntry {
  quantity: number;
  reason: string | null;
}

export interface ReceiptLineRequest {
  lineId: number;
  quantity: number;
  rejected: readonly RejectedEntry[];
  /** Overrides the booked unit cost (order currency) for this receipt only. */
  unitCost: Big | null;
}

export interface UnorderedRequest {
  quantity: number;
  /** Booked unit cost (order currency): the given one, or the default a new line would get. */
  unitCost: Big;
  inventoryItemId: number | null;
  /** The new line's location (null: the order's). */
  locationId: number | null;
}

export interface ReceiptRequest {
  /** Order → store currency for this receipt; null takes the order's. */
  exchangeRate: Big | null;
  /** Where good units go; null takes the order's location. */
  locationId: number | null;
  routeToDestinations: boolean;
  rejectedDisposition: "replace" | "remove";
  lines: readonly ReceiptLineRequest[];
  unordered: readonly UnorderedRequest[];
}

export interface ComputedReceiptLine {
  /** Which request entry this is: `lines.N` or `unordered.N`. */
  source: { kind: "line" | "unordered"; index: number };
  /** The order line; null for an unordered entry (its line does not exist yet). */
  lineId: number | null;
  inventoryItemId: number | null;
  /** Where the good units go. */
  locationId: number;
  quantity: number;
  surplusQuantity: number;
  rejectedQuantity: number;
  rejected: RejectedEntry[];
  /** The line's outstanding quantity just before this entry. */
  outstandingBefore: number;
  /** Units added to the line's cancelled_quantity (`rejected_disposition: remove`). */
  cancelledAdded: number;
  /** Booked unit cost, order currency, up to 8 places. */
  unitCost: Big;
  /** Charges allocated to this receipt line in total, order currency minor units. */
  allocatedChargeAmount: Big;
  /** Store currency, 8 places. */
  landedUnitCost: Big;
}

export interface LineChange {
  lineId: number;
  receivedDelta: number;
  cancelledDelta: number;
  receivedAfter: number;
  cancelledAfter: number;
}

export interface StockMovementDraft {
  inventoryItemId: number;
  locationId: number;
  availableDelta: number;
  incomingDelta: number;
  /** Landed unit cost in the store currency (units-weighted over the receipt's lines of the item). */
  unitCost: Big | null;
}

export interface ComputedReceipt {
  exchangeRate: Big;
  locationId: number;
  lines: ComputedReceiptLine[];
  /** Existing order lines whose received or cancelled quantity changes. */
  lineChanges: LineChange[];
  statusAfter: OrderStatus;
  /** Movements for an order that updates stock (empty otherwise); lines without an item never move. */
  movements: StockMovementDraft[];
}

/** The line's unit cost after its discount, at 8 places (the default booked cost). */
export function unitCostAfterDiscount(unitCost: string | Big, discountPercent: string | null): Big {
  const cost = new Big(unitCost);
  if (discountPercent === null || new Big(discountPercent).eq(ZERO)) return cost;
  return divideRoundHalfUp(cost.times(HUNDRED.minus(discountPercent)), HUNDRED, UNIT_COST_PLACES);
}

/**
 * Status after a receipt from the lines after it: received when every line has received + cancelled
 * ≥ quantity; partial when something was received; otherwise (only rejected units so far) unchanged.
 */
export function statusAfterReceipt(current: OrderStatus, linesAfter: readonly LineQuantities[]): OrderStatus {
  const anyReceived = linesAfter.some((l) => l.received_quantity > 0);
  const anyOutstanding = linesAfter.some((l) => outstanding(l) > 0);
  if (!anyOutstanding && (anyReceived || linesAfter.some((l) => l.cancelled_quantity > 0))) return "received";
  if (anyReceived) return "partial";
  return current;
}

/**
 * Computes the receipt. Request problems (unknown line, nothing received) are added to `problems`
 * with their field paths; the caller throws them. The result is meaningful only when none were added.
 */
export function computeReceipt(
  order: ReceiptOrder,
  request: ReceiptRequest,
  problems: DetailCollector,
): ComputedReceipt {
  const places = minorUnits(order.currency);
  const exchangeRate = request.exchangeRate ?? order.exchangeRate;
  const receiptLocation = request.locationId ?? order.locationId;
  const byId = new Map(order.lines.map((l) => [l.id, l]));

  // Pass 1: quantities, entry by entry (a line may appear more than once, e.g. one entry per lot).
  interface Work {
    received: number;
    cancelled: number;
  }
  const work = new Map<number, Work>();
  const workOf = (line: ReceiptOrderLine): Work => {
    let w = work.get(line.id);
    if (!w) {
      w = { received: line.received_quantity, cancelled: line.cancelled_quantity };
      work.set(line.id, w);
    }
    return w;
  };

  let anything = false;
  const drafts: (ComputedReceiptLine & { line: ReceiptOrderLine | null })[] = [];
  request.lines.forEach((entry, index) => {
    const line = byId.get(entry.lineId);
    if (!line) {
      problems.add(`lines.${index}.line_id`, "not_found", "is not a line of this purchase order");
      return;
    }
    const w = workOf(line);
    const before = outstanding({
      quantity: line.quantity,
      received_quantity: w.received,
      cancelled_quantity: w.cancelled,
    });
    const good = entry.quantity;
    const rejectedQuantity = entry.rejected.reduce((s, r) => s + r.quantity, 0);
    const surplus = Math.max(0, good - before);
    const leftAfterGood = before - (good - surplus);
    const cancelledAdded =
      request.rejectedDisposition === "remove" ? Math.min(rejectedQuantity, leftAfterGood) : 0;
    w.received += good;
    w.cancelled += cancelledAdded;
    if (good > 0 || rejectedQuantity > 0) anything = true;
    drafts.push({
      source: { kind: "line", index },
      lineId: line.id,
      line,
      inventoryItemId: line.inventory_item_id,
      locationId: request.routeToDestinations ? (line.location_id ?? receiptLocation) : receiptLocation,
      quantity: good,
      surplusQuantity: surplus,
      rejectedQuantity,
      rejected: entry.rejected.map((r) => ({ quantity: r.quantity, reason: r.reason })),
      outstandingBefore: before,
      cancelledAdded,
      unitCost: entry.unitCost ?? unitCostAfterDiscount(line.unit_cost, line.discount_percent),
      allocatedChargeAmount: ZERO,
      landedUnitCost: ZERO,
    });
  });
  request.unordered.forEach((entry, index) => {
    if (entry.quantity > 0) anything = true;
    drafts.push({
      source: { kind: "unordered", index },
      lineId: null,
      line: null,
      inventoryItemId: entry.inventoryItemId,
      locationId: request.routeToDestinations ? (entry.locationId ?? receiptLocation) : receiptLocation,
      quantity: entry.quantity,
      surplusQuantity: 0,
      rejectedQuantity: 0,
      rejected: [],
      outstandingBefore: entry.quantity,
      cancelledAdded: 0,
      unitCost: entry.unitCost,
      allocatedChargeAmount: ZERO,
      landedUnitCost: ZERO,
    });
  });
  if (!anything && problems.empty) {
    problems.add("lines", "nothing_received", "the receipt must receive or reject at least one unit");
  }
  if (!problems.empty) {
    return {
      exchangeRate,
      locationId: receiptLocation,
      lines: [],
      lineChanges: [],
      statusAfter: order.status,
      movements: [],
    };
  }

  const after = (line: ReceiptOrderLine): LineQuantities => {
    const w = work.get(line.id);
    return w
      ? { quantity: line.quantity, received_quantity: w.received, cancelled_quantity: w.cancelled }
      : line;
  };
  // Pass 2: the charges, over the lines as they stand after this receipt.
  allocateReceiptCharges(order, drafts, after, places);

  for (const d of drafts) {
    d.landedUnitCost = landedUnitCost({
      bookedUnitCost: d.unitCost,
      allocatedAmount: d.allocatedChargeAmount,
      units: d.quantity,
      exchangeRate,
    });
  }

  const lineChanges: LineChange[] = [];
  for (const line of order.lines) {
    const w = work.get(line.id);
    if (!w) continue;
    lineChanges.push({
      lineId: line.id,
      receivedDelta: w.received - line.received_quantity,
      cancelledDelta: w.cancelled - line.cancelled_quantity,
      receivedAfter: w.received,
      cancelledAfter: w.cancelled,
    });
  }

  // Unordered lines join the order fully received: nothing outstanding.
  const linesAfter = [
    ...order.lines.map(after),
    ...request.unordered.map((u) => ({
      quantity: u.quantity,
      received_quantity: u.quantity,
      cancelled_quantity: 0,
    })),
  ];
  const statusAfter = statusAfterReceipt(order.status, linesAfter);

  const lines = drafts.map(({ line: _line, ...rest }) => rest);
  const movements = order.updatesStock ? receiptMovements(order, lines, after) : [];
  return { exchangeRate, locationId: receiptLocation, lines, lineChanges, statusAfter, movements };
}

function receiptMovements(
  order: ReceiptOrder,
  lines: readonly ComputedReceiptLine[],
  after: (l: ReceiptOrderLine) => LineQuantities,
): StockMovementDraft[] {
  const byKey = new Map<string, StockMovementDraft>();
  const at = (item: number, location: number) => {
    const key = `${item}:${location}`;
    let m = byKey.get(key);
    if (!m) {
      m = {
        inventoryItemId: item,
        locationId: location,
        availableDelta: 0,
        incomingDelta: 0,
        unitCost: null,
      };
      byKey.set(key, m);
    }
    return m;
  };
  // Landed cost per item, weighted by good units over the receipt's lines of that item. An item on one
  // line (nearly always) costs that line's landed cost, already at 8 places: the weighted division is
  // left to items on several lines.
  const costs = new Map<number, { value: Big | null; units: number; first: Big }>();
  for (const l of lines) {
    if (l.inventoryItemId === null || l.quantity === 0) continue;
    at(l.inventoryItemId, l.locationId).availableDelta += l.quantity;
    const c = costs.get(l.inventoryItemId);
    if (!c) costs.set(l.inventoryItemId, { value: null, units: l.quantity, first: l.landedUnitCost });
    else {
      c.value = (c.value ?? c.first.times(c.units)).plus(l.landedUnitCost.times(l.quantity));
      c.units += l.quantity;
    }
  }
  // Incoming: what each line had outstanding less what it has after (the order was open before).
  for (const line of order.lines) {
    if (line.inventory_item_id === null) continue;
    const delta = outstanding(after(line)) - outstanding(line);
    if (delta !== 0) at(line.inventory_item_id, line.location_id ?? order.locationId).incomingDelta += delta;
  }
  const movements = [...byKey.values()].filter((m) => m.availableDelta !== 0 || m.incomingDelta !== 0);
  for (const m of movements) {
    const c = costs.get(m.inventoryItemId);
    if (c && m.availableDelta > 0)
      m.unitCost =
        c.value === null ? c.first : divideRoundHalfUp(c.value, new Big(c.units), UNIT_COST_PLACES);
  }
  return movements;
}
