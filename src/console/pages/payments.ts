import Big from "big.js";
import { html, type SafeHtml } from "../../html/template.ts";
import { can, requirePermission } from "../actor.ts";
import { AdminError } from "../admin.ts";
import { confirmed, confirmStep } from "../confirm.ts";
import { field, formOf, idOf, type PageContext, PageNotFound, redirectTo, sendPage } from "../context.ts";
import { csrfField, dateHtml, dl, page, storePath } from "../layout.ts";
import { loadOrder, type Order } from "../purchase-order-data.ts";
import { storeApi } from "../store-api.ts";
import { detailsFor, formKey, money, type StoreInfo, storeInfoOf } from "../store-pages.ts";
import { idempotencyKeyOf } from "../supplier-form.ts";
import { shownDate } from "../times.ts";

/**
 * An order's payments (issue 20 item 5): the payment status, what is paid and the balance due in the
 * store's money format; record a payment (its form carries an Idempotency-Key, so a double click
 * records one), delete one, mark paid (one payment for the balance) and mark unpaid (every payment
 * deleted). Deleting and marking unpaid ask first with the console's confirm step (`confirm.ts`), on a
 * page of their own, so they work without script.
 */

const orderPath = (storeId: number, orderId: number, rest = "") =>
  storePath(storeId, `/purchase_orders/${orderId}${rest}`);

const STATUS_WORDS = { unpaid: "Unpaid", partial: "Partly paid", paid: "Paid" } as const;
const METHODS = ["bank transfer", "card", "cash", "cheque", "other"];

/**
 * The methods the form offers, as a person writes them in a list ("Bank transfer"); the stored value
 * stays the API's word. A method an integration wrote in its own words is shown as it wrote it.
 */
const METHOD_WORDS: Record<string, string> = {
  "bank transfer": "Bank transfer",
  card: "Card",
  cash: "Cash",
  cheque: "Cheque",
  other: "Other",
};

const methodWords = (method: string): string => METHOD_WORDS[method] ?? method;

/** What is paid and what is left (never below zero), in decimals. */
export function balanceOf(order: Order): { paid: string; due: string } {
  const paid = (order.payments ?? []).reduce((s, p) => s.plus(p.amount), new Big(0));
  const left = new Big(order.totals.total).minus(paid);
  return { paid: paid.toFixed(), due: (left.gt(0) ? left : new Big(0)).toFixed() };
}

interface PaymentFormValues {
  amount: string;
  paid_on: string;
  method: string;
  reference: string;
  note: string;
}

const LABELS: Record<keyof PaymentFormValues, string> = {
  amount: "Amount",
  paid_on: "Paid on",
  method: "Method",
  reference: "Reference",
  note: "Note",
};

function paymentForm(
  ctx: PageContext,
  storeId: number,
  order: Order,
  values: PaymentFormValues,
  error: AdminError | null,
): SafeHtml {
  const input = (name: keyof PaymentFormValues, type: string, extra: SafeHtml | string = "") => {
    const found = detailsFor(error, name);
    const id = `payment-${name}`;
    return html`<input type="${type}" id="${id}" name="${name}" value="${values[name]}"${extra}${
      found.length > 0 ? html` aria-invalid="true" aria-describedby="${id}-error"` : ""
    }>${found.length > 0 ? html`<p class="field-error" id="${id}-error">${LABELS[name]} ${found[0].message}</p>` : ""}`;
  };
  const { due } = balanceOf(order);
  return html`<form method="post" action="${orderPath(storeId, order.id, "/payments")}" class="stack" aria-label="Record a payment">
${csrfField(ctx.session)}<input type="hidden" name="_key" value="${formKey()}">
<div class="field"><label for="payment-amount">Amount <span class="hint">(${order.currency}; balance due ${money(due, order.currency)})</span></label>
${input("amount", "text", html` inputmode="decimal" required`)}</div>
<div class="field"><label for="payment-paid_on">Paid on <span class="hint">(empty: today)</span></label>${input("paid_on", "date")}</div>
<div class="field"><label for="payment-method">Method</label>
<select id="payment-method" name="method">${METHODS.map(
    (m) => html`<option value="${m}"${values.method === m ? html` selected` : ""}>${methodWords(m)}</option>`,
  )}</select></div>
<div class="field"><label for="payment-reference">Reference</label>${input("reference", "text", html` maxlength="200"`)}</div>
<div class="field"><label for="payment-note">Note</label>${input("note", "text", html` maxlength="5000"`)}</div>
<div><button type="submit">Record payment</button></div>
</form>`;
}

const emptyForm = (): PaymentFormValues => ({
  amount: "",
  paid_on: "",
  method: "bank transfer",
  reference: "",
  note: "",
});

/** The payments section of the order's page. */
export function paymentsSection(ctx: PageContext, storeId: number, order: Order): SafeHtml {
  const base = orderPath(storeId, order.id);
  const writable = can(ctx.request, "purchase_orders");
  const c = order.currency;
  const { paid, due } = balanceOf(order);
  const payments = order.payments ?? [];
  const rows = payments.map(
    (p) => html`<tr>
<th scope="row">${dateHtml(p.paid_on)}</th>
<td class="num" data-label="Amount">${money(p.amount, p.currency)}</td>
<td data-label="Method">${methodWords(p.method)}</td>
<td data-label="Reference">${p.reference ?? html`<span class="muted">–</span>`}</td>
<td data-label="Note">${p.note ?? html`<span class="muted">–</span>`}</td>
${writable ? html`<td><a href="${base}/payments/${p.id}/delete">Delete…<span class="visually-hidden"> the payment of ${money(p.amount, p.currency)} on ${shownDate(p.paid_on) ?? p.paid_on}</span></a></td>` : ""}
</tr>`,
  );
  const controls = writable
    ? html`<div class="actions">${
        new Big(due).gt(0)
          ? html`<form method="post" action="${base}/mark_paid" class="inline">${csrfField(ctx.session)}<input type="hidden" name="_key" value="${formKey()}"><button type="submit">Mark paid (${money(due, c)})</button></form>`
          : ""
      }${payments.length > 0 ? html`<a href="${base}/mark_unpaid">Mark unpaid…</a>` : ""}</div>
<details${payments.length === 0 ? html` open` : ""}><summary>Record a payment</summary>
${paymentForm(ctx, storeId, order, emptyForm(), null)}</details>`
    : "";
  return html`<section aria-labelledby="payments-title" id="payments">
<h2 id="payments-title">Payments</h2>
${dl([
  ["Payment status", STATUS_WORDS[order.payment_status] ?? order.payment_status],
  ["Total", money(order.totals.total, c)],
  ["Paid", money(paid, c)],
  ["Balance due", html`<strong>${money(due, c)}</strong>`],
])}
${
  payments.length === 0
    ? html`<p class="muted">No payments recorded.</p>`
    : html`<div class="table-wrap"><table class="cards">
<caption>Payments of ${order.number}</caption>
<thead><tr><th scope="col">Paid on</th><th scope="col" class="num">Amount</th><th scope="col">Method</th><th scope="col">Reference</th><th scope="col">Note</th>${writable ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : ""}</tr></thead>
<tbody>${rows}</tbody></table></div>`
}
${controls}
</section>`;
}

function render(ctx: PageContext, store: StoreInfo, title: string, body: SafeHtml, status = 200) {
  return sendPage(
    ctx.reply,
    page({ title, session: ctx.session, store, tab: "purchase_orders", body }),
    status,
  );
}

export async function addPaymentAction(ctx: PageContext, rawOrderId: unknown) {
  requirePermission(ctx.request, "purchase_orders");
  const [store, order] = await Promise.all([storeInfoOf(ctx.request), loadOrder(ctx.request, rawOrderId)]);
  const form = formOf(ctx.request);
  const values: PaymentFormValues = {
    amount: field(form, "amount"),
    paid_on: field(form, "paid_on"),
    method: field(form, "method") || "other",
    reference: field(form, "reference"),
    note: field(form, "note"),
  };
  const key = idempotencyKeyOf(form);
  try {
    await storeApi(ctx.request).post(
      `/purchase_orders/${order.id}/payments`,
      {
        // "1,234.50" as typed by people: the grouping commas are not part of the amount.
        amount: values.amount.replace(/,/g, ""),
        method: values.method,
        ...(values.paid_on !== "" && { paid_on: values.paid_on }),
        ...(values.reference !== "" && { reference: values.reference }),
        ...(values.note !== "" && { note: values.note }),
      },
      key ? { idempotencyKey: key } : {},
    );
  } catch (error) {
    if (!(error instanceof AdminError) || error.status !== 422 || error.details.length === 0) throw error;
    const body = html`<div class="flash flash-error" role="alert"><p>No payment was recorded. Please correct:</p><ul>${[
      ...new Set(error.details.map((d) => d.field.split(".")[0])),
    ].map((name) => {
      const label = LABELS[name as keyof PaymentFormValues];
      const detail = detailsFor(error, name)[0];
      return label
        ? html`<li><a href="#payment-${name}">${label}</a> ${detail.message}</li>`
        : html`<li>${detail.message}</li>`;
    })}</ul></div>
${paymentForm(ctx, store.id, order, values, error)}
<p><a href="${orderPath(store.id, order.id)}#payments">Back to ${order.number}</a></p>`;
    return render(ctx, store, `Record a payment on ${order.number}`, body, 422);
  }
  ctx.session.flash.push({
    kind: "ok",
    text: `Payment of ${money(values.amount.replace(/,/g, ""), order.currency)} recorded on ${order.number}.`,
  });
  return redirectTo(ctx.reply, `${orderPath(store.id, order.id)}#payments`);
}

/** The order and the payment a delete names; 404 when the order has no such payment. */
async function paymentOf(ctx: PageContext, rawOrderId: unknown, rawPaymentId: unknown) {
  const [store, order] = await Promise.all([storeInfoOf(ctx.request), loadOrder(ctx.request, rawOrderId)]);
  const paymentId = idOf(rawPaymentId);
  const payment = (order.payments ?? []).find((p) => p.id === paymentId);
  if (!payment) throw new PageNotFound("This order has no such payment.");
  return { store, order, payment, shown: money(payment.amount, payment.currency) };
}

/** Deleting a payment asks first (the balance due grows); the question is a page, so it works without script. */
export async function deletePaymentPage(ctx: PageContext, rawOrderId: unknown, rawPaymentId: unknown) {
  requirePermission(ctx.request, "purchase_orders");
  const { store, order, payment, shown } = await paymentOf(ctx, rawOrderId, rawPaymentId);
  const base = orderPath(store.id, order.id);
  const body = confirmStep({
    session: ctx.session,
    action: `${base}/payments/${payment.id}/delete`,
    question: html`Delete the payment of ${shown} made on ${shownDate(payment.paid_on) ?? payment.paid_on} (${payment.method}${payment.reference ? `, ${payment.reference}` : ""}) from ${order.number}?`,
    consequence: `The balance due grows by ${shown}; the deletion stays in the order's history.`,
    button: "Delete the payment",
    cancelHref: `${base}#payments`,
    cancel: "Keep it",
  });
  return render(ctx, store, "Delete this payment?", body);
}

export async function deletePaymentAction(ctx: PageContext, rawOrderId: unknown, rawPaymentId: unknown) {
  requirePermission(ctx.request, "purchase_orders");
  if (!confirmed(formOf(ctx.request))) return deletePaymentPage(ctx, rawOrderId, rawPaymentId);
  const { store, order, payment, shown } = await paymentOf(ctx, rawOrderId, rawPaymentId);
  const base = orderPath(store.id, order.id);
  await storeApi(ctx.request).delete(`/purchase_orders/${order.id}/payments/${payment.id}`);
  ctx.session.flash.push({ kind: "ok", text: `Payment of ${shown} deleted from ${order.number}.` });
  return redirectTo(ctx.reply, `${base}#payments`);
}

export async function markPaidAction(ctx: PageContext, rawOrderId: unknown) {
  requirePermission(ctx.request, "purchase_orders");
  const [store, order] = await Promise.all([storeInfoOf(ctx.request), loadOrder(ctx.request, rawOrderId)]);
  const key = idempotencyKeyOf(formOf(ctx.request));
  await storeApi(ctx.request).post(
    `/purchase_orders/${order.id}/mark_paid`,
    {},
    key ? { idempotencyKey: key } : {},
  );
  ctx.session.flash.push({ kind: "ok", text: `${order.number} is marked paid.` });
  return redirectTo(ctx.reply, `${orderPath(store.id, order.id)}#payments`);
}

/** Marking unpaid deletes every payment, so it asks first, on a page of its own. */
export async function markUnpaidPage(ctx: PageContext, rawOrderId: unknown) {
  requirePermission(ctx.request, "purchase_orders");
  const [store, order] = await Promise.all([storeInfoOf(ctx.request), loadOrder(ctx.request, rawOrderId)]);
  const base = orderPath(store.id, order.id);
  const count = (order.payments ?? []).length;
  const { paid } = balanceOf(order);
  const body = confirmStep({
    session: ctx.session,
    action: `${base}/mark_unpaid`,
    question: `Mark ${order.number} unpaid?`,
    consequence: `Its ${count === 1 ? "payment" : `${count} payments`} of ${money(paid, order.currency)} in all ${count === 1 ? "is" : "are"} deleted.`,
    button: "Mark unpaid",
    cancelHref: `${base}#payments`,
    cancel: "Keep the payments",
  });
  return render(ctx, store, "Mark unpaid?", body);
}

export async function markUnpaidAction(ctx: PageContext, rawOrderId: unknown) {
  requirePermission(ctx.request, "purchase_orders");
  if (!confirmed(formOf(ctx.request))) return markUnpaidPage(ctx, rawOrderId);
  const [store, order] = await Promise.all([storeInfoOf(ctx.request), loadOrder(ctx.request, rawOrderId)]);
  const base = orderPath(store.id, order.id);
  await storeApi(ctx.request).post(`/purchase_orders/${order.id}/mark_unpaid`, {});
  ctx.session.flash.push({ kind: "ok", text: `${order.number} is marked unpaid.` });
  return redirectTo(ctx.reply, `${base}#payments`);
}
