/**
 * Incoming stock of purchase orders: every change goes through recordStockMovements (subject
 * purchase_order), so the order's platform_sync reports it.
 */

import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { validationFailed } from "../errors.ts";
import { recordStockMovements, refuseGoneFor } from "../stock/index.ts";
import { isOpen, type LineQuantities, outstandingOf, type PurchaseOrderStatus } from "./transitions.ts";

export interface IncomingOrder {
  id: number;
  store_id: number;
  /** The order's platform location (lines without their own location go there). */
  location_id: number;
  updates_stock: boolean;
  /** A return order sends stock back to the supplier: it never holds incoming stock. */
  type?: "purchase" | "return";
}

export interface IncomingLine {
  inventory_item_id: number | null;
  location_id: number | null;
}

export interface IncomingDelta {
  line: IncomingLine;
  /** Signed change of the platform's `incoming` for the line's item at its location. */
  delta: number;
}

/** The largest stock quantity a level (and a movement) holds: a PostgreSQL integer. */
const INT4_MAX = 2_147_483_647;

export function orderReference(orderId: number): string {
  return `stockroom://purchase_orders/${orderId}`;
}

/**
 * Pushes incoming changes for order lines: + when quantity becomes expected, − when it no longer is.
 * Lines without an inventory item, zero deltas, and orders that do not update stock move nothing.
 * Deltas for the same item and location are summed into one movement; a sum, or a level after it,
 * beyond what a level holds is 422 `out_of_range` on `lines` (22 lines of 100,000,000 of one item).
 * Incoming added where the platform no longer takes stock is refused (the ledger's `refuseGone`).
 */
export async function pushIncoming(
  ctx: AppContext,
  trx: Db,
  order: IncomingOrder,
  deltasByLine: readonly IncomingDelta[],
  reason = "purchase_order_incoming",
): Promise<number[]> {
  if (!order.updates_stock || order.type === "return") return [];
  const sums = new Map<string, { item: number; location: number; delta: number }>();
  for (const { line, delta } of deltasByLine) {
    if (line.inventory_item_id === null || delta === 0) continue;
    const location = line.location_id ?? order.location_id;
    const key = `${line.inventory_item_id}:${location}`;
    const entry = sums.get(key) ?? { item: line.inventory_item_id, location, delta: 0 };
    entry.delta += delta;
    sums.set(key, entry);
  }
  const beyond = [...sums.values()].find((s) => Math.abs(s.delta) > INT4_MAX);
  if (beyond)
    throw validationFailed([
      {
        field: "lines",
        code: "out_of_range",
        message: `the incoming quantity of inventory item ${beyond.item} at location ${beyond.location} would change by ${beyond.delta}, more than a stock level holds (${INT4_MAX})`,
      },
    ]);
  const movements = [...sums.values()]
    .filter((s) => s.delta !== 0)
    .map((s) => ({ inventoryItemId: s.item, locationId: s.location, incomingDelta: s.delta, reason }));
  if (movements.length === 0) return [];
  try {
    return await recordStockMovements(ctx, trx, {
      storeId: order.store_id,
      subjectType: "purchase_order",
      subjectId: order.id,
      reference: orderReference(order.id),
      movements,
      // Expected where the platform no longer takes stock (its location deactivated or deleted, the
      // item no longer stocked there): 422, nothing changed, as a receipt there is; the platform would
      // refuse the push and the order's platform_sync fail (docs/decisions.md, "Shopify webhooks and
      // reconciliation").
      refuseGone: (gone) => refuseGoneFor(order.location_id, gone, "stock cannot be expected there"),
    });
  } catch (error) {
    // A level already near the bound: the database refuses the sum (the request's transaction is
    // rolled back with the 422, so nothing is left half-written).
    if (isNumericOutOfRange(error))
      throw validationFailed([
        {
          field: "lines",
          code: "out_of_range",
          message: `the incoming stock of an item on this order would take its level beyond what a level holds (${INT4_MAX})`,
        },
      ]);
    throw error;
  }
}

/** PostgreSQL's numeric_value_out_of_range (an integer column overflowed). */
function isNumericOutOfRange(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: string }).code === "22003";
}

/**
 * What an order holds as incoming right now: each line's outstanding quantity while the order is open
 * (nothing for drafts, received and closed orders, return orders, or orders that do not update stock).
 */
export function incomingOf(
  order: { status: PurchaseOrderStatus; updates_stock: boolean; type?: "purchase" | "return" },
  lines: readonly (IncomingLine & LineQuantities)[],
): IncomingDelta[] {
  if (!order.updates_stock || order.type === "return" || !isOpen(order.status)) return [];
  return lines.map((line) => ({ line, delta: outstandingOf(line) }));
}

/** Pushes the difference between two `incomingOf` snapshots (before − after retracted, after added). */
export async function pushIncomingChange(
  ctx: AppContext,
  trx: Db,
  order: IncomingOrder,
  before: readonly IncomingDelta[],
  after: readonly IncomingDelta[],
  reason = "purchase_order_incoming",
): Promise<number[]> {
  const deltas: IncomingDelta[] = [...before.map((d) => ({ line: d.line, delta: -d.delta })), ...after];
  return pushIncoming(ctx, trx, order, deltas, reason);
}
