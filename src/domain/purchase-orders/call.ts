/**
 * What every purchase order write carries (the context, the caller's transaction, the store, who
 * acts) and the two things each one ends with: a history row and an event with the order as GET shows it.
 */
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { emit } from "../../events/outbox.ts";
import { type Actor, addHistory, type HistoryType } from "./history.ts";
import type { PurchaseOrder } from "./presenter.ts";

export interface StoreInfo {
  id: number;
  currency: string;
  timezone: string;
}

export interface OrderCall {
  ctx: AppContext;
  trx: Db;
  store: StoreInfo;
  actor: Actor;
}

export async function emitOrder(
  call: OrderCall,
  name: string,
  order: PurchaseOrder,
  extra?: Record<string, unknown>,
): Promise<void> {
  await emit(call.ctx, call.trx, {
    storeId: call.store.id,
    name,
    subjectType: "purchase_order",
    subjectId: order.id,
    data: order,
    extra,
  });
}

export async function recordHistory(
  call: OrderCall,
  orderId: number,
  type: HistoryType,
  data: Record<string, unknown>,
  at: Date,
): Promise<void> {
  await addHistory(call.trx, {
    storeId: call.store.id,
    orderId,
    type,
    by: call.actor.by,
    via: call.actor.via,
    data,
    at,
  });
}
