import type { FastifyReply } from "fastify";
import { html } from "../../html/template.ts";
import { AdminError } from "../admin.ts";
import { idOf, type PageContext, PageNotFound, queryOf, sendPage, takeFlash } from "../context.ts";
import { dateHtml, dl, notAvailable, page, storePath, table } from "../layout.ts";
import {
  chargeKindWords,
  loadOrder,
  type OrderCharge,
  type OrderLine,
  type OrderTotals,
  ordersPath,
  paymentWords,
  statusWords,
  syncWords,
} from "../purchase-order-data.ts";
import { storeApi } from "../store-api.ts";
import { money, storeInfoOf } from "../store-pages.ts";
import { paymentsSection } from "./payments.ts";
import { orderActionsSection } from "./purchase-order-actions.ts";
import { editDraftLink } from "./purchase-order-draft.ts";
import { receiptsSection, receiveButton } from "./receipts.ts";

/**
 * One purchase order (issue 20 item 3): its details, lines, charges, totals and payments, the PDF and
 * the receiving copy, and what the user may do with it (purchase-order-actions.ts). Read through the
 * public API as the signed-in user.
 */

/** The details every order shows; the others appear once they have a value (a phone scrolls less). */
const ALWAYS_SHOWN = new Set(["Status", "Type", "Supplier", "Payment", "Expected", "Archived"]);

export async function purchaseOrderPage(ctx: PageContext, rawOrderId: unknown) {
  const store = await storeInfoOf(ctx.request);
  const flash = takeFlash(ctx.session);
  if (!storeApi(ctx.request).has("GET", "/purchase_orders/1"))
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
  const order = await loadOrder(ctx.request, rawOrderId);
  const c = order.currency;
  const base = ordersPath(store.id, `/${order.id}`);
  const pdf = html`<p class="pager"><a href="${base}/pdf" type="application/pdf">PDF of ${order.number}</a>
<a href="${base}/pdf?received=true" type="application/pdf">Receiving copy (no prices)</a></p>`;
  const actions = await orderActionsSection(ctx, store, order);
  const body = html`${order.archived ? html`<p class="notice" role="status">This order is archived.</p>` : ""}
${pdf}
${editDraftLink(ctx.request, store.id, order)}
${receiveButton(ctx, store.id, order)}
${actions.controls}
${dl(
  (
    [
      ["Status", statusWords(order.status)],
      ["Type", order.type === "return" ? "Return to the supplier" : "Purchase"],
      [
        "Supplier",
        html`<a href="${storePath(store.id, `/suppliers/${order.supplier.id}`)}">${order.supplier.name}</a>`,
      ],
      ["Ships to", order.location?.name ?? null],
      ["Payment", paymentWords(order.payment_status)],
      ["Expected", order.expected_at && dateHtml(order.expected_at)],
      ["Payment due", order.payment_due_on && dateHtml(order.payment_due_on)],
      ["Reference", order.reference],
      ["Supplier order number", order.supplier_order_number],
      ["Invoice number", order.invoice_number],
      ["Ordered", order.ordered_at],
      ["Sent", order.sent_at],
      ["In transit", order.in_transit_at],
      ["Received", order.received_at],
      ["Closed", order.closed_at],
      ["Platform sync", order.platform_sync ? syncWords(order.platform_sync) : null],
      ["Archived", order.archived],
    ] as Parameters<typeof dl>[0]
  ).filter(
    ([label, value]) => ALWAYS_SHOWN.has(label) || (value !== null && value !== undefined && value !== ""),
  ),
  store.timezone,
)}
${order.notes ? html`<h2>Notes</h2><p>${order.notes}</p>` : ""}
${table(
  "Lines",
  [
    { header: "#", cell: (l: OrderLine) => l.position, numeric: true },
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
    ...(actions.lineCell ? [{ header: "Action", cell: actions.lineCell }] : []),
  ],
  order.lines,
  "No lines.",
)}
${
  order.charges.length > 0
    ? table(
        "Charges",
        [
          { header: "Kind", cell: (ch: OrderCharge) => chargeKindWords(ch.kind) },
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
    { header: "Subtotal", cell: (t: OrderTotals) => money(t.subtotal, c), numeric: true },
    { header: "Charges", cell: (t) => money(t.charges, c), numeric: true },
    { header: "Tax", cell: (t) => money(t.tax, c), numeric: true },
    { header: "Total", cell: (t) => html`<strong>${money(t.total, c)}</strong>`, numeric: true },
  ],
  [order.totals],
)}
${receiptsSection(ctx, store, order)}
${paymentsSection(ctx, store.id, order)}
${actions.history}
<p><a href="${ordersPath(store.id)}">Back to purchase orders</a></p>`;
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

/** The order's PDF (or its receiving copy, without prices) from the public API, shown in the browser. */
export async function purchaseOrderPdf(ctx: PageContext, rawOrderId: unknown): Promise<FastifyReply> {
  const orderId = idOf(rawOrderId);
  const received = queryOf(ctx.request).received === "true";
  const res = await storeApi(ctx.request).raw(
    "GET",
    `/purchase_orders/${orderId}/pdf${received ? "?received=true" : ""}`,
  );
  if (res.status === 404) throw new PageNotFound("This store has no such purchase order.");
  if (res.status !== 200)
    throw new AdminError(res.status, "http_error", `The PDF could not be made (HTTP ${res.status}).`);
  const disposition = res.headers["content-disposition"];
  if (typeof disposition === "string")
    ctx.reply.header("content-disposition", disposition.replace(/^attachment/, "inline"));
  return ctx.reply.code(200).type("application/pdf").send(res.body);
}
