/**
 * The order as a receipt leaves it, presented from what the receipt read at its start (under the
 * order's row lock) and what it wrote, so recording a receipt does not read the whole order back.
 * Covered by a test that compares the answer, field by field, with the order read back by GET.
 */

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
