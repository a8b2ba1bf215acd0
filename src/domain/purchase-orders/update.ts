/**
 * PATCH of an order, by state (transitions.ts lists the fields each state accepts): the input is
 * resolved like a create, then only what differs is written, with one `updated` history row.
 */
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { DetailCollector } from "../errors.ts";
import { emitOrder, type OrderCall, recordHistory, type StoreInfo } from "./call.ts";
import { chargeDraftOf } from "./drafts.ts";
import type { Actor } from "./history.ts";
import type { PresentedOrder } from "./line-text.ts";
import { loadPurchaseOrder } from "./loading.ts";
import { checkComputedMoney } from "./money-bounds.ts";
import { type OrderInput, PLAIN_FIELDS } from "./order-fields.ts";
import { numberTaken, resolveOrderInput } from "./order-input.ts";
import { diffOrder, sameValue } from "./patch-diff.ts";
import { refreshPaymentStatus } from "./payment-status.ts";
import type { OrderRecord, OrderRow } from "./presenter.ts";
import { type PartsReadAhead, presentFromReadAhead, readPartsAhead } from "./read-ahead.ts";
import {
  lockPurchaseOrder,
  lockPurchaseOrderVersion,
  orderCharges,
  orderLines,
  replaceCharges,
  replaceLines,
  setOrder,
  setOrderRecord,
  updateChargeMoney,
  updateLineMoney,
} from "./repository.ts";
import { incomingOf, pushIncomingChange } from "./stock.ts";
import { computeMoney } from "./totals.ts";
import { isOpen, patchRefusal, refusedPatchField, statusAfterCancel } from "./transitions.ts";

/**
 * Plain fields a PATCH may give that touch the order's money (its totals and tax) or its incoming
 * stock (a return, or an order that does not update stock, has none); every other plain field is
 * header only.
 */
const MONEY_OR_STOCK_FIELDS: ReadonlySet<string> = new Set<(typeof PLAIN_FIELDS)[number]>([
  "taxes_included",
  "charges_taxable",
  "type",
  "updates_stock",
]);

/**
 * Fields that touch neither the order's money, its lines, its charges nor its incoming stock: the
 * order's number and the plain fields but MONEY_OR_STOCK_FIELDS. A PATCH of only these leaves the
 * lines unread and unpriced: re-resolving and re-pricing a 500-line order to change its notes was most
 * of such a PATCH's time, inside its transaction, and on the embedded database every other store's
 * query waited for that transaction (issue 18 item 2). Derived, so a plain field added later is
 * header only unless it is named above.
 */
const HEADER_ONLY_FIELDS: ReadonlySet<string> = new Set([
  "number",
  ...PLAIN_FIELDS.filter((field) => !MONEY_OR_STOCK_FIELDS.has(field)),
]);

/** Fields given (not undefined) in a PATCH body. */
const givenFields = (input: OrderInput) =>
  Object.keys(input).filter((k) => (input as Record<string, unknown>)[k] !== undefined);

const isHeaderOnly = (given: readonly string[]) =>
  given.length > 0 && given.every((field) => HEADER_ONLY_FIELDS.has(field));

/**
 * What a header-only PATCH reads before its transaction (`db` outside one): the order's parts, which
 * it presents for its event and answer if its row is still at their version when locked (see
 * PartsReadAhead). Undefined for any other PATCH, or an order that is not the store's.
 */
export async function readAheadForPatch(
  db: Db,
  storeId: number,
  id: number,
  input: OrderInput,
): Promise<PartsReadAhead | undefined> {
  return isHeaderOnly(givenFields(input)) ? readPartsAhead(db, storeId, id) : undefined;
}

export async function updatePurchaseOrder(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  id: number,
  input: OrderInput,
  ahead?: PartsReadAhead,
): Promise<PresentedOrder> {
  const call: OrderCall = { ctx, trx, store, actor };
  // A PATCH read ahead (header-only) takes the row's version with its lock: is the read-ahead current?
  const { order, version } = ahead
    ? await lockPurchaseOrderVersion(trx, store.id, id)
    : { order: await lockPurchaseOrder(trx, store.id, id), version: undefined };
  const given = givenFields(input);
  const refused = refusedPatchField(order.status, given);
  if (refused) throw patchRefusal(order.status, refused);
  if (given.length === 0) return loadPurchaseOrder(trx, store.id, id);

  const now = ctx.clock.now();
  if (isHeaderOnly(given))
    return updateHeader(call, order, input, now, ahead && version === ahead.version ? ahead : undefined);
  const [lines, charges] = await Promise.all([
    orderLines(trx, store.id, id),
    orderCharges(trx, store.id, id),
  ]);
  const resolved = await resolveOrderInput(call, input, { order, lines, charges });
  const { fields } = resolved;
  const chargeDrafts = resolved.charges ?? charges.map(chargeDraftOf);
  const money = computeMoney(fields, resolved.lines, chargeDrafts);
  const problems = new DetailCollector();
  checkComputedMoney(money, problems, (i) => `lines.${i}.unit_cost`);
  problems.throwIfAny();
  const diff = diffOrder(
    { order, lines, charges },
    { fields, lines: resolved.lines, charges: chargeDrafts, total: money.order.total },
    { lines: input.lines !== undefined || resolved.linesRepriced, charges: input.charges !== undefined },
  );
  if (Object.keys(diff.changes).length === 0 && !diff.linesChanged && !diff.chargesChanged) {
    return loadPurchaseOrder(trx, store.id, id);
  }

  const before = incomingOf(order, lines);
  // Status of an open order after its lines changed: received when nothing is left outstanding.
  let status = order.status;
  if (isOpen(order.status) && input.lines) status = statusAfterCancel(order.status, resolved.lines);
  const received = status === "received" && order.status !== "received";

  const { number, ...rest } = fields;
  const updated = await setOrder(trx, store.id, id, {
    ...rest,
    ...(number !== null && { number }),
    ...money.order,
    status,
    ...(received && { received_at: now }),
    updated_at: now,
  }).catch((error: unknown) => {
    if (isUniqueViolation(error)) throw numberTaken();
    throw error;
  });

  const ofOrder = { storeId: store.id, orderId: id, now };
  if (input.lines || resolved.linesRepriced)
    await replaceLines(trx, { ...ofOrder, drafts: resolved.lines, money: money.lines });
  else await updateLineMoney(trx, store.id, lines, money.lines);
  if (resolved.charges) await replaceCharges(trx, { ...ofOrder, drafts: chargeDrafts, money: money.charges });
  else await updateChargeMoney(trx, store.id, charges, money.charges);
  if (!sameValue(order.total, money.order.total)) await refreshPaymentStatus(trx, store.id, id);

  await pushIncomingChange(ctx, trx, updated, before, incomingOf(updated, resolved.lines));

  const data: Record<string, unknown> = { changes: diff.changes };
  if (diff.lines && diff.linesChanged) {
    const newLines = await orderLines(trx, store.id, id);
    const keptIds = new Set(lines.map((l) => l.id));
    data.lines = {
      added: newLines.filter((l) => !keptIds.has(l.id)).map((l) => l.id),
      removed: diff.lines.removed,
      updated: diff.lines.updated,
    };
  }
  if (diff.chargesChanged && diff.charges) data.charges = [diff.charges.replaced, diff.charges.now];
  await recordHistory(call, id, "updated", data, now);
  const presented = await loadPurchaseOrder(trx, store.id, id);
  await emitOrder(call, "purchase_order.updated", presented);
  if (received) {
    await recordHistory(call, id, "received", { via: "lines_updated" }, now);
    await emitOrder(call, "purchase_order.received", presented);
  }
  return presented;
}

/**
 * A PATCH of header fields only (HEADER_ONLY_FIELDS): the fields are resolved and checked as any
 * PATCH's are, against the order without its lines (none given, the currency and rate unchanged, so
 * none would be repriced), and the stored money, lines, charges and incoming stock stay as they are.
 * `current` is the read-ahead when the locked row is still at its version: the order is then presented
 * from it, with the row as the update wrote it (setOrderRecord) rather than read again.
 */
async function updateHeader(
  call: OrderCall,
  order: OrderRow,
  input: OrderInput,
  now: Date,
  current: PartsReadAhead | undefined,
) {
  const { trx, store } = call;
  const { fields } = await resolveOrderInput(call, input, { order, lines: [], charges: [] });
  const diff = diffOrder(
    { order, lines: [], charges: [] },
    { fields, lines: [], charges: [], total: order.total },
    { lines: false, charges: false },
  );
  if (Object.keys(diff.changes).length === 0)
    return current
      ? presentFromReadAhead(trx, store.id, order.id, current)
      : loadPurchaseOrder(trx, store.id, order.id);
  const { number, ...rest } = fields;
  const values = { ...rest, ...(number !== null && { number }), updated_at: now };
  const written = await (current
    ? setOrderRecord(trx, store.id, order.id, values)
    : setOrder(trx, store.id, order.id, values)
  ).catch((error: unknown) => {
    if (isUniqueViolation(error)) throw numberTaken();
    throw error;
  });
  await recordHistory(call, order.id, "updated", { changes: diff.changes }, now);
  const presented = current
    ? await presentFromReadAhead(trx, store.id, order.id, current, written as OrderRecord)
    : await loadPurchaseOrder(trx, store.id, order.id);
  await emitOrder(call, "purchase_order.updated", presented);
  return presented;
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: string }).code === "23505";
}
