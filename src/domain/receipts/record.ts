/**
 * Recording a receipt. It locks its order row (FOR UPDATE) first, so two receipts for the same order
 * run one after the other and the second sees what the first booked, and takes the receipt's id in
 * the same statement; it reads everything the order shows once; then every row it writes (the receipt
 * and its lines, the order lines' quantities and the order's status, history, the stock movements,
 * the platform push job, the levels) goes in one statement whatever the number of lines (arrays per
 * column), and the events after it, all in the caller's transaction. The answer and the event present
 * the order from what was read plus what was written.
 */
import { emit } from "../../events/outbox.ts";
import {
  type Actor,
  addUnorderedLines,
  assertCan,
  bookAddedLinesTotals,
  historyInsert,
  loadOrderPartsInOneStatement,
  loadPurchaseOrderInTransaction,
  lockOrderRecordForReceipt,
  type PresentedReceipt,
  type PurchaseOrder,
  receiptBooking,
} from "../purchase-orders/index.ts";
import { JUST_RECORDED, recordStockMovementsWith } from "../stock/index.ts";
import type { ComputedReceipt } from "./compute.ts";
import { refuseGoneDestinations } from "./destinations.ts";
import { receiptMovements, receiptReference } from "./movements.ts";
import { type Prepared, prepare } from "./prepare.ts";
import { presentAfterReceipt, storedReceiptLines } from "./presented.ts";
import { type ReceiptLineWrite, receiptLineIdsOf, receiptWrites } from "./repository.ts";
import type { ReceiptBody, ReceiptCall } from "./types.ts";

/**
 * The receipt and the order as recorded, and their JSON texts: the event's data and extra were
 * written from these texts, and the caller answers with them rather than serializing the order
 * (50-line order: 40-90 KB of JSON) once more for the reply and once for the stored answer.
 */
export interface RecordedReceipt {
  receipt: PresentedReceipt;
  order: PurchaseOrder;
  json: { receipt: string; order: string };
}

export async function recordReceipt(
  call: ReceiptCall,
  orderId: number,
  body: ReceiptBody,
): Promise<RecordedReceipt> {
  const { ctx, trx, store } = call;
  const { order, receiptId } = await lockOrderRecordForReceipt(trx, store.id, orderId);
  assertCan("receipt", order.status);
  // Everything the order shows, read once, in one statement after the lock (so it sees what an earlier
  // receipt booked): the receipt is computed from it and the order presented from it afterwards with
  // what this receipt changed, instead of read back.
  const parts = await loadOrderPartsInOneStatement(trx, store.id, orderId);
  const prepared = await prepare(ctx, trx, store, order, parts, body);
  const { computed, newLines } = prepared;
  const now = ctx.clock.now();

  // Unordered entries become order lines, fully received.
  const newLineIds = await addUnorderedLines(trx, store.id, orderId, newLines, now);
  const receiptValues = { id: receiptId, ...receiptRow(store.id, orderId, prepared, body, now) };
  const bodyLines = body.lines ?? [];
  const lineWrites: ReceiptLineWrite[] = computed.lines.map((l) => ({
    line: l,
    lineId: l.lineId ?? newLineIds[l.source.index],
    entry: l.source.kind === "line" ? bodyLines[l.source.index] : undefined,
  }));
  const becameReceived = computed.statusAfter === "received" && order.status !== "received";
  const changes = computed.lineChanges.map((c) => ({
    id: c.lineId,
    received: c.receivedAfter,
    cancelled: c.cancelledAfter,
  }));
  // Every row the receipt writes, in the statement that records its movements: the receipt and its
  // lines, the order's booking and history beside the ledger's own (one round trip).
  const receiptRows = receiptWrites(receiptValues, lineWrites, now);
  const { movementIds, columns } = await recordStockMovementsWith<{ receipt_line_ids: number[] | null }>(
    ctx,
    trx,
    {
      storeId: store.id,
      subjectType: "receipt",
      subjectId: receiptId,
      reference: receiptReference(orderId, receiptId),
      movements: receiptMovements(computed.movements, store.currency),
      refuseGone: (gone) => refuseGoneDestinations(computed, gone),
    },
    {
      parts: [
        ...receiptRows.parts,
        ...receiptBooking(store.id, orderId, changes, { status: computed.statusAfter, becameReceived }, now),
        [
          "history",
          historyInsert(
            receiptHistory(call.actor, {
              storeId: store.id,
              orderId,
              receiptId,
              statusBefore: order.status,
              computed,
              lineWrites,
              becameReceived,
              now,
            }),
          ),
        ],
      ],
      columns: receiptRows.columns,
    },
  );
  const lineIds = receiptLineIdsOf(columns);
  if (newLines.length > 0) await bookAddedLinesTotals(trx, store.id, orderId);

  // New lines changed the order's totals in the database: read it back. Otherwise it is what was
  // read at the start with what this receipt wrote.
  const presented =
    newLines.length > 0
      ? await loadPurchaseOrderInTransaction(trx, store.id, orderId)
      : presentAfterReceipt(order, parts, {
          now,
          status: computed.statusAfter,
          becameReceived,
          lineChanges: computed.lineChanges,
          receipt: { ...receiptValues, id: receiptId, location_name: prepared.locationName },
          receiptLines: storedReceiptLines(receiptId, lineWrites, lineIds),
          receiptSync: movementIds.length > 0 ? JUST_RECORDED : null,
        });
  const presentedReceipt = presented.receipts.find((r) => r.id === receiptId)!;
  const json = { receipt: JSON.stringify(presentedReceipt), order: JSON.stringify(presented) };
  await emit(ctx, trx, {
    storeId: store.id,
    name: "purchase_order.receipt_recorded",
    subjectType: "purchase_order",
    subjectId: orderId,
    dataText: json.order,
    extraText: `{"receipt":${json.receipt}}`,
  });
  if (becameReceived) {
    await emit(ctx, trx, {
      storeId: store.id,
      name: "purchase_order.received",
      subjectType: "purchase_order",
      subjectId: orderId,
      dataText: json.order,
    });
  }
  return { receipt: presentedReceipt, order: presented, json };
}

/** The receipts row as written (and presented from, when the order is not read back). */
function receiptRow(storeId: number, orderId: number, prepared: Prepared, body: ReceiptBody, now: Date) {
  return {
    store_id: storeId,
    purchase_order_id: orderId,
    received_at: prepared.receivedAt,
    voided_at: null,
    source: "api",
    location_id: prepared.computed.locationId,
    route_to_destinations: body.route_to_destinations ?? false,
    invoice_reference: body.invoice_reference ?? null,
    invoice_date: body.invoice_date ?? null,
    invoice_total: prepared.invoiceTotal,
    exchange_rate: prepared.computed.exchangeRate.toString(),
    rejected_disposition: body.rejected_disposition ?? "replace",
    note: body.note ?? null,
    created_at: now,
    updated_at: now,
  } as const;
}

/**
 * receipt_recorded on the order's history, and `received` when this receipt completed the order.
 */
function receiptHistory(
  actor: Actor,
  r: {
    storeId: number;
    orderId: number;
    receiptId: number;
    statusBefore: string;
    computed: ComputedReceipt;
    lineWrites: readonly ReceiptLineWrite[];
    becameReceived: boolean;
    now: Date;
  },
) {
  const base = { storeId: r.storeId, orderId: r.orderId, by: actor.by, via: actor.via, at: r.now };
  const recorded = {
    ...base,
    type: "receipt_recorded" as const,
    data: {
      receipt_id: r.receiptId,
      lines: r.lineWrites.map(({ line, lineId }) => ({
        line_id: lineId,
        quantity: line.quantity,
        surplus_quantity: line.surplusQuantity,
        rejected_quantity: line.rejectedQuantity,
        ...(line.source.kind === "unordered" && { unordered: true }),
      })),
      status: { from: r.statusBefore, to: r.computed.statusAfter },
    },
  };
  return r.becameReceived
    ? [recorded, { ...base, type: "received" as const, data: { receipt_id: r.receiptId } }]
    : [recorded];
}
