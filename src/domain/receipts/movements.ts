/**
 * The stock movements of a receipt and of its void, as the ledger (src/domain/stock) takes them.
 * A void takes back exactly the units the receipt put in; incoming follows the lines' outstanding
 * quantity (what the receipt took off, unless later receipts took it since).
 */
import type { IncomingDelta } from "../purchase-orders/index.ts";
import type { MovementInput } from "../stock/index.ts";
import type { StockMovementDraft } from "./compute.ts";

export const RECEIPT_REASON = "received";
const VOID_REASON = "receipt_voided";

export function receiptReference(orderId: number, receiptId: number): string {
  return `stockroom://purchase_orders/${orderId}/receipts/${receiptId}`;
}

/** What a receipt books, with landed unit costs in the store currency. */
export function receiptMovements(
  drafts: readonly StockMovementDraft[],
  storeCurrency: string,
): MovementInput[] {
  return drafts.map((m) => ({
    inventoryItemId: m.inventoryItemId,
    locationId: m.locationId,
    availableDelta: m.availableDelta,
    incomingDelta: m.incomingDelta,
    unitCost: m.unitCost === null ? null : m.unitCost.toString(),
    unitCostCurrency: m.unitCost === null ? null : storeCurrency,
    reason: RECEIPT_REASON,
  }));
}

/**
 * A void's movements, one per (item, location): the recorded units negated, plus the change of
 * incoming between the order's lines with the receipt (`before`) and without it (`after`).
 */
export function voidMovements(
  recorded: readonly {
    inventory_item_id: number;
    location_id: number;
    available_delta: number;
    on_hand_delta: number;
  }[],
  incoming: { before: readonly IncomingDelta[]; after: readonly IncomingDelta[]; orderLocationId: number },
): MovementInput[] {
  const byKey = new Map<string, MovementInput>();
  const at = (item: number, location: number) => {
    const key = `${item}:${location}`;
    let m = byKey.get(key);
    if (!m) {
      m = {
        inventoryItemId: item,
        locationId: location,
        availableDelta: 0,
        onHandDelta: 0,
        incomingDelta: 0,
        reason: VOID_REASON,
      };
      byKey.set(key, m);
    }
    return m;
  };
  for (const m of recorded) {
    const v = at(m.inventory_item_id, m.location_id);
    v.availableDelta = (v.availableDelta ?? 0) - m.available_delta;
    v.onHandDelta = (v.onHandDelta ?? 0) - m.on_hand_delta;
  }
  for (const d of [...incoming.before.map((d) => ({ ...d, delta: -d.delta })), ...incoming.after]) {
    if (d.line.inventory_item_id === null || d.delta === 0) continue;
    const v = at(d.line.inventory_item_id, d.line.location_id ?? incoming.orderLocationId);
    v.incomingDelta = (v.incomingDelta ?? 0) + d.delta;
  }
  return [...byKey.values()];
}
