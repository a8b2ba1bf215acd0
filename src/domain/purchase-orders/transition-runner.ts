/**
 * One runner for every lifecycle move: lock the order, ask the table (`transitions.ts`) whether the move
 * is allowed from its state, let the move plan its writes, set the order row (status from the table's
 * target), push the incoming stock that changed, write the history, and emit the order as GET shows it.
 */
import type { Updateable } from "kysely";
import type { PurchaseOrdersTable } from "../../db/tables/purchase_orders.ts";
import { emitOrder, type OrderCall, recordHistory } from "./call.ts";
import type { HistoryType } from "./history.ts";
import { loadPurchaseOrder } from "./loading.ts";
import type { LineRow, OrderRow, PurchaseOrder } from "./presenter.ts";
import { lockPurchaseOrder, orderLines, setOrder } from "./repository.ts";
import { type IncomingDelta, incomingOf, pushIncomingChange } from "./stock.ts";
import {
  assertCan,
  type MoveTarget,
  type OrderAction,
  type PurchaseOrderStatus,
  resolveTarget,
} from "./transitions.ts";

export interface MoveStep<Body> {
  call: OrderCall;
  /** The locked order row before the move. */
  order: OrderRow;
  /** Its lines (empty unless the move reads them). */
  lines: LineRow[];
  target: MoveTarget;
  now: Date;
  body: Body;
}

export interface MovePlan {
  /** The status after the move, when the move computes it (default: the table's target on the lines). */
  status?: PurchaseOrderStatus;
  /** Order columns to set besides status and updated_at. */
  set?: Updateable<PurchaseOrdersTable>;
  /** Incoming stock before and after, when not every line's (default: every line, before and after). */
  incoming?: (updated: OrderRow) => [IncomingDelta[], IncomingDelta[]];
  /** Writes that follow the order row's (payment status follows a new total). */
  afterWrite?: (updated: OrderRow) => Promise<void>;
  history: (readonly [HistoryType, Record<string, unknown>])[];
  /** Event names, each emitted with the order as it is after the move. */
  events: string[];
}

export interface Move<Body> {
  action: OrderAction;
  /** Reads the order's lines (a target derived from them; incoming stock pushed by the runner). */
  readsLines: boolean | ((order: OrderRow) => boolean);
  /** Refusals the table cannot express; they come before the table's (a missing line is 404 in any state). */
  precheck?: (order: OrderRow, lines: readonly LineRow[], body: Body) => void;
  plan: (step: MoveStep<Body>) => MovePlan | Promise<MovePlan>;
}

export async function runMove<Body>(
  call: OrderCall,
  id: number,
  move: Move<Body>,
  body: Body,
): Promise<PurchaseOrder> {
  const order = await lockPurchaseOrder(call.trx, call.store.id, id);
  return (await applyMove(call, order, move, body)).presented;
}

/** Applies a move to an order the caller has locked (a move may apply another one first: archive and close). */
export async function applyMove<Body>(
  call: OrderCall,
  order: OrderRow,
  move: Move<Body>,
  body: Body,
  now?: Date,
): Promise<{ updated: OrderRow; presented: PurchaseOrder }> {
  const { ctx, trx, store } = call;
  const readsLines = typeof move.readsLines === "function" ? move.readsLines(order) : move.readsLines;
  const lines = readsLines ? await orderLines(trx, store.id, order.id) : [];
  move.precheck?.(order, lines, body);
  const target = assertCan(move.action, order.status);
  const at = now ?? ctx.clock.now();
  const plan = await move.plan({ call, order, lines, target, now: at, body });
  const status = plan.status ?? statusOf(target, order.status, lines);
  const updated = await setOrder(trx, store.id, order.id, {
    ...(status !== undefined && { status }),
    ...plan.set,
    updated_at: at,
  });
  await plan.afterWrite?.(updated);
  if (readsLines) {
    const [before, after] = plan.incoming
      ? plan.incoming(updated)
      : [incomingOf(order, lines), incomingOf(updated, lines)];
    await pushIncomingChange(ctx, trx, updated, before, after);
  }
  for (const [type, data] of plan.history) await recordHistory(call, order.id, type, data, at);
  const presented = await loadPurchaseOrder(trx, store.id, order.id);
  for (const name of plan.events) await emitOrder(call, name, presented);
  return { updated, presented };
}

/** The status the table's target gives; undefined when the move keeps it (nothing to set). */
function statusOf(
  target: MoveTarget,
  current: PurchaseOrderStatus,
  lines: readonly LineRow[],
): PurchaseOrderStatus | undefined {
  if (target === "same") return undefined;
  const status = resolveTarget(target, current, lines);
  if (status === "removed") throw new Error("a removing move is not a transition of the order row");
  return status;
}
