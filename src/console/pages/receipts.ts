import { html, type SafeHtml } from "../../html/template.ts";
import { can, requirePermission } from "../actor.ts";
import { confirmed, confirmStep } from "../confirm.ts";
import { field, formOf, idOf, type PageContext, PageNotFound, redirectTo, sendPage } from "../context.ts";
import { page, storePath, timeHtml } from "../layout.ts";
import { lineLabel, loadOrder, type Order, RECEIVABLE, type ReceiptRecord } from "../purchase-order-data.ts";
import { storeApi } from "../store-api.ts";
import { type StoreInfo, storeInfoOf } from "../store-pages.ts";

/**
 * An order's deliveries on its page (issue 20 item 4): the "Receive" button of an open order and the
 * receipts booked on it, each with what it brought in; void asks first (it takes the stock back out).
 * Receipts have no number of their own: they are "Delivery 1, 2…" in the order they were booked.
 */

const orderPath = (storeId: number, orderId: number, rest = "") =>
  storePath(storeId, `/purchase_orders/${orderId}${rest}`);

function units(n: number) {
  return `${n} ${n === 1 ? "unit" : "units"}`;
}

/** "3 × Blue mug, 1 surplus; 2 rejected" per line of the receipt. */
function receiptContents(order: Order, receipt: ReceiptRecord): string[] {
  const byId = new Map(order.lines.map((l) => [l.id, l]));
  return receipt.lines.map((l) => {
    const line = byId.get(l.line_id);
    const extra = [
      l.surplus_quantity > 0 ? `${l.surplus_quantity} surplus` : "",
      l.rejected_quantity > 0 ? `${l.rejected_quantity} rejected` : "",
    ].filter(Boolean);
    return `${l.quantity} × ${line ? lineLabel(line) : "item"}${extra.length ? ` (${extra.join(", ")})` : ""}`;
  });
}

/** The Receive button of an open order, for a user who may receive. */
export function receiveButton(ctx: PageContext, storeId: number, order: Order): SafeHtml | string {
  return can(ctx.request, "receiving") && RECEIVABLE.includes(order.status)
    ? html`<p><a class="button" href="${orderPath(storeId, order.id, "/receive")}">Receive a delivery</a></p>`
    : "";
}

/** The order's receipts, each voidable (after a question) by a user who may receive. */
export function receiptsSection(ctx: PageContext, store: StoreInfo, order: Order): SafeHtml {
  const base = orderPath(store.id, order.id);
  const mayReceive = can(ctx.request, "receiving");
  const receipts = order.receipts ?? [];
  const rows = receipts.map((r, index) => {
    const contents = receiptContents(order, r);
    const state = r.voided_at
      ? html`<span class="badge">voided</span> ${timeHtml(r.voided_at, store.timezone)}`
      : mayReceive
        ? html`<a href="${base}/receipts/${r.id}/void">Void delivery ${index + 1}…</a>`
        : "Booked";
    return html`<tr${r.voided_at ? html` class="voided"` : ""}>
<th scope="row">Delivery ${index + 1}</th>
<td data-label="Received">${timeHtml(r.received_at, store.timezone)}</td>
<td data-label="Into">${r.location?.name ?? "–"}</td>
<td data-label="Items"><span>${contents.map((c, i) => html`${i > 0 ? html`<br>` : ""}${c}`)}</span></td>
<td data-label="Invoice">${r.invoice.reference ?? html`<span class="muted">–</span>`}</td>
<td data-label="State"><span>${state}</span></td>
</tr>`;
  });
  return html`<section aria-labelledby="receipts-title" id="receipts">
<h2 id="receipts-title">Deliveries</h2>
${
  receipts.length === 0
    ? html`<p class="muted">Nothing received yet.</p>`
    : html`<div class="table-wrap"><table class="cards">
<caption>Receipts of ${order.number}</caption>
<thead><tr><th scope="col">Delivery</th><th scope="col">Received</th><th scope="col">Into</th><th scope="col">Items</th><th scope="col">Invoice</th><th scope="col">State</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
}
</section>`;
}

async function receiptOf(ctx: PageContext, rawOrderId: unknown, rawReceiptId: unknown) {
  const order = await loadOrder(ctx.request, rawOrderId);
  const receiptId = idOf(rawReceiptId);
  const index = (order.receipts ?? []).findIndex((r) => r.id === receiptId);
  if (index < 0) throw new PageNotFound("This order has no such delivery.");
  return { order, receipt: order.receipts[index], number: index + 1 };
}

/**
 * The order lines a receipt added (items not on the order), from its `receipt_recorded` history entry:
 * the Receipt's own shape does not say. Voiding takes those lines back to nothing.
 */
async function linesAddedBy(ctx: PageContext, orderId: number, receiptId: number): Promise<Set<number>> {
  const history = await storeApi(ctx.request).get<{
    data: {
      type: string;
      data: { receipt_id?: number; lines?: { line_id: number; unordered?: boolean }[] };
    }[];
  }>(`/purchase_orders/${orderId}/history?limit=250`);
  const entry = history.data.find((h) => h.type === "receipt_recorded" && h.data.receipt_id === receiptId);
  return new Set((entry?.data.lines ?? []).filter((l) => l.unordered).map((l) => l.line_id));
}

/** Void asks first, saying what goes back out of stock; the question is a page, so it works without script. */
export async function voidReceiptPage(ctx: PageContext, rawOrderId: unknown, rawReceiptId: unknown) {
  requirePermission(ctx.request, "receiving");
  const [store, { order, receipt, number }] = await Promise.all([
    storeInfoOf(ctx.request),
    receiptOf(ctx, rawOrderId, rawReceiptId),
  ]);
  const base = orderPath(store.id, order.id);
  const good = receipt.lines.reduce((s, l) => s + l.quantity, 0);
  const added = receipt.voided_at ? new Set<number>() : await linesAddedBy(ctx, order.id, receipt.id);
  const addedNames = order.lines.filter((l) => added.has(l.id)).map((l) => lineLabel(l));
  const consequence =
    addedNames.length === 0
      ? `Its ${units(good)} go back out of stock and become outstanding on the order again.`
      : `Its ${units(good)} go back out of stock. What was ordered becomes outstanding again; ${addedNames.join(", ")}, which ${addedNames.length === 1 ? "was" : "were"} not on the order, ${addedNames.length === 1 ? "leaves" : "leave"} the order's total.`;
  const body = receipt.voided_at
    ? html`<p role="status">Delivery ${number} of ${order.number} is already voided.</p><p><a href="${base}#receipts">Back to ${order.number}</a></p>`
    : confirmStep({
        session: ctx.session,
        action: `${base}/receipts/${receipt.id}/void`,
        question: html`Void delivery ${number} of ${order.number}, received ${timeHtml(receipt.received_at, store.timezone)} into ${receipt.location?.name ?? "its location"}?`,
        consequence: `${consequence} The receipt stays in the order's record as voided.`,
        inputs: html`<ul aria-label="What delivery ${number} brought">${receiptContents(order, receipt).map((c) => html`<li>${c}</li>`)}</ul>
<div class="field"><label for="void-note">Why <span class="hint">(optional, kept in the history)</span></label>
<input type="text" id="void-note" name="note" maxlength="5000"></div>`,
        button: `Void delivery ${number}`,
        cancelHref: `${base}#receipts`,
        cancel: "Keep it",
      });
  return sendPage(
    ctx.reply,
    page({ title: `Void delivery ${number}?`, session: ctx.session, store, tab: "purchase_orders", body }),
  );
}

export async function voidReceiptAction(ctx: PageContext, rawOrderId: unknown, rawReceiptId: unknown) {
  requirePermission(ctx.request, "receiving");
  const form = formOf(ctx.request);
  if (!confirmed(form)) return voidReceiptPage(ctx, rawOrderId, rawReceiptId);
  const [store, { order, receipt, number }] = await Promise.all([
    storeInfoOf(ctx.request),
    receiptOf(ctx, rawOrderId, rawReceiptId),
  ]);
  const note = field(form, "note");
  await storeApi(ctx.request).post(
    `/purchase_orders/${order.id}/receipts/${receipt.id}/void`,
    note === "" ? {} : { note },
  );
  ctx.session.flash.push({
    kind: "ok",
    text: `Delivery ${number} of ${order.number} voided: its stock is reversed.`,
  });
  return redirectTo(ctx.reply, `${orderPath(store.id, order.id)}#receipts`);
}
