/**
 * What every purchase order write carries (the context, the caller's transaction, the store, who
 * acts) and the two things each one ends with: a history row and an event with the order as GET shows it.
 */
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { emit } from "../../events/outbox.ts";
import { type Actor, addHistory, type HistoryType } from "./history.ts";
import { hasLinesText, orderJsonPieces, type PresentedOrder } from "./line-text.ts";

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

/** The order's event; a big order whose lines PostgreSQL wrote as text is stored as text. */
export async function emitOrder(
  call: OrderCall,
  name: string,
  order: PresentedOrder,
  extra?: Record<string, unknown>,
): Promise<void> {
  const fields = { storeId: call.store.id, name, subjectType: "purchase_order", extra };
  await emit(
    call.ctx,
    call.trx,
    hasLinesText(order)
      ? { ...fields, subjectId: order.order.id, dataJson: orderJsonPieces(order) }
      : { ...fields, subjectId: order.id, data: order },
  );
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
