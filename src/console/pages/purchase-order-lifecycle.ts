import { html, type SafeHtml } from "../../html/template.ts";
import { can, requirePermission } from "../actor.ts";
import { AdminError } from "../admin.ts";
import { confirmed, confirmStep } from "../confirm.ts";
import {
  field,
  formOf,
  idOf,
  type PageContext,
  PageNotFound,
  redirectTo,
  sendPage,
  takeFlash,
} from "../context.ts";
import { actionButton, csrfField, page } from "../layout.ts";
import { loadOrder, type Order, type OrderLine, ordersPath, statusWords } from "../purchase-order-data.ts";
import { storeApi } from "../store-api.ts";
import { formKey, storeInfoOf } from "../store-pages.ts";
import type { RouteAdder } from "./suppliers.ts";

/**
 * An order's lifecycle from its page (issue 20 item 3): duplicate, mark in transit, cancel a line's
 * remaining quantity, close, reopen, archive, unarchive and delete a draft. A control is shown only when
 * the order's status allows the move and the user may make it; the API decides all the same, and its
 * refusal (422 invalid_transition, 409) comes back as a message on the order's page. The moves that
 * take something away (delete, close, cancel remaining, archive an open order, which closes it) first
 * show a confirmation page, so they ask without JavaScript.
 */

const OPEN = ["ordered", "in_transit", "partial"];

/** The moves that ask first: what the confirmation page says, and the button that does it. */
interface Confirmable {
  title: (o: Order) => string;
  consequence: (o: Order, line?: OrderLine) => string;
  button: string;
  allowed: (o: Order) => boolean;
}

const CONFIRM: Record<"delete" | "close" | "archive", Confirmable> = {
  delete: {
    title: (o) => `Delete draft ${o.number}?`,
    consequence: (o) =>
      `The draft and its ${o.lines.length === 1 ? "1 line" : `${o.lines.length} lines`} are removed for good. This cannot be undone.`,
    button: "Delete the draft",
    allowed: (o) => o.status === "draft" && !o.archived,
  },
  close: {
    title: (o) => `Close ${o.number}?`,
    consequence: (o) =>
      o.lines.some((l) => l.outstanding_quantity > 0)
        ? "Nothing more is expected from the supplier: the quantity not yet received is no longer counted as incoming stock. A closed order can be reopened."
        : "The order is finished and leaves the open orders. A closed order can be reopened.",
    button: "Close the order",
    allowed: (o) => [...OPEN, "received"].includes(o.status) && !o.archived,
  },
  archive: {
    title: (o) => `Archive ${o.number}?`,
    consequence: () =>
      "The order is still open: archiving closes it first, so the quantity not yet received is no longer counted as incoming stock. An archived order can be unarchived.",
    button: "Close and archive",
    allowed: (o) => OPEN.includes(o.status) && !o.archived,
  },
};

const lineName = (l: OrderLine) =>
  [l.product_title, l.variant_title].filter(Boolean).join(" – ") || l.sku || `line ${l.position}`;

/** The buttons above the order, for the user and the order's status. */
export function lifecycleControls(ctx: PageContext, storeId: number, order: Order): SafeHtml | "" {
  if (!can(ctx.request, "purchase_orders")) return "";
  const base = ordersPath(storeId, `/${order.id}`);
  const s = ctx.session;
  const duplicate = html`<form method="post" action="${base}/duplicate" class="inline">${csrfField(s)}<input type="hidden" name="_key" value="${formKey()}"><button type="submit">Duplicate</button></form>`;
  if (order.archived)
    return html`<div class="actions">${actionButton(s, `${base}/unarchive`, "Unarchive")}${duplicate}</div>`;
  const open = OPEN.includes(order.status);
  const inTransit =
    order.status === "ordered" || order.status === "partial"
      ? html`<form method="post" action="${base}/mark_in_transit" class="inline in-transit">${csrfField(s)}<label for="in-transit-expected">Expected</label> <input type="date" id="in-transit-expected" name="expected_at" value="${order.expected_at ?? ""}"> <button type="submit">Mark in transit</button></form>`
      : "";
  return html`<div class="actions">${
    order.status === "draft" ? actionButton(s, `${base}/mark_ordered`, "Mark ordered") : ""
  }${order.status === "draft" || open ? html`<a class="button" href="${base}/send">Send by email…</a>` : ""}${inTransit}${
    CONFIRM.close.allowed(order) ? html`<a class="button secondary" href="${base}/close">Close…</a>` : ""
  }${order.status === "closed" ? actionButton(s, `${base}/reopen`, "Reopen") : ""}${duplicate}${
    open
      ? html`<a class="button secondary" href="${base}/archive">Archive…</a>`
      : actionButton(s, `${base}/archive`, "Archive")
  }${CONFIRM.delete.allowed(order) ? html`<a class="button danger" href="${base}/delete">Delete draft…</a>` : ""}</div>`;
}

/** The per-line control: cancel what is still outstanding (asks first). */
export function cancelRemainingCell(ctx: PageContext, storeId: number, order: Order) {
  if (!can(ctx.request, "purchase_orders") || order.archived || !OPEN.includes(order.status)) return null;
  if (!order.lines.some((l) => l.outstanding_quantity > 0)) return null;
  const base = ordersPath(storeId, `/${order.id}`);
  return (l: OrderLine) =>
    l.outstanding_quantity > 0
      ? // An aria-label, not a visually hidden span: an absolutely placed span in a scrolled table
        // widens the whole page on a phone.
        html`<a href="${base}/lines/${l.id}/cancel_remaining" aria-label="Cancel remaining of ${lineName(l)}…">Cancel remaining…</a>`
      : null;
}

/** The API's refusal as a message on the order's page; anything else is the console's error page. */
async function attempt(
  ctx: PageContext,
  back: string,
  run: () => Promise<unknown>,
): Promise<true | ReturnType<typeof redirectTo>> {
  try {
    await run();
    return true;
  } catch (error) {
    if (!(error instanceof AdminError) || ![409, 422].includes(error.status)) throw error;
    const detail = error.details[0];
    const text =
      detail?.field === "expected_at"
        ? `Nothing was changed: the expected date ${detail.message}.`
        : `Nothing was changed: ${error.message}`;
    ctx.session.flash.push({ kind: "error", text });
    return redirectTo(ctx.reply, back);
  }
}

function done(ctx: PageContext, to: string, text: string) {
  ctx.session.flash.push({ kind: "ok", text });
  return redirectTo(ctx.reply, to);
}

/** A move without a question: mark in transit, reopen, archive (not open), unarchive. */
async function simpleMove(
  ctx: PageContext,
  rawOrderId: unknown,
  move: "mark_in_transit" | "reopen" | "archive" | "unarchive",
) {
  requirePermission(ctx.request, "purchase_orders");
  const store = await storeInfoOf(ctx.request);
  const order = await loadOrder(ctx.request, rawOrderId);
  const back = ordersPath(store.id, `/${order.id}`);
  const form = formOf(ctx.request);
  const expected = field(form, "expected_at");
  const body =
    move === "mark_in_transit"
      ? expected === ""
        ? {}
        : { expected_at: expected }
      : move === "archive"
        ? { close: field(form, "close") === "yes" }
        : {};
  const outcome = await attempt(ctx, back, () =>
    storeApi(ctx.request).post(`/purchase_orders/${order.id}/${move}`, body),
  );
  if (outcome !== true) return outcome;
  const said = {
    mark_in_transit: `${order.number} is in transit.`,
    reopen: `${order.number} is reopened.`,
    archive: `${order.number} is archived${body.close ? " (closed first)" : ""}.`,
    unarchive: `${order.number} is no longer archived.`,
  }[move];
  return done(ctx, back, said);
}

export async function duplicateAction(ctx: PageContext, rawOrderId: unknown) {
  requirePermission(ctx.request, "purchase_orders");
  const store = await storeInfoOf(ctx.request);
  const order = await loadOrder(ctx.request, rawOrderId);
  const key = field(formOf(ctx.request), "_key");
  let copy: Order | null = null;
  const outcome = await attempt(ctx, ordersPath(store.id, `/${order.id}`), async () => {
    copy = (
      await storeApi(ctx.request).post<{ data: Order }>(
        `/purchase_orders/${order.id}/duplicate`,
        {},
        // A double click or a reload makes one copy.
        /^[0-9a-f-]{36}$/.test(key) ? { idempotencyKey: key } : {},
      )
    ).data;
  });
  if (outcome !== true || copy === null) return outcome;
  const draft: Order = copy;
  return done(
    ctx,
    ordersPath(store.id, `/${draft.id}`),
    `${draft.number} is a new draft copied from ${order.number}.`,
  );
}

/** A move's question on a page of its own (the console's one confirm step), answered by posting again. */
function confirmPage(
  ctx: PageContext,
  store: { id: number; name: string },
  order: Order,
  action: string,
  what: { title: string; consequence: string; button: string; fields?: Record<string, string> },
) {
  const body = confirmStep({
    session: ctx.session,
    action,
    question: what.title,
    consequence: what.consequence,
    button: what.button,
    cancelHref: ordersPath(store.id, `/${order.id}`),
    cancel: `Keep ${order.number} as it is`,
    fields: what.fields,
  });
  return sendPage(
    ctx.reply,
    page({
      title: what.title,
      session: ctx.session,
      store,
      tab: "purchase_orders",
      body,
      flash: takeFlash(ctx.session),
    }),
  );
}

/** GET: the question for delete, close or archive (an open order); a move the order does not allow goes back. */
async function askPage(ctx: PageContext, rawOrderId: unknown, move: keyof typeof CONFIRM) {
  requirePermission(ctx.request, "purchase_orders");
  const store = await storeInfoOf(ctx.request);
  const order = await loadOrder(ctx.request, rawOrderId);
  const c = CONFIRM[move];
  const back = ordersPath(store.id, `/${order.id}`);
  if (!c.allowed(order)) {
    ctx.session.flash.push({
      kind: "error",
      text: `${order.number} is ${statusWords(order.status).toLowerCase()}${order.archived ? " and archived" : ""}: it cannot be ${{ delete: "deleted", close: "closed", archive: "closed and archived" }[move]}.`,
    });
    return redirectTo(ctx.reply, back);
  }
  return confirmPage(ctx, store, order, `${back}/${move}`, {
    title: c.title(order),
    consequence: c.consequence(order),
    button: c.button,
    fields: move === "archive" ? { close: "yes" } : undefined,
  });
}

/** POST of a confirmed move; without `confirm=yes` (a forged or old form) it asks instead. */
async function confirmedMove(ctx: PageContext, rawOrderId: unknown, move: "delete" | "close") {
  requirePermission(ctx.request, "purchase_orders");
  if (!confirmed(formOf(ctx.request))) return askPage(ctx, rawOrderId, move);
  const store = await storeInfoOf(ctx.request);
  const order = await loadOrder(ctx.request, rawOrderId);
  const back = ordersPath(store.id, `/${order.id}`);
  const api = storeApi(ctx.request);
  const outcome = await attempt(ctx, back, () =>
    move === "delete"
      ? api.delete(`/purchase_orders/${order.id}`)
      : api.post(`/purchase_orders/${order.id}/close`, {}),
  );
  if (outcome !== true) return outcome;
  return move === "delete"
    ? done(ctx, ordersPath(store.id), `Draft ${order.number} is deleted.`)
    : done(ctx, back, `${order.number} is closed.`);
}

/** POST archive: an open order needs the confirmation (it closes); any other archives at once. */
async function archiveAction(ctx: PageContext, rawOrderId: unknown) {
  requirePermission(ctx.request, "purchase_orders");
  const form = formOf(ctx.request);
  if (field(form, "close") === "yes" && !confirmed(form)) return askPage(ctx, rawOrderId, "archive");
  return simpleMove(ctx, rawOrderId, "archive");
}

function lineOf(order: Order, rawLineId: unknown): OrderLine {
  const id = idOf(rawLineId);
  const line = order.lines.find((l) => l.id === id);
  if (!line) throw new PageNotFound("This order has no such line.");
  return line;
}

async function cancelRemainingPage(ctx: PageContext, rawOrderId: unknown, rawLineId: unknown) {
  requirePermission(ctx.request, "purchase_orders");
  const store = await storeInfoOf(ctx.request);
  const order = await loadOrder(ctx.request, rawOrderId);
  const line = lineOf(order, rawLineId);
  const base = ordersPath(store.id, `/${order.id}`);
  return confirmPage(ctx, store, order, `${base}/lines/${line.id}/cancel_remaining`, {
    title: `Cancel the remaining ${line.outstanding_quantity} of ${lineName(line)}?`,
    consequence: `${order.number} then expects nothing more of this line from the supplier, and the ${line.outstanding_quantity} are no longer counted as incoming stock. This cannot be undone on the line.`,
    button: "Cancel the remaining quantity",
  });
}

async function cancelRemainingAction(ctx: PageContext, rawOrderId: unknown, rawLineId: unknown) {
  requirePermission(ctx.request, "purchase_orders");
  if (!confirmed(formOf(ctx.request))) return cancelRemainingPage(ctx, rawOrderId, rawLineId);
  const store = await storeInfoOf(ctx.request);
  const order = await loadOrder(ctx.request, rawOrderId);
  const line = lineOf(order, rawLineId);
  const back = ordersPath(store.id, `/${order.id}`);
  const outcome = await attempt(ctx, back, () =>
    storeApi(ctx.request).post(`/purchase_orders/${order.id}/lines/${line.id}/cancel_remaining`, {}),
  );
  if (outcome !== true) return outcome;
  return done(ctx, back, `The remaining ${line.outstanding_quantity} of ${lineName(line)} are cancelled.`);
}

export function purchaseOrderLifecycleRoutes(get: RouteAdder, post: RouteAdder): void {
  const order = "/stores/:id/purchase_orders/:po_id";
  post(`${order}/duplicate`, (c, p) => duplicateAction(c, p.po_id));
  post(`${order}/mark_in_transit`, (c, p) => simpleMove(c, p.po_id, "mark_in_transit"));
  post(`${order}/reopen`, (c, p) => simpleMove(c, p.po_id, "reopen"));
  post(`${order}/unarchive`, (c, p) => simpleMove(c, p.po_id, "unarchive"));
  get(`${order}/archive`, (c, p) => askPage(c, p.po_id, "archive"));
  post(`${order}/archive`, (c, p) => archiveAction(c, p.po_id));
  get(`${order}/close`, (c, p) => askPage(c, p.po_id, "close"));
  post(`${order}/close`, (c, p) => confirmedMove(c, p.po_id, "close"));
  get(`${order}/delete`, (c, p) => askPage(c, p.po_id, "delete"));
  post(`${order}/delete`, (c, p) => confirmedMove(c, p.po_id, "delete"));
  get(`${order}/lines/:line_id/cancel_remaining`, (c, p) => cancelRemainingPage(c, p.po_id, p.line_id));
  post(`${order}/lines/:line_id/cancel_remaining`, (c, p) => cancelRemainingAction(c, p.po_id, p.line_id));
}
