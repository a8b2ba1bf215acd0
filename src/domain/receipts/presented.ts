/**
 * The order as a receipt leaves it, presented from what the receipt read at its start (under the
 * order's row lock) and what it wrote, so recording a receipt does not read the whole order back.
 * Covered by a test that compares the answer, field by field, with the order read back by GET.
 */

import Big from "big.js";
import {
  assembleOrders,
  type OrderParts,
  type OrderRecord,
  type PurchaseOrder,
  type ReceiptLineRow,
  type ReceiptRecord,
  syncKey,
} from "../purchase-orders/index.ts";
import type { SyncState } from "../stock/index.ts";
import type { LineChange } from "./compute.ts";
import type { ReceiptLineWrite } from "./repository.ts";

export interface ReceiptWrites {
  now: Date;
  status: string;
  becameReceived: boolean;
  lineChanges: readonly LineChange[];
  receipt: ReceiptRecord;
  receiptLines: ReceiptLineRow[];
  /** The receipt's platform_sync: pending when it moved stock, none when it moved nothing. */
  receiptSync: SyncState | null;
}

export function presentAfterReceipt(
  order: OrderRecord,
  parts: OrderParts,
  writes: ReceiptWrites,
): PurchaseOrder {
  const { now } = writes;
  const changed = new Map(writes.lineChanges.map((c) => [c.lineId, c]));
  const sync = new Map(parts.sync);
  if (writes.receiptSync) sync.set(syncKey("receipt", writes.receipt.id), writes.receiptSync);
  const after: OrderRecord = {
    ...order,
    status: writes.status as OrderRecord["status"],
    ...(writes.becameReceived && { received_at: now }),
    updated_at: now,
  };
  const presented = assembleOrders([after], {
    ...parts,
    lines: parts.lines.map((line) => {
      const change = changed.get(line.id);
      return change
        ? {
            ...line,
            received_quantity: change.receivedAfter,
            cancelled_quantity: change.cancelledAfter,
            updated_at: now,
          }
        : line;
    }),
    receipts: [...parts.receipts, writes.receipt],
    receiptLines: [...parts.receiptLines, ...writes.receiptLines],
    sync,
  });
  return presented.get(order.id)!;
}

/** The name of a receipt's location from what is already loaded, or null when it is not. */
export function knownLocationName(
  order: OrderRecord,
  parts: OrderParts,
  locationId: number,
): string | null | undefined {
  if (locationId === order.location_id) return order.location_name;
  return parts.receipts.find((r) => r.location_id === locationId)?.location_name;
}

/** A receipt's lines as their columns store them, from what was written. */
export function storedReceiptLines(
  receiptId: number,
  writes: readonly ReceiptLineWrite[],
  ids: readonly number[],
): ReceiptLineRow[] {
  return writes.map((r, i) => ({
    id: ids[i],
    receipt_id: receiptId,
    line_id: r.lineId,
    quantity: r.line.quantity,
    surplus_quantity: r.line.surplusQuantity,
    rejected_quantity: r.line.rejectedQuantity,
    // numeric(20, 8) and numeric(20, 4), half away from zero.
    unit_cost: r.line.unitCost.round(8, Big.roundHalfUp).toString(),
    landed_unit_cost: r.line.landedUnitCost.round(8, Big.roundHalfUp).toString(),
    allocated_charge_amount: r.line.allocatedChargeAmount.round(4, Big.roundHalfUp).toString(),
    unordered: r.line.source.kind === "unordered",
  }));
}
