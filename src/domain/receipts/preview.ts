/** What POST …/receipts would book, written nowhere: the same reads and refusals as the real call. */
import Big from "big.js";
import type { AppContext } from "../../context.ts";
import { notFound } from "../errors.ts";
import { formatMoney, formatUnitCost } from "../money.ts";
import {
  assertCan,
  loadOrderParts,
  locationRef,
  type OrderRecord,
  orderRecordsByIdQuery,
} from "../purchase-orders/index.ts";
import { findGoneDestinations } from "../stock/index.ts";
import { refuseGoneDestinations } from "./destinations.ts";
import { type Prepared, prepare } from "./prepare.ts";
import type { ReceiptBody, StoreRef } from "./types.ts";

export interface ReceiptPreview {
  data: ReturnType<typeof previewReceipt>;
  purchase_order_status_after: string;
  stock_movements: {
    inventory_item_id: number;
    location_id: number;
    available_delta: number;
    on_hand_delta: number;
    incoming_delta: number;
    unit_cost: string | null;
  }[];
}

export async function previewReceiptFor(
  ctx: AppContext,
  store: StoreRef,
  orderId: number,
  body: ReceiptBody,
): Promise<ReceiptPreview> {
  const order = (await orderRecordsByIdQuery(ctx.db, store.id, orderId).executeTakeFirst()) as
    | OrderRecord
    | undefined;
  if (!order) throw notFound("purchase order");
  assertCan("receipt", order.status);
  const parts = await loadOrderParts(ctx.db, store.id, [order.id]);
  const prepared = await prepare(ctx, ctx.db, store, order, parts, body);
  const { computed } = prepared;
  // Good units to a location or level the platform dropped: the receipt's own refusal (record.ts).
  const gone = await findGoneDestinations(
    ctx.db,
    store.id,
    computed.movements.filter((m) => m.availableDelta !== 0),
  );
  if (gone.length > 0) refuseGoneDestinations(computed, gone);
  return {
    data: previewReceipt(prepared, store, body),
    purchase_order_status_after: computed.statusAfter,
    stock_movements: computed.movements.map((m) => ({
      inventory_item_id: m.inventoryItemId,
      location_id: m.locationId,
      available_delta: m.availableDelta,
      on_hand_delta: m.availableDelta,
      incoming_delta: m.incomingDelta,
      unit_cost: m.unitCost === null ? null : formatUnitCost(m.unitCost, store.currency),
    })),
  };
}

function previewReceipt(prepared: Prepared, store: StoreRef, body: ReceiptBody) {
  const { order, computed } = prepared;
  const currency = order.currency;
  return {
    id: null,
    purchase_order_id: order.id,
    received_at: prepared.receivedAt.toISOString(),
    voided_at: null,
    source: "api",
    location: locationRef(computed.locationId, prepared.locationName),
    invoice: {
      reference: body.invoice_reference ?? null,
      date: body.invoice_date ?? null,
      total: prepared.invoiceTotal === null ? null : formatMoney(new Big(prepared.invoiceTotal), currency),
    },
    exchange_rate: Number(computed.exchangeRate.toString()),
    rejected_disposition: body.rejected_disposition ?? "replace",
    note: body.note ?? null,
    lines: computed.lines.map((l) => ({
      id: null,
      line_id: l.lineId,
      quantity: l.quantity,
      surplus_quantity: l.surplusQuantity,
      rejected_quantity: l.rejectedQuantity,
      unit_cost: formatUnitCost(l.unitCost, currency),
      landed_unit_cost: formatUnitCost(l.landedUnitCost, store.currency),
      allocated_charge_amount: formatMoney(l.allocatedChargeAmount, currency),
      // preview only: where the entry came from and what it does to the order line
      unordered: l.source.kind === "unordered",
      location_id: l.locationId,
      outstanding_before: l.source.kind === "unordered" ? 0 : l.outstandingBefore,
      cancelled_quantity_added: l.cancelledAdded,
    })),
    platform_sync: null,
    created_at: null,
    updated_at: null,
  };
}
