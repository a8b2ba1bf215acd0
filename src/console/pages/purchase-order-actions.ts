import { html, lines, type SafeHtml } from "../../html/template.ts";
import { requirePermission } from "../actor.ts";
import { AdminError } from "../admin.ts";
import { field, formOf, type PageContext, queryOf, redirectTo, sendPage, takeFlash } from "../context.ts";
import { csrfField, page, table, timeHtml } from "../layout.ts";
import { loadOrder, type Order, type OrderLine, ordersPath } from "../purchase-order-data.ts";
import { queryString } from "../query-string.ts";
import { storeApi } from "../store-api.ts";
import { fieldError, formKey, invalidAttrs, type StoreInfo, storeInfoOf } from "../store-pages.ts";
import { cancelRemainingCell, lifecycleControls } from "./purchase-order-lifecycle.ts";
import type { RouteAdder } from "./suppliers.ts";

/**
 * What a purchase order page lets the user do (issue 20 item 3): mark a draft ordered, send the order
 * by email after a preview of the mail and its PDF, the lifecycle moves (purchase-order-lifecycle.ts),
 * and read the order's history. Every call is
 * the public API as the signed-in user, so history says who (`by`) and that it was the console (`via`).
 */

interface HistoryRow {
  type: string;
  at: string;
  by: string;
  via: string | null;
  data: Record<string, unknown>;
}

const HISTORY_WORDS: Record<string, string> = {
  created: "Created",
  updated: "Changed",
  ordered: "Ordered",
  sent: "Sent to the supplier",
  send_failed: "Sending failed",
  in_transit: "In transit",
  received: "Received",
  closed: "Closed",
  reopened: "Reopened",
  archived: "Archived",
  unarchived: "Unarchived",
  lines_added: "Lines added",
  line_cancelled: "Remaining quantity cancelled",
  receipt_recorded: "Delivery received",
  receipt_voided: "Delivery voided",
  payment_added: "Payment recorded",
  payment_deleted: "Payment deleted",
  marked_paid: "Marked paid",
  marked_unpaid: "Marked unpaid",
  duplicated: "Duplicated",
  platform_sync_failed: "Platform update failed",
};

interface HistoryPage {
  data: HistoryRow[];
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * One page of the order's history, newest first, as the API pages it; `history_cursor` in the page's
 * query string walks to older entries (its own name, so no other list on the page can take it). A link
 * that no longer reads (400 invalid_cursor) shows no rows and says so, with the way back to the newest.
 */
async function historySection(ctx: PageContext, store: StoreInfo, order: Order): Promise<SafeHtml> {
  const cursor = queryOf(ctx.request).history_cursor || undefined;
  let history: HistoryPage = { data: [], has_more: false, next_cursor: null };
  let stale = false;
  try {
    history = await storeApi(ctx.request).get<HistoryPage>(
      `/purchase_orders/${order.id}/history${queryString({ cursor })}`,
    );
  } catch (error) {
    if (!(error instanceof AdminError && error.code === "invalid_cursor")) throw error;
    stale = true;
  }
  const here = ordersPath(store.id, `/${order.id}`);
  const older = history.has_more ? history.next_cursor : null;
  return html`<section id="history" aria-label="History">
${stale ? html`<p class="flash flash-error" role="alert">That history link no longer works. Start again from the newest entries.</p>` : ""}
${table(
  "History",
  [
    { header: "When", cell: (h: HistoryRow) => timeHtml(h.at, store.timezone) },
    { header: "What", cell: (h) => HISTORY_WORDS[h.type] ?? h.type.replace(/_/g, " ") },
    { header: "Who", cell: (h) => (h.via === "console" ? `${h.by} (console)` : h.by) },
  ],
  history.data,
  stale ? "No history shown." : "No history yet.",
)}
${
  cursor || older
    ? html`<nav class="pager" aria-label="History pages">
${cursor ? html`<a href="${here}#history">Newest history</a>` : ""}
${older ? html`<a href="${here}${queryString({ history_cursor: older })}#history" rel="next">Older history</a>` : ""}
</nav>`
    : ""
}
</section>`;
}

/** What the order's page shows of its actions: the controls, a per-line control, the history. */
export async function orderActionsSection(
  ctx: PageContext,
  store: StoreInfo,
  order: Order,
): Promise<{
  controls: SafeHtml | "";
  lineCell: ((l: OrderLine) => SafeHtml | null) | null;
  history: SafeHtml;
}> {
  return {
    controls: lifecycleControls(ctx, store.id, order),
    lineCell: cancelRemainingCell(ctx, store.id, order),
    history: await historySection(ctx, store, order),
  };
}

export async function markOrderedAction(ctx: PageContext, rawOrderId: unknown) {
  requirePermission(ctx.request, "purchase_orders");
  const store = await storeInfoOf(ctx.request);
  const order = await loadOrder(ctx.request, rawOrderId);
  await storeApi(ctx.request).post(`/purchase_orders/${order.id}/mark_ordered`, {});
  ctx.session.flash.push({ kind: "ok", text: `${order.number} is marked ordered.` });
  return redirectTo(ctx.reply, ordersPath(store.id, `/${order.id}`));
}

interface SupplierContact {
  email: string | null;
  email_cc: string[];
  contact_name: string | null;
}

/** "1234567.50" as "1,234,567.50", the decimal string as it is otherwise. */
function grouped(amount: string): string {
  const [whole, fraction] = amount.split(".");
  return `${whole.replace(/\B(?=(\d{3})+$)/g, ",")}${fraction === undefined ? "" : `.${fraction}`}`;
}

const split = (text: string) =>
  text
    .split(/[\s,;]+/)
    .map((s) => s.trim())
    .filter((s) => s !== "");

/** The send form with a preview of the mail as the supplier will read it and a link to the PDF. */
export async function sendOrderPage(ctx: PageContext, rawOrderId: unknown, error: AdminError | null = null) {
  requirePermission(ctx.request, "purchase_orders");
  const store = await storeInfoOf(ctx.request);
  const order = await loadOrder(ctx.request, rawOrderId);
  const supplier = (
    await storeApi(ctx.request).get<{ data: SupplierContact }>(`/suppliers/${order.supplier.id}`)
  ).data;
  const form = error ? formOf(ctx.request) : {};
  const to = error ? field(form, "to") : (supplier.email ?? "");
  const cc = error ? field(form, "cc") : supplier.email_cc.join(", ");
  const message = error ? field(form, "message") : "";
  const base = ordersPath(store.id, `/${order.id}`);
  const greeting = supplier.contact_name ? `Hello ${supplier.contact_name},` : "Hello,";
  const preview = [
    greeting,
    "",
    `Please find attached purchase order ${order.number} from ${store.name}.`,
    ...(message ? ["", message] : []),
    "",
    // As the mail job writes it ("USD 1,234.50"), so the preview is the mail.
    `Total: ${order.totals.currency} ${grouped(order.totals.total)}`,
    ...(order.expected_at ? [`Expected: ${order.expected_at}`] : []),
  ];
  const body = html`${error ? html`<div class="flash flash-error" role="alert"><p>Nothing was sent. ${error.details.length === 0 ? error.message : "Please correct the recipients."}</p></div>` : ""}
<form method="post" action="${base}/send" class="stack wide" aria-label="Send ${order.number}">
${csrfField(ctx.session)}
<input type="hidden" name="_key" value="${formKey()}">
<div class="field"><label for="send-to">To <span class="hint">(email addresses, separated by commas)</span></label>
<input type="text" id="send-to" name="to" value="${to}" required${invalidAttrs(error, "to", "send-to")}>${fieldError(error, "to", "send-to", "To")}</div>
<div class="field"><label for="send-cc">Copy to</label>
<input type="text" id="send-cc" name="cc" value="${cc}"${invalidAttrs(error, "cc", "send-cc")}>${fieldError(error, "cc", "send-cc", "Copy to")}</div>
<div class="field"><label for="send-message">Message <span class="hint">(added to the mail)</span></label>
<textarea id="send-message" name="message" rows="3">${message}</textarea></div>
<section aria-labelledby="preview-title" class="preview"><h2 id="preview-title">The mail</h2>
<p><strong>Subject:</strong> Purchase order ${order.number} from ${store.name}</p>
<p>${lines(preview)}</p>
<p>Attached: <a href="${base}/pdf" type="application/pdf">${order.number}.pdf</a></p></section>
<div><button type="submit">Send ${order.number}${order.status === "draft" ? " and mark it ordered" : ""}</button></div>
</form>
<p><a href="${base}">Back to ${order.number}</a></p>`;
  return sendPage(
    ctx.reply,
    page({
      title: `Send ${order.number}`,
      session: ctx.session,
      store,
      tab: "purchase_orders",
      body,
      flash: takeFlash(ctx.session),
    }),
    error ? 422 : 200,
  );
}

export async function sendOrderAction(ctx: PageContext, rawOrderId: unknown) {
  requirePermission(ctx.request, "purchase_orders");
  const store = await storeInfoOf(ctx.request);
  const order = await loadOrder(ctx.request, rawOrderId);
  const form = formOf(ctx.request);
  const key = field(form, "_key");
  const message = field(form, "message");
  try {
    await storeApi(ctx.request).post(
      `/purchase_orders/${order.id}/send`,
      { to: split(field(form, "to")), cc: split(field(form, "cc")), ...(message ? { message } : {}) },
      /^[0-9a-f-]{36}$/.test(key) ? { idempotencyKey: key } : {},
    );
  } catch (error) {
    if (error instanceof AdminError && error.status === 422 && error.code === "validation_failed")
      return sendOrderPage(ctx, rawOrderId, error);
    throw error;
  }
  ctx.session.flash.push({ kind: "ok", text: `${order.number} is on its way to the supplier.` });
  return redirectTo(ctx.reply, ordersPath(store.id, `/${order.id}`));
}

export function purchaseOrderActionRoutes(get: RouteAdder, post: RouteAdder): void {
  post("/stores/:id/purchase_orders/:po_id/mark_ordered", (c, p) => markOrderedAction(c, p.po_id));
  get("/stores/:id/purchase_orders/:po_id/send", (c, p) => sendOrderPage(c, p.po_id));
  post("/stores/:id/purchase_orders/:po_id/send", (c, p) => sendOrderAction(c, p.po_id));
}
