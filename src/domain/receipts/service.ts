/**
 * Receipts: record (and preview), void. A receipt locks its order row (FOR UPDATE) first, so two
 * receipts for the same order run one after the other and the second sees what the first booked; it
 * reads everything the order shows once, and the rest is a fixed number of statements whatever the
 * number of lines (inserts and one UPDATE … FROM unnest for the lines, one array per column), then the
 * stock movements, history, events and the platform push job, all in the caller's transaction. The
 * answer and the event present the order from what was read plus what was written.
 */

import Big from "big.js";
import { sql } from "kysely";
import type { AppContext } from "../../context.ts";
import { insertRows } from "../../db/bulk.ts";
import type { Db } from "../../db/database.ts";
import { emit } from "../../events/outbox.ts";
import { DetailCollector, invalidTransition, notFound } from "../errors.ts";
import type { AllocatableCharge, AllocationMethod } from "../landed-cost.ts";
import { formatMoney, formatUnitCost, minorUnits, parseDecimalInput } from "../money.ts";
import {
  type Actor,
  addHistory,
  addUnorderedLines,
  assertCan,
  bookReceivedQuantities,
  deriveStatusAfterReceiving,
  fetchLookups,
  incomingOf,
  type LineDraft,
  type LineRow,
  loadOrderParts,
  loadPurchaseOrder,
  locationRef,
  lockOrderRecord,
  lockPurchaseOrder,
  type OrderParts,
  type OrderRecord,
  orderLines,
  orderRecordQuery,
  type PresentedReceipt,
  type PurchaseOrder,
  resolveLines,
  setStatusAfterReceiving,
  setStatusAfterVoid,
} from "../purchase-orders/index.ts";
import { JUST_RECORDED, type MovementInput, recordStockMovements } from "../stock/index.ts";
import { localDate } from "../suppliers/pricing.ts";
import {
  type ComputedReceipt,
  computeReceipt,
  type ReceiptLineRequest,
  type ReceiptOrderLine,
  type UnorderedRequest,
} from "./compute.ts";
import { knownLocationName, presentAfterReceipt } from "./presented.ts";

export interface ReceiptLineBody {
  line_id: number;
  quantity: number;
  rejected?: { quantity: number; reason?: string | null }[];
  unit_cost?: number | string;
  bin_location?: string | null;
  lot_number?: string | null;
  lot_expiry?: string | null;
  lot_manufactured?: string | null;
  lot_id?: number | null;
}

export interface UnorderedBody {
  variant_id?: number;
  inventory_item_id?: number;
  product_title?: string;
  sku?: string | null;
  quantity: number;
  unit_cost?: number | string;
  location_id?: number | null;
}

export interface ReceiptBody {
  location_id?: number;
  received_at?: string;
  note?: string | null;
  invoice_reference?: string | null;
  invoice_total?: number | string | null;
  invoice_date?: string | null;
  exchange_rate?: number;
  route_to_destinations?: boolean;
  rejected_disposition?: "replace" | "remove";
  lines?: ReceiptLineBody[];
  unordered?: UnorderedBody[];
}

export interface StoreRef {
  id: number;
  currency: string;
  timezone: string;
}

export interface ReceiptCall {
  ctx: AppContext;
  trx: Db;
  store: StoreRef;
  actor: Actor;
}

/** Column limits: unit costs numeric(20, 8), amounts numeric(20, 4). */
const MAX_UNIT_COST = new Big("1e12");
const MAX_AMOUNT = new Big("1e15");

const RECEIPT_REASON = "received";
const VOID_REASON = "receipt_voided";

export function receiptReference(orderId: number, receiptId: number): string {
  return `stockroom://purchase_orders/${orderId}/receipts/${receiptId}`;
}

// ---------------------------------------------------------------------------------------------------
// Preparing: everything read and checked before anything is written (shared with the preview)

interface Prepared {
  order: OrderRecord;
  lines: LineRow[];
  computed: ComputedReceipt;
  /** New order lines for the `unordered` entries, positions after the last line. */
  newLines: LineDraft[];
  /** The receipt location's name (null when the location is unknown). */
  locationName: string | null;
  receivedAt: Date;
  invoiceTotal: string | null;
}

async function prepare(
  ctx: AppContext,
  db: Db,
  store: StoreRef,
  order: OrderRecord,
  parts: OrderParts,
  body: ReceiptBody,
): Promise<Prepared> {
  const problems = new DetailCollector();
  const now = ctx.clock.now();
  const today = localDate(now, store.timezone);
  const unordered = body.unordered ?? [];
  const { lines, charges } = parts;
  const history = receiptHistory(parts);
  const lookups = await fetchLookups(db, store.id, {
    supplierId: order.supplier_id,
    variantIds: unordered.flatMap((u) => (u.variant_id !== undefined ? [u.variant_id] : [])),
    itemIds: unordered.flatMap((u) => (u.inventory_item_id !== undefined ? [u.inventory_item_id] : [])),
    locationIds: [
      ...(body.location_id !== undefined ? [body.location_id] : []),
      ...unordered.flatMap((u) => (u.location_id != null ? [u.location_id] : [])),
    ],
    taxRateIds: [],
  });

  if (body.location_id !== undefined && !lookups.locations.has(body.location_id))
    problems.add("location_id", "not_found", "is not a location of this store");

  const lastPosition = lines.reduce((m, l) => Math.max(m, l.position), 0);
  const newLines = resolveLines(
    {
      currency: order.currency,
      storeCurrency: store.currency,
      today,
      lookups,
      path: "unordered",
      firstPosition: lastPosition + 1,
      problems,
    },
    unordered.map((u) => ({
      ...(u.variant_id !== undefined && { variant_id: u.variant_id }),
      ...(u.inventory_item_id !== undefined && { inventory_item_id: u.inventory_item_id }),
      ...(u.product_title !== undefined && { product_title: u.product_title }),
      ...(u.sku !== undefined && { sku: u.sku }),
      ...(u.unit_cost !== undefined && { unit_cost: u.unit_cost }),
      ...(u.location_id !== undefined && { location_id: u.location_id }),
      quantity: u.quantity,
    })),
  ).map((draft) => ({ ...draft, received_quantity: draft.quantity, warnings: [] }));

  const requestLines: ReceiptLineRequest[] = (body.lines ?? []).map((l, index) => {
    let unitCost: Big | null = null;
    if (l.unit_cost !== undefined) {
      const parsed = parseDecimalInput(l.unit_cost, { maxPlaces: 8 });
      if (!parsed.ok) problems.add(`lines.${index}.unit_cost`, parsed.code, parsed.message);
      else if (parsed.value.gte(MAX_UNIT_COST))
        problems.add(`lines.${index}.unit_cost`, "out_of_range", `must be below ${MAX_UNIT_COST}`);
      else unitCost = parsed.value;
    }
    return {
      lineId: l.line_id,
      quantity: l.quantity,
      rejected: (l.rejected ?? []).map((r) => ({ quantity: r.quantity, reason: r.reason ?? null })),
      unitCost,
    };
  });

  let invoiceTotal: string | null = null;
  if (body.invoice_total !== undefined && body.invoice_total !== null) {
    const parsed = parseDecimalInput(body.invoice_total, { maxPlaces: minorUnits(order.currency) });
    if (!parsed.ok) problems.add("invoice_total", parsed.code, parsed.message);
    else if (parsed.value.gte(MAX_AMOUNT))
      problems.add("invoice_total", "out_of_range", `must be below ${MAX_AMOUNT}`);
    else invoiceTotal = parsed.value.toString();
  }

  // Stored with 12 decimal places (as the order's rate): book exactly what is stored.
  let exchangeRate: Big | null = null;
  if (body.exchange_rate !== undefined) {
    exchangeRate = new Big(String(body.exchange_rate)).round(12, 1);
    if (exchangeRate.lte(0)) problems.add("exchange_rate", "must_be_positive", "must be greater than zero");
  }

  const orderLinesForReceipt: ReceiptOrderLine[] = lines.map((l) => {
    const h = history.get(l.id);
    return {
      id: l.id,
      position: l.position,
      quantity: l.quantity,
      cancelled_quantity: l.cancelled_quantity,
      received_quantity: l.received_quantity,
      unit_cost: l.unit_cost,
      discount_percent: l.discount_percent,
      weight_grams: l.weight_grams,
      inventory_item_id: l.inventory_item_id,
      location_id: l.location_id,
      allocated: h?.allocated ?? new Big(0),
      unordered: h?.unordered ?? false,
    };
  });
  const unorderedRequests: UnorderedRequest[] = newLines.map((d) => ({
    quantity: d.quantity,
    unitCost: new Big(d.unit_cost),
    inventoryItemId: d.inventory_item_id,
    locationId: d.location_id,
  }));
  const computed = computeReceipt(
    {
      status: order.status,
      currency: order.currency,
      exchangeRate: new Big(order.exchange_rate),
      locationId: order.location_id,
      updatesStock: order.updates_stock,
      lines: orderLinesForReceipt,
      charges: charges.map(
        (c): AllocatableCharge => ({
          amountInOrderCurrency: new Big(c.amount_in_order_currency),
          method: c.allocation_method as AllocationMethod,
          customSplit:
            c.custom_split?.map((s) => ({ position: s.position, amount: new Big(s.amount) })) ?? null,
        }),
      ),
    },
    {
      exchangeRate,
      locationId: body.location_id ?? null,
      routeToDestinations: body.route_to_destinations ?? false,
      rejectedDisposition: body.rejected_disposition ?? "replace",
      lines: requestLines,
      unordered: unorderedRequests,
    },
    problems,
  );
  problems.throwIfAny();

  const receiptLocation = computed.locationId;
  const locationName =
    lookups.locations.get(receiptLocation)?.name ??
    knownLocationName(order, parts, receiptLocation) ??
    (await findLocationName(db, store.id, receiptLocation));
  const receivedAt =
    body.received_at === undefined || body.received_at === today
      ? now
      : startOfDay(body.received_at, store.timezone);
  return { order, lines, computed, newLines, locationName, receivedAt, invoiceTotal };
}

/** Per order line: charges allocated by non-voided receipts, and whether a receipt added the line. */
function receiptHistory(parts: Pick<OrderParts, "receipts" | "receiptLines">) {
  const voided = new Set(parts.receipts.filter((r) => r.voided_at !== null).map((r) => r.id));
  const history = new Map<number, { allocated: Big; unordered: boolean }>();
  for (const rl of parts.receiptLines) {
    const entry = history.get(rl.line_id) ?? { allocated: new Big(0), unordered: false };
    if (!voided.has(rl.receipt_id)) entry.allocated = entry.allocated.plus(rl.allocated_charge_amount);
    entry.unordered ||= rl.unordered;
    history.set(rl.line_id, entry);
  }
  return history;
}

async function findLocationName(db: Db, storeId: number, id: number): Promise<string | null> {
  const row = await db
    .selectFrom("locations")
    .select("name")
    .where("store_id", "=", storeId)
    .where("id", "=", id)
    .executeTakeFirst();
  return row?.name ?? null;
}

/** 00:00 of a date in a timezone, as an instant. */
export function startOfDay(date: string, timeZone: string): Date {
  const utcMidnight = Date.parse(`${date}T00:00:00Z`);
  let at = utcMidnight - offsetMs(new Date(utcMidnight), timeZone);
  // Around a DST change the offset at the guess can differ from the one at UTC midnight.
  const second = utcMidnight - offsetMs(new Date(at), timeZone);
  if (second !== at) at = second;
  return new Date(at);
}

function offsetMs(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const local = Date.UTC(
    get("year"),
    get("month") - 1,
    get("day"),
    get("hour"),
    get("minute"),
    get("second"),
  );
  return local - Math.floor(at.getTime() / 1000) * 1000;
}

// ---------------------------------------------------------------------------------------------------
// Preview

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

/** What POST …/receipts would book, written nowhere. Same refusals as the real call. */
export async function previewReceiptFor(
  ctx: AppContext,
  store: StoreRef,
  orderId: number,
  body: ReceiptBody,
): Promise<ReceiptPreview> {
  const order = (await orderRecordQuery(ctx.db, store.id).where("po.id", "=", orderId).executeTakeFirst()) as
    | OrderRecord
    | undefined;
  if (!order) throw notFound("purchase order");
  assertCan("receipt", order.status);
  const parts = await loadOrderParts(ctx.db, store.id, [order.id]);
  const prepared = await prepare(ctx, ctx.db, store, order, parts, body);
  const { computed } = prepared;
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

// ---------------------------------------------------------------------------------------------------
// Recording

export async function recordReceipt(
  call: ReceiptCall,
  orderId: number,
  body: ReceiptBody,
): Promise<{ receipt: PresentedReceipt; order: PurchaseOrder }> {
  const { ctx, trx, store, actor } = call;
  const order = await lockOrderRecord(trx, store.id, orderId);
  assertCan("receipt", order.status);
  // Everything the order shows, read once: the receipt is computed from it and the order presented
  // from it afterwards with what this receipt changed, instead of read back.
  const parts = await loadOrderParts(trx, store.id, [orderId]);
  const prepared = await prepare(ctx, trx, store, order, parts, body);
  const { computed, newLines } = prepared;
  const now = ctx.clock.now();

  // Unordered entries become order lines, fully received.
  const newLineIds = await addUnorderedLines(trx, store.id, orderId, newLines, now);

  const receiptValues = {
    store_id: store.id,
    purchase_order_id: orderId,
    received_at: prepared.receivedAt,
    voided_at: null,
    source: "api",
    location_id: computed.locationId,
    route_to_destinations: body.route_to_destinations ?? false,
    invoice_reference: body.invoice_reference ?? null,
    invoice_date: body.invoice_date ?? null,
    invoice_total: prepared.invoiceTotal,
    exchange_rate: computed.exchangeRate.toString(),
    rejected_disposition: body.rejected_disposition ?? "replace",
    note: body.note ?? null,
    created_at: now,
    updated_at: now,
  } as const;
  const receipt = await trx
    .insertInto("receipts")
    .values(receiptValues)
    .returning("id")
    .executeTakeFirstOrThrow();

  const bodyLines = body.lines ?? [];
  const lineRows = computed.lines.map((l) => ({
    line: l,
    lineId: l.lineId ?? newLineIds[l.source.index],
    entry: l.source.kind === "line" ? bodyLines[l.source.index] : undefined,
  }));
  const { rows: lineIds } = await insertRows<(typeof lineRows)[number], { id: number }>(
    "receipt_lines",
    lineRows,
    [
      ["store_id", "int", () => store.id],
      ["receipt_id", "int", () => receipt.id],
      ["line_id", "int", (r) => r.lineId],
      ["location_id", "bigint", (r) => r.line.locationId],
      ["quantity", "int", (r) => r.line.quantity],
      ["surplus_quantity", "int", (r) => r.line.surplusQuantity],
      ["rejected_quantity", "int", (r) => r.line.rejectedQuantity],
      ["rejected", "jsonb", (r) => JSON.stringify(r.line.rejected)],
      [
        "outstanding_before",
        "int",
        (r) => (r.line.source.kind === "unordered" ? 0 : r.line.outstandingBefore),
      ],
      ["cancelled_added", "int", (r) => r.line.cancelledAdded],
      ["unordered", "boolean", (r) => r.line.source.kind === "unordered"],
      ["unit_cost", "numeric", (r) => r.line.unitCost.toString()],
      ["landed_unit_cost", "numeric", (r) => r.line.landedUnitCost.toString()],
      ["allocated_charge_amount", "numeric", (r) => r.line.allocatedChargeAmount.toString()],
      ["bin_location", "text", (r) => r.entry?.bin_location ?? null],
      ["lot_number", "text", (r) => r.entry?.lot_number ?? null],
      ["lot_expiry", "date", (r) => r.entry?.lot_expiry ?? null],
      ["lot_manufactured", "date", (r) => r.entry?.lot_manufactured ?? null],
      ["lot_id", "int", (r) => r.entry?.lot_id ?? null],
      ["created_at", "timestamptz", () => now],
    ],
    sql`returning id`,
  ).execute(trx);

  await bookReceivedQuantities(
    trx,
    store.id,
    computed.lineChanges.map((c) => ({
      id: c.lineId,
      received: c.receivedAfter,
      cancelled: c.cancelledAfter,
    })),
    now,
  );

  const becameReceived = computed.statusAfter === "received" && order.status !== "received";
  await setStatusAfterReceiving(
    trx,
    store.id,
    orderId,
    { status: computed.statusAfter, becameReceived, linesAdded: newLines.length > 0 },
    now,
  );

  const movementIds = await recordStockMovements(ctx, trx, {
    storeId: store.id,
    subjectType: "receipt",
    subjectId: receipt.id,
    reference: receiptReference(orderId, receipt.id),
    movements: computed.movements.map(
      (m): MovementInput => ({
        inventoryItemId: m.inventoryItemId,
        locationId: m.locationId,
        availableDelta: m.availableDelta,
        incomingDelta: m.incomingDelta,
        unitCost: m.unitCost === null ? null : m.unitCost.toString(),
        unitCostCurrency: m.unitCost === null ? null : store.currency,
        reason: RECEIPT_REASON,
      }),
    ),
  });

  const linesData = computed.lines.map((l) => ({
    line_id: l.lineId ?? newLineIds[l.source.index],
    quantity: l.quantity,
    surplus_quantity: l.surplusQuantity,
    rejected_quantity: l.rejectedQuantity,
    ...(l.source.kind === "unordered" && { unordered: true }),
  }));
  await addHistory(trx, {
    storeId: store.id,
    orderId,
    type: "receipt_recorded",
    by: actor.by,
    via: actor.via,
    at: now,
    data: {
      receipt_id: receipt.id,
      lines: linesData,
      status: { from: order.status, to: computed.statusAfter },
    },
  });
  if (becameReceived) {
    await addHistory(trx, {
      storeId: store.id,
      orderId,
      type: "received",
      by: actor.by,
      via: actor.via,
      at: now,
      data: { receipt_id: receipt.id },
    });
  }

  // New lines changed the order's totals in the database: read it back. Otherwise it is what was
  // read at the start with what this receipt wrote.
  const presented =
    newLines.length > 0
      ? await loadPurchaseOrder(trx, store.id, orderId)
      : presentAfterReceipt(order, parts, {
          now,
          status: computed.statusAfter,
          becameReceived,
          lineChanges: computed.lineChanges,
          receipt: {
            ...receiptValues,
            id: receipt.id,
            location_name: prepared.locationName,
          },
          receiptLines: lineRows.map((r, i) => ({
            id: lineIds[i].id,
            receipt_id: receipt.id,
            line_id: r.lineId,
            quantity: r.line.quantity,
            surplus_quantity: r.line.surplusQuantity,
            rejected_quantity: r.line.rejectedQuantity,
            // As the columns store them: numeric(20, 8) and numeric(20, 4), half away from zero.
            unit_cost: r.line.unitCost.round(8, Big.roundHalfUp).toString(),
            landed_unit_cost: r.line.landedUnitCost.round(8, Big.roundHalfUp).toString(),
            allocated_charge_amount: r.line.allocatedChargeAmount.round(4, Big.roundHalfUp).toString(),
            unordered: r.line.source.kind === "unordered",
          })),
          receiptSync: movementIds.length > 0 ? JUST_RECORDED : null,
        });
  const presentedReceipt = presented.receipts.find((r) => r.id === receipt.id)!;
  await emit(ctx, trx, {
    storeId: store.id,
    name: "purchase_order.receipt_recorded",
    subjectType: "purchase_order",
    subjectId: orderId,
    data: presented,
    extra: { receipt: presentedReceipt },
  });
  if (becameReceived) {
    await emit(ctx, trx, {
      storeId: store.id,
      name: "purchase_order.received",
      subjectType: "purchase_order",
      subjectId: orderId,
      data: presented,
    });
  }
  return { receipt: presentedReceipt, order: presented };
}

// ---------------------------------------------------------------------------------------------------
// Voiding

export async function voidReceipt(
  call: ReceiptCall,
  orderId: number,
  receiptId: number,
  body: { note?: string | null },
): Promise<{ receipt: PresentedReceipt; order: PurchaseOrder }> {
  const { ctx, trx, store, actor } = call;
  const order = await lockPurchaseOrder(trx, store.id, orderId);
  const receipt = await trx
    .selectFrom("receipts")
    .selectAll()
    .where("store_id", "=", store.id)
    .where("purchase_order_id", "=", orderId)
    .where("id", "=", receiptId)
    .executeTakeFirst();
  if (!receipt) throw notFound("receipt on this purchase order");
  assertCan("void_receipt", order.status);
  if (receipt.voided_at !== null)
    throw invalidTransition("The receipt is voided: it cannot be voided again.");

  const [lines, receiptLines, movements] = await Promise.all([
    orderLines(trx, store.id, orderId),
    trx
      .selectFrom("receipt_lines")
      .selectAll()
      .where("store_id", "=", store.id)
      .where("receipt_id", "=", receiptId)
      .orderBy("id")
      .execute(),
    trx
      .selectFrom("stock_movements")
      .select(["inventory_item_id", "location_id", "available_delta", "on_hand_delta"])
      .where("store_id", "=", store.id)
      .where("subject_type", "=", "receipt")
      .where("subject_id", "=", receiptId)
      .where("reason", "=", RECEIPT_REASON)
      .execute(),
  ]);

  // The lines as they are without this receipt. A line the receipt added (unordered) is cancelled
  // instead of left expecting units that were never ordered.
  const after = new Map(lines.map((l) => [l.id, { ...l }]));
  for (const rl of receiptLines) {
    const l = after.get(rl.line_id);
    if (!l) continue;
    l.received_quantity = Math.max(0, l.received_quantity - rl.quantity);
    l.cancelled_quantity = Math.max(0, l.cancelled_quantity - rl.cancelled_added);
    if (rl.unordered) l.cancelled_quantity = Math.min(l.quantity, l.cancelled_quantity + rl.quantity);
  }
  const linesAfter = lines.map((l) => after.get(l.id)!);
  const statusAfter = deriveStatusAfterReceiving(linesAfter);
  const now = ctx.clock.now();

  await trx
    .updateTable("receipts")
    .set({ voided_at: now, updated_at: now })
    .where("store_id", "=", store.id)
    .where("id", "=", receiptId)
    .execute();
  await bookReceivedQuantities(
    trx,
    store.id,
    linesAfter
      .filter(
        (l, i) =>
          l.received_quantity !== lines[i].received_quantity ||
          l.cancelled_quantity !== lines[i].cancelled_quantity,
      )
      .map((l) => ({ id: l.id, received: l.received_quantity, cancelled: l.cancelled_quantity })),
    now,
  );
  await setStatusAfterVoid(trx, store.id, orderId, statusAfter, now);

  // Stock: take back exactly the units the receipt put in; incoming follows the lines' outstanding
  // quantity (what the receipt took off, unless later receipts took it since).
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
  for (const m of movements) {
    const v = at(m.inventory_item_id, m.location_id);
    v.availableDelta = (v.availableDelta ?? 0) - m.available_delta;
    v.onHandDelta = (v.onHandDelta ?? 0) - m.on_hand_delta;
  }
  const incomingBefore = incomingOf(order, lines);
  const incomingAfter = incomingOf({ status: statusAfter, updates_stock: order.updates_stock }, linesAfter);
  for (const d of [...incomingBefore.map((d) => ({ ...d, delta: -d.delta })), ...incomingAfter]) {
    if (d.line.inventory_item_id === null || d.delta === 0) continue;
    const v = at(d.line.inventory_item_id, d.line.location_id ?? order.location_id);
    v.incomingDelta = (v.incomingDelta ?? 0) + d.delta;
  }
  await recordStockMovements(ctx, trx, {
    storeId: store.id,
    subjectType: "receipt",
    subjectId: receiptId,
    reference: receiptReference(orderId, receiptId),
    movements: [...byKey.values()],
  });

  await addHistory(trx, {
    storeId: store.id,
    orderId,
    type: "receipt_voided",
    by: actor.by,
    via: actor.via,
    at: now,
    data: { receipt_id: receiptId, note: body.note ?? null, status: { from: order.status, to: statusAfter } },
  });

  const presented = await loadPurchaseOrder(trx, store.id, orderId);
  const presentedReceipt = presented.receipts.find((r) => r.id === receiptId)!;
  await emit(ctx, trx, {
    storeId: store.id,
    name: "receipt.voided",
    subjectType: "receipt",
    subjectId: receiptId,
    data: { ...presentedReceipt, purchase_order: presented },
  });
  await emit(ctx, trx, {
    storeId: store.id,
    name: "purchase_order.updated",
    subjectType: "purchase_order",
    subjectId: orderId,
    data: presented,
  });
  return { receipt: presentedReceipt, order: presented };
}
