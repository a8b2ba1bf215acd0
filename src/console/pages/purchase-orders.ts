import type { FastifyReply } from "fastify";
import { html } from "../../html/template.ts";
import { AdminError } from "../admin.ts";
import { idOf, loadStore, type PageContext, PageNotFound, queryOf, sendPage, takeFlash } from "../context.ts";
import { dl, errorSummary, notAvailable, page, storePath, table } from "../layout.ts";
import type { OrderRecord } from "../order-record.ts";
import { queryString } from "../query-string.ts";
import { paymentsSection } from "./payments.ts";
import { orderActionsSection } from "./purchase-order-actions.ts";
import { editDraftLink, newOrderLink } from "./purchase-order-draft.ts";
import { receiptsSection, receiveButton } from "./receipts.ts";

interface Line {
  id: number;
  position: number;
  product_title: string | null;
  variant_title: string | null;
  sku: string | null;
  supplier_sku: string | null;
  quantity: number;
  received_quantity: number;
  cancelled_quantity: number;
  outstanding_quantity: number;
  unit_cost: string;
  discount_percent: number | null;
  line_total: string;
}

interface Charge {
  id: number;
  kind: string;
  label: string | null;
  amount: string;
  currency: string;
  amount_in_order_currency: string;
  tax_amount: string;
}

interface Totals {
  currency: string;
  subtotal: string;
  charges: string;
  tax: string;
  total: string;
}

interface OrderSummary {
  id: number;
  number: string;
  status: string;
  type: string;
  archived: boolean;
  supplier: { id: number; name: string };
  currency: string;
  payment_status: string;
  expected_at: string | null;
  location: { id: number; name: string } | null;
  totals: Totals;
  lines: Line[];
  charges: Charge[];
  platform_sync: { state: string; attempted_at: string | null; error: string | null } | null;
  reference: string | null;
  supplier_order_number: string | null;
  invoice_number: string | null;
  notes: string | null;
  payment_due_on: string | null;
  paid_at: string | null;
  ordered_at: string | null;
  sent_at: string | null;
  received_at: string | null;
  closed_at: string | null;
  created_at: string;
  updated_at: string;
  payments?: {
    id: number;
    amount: string;
    currency: string;
    paid_on: string;
    method: string;
    reference: string | null;
  }[];
}

const money = (amount: string | null | undefined, currency: string) =>
  amount == null ? null : `${amount} ${currency}`;

export async function purchaseOrdersPage(ctx: PageContext, rawId: unknown) {
  const store = await loadStore(ctx, rawId);
  const path = `/admin/stores/${store.id}/purchase_orders`;
  const flash = takeFlash(ctx.session);
  if (!ctx.admin.has("GET", path))
    return sendPage(
      ctx.reply,
      page({
        title: "Purchase orders",
        session: ctx.session,
        store,
        tab: "purchase_orders",
        body: notAvailable("The purchase order viewer"),
        flash,
      }),
    );
  const q = queryOf(ctx.request);
  const filters = { status: q.status ?? "", archived: q.archived ?? "", limit: q.limit ?? "" };
  let rows: OrderSummary[] = [];
  let next: string | null = null;
  let problem: ReturnType<typeof errorSummary> | string = "";
  try {
    const result = await ctx.admin.get<{
      data: OrderSummary[];
      next_cursor: string | null;
      has_more: boolean;
    }>(`${path}${queryString({ ...filters, cursor: q.cursor })}`);
    rows = result.data;
    next = result.has_more ? result.next_cursor : null;
  } catch (error) {
    if (!(error instanceof AdminError) || (error.status !== 422 && error.status !== 400)) throw error;
    problem = errorSummary(error.message, error.details);
  }
  const here = storePath(store.id, "/purchase_orders");
  const statuses = ["draft", "ordered", "in_transit", "partial", "received", "closed"];
  const body = html`${newOrderLink(ctx.request, store.id)}
<form method="get" action="${here}" class="filters" role="search" aria-label="Filter purchase orders">
<div class="field"><label for="po-status">Status</label>
<select id="po-status" name="status"><option value="">Any</option>${statuses.map(
    (s) =>
      html`<option value="${s}"${filters.status === s ? html` selected` : ""}>${s.replace("_", " ")}</option>`,
  )}</select></div>
<div class="field"><label for="po-archived">Archived</label>
<select id="po-archived" name="archived">
<option value=""${filters.archived === "" ? html` selected` : ""}>Not archived</option>
<option value="true"${filters.archived === "true" ? html` selected` : ""}>Archived only</option>
<option value="all"${filters.archived === "all" ? html` selected` : ""}>Both</option>
</select></div>
<div><button type="submit">Filter</button></div>
</form>
${problem}
${table(
  "Purchase orders",
  [
    { header: "Number", cell: (o) => html`<a href="${here}/${o.id}">${o.number}</a>` },
    { header: "Status", cell: (o) => o.status.replace("_", " ") },
    { header: "Supplier", cell: (o) => o.supplier?.name },
    { header: "Lines", cell: (o) => o.lines?.length ?? null, numeric: true },
    { header: "Total", cell: (o) => money(o.totals?.total, o.currency), numeric: true },
    { header: "Payment", cell: (o) => o.payment_status },
    { header: "Expected", cell: (o) => o.expected_at },
    { header: "Updated", cell: (o) => o.updated_at },
  ],
  rows,
  "No purchase orders match.",
)}
<nav class="pager" aria-label="Pages">
${q.cursor ? html`<a href="${here}${queryString(filters)}">First page</a>` : ""}
${next ? html`<a href="${here}${queryString({ ...filters, cursor: next })}" rel="next">Next page</a>` : ""}
</nav>`;
  return sendPage(
    ctx.reply,
    page({ title: "Purchase orders", session: ctx.session, store, tab: "purchase_orders", body, flash }),
  );
}

/** The admin route that serves an order's PDF, when the documents feature has one. */
export function pdfAdminPath(storeId: number, orderId: number): string {
  return `/admin/stores/${storeId}/purchase_orders/${orderId}/pdf`;
}

export async function purchaseOrderPage(ctx: PageContext, rawId: unknown, rawOrderId: unknown) {
  const store = await loadStore(ctx, rawId);
  const orderId = idOf(rawOrderId);
  const path = `/admin/stores/${store.id}/purchase_orders/${orderId}`;
  const flash = takeFlash(ctx.session);
  if (!ctx.admin.has("GET", path))
    return sendPage(
      ctx.reply,
      page({
        title: "Purchase order",
        session: ctx.session,
        store,
        tab: "purchase_orders",
        body: notAvailable("The purchase order viewer"),
        flash,
      }),
    );
  let order: OrderSummary;
  try {
    order = (await ctx.admin.get<{ data: OrderSummary }>(path)).data;
  } catch (error) {
    if (error instanceof AdminError && error.status === 404)
      throw new PageNotFound("This store has no such purchase order.");
    throw error;
  }
  const c = order.currency;
  const pdfHref = storePath(store.id, `/purchase_orders/${orderId}/pdf`);
  const pdf = ctx.admin.has("GET", pdfAdminPath(store.id, orderId))
    ? html`<p class="pager"><a href="${pdfHref}" type="application/pdf">PDF of ${order.number}</a>
<a href="${pdfHref}?received=true" type="application/pdf">Receiving copy (no prices)</a></p>`
    : html`<p class="muted">The PDF of this order is not available in the console yet.</p>`;
  const actions = await orderActionsSection(ctx, store.id, order);
  const body = html`${pdf}
${editDraftLink(ctx.request, store.id, order)}
${receiveButton(ctx, store.id, order as unknown as OrderRecord)}
${actions}
${dl([
  ["Status", order.status.replace("_", " ")],
  ["Type", order.type],
  ["Supplier", order.supplier?.name],
  ["Ships to", order.location?.name ?? null],
  ["Payment", order.payment_status],
  ["Expected", order.expected_at],
  ["Payment due", order.payment_due_on],
  ["Reference", order.reference],
  ["Supplier order number", order.supplier_order_number],
  ["Invoice number", order.invoice_number],
  ["Ordered", order.ordered_at],
  ["Sent", order.sent_at],
  ["Received", order.received_at],
  ["Closed", order.closed_at],
  [
    "Platform sync",
    order.platform_sync
      ? `${order.platform_sync.state}${order.platform_sync.error ? ` (${order.platform_sync.error})` : ""}`
      : null,
  ],
  ["Archived", order.archived],
])}
${order.notes ? html`<h2>Notes</h2><p>${order.notes}</p>` : ""}
${table(
  "Lines",
  [
    { header: "#", cell: (l) => l.position, numeric: true },
    { header: "Product", cell: (l) => [l.product_title, l.variant_title].filter(Boolean).join(" – ") },
    { header: "SKU", cell: (l) => l.sku },
    { header: "Supplier SKU", cell: (l) => l.supplier_sku },
    { header: "Ordered", cell: (l) => l.quantity, numeric: true },
    { header: "Received", cell: (l) => l.received_quantity, numeric: true },
    { header: "Cancelled", cell: (l) => l.cancelled_quantity, numeric: true },
    { header: "Outstanding", cell: (l) => l.outstanding_quantity, numeric: true },
    { header: "Unit cost", cell: (l) => money(l.unit_cost, c), numeric: true },
    { header: "Discount %", cell: (l) => l.discount_percent, numeric: true },
    { header: "Line total", cell: (l) => money(l.line_total, c), numeric: true },
  ],
  order.lines ?? [],
  "No lines.",
)}
${
  (order.charges ?? []).length > 0
    ? table(
        "Charges",
        [
          { header: "Kind", cell: (ch) => ch.kind },
          { header: "Label", cell: (ch) => ch.label },
          { header: "Amount", cell: (ch) => money(ch.amount, ch.currency), numeric: true },
          { header: `In ${c}`, cell: (ch) => money(ch.amount_in_order_currency, c), numeric: true },
          { header: "Tax", cell: (ch) => money(ch.tax_amount, c), numeric: true },
        ],
        order.charges,
      )
    : ""
}
${table(
  "Totals",
  [
    { header: "Subtotal", cell: (t: Totals) => money(t.subtotal, c), numeric: true },
    { header: "Charges", cell: (t: Totals) => money(t.charges, c), numeric: true },
    { header: "Tax", cell: (t: Totals) => money(t.tax, c), numeric: true },
    { header: "Total", cell: (t: Totals) => html`<strong>${money(t.total, c)}</strong>`, numeric: true },
  ],
  order.totals ? [order.totals] : [],
)}
${receiptsSection(ctx, store.id, order as unknown as OrderRecord)}
${paymentsSection(ctx, store.id, order as unknown as OrderRecord)}
<p><a href="${storePath(store.id, "/purchase_orders")}">Back to purchase orders</a></p>`;
  return sendPage(
    ctx.reply,
    page({
      title: `Purchase order ${order.number}`,
      session: ctx.session,
      store,
      tab: "purchase_orders",
      body,
      flash,
    }),
  );
}

/** Streams the order's PDF from the admin API (only when that route exists). */
export async function purchaseOrderPdf(
  ctx: PageContext,
  rawId: unknown,
  rawOrderId: unknown,
): Promise<FastifyReply> {
  const storeId = idOf(rawId);
  const orderId = idOf(rawOrderId);
  const path = pdfAdminPath(storeId, orderId);
  ctx.admin.require("GET", path, "The purchase order PDF");
  const received = queryOf(ctx.request).received === "true";
  const res = await ctx.admin.raw("GET", `${path}${received ? "?received=true" : ""}`);
  if (res.status === 404) throw new PageNotFound("This store has no such purchase order.");
  if (res.status !== 200)
    throw new AdminError(res.status, "http_error", `The PDF could not be made (HTTP ${res.status}).`);
  const disposition = res.headers["content-disposition"];
  if (typeof disposition === "string")
    ctx.reply.header("content-disposition", disposition.replace(/^attachment/, "inline"));
  return ctx.reply.code(200).type("application/pdf").send(res.body);
}
