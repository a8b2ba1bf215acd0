/**
 * The lifecycle calls: each is a move the transition runner applies; what a move may
 * do from which state is the table in `transitions.ts`. DELETE is here too (a draft only).
 */
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { DetailCollector, invalidTransition, notFound } from "../errors.ts";
import { localDate } from "../local-time.ts";
import { emitOrder, type OrderCall, type StoreInfo } from "./call.ts";
import { chargeDraftOf, lineDraftOf } from "./drafts.ts";
import type { Actor } from "./history.ts";
import { assertLineCap } from "./line-cap.ts";
import { type LineInput, referencesOf, resolveLines } from "./lines.ts";
import { loadPurchaseOrder } from "./loading.ts";
import { fetchLookups } from "./lookups.ts";
import { checkComputedMoney } from "./money-bounds.ts";
import { sameValue } from "./patch-diff.ts";
import { refreshPaymentStatus } from "./payment-status.ts";
import type { OrderRow, PurchaseOrder } from "./presenter.ts";
import {
  addCancelledQuantity,
  deleteOrder,
  insertLines,
  lockPurchaseOrder,
  orderCharges,
  updateLineMoney,
} from "./repository.ts";
import { incomingOf } from "./stock.ts";
import { computeMoney } from "./totals.ts";
import { applyMove, type Move, runMove } from "./transition-runner.ts";
import { assertCan, isOpen, outstandingOf, resolveTarget } from "./transitions.ts";

const MARK_ORDERED: Move<{ ordered_at?: string }> = {
  action: "mark_ordered",
  readsLines: true,
  plan: ({ now, body }) => {
    const orderedAt = body.ordered_at ? new Date(body.ordered_at) : now;
    return {
      set: { ordered_at: orderedAt },
      history: [["ordered", { ordered_at: orderedAt.toISOString() }]],
      events: ["purchase_order.ordered"],
    };
  },
};

const MARK_IN_TRANSIT: Move<{ expected_at?: string; note?: string }> = {
  action: "mark_in_transit",
  readsLines: false,
  plan: ({ order, now, body }) => ({
    set: { in_transit_at: now, ...(body.expected_at !== undefined && { expected_at: body.expected_at }) },
    history: [
      [
        "in_transit",
        { from: order.status, expected_at: body.expected_at ?? order.expected_at, note: body.note ?? null },
      ],
    ],
    events: ["purchase_order.in_transit"],
  }),
};

const CLOSE: Move<unknown> = {
  action: "close",
  readsLines: true,
  plan: ({ order, lines, now }) => {
    // What the platform no longer expects: the outstanding units of an open order that updates stock.
    const retracted =
      order.updates_stock && order.type !== "return" && isOpen(order.status)
        ? lines.reduce((s, l) => s + (l.inventory_item_id === null ? 0 : outstandingOf(l)), 0)
        : 0;
    return {
      set: { closed_at: now },
      history: [["closed", { from: order.status, retracted_quantity: retracted }]],
      events: ["purchase_order.closed"],
    };
  },
};

const REOPEN: Move<unknown> = {
  action: "reopen",
  readsLines: true,
  plan: ({ order, lines, target }) => {
    const status = resolveTarget(target, order.status, lines);
    return {
      set: { closed_at: null },
      history: [["reopened", { status }]],
      events: ["purchase_order.reopened"],
    };
  },
};

const ARCHIVE: Move<{ close?: boolean }> = {
  action: "archive",
  readsLines: false,
  precheck: (order) => {
    if (order.archived)
      throw invalidTransition(
        `The purchase order is ${order.status} and already archived: it cannot be archived again.`,
      );
  },
  plan: async ({ call, order, now, body }) => {
    const closing = body.close === true && isOpen(order.status);
    if (closing) await applyMove(call, order, CLOSE, undefined, now);
    return {
      set: { archived: true, archived_at: now },
      history: [["archived", { closed: closing }]],
      events: ["purchase_order.archived"],
    };
  },
};

const UNARCHIVE: Move<unknown> = {
  action: "unarchive",
  readsLines: false,
  precheck: (order) => {
    if (!order.archived)
      throw invalidTransition(
        `The purchase order is ${order.status} and not archived: it cannot be unarchived.`,
      );
  },
  plan: () => ({
    set: { archived: false, archived_at: null },
    history: [["unarchived", {}]],
    events: ["purchase_order.updated"],
  }),
};

const CANCEL_REMAINING: Move<{ lineId: number }> = {
  action: "cancel_remaining",
  readsLines: true,
  precheck: (_order, lines, { lineId }) => {
    if (!lines.some((l) => l.id === lineId)) throw notFound("line on this purchase order");
  },
  plan: async ({ call, order, lines, target, now, body: { lineId } }) => {
    const line = lines.find((l) => l.id === lineId) as (typeof lines)[number];
    const outstanding = outstandingOf(line);
    if (outstanding === 0)
      throw invalidTransition(
        `The purchase order is ${order.status}: line ${lineId} has nothing outstanding to cancel.`,
      );
    await addCancelledQuantity(call.trx, call.store.id, line, outstanding, now);
    const after = lines.map((l) =>
      l.id === lineId ? { ...l, cancelled_quantity: l.cancelled_quantity + outstanding } : l,
    );
    const status = resolveTarget(target, order.status, after);
    if (status === "removed") throw new Error("cancel_remaining never removes the order");
    const received = status === "received" && order.status !== "received";
    return {
      status,
      set: received ? { received_at: now } : {},
      incoming: () => [incomingOf(order, [line]), []],
      history: [
        ["line_cancelled", { line_id: lineId, cancelled_quantity: outstanding }],
        ...(received ? [["received", { via: "cancel_remaining" }] as const] : []),
      ],
      events: ["purchase_order.updated", ...(received ? ["purchase_order.received"] : [])],
    };
  },
};

const ADD_LINES: Move<LineInput[]> = {
  action: "add_lines",
  readsLines: true,
  plan: async ({ call, order, lines, now, body: inputs }) => {
    const { trx, store } = call;
    assertLineCap(lines.length + inputs.length, "lines");
    const charges = await orderCharges(trx, store.id, order.id);
    const lookups = await fetchLookups(trx, store.id, {
      supplierId: order.supplier_id,
      ...referencesOf(inputs),
    });
    const problems = new DetailCollector();
    const drafts = resolveLines(
      {
        currency: order.currency,
        storeCurrency: store.currency,
        exchangeRate: order.exchange_rate,
        today: localDate(now, store.timezone),
        lookups,
        path: "lines",
        firstPosition: lines.reduce((m, l) => Math.max(m, l.position), 0) + 1,
        problems,
      },
      inputs,
    );
    problems.throwIfAny();
    const all = [...lines.map(lineDraftOf), ...drafts];
    const money = computeMoney(order, all, charges.map(chargeDraftOf));
    // The lines already on the order were within bounds: only the new ones (body lines.N) can be beyond.
    checkComputedMoney(money, problems, (i) => `lines.${i - lines.length}.unit_cost`);
    problems.throwIfAny();
    await updateLineMoney(trx, store.id, lines, money.lines.slice(0, lines.length));
    const newIds = await insertLines(trx, {
      storeId: store.id,
      orderId: order.id,
      drafts,
      money: money.lines.slice(lines.length),
      now,
    });
    return {
      set: money.order,
      afterWrite: async () => {
        if (!sameValue(order.total, money.order.total)) await refreshPaymentStatus(trx, store.id, order.id);
      },
      incoming: (updated) => [[], incomingOf(updated, drafts)],
      history: [["lines_added", { lines: drafts.map((d, i) => ({ id: newIds[i], quantity: d.quantity })) }]],
      events: ["purchase_order.updated"],
    };
  },
};

const SEND: Move<(order: OrderRow) => Promise<Recipients>> = {
  action: "send",
  // Only a draft's lines matter: placing it brings their incoming stock.
  readsLines: (order) => order.status === "draft",
  plan: async ({ order, now, body: recipientsOf }) => {
    const { to, cc } = await recipientsOf(order);
    const placing = order.status === "draft";
    return {
      set: { sent_at: now, ...(placing && { ordered_at: now }) },
      history: [
        ["sent", { to, cc }],
        ...(placing ? [["ordered", { ordered_at: now.toISOString() }] as const] : []),
      ],
      events: [placing ? "purchase_order.ordered" : "purchase_order.updated"],
    };
  },
};

function callOf(ctx: AppContext, trx: Db, store: StoreInfo, actor: Actor): OrderCall {
  return { ctx, trx, store, actor };
}

export function markOrdered(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  id: number,
  body: { ordered_at?: string },
): Promise<PurchaseOrder> {
  return runMove(callOf(ctx, trx, store, actor), id, MARK_ORDERED, body);
}

export function markInTransit(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  id: number,
  body: { expected_at?: string; note?: string },
): Promise<PurchaseOrder> {
  return runMove(callOf(ctx, trx, store, actor), id, MARK_IN_TRANSIT, body);
}

export function closeOrder(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  id: number,
): Promise<PurchaseOrder> {
  return runMove(callOf(ctx, trx, store, actor), id, CLOSE, undefined);
}

export function reopenOrder(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  id: number,
): Promise<PurchaseOrder> {
  return runMove(callOf(ctx, trx, store, actor), id, REOPEN, undefined);
}

export function archiveOrder(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  id: number,
  body: { close?: boolean },
): Promise<PurchaseOrder> {
  return runMove(callOf(ctx, trx, store, actor), id, ARCHIVE, body);
}

export function unarchiveOrder(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  id: number,
): Promise<PurchaseOrder> {
  return runMove(callOf(ctx, trx, store, actor), id, UNARCHIVE, undefined);
}

export function cancelRemaining(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  id: number,
  lineId: number,
): Promise<PurchaseOrder> {
  return runMove(callOf(ctx, trx, store, actor), id, CANCEL_REMAINING, { lineId });
}

export function addLines(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  id: number,
  inputs: LineInput[],
): Promise<PurchaseOrder> {
  return runMove(callOf(ctx, trx, store, actor), id, ADD_LINES, inputs);
}

/** DELETE: a draft goes with its lines, charges and history; the event carries it as it was. */
export async function deletePurchaseOrder(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  id: number,
): Promise<void> {
  const order = await lockPurchaseOrder(trx, store.id, id);
  assertCan("delete", order.status);
  const presented = await loadPurchaseOrder(trx, store.id, id);
  await deleteOrder(trx, store.id, id);
  await emitOrder(callOf(ctx, trx, store, actor), "purchase_order.deleted", presented);
}

export interface Recipients {
  to: string[];
  cc: string[];
}

/**
 * POST …/send's part in the order: sent_at and a `sent` history row; a draft is placed on the way,
 * as mark_ordered places it (status, ordered_at, incoming stock, `ordered` row and event), an open
 * order is announced as updated. `recipientsOf` runs once the move is allowed, before any write (its
 * 422 leaves nothing written).
 */
export function markSent(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  id: number,
  recipientsOf: (order: OrderRow) => Promise<Recipients>,
): Promise<PurchaseOrder> {
  return runMove(callOf(ctx, trx, store, actor), id, SEND, recipientsOf);
}
