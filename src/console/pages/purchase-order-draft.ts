import type { FastifyRequest } from "fastify";
import { html, type SafeHtml } from "../../html/template.ts";
import { can, requirePermission } from "../actor.ts";
import { AdminError } from "../admin.ts";
import {
  formOf,
  idOf,
  type PageContext,
  PageNotFound,
  queryOf,
  redirectTo,
  sendPage,
  takeFlash,
} from "../context.ts";
import {
  apiBody,
  type DraftState,
  draftOfForm,
  draftOfOrder,
  emptyDraft,
  lineLabel,
  type Order,
  startingQuantity,
  tierPrice,
} from "../draft-order.ts";
import type { Variant } from "../item-search.ts";
import { page } from "../layout.ts";
import { storeApi } from "../store-api.ts";
import { formKey, type StoreInfo } from "../store-pages.ts";
import { supplierProblem } from "../supplier-filter.ts";
import {
  editorData,
  knownCurrency,
  type SupplierTerms,
  settleSupplier,
  supplierIdOf,
  supplierTerms,
} from "./draft-editor-data.ts";
import { editorBody, ordersPath } from "./draft-editor-view.ts";
import { type Problems, problemsOf } from "./draft-problems.ts";
import type { RouteAdder } from "./suppliers.ts";

/**
 * Raising and editing a draft purchase order (issue 20 item 3): supplier, ship-to location, currency and
 * exchange rate, expected date, reference, notes, charges, and lines found with a picker (title, SKU or
 * barcode; the supplier's catalog items first, with their tier prices). The whole draft travels in the
 * form, so every step works without script; console.js adds the live warnings and totals. Saving is one
 * API call (create, or PATCH of a draft); the API's totals and warnings are the truth, shown on the
 * order's page where it is marked ordered.
 */

/** "New purchase order" for the list page, to those who may raise one. */
export function newOrderLink(request: FastifyRequest, storeId: number): SafeHtml | string {
  return can(request, "purchase_orders")
    ? html`<p><a class="button" href="${ordersPath(storeId, "/new")}">New purchase order</a></p>`
    : "";
}

/** "Edit" on a draft's page, to those who may change it. */
export function editDraftLink(
  request: FastifyRequest,
  storeId: number,
  order: { id: number; status: string },
) {
  return order.status === "draft" && can(request, "purchase_orders")
    ? html`<a class="button" href="${ordersPath(storeId, `/${order.id}/edit`)}">Edit draft</a>`
    : "";
}

function render(ctx: PageContext, title: string, store: StoreInfo, body: SafeHtml, status = 200) {
  return sendPage(
    ctx.reply,
    page({ title, session: ctx.session, store, tab: "purchase_orders", body, flash: takeFlash(ctx.session) }),
    status,
  );
}

async function loadDraft(ctx: PageContext, rawId: unknown): Promise<Order> {
  let order: Order;
  try {
    order = (await storeApi(ctx.request).get<{ data: Order }>(`/purchase_orders/${idOf(rawId)}`)).data;
  } catch (error) {
    if (error instanceof AdminError && error.status === 404)
      throw new PageNotFound("This store has no such purchase order.");
    throw error;
  }
  return order;
}

/**
 * A line for the item the user chose in the picker, at the supplier's starting quantity (`terms`: the
 * settled supplier's catalog terms, which the editor then draws with, read once).
 */
async function addLine(
  ctx: PageContext,
  draft: DraftState,
  variantText: string,
  terms: SupplierTerms,
): Promise<void> {
  if (!/^\d{1,16}$/.test(variantText)) return;
  const api = storeApi(ctx.request);
  // The catalog's first rows are read meanwhile; an item past them is then read by id.
  const [variant] = await Promise.all([
    api.get<{ data: Variant }>(`/variants/${variantText}`).then((r) => r.data),
    terms(),
  ]);
  const catalog = await terms([variant.inventory_item_id]);
  draft.lines.push({
    lineId: null,
    variantId: variant.id,
    itemId: variant.inventory_item_id,
    label: lineLabel(variant.product_title, variant.title),
    sku: variant.sku ?? "",
    quantity: String(startingQuantity(catalog.get(variant.inventory_item_id))),
    unitCost: "",
    baseCost: variant.unit_cost ?? "",
    discount: "",
    tax: "",
    remove: false,
  });
  draft.itemQ = "";
}

/** One POST of the editor: a search, an added item, or the save. */
async function editorAction(ctx: PageContext, order: Order | null) {
  requirePermission(ctx.request, "purchase_orders");
  const form = formOf(ctx.request);
  const draft = draftOfForm(form);
  if (!/^[0-9a-f-]{36}$/.test(draft.key)) draft.key = formKey();
  const todo = String(form._do ?? "search");
  const action = order
    ? ordersPath(storeApi(ctx.request).storeId, `/${order.id}/edit`)
    : ordersPath(storeApi(ctx.request).storeId, "/new");
  const title = order ? `Edit ${order.number}` : "New purchase order";
  const supplier = await settleSupplier(ctx, draft);
  // The settled supplier's catalog terms: read once, whichever steps below need them.
  const terms = supplierTerms(storeApi(ctx.request), supplierIdOf(supplier));
  let problems: Problems | null = null;
  const supplierUnsettled = supplierProblem(supplier);
  if (todo === "save" && supplierUnsettled !== null) {
    // A name that is no supplier, or several, is not sent: a PATCH without it would keep the old one.
    const text = `Supplier ${supplierUnsettled}`;
    problems = {
      message: "Nothing was saved. Please correct:",
      byField: new Map([["po-supplier", text]]),
      summary: [{ id: "po-supplier", text }],
    };
  } else if (todo === "save") {
    const api = storeApi(ctx.request);
    let keptLinePrice: Parameters<typeof apiBody>[1];
    if (order) {
      // No supplier named keeps the order's (a PATCH without supplier_id), so its prices apply.
      const items = draft.lines.map((l) => l.itemId);
      const prices = await (supplier.kind === "supplier" ? terms : supplierTerms(api, order.supplier.id))(
        items,
      );
      const currency = knownCurrency(draft.currency) || order.currency;
      keptLinePrice = (line, quantity) =>
        line.itemId === null ? null : tierPrice(prices.get(line.itemId), currency, quantity);
    }
    const { body, rowOfLine } = apiBody(draft, keptLinePrice);
    try {
      const saved = order
        ? (await api.patch<{ data: Order }>(`/purchase_orders/${order.id}`, body)).data
        : (await api.post<{ data: Order }>("/purchase_orders", body, { idempotencyKey: draft.key })).data;
      // The warnings said here, in full: the order's page lists lines, not their warnings.
      const warned = saved.lines.flatMap((l) =>
        l.warnings.map((w) => `${lineLabel(l.product_title, l.variant_title)}: ${w.message}`),
      );
      ctx.session.flash.push({
        kind: "ok",
        text: [`${saved.number} is saved as a draft.`, ...warned].join(" "),
      });
      return redirectTo(ctx.reply, ordersPath(api.storeId, `/${saved.id}`));
    } catch (error) {
      if (!(error instanceof AdminError) || error.status < 400 || error.status >= 500) throw error;
      problems = problemsOf(error, draft, rowOfLine);
      // The API keeps a refused answer under its key too: the corrected form is a new request.
      draft.key = formKey();
    }
  } else {
    // Round trips drop the lines marked for removal; only a save sends the draft.
    draft.lines = draft.lines.filter((l) => !l.remove);
    if (todo.startsWith("add:")) await addLine(ctx, draft, todo.slice(4), terms);
  }
  const data = await editorData(ctx, draft, supplier, terms);
  return render(
    ctx,
    title,
    data.store,
    editorBody(ctx, action, draft, data, order, problems),
    problems ? 422 : 200,
  );
}

export async function newDraftPage(ctx: PageContext) {
  requirePermission(ctx.request, "purchase_orders");
  const draft = emptyDraft(formKey());
  draft.supplierId = (queryOf(ctx.request).supplier_id ?? "").trim();
  const data = await editorData(ctx, draft, await settleSupplier(ctx, draft));
  return render(
    ctx,
    "New purchase order",
    data.store,
    editorBody(ctx, ordersPath(data.store.id, "/new"), draft, data, null, null),
  );
}

export async function editDraftPage(ctx: PageContext, rawOrderId: unknown) {
  requirePermission(ctx.request, "purchase_orders");
  const order = await loadDraft(ctx, rawOrderId);
  const storeId = storeApi(ctx.request).storeId;
  if (order.status !== "draft") {
    ctx.session.flash.push({
      kind: "error",
      text: `${order.number} is ${order.status.replace("_", " ")}: only a draft is edited here.`,
    });
    return redirectTo(ctx.reply, ordersPath(storeId, `/${order.id}`));
  }
  const terms = supplierTerms(storeApi(ctx.request), order.supplier.id);
  const draft = draftOfOrder(order, await terms(order.lines.map((l) => l.inventory_item_id)), formKey());
  const supplier = await settleSupplier(ctx, draft);
  // The order's supplier is the one the editor opens with: its terms are not read again.
  const data = await editorData(
    ctx,
    draft,
    supplier,
    supplierIdOf(supplier) === order.supplier.id ? terms : undefined,
  );
  return render(
    ctx,
    `Edit ${order.number}`,
    data.store,
    editorBody(ctx, ordersPath(storeId, `/${order.id}/edit`), draft, data, order, null),
  );
}

export function purchaseOrderDraftRoutes(get: RouteAdder, post: RouteAdder): void {
  get("/stores/:id/purchase_orders/new", (c) => newDraftPage(c));
  post("/stores/:id/purchase_orders/new", (c) => editorAction(c, null));
  get("/stores/:id/purchase_orders/:po_id/edit", (c, p) => editDraftPage(c, p.po_id));
  post("/stores/:id/purchase_orders/:po_id/edit", async (c, p) => {
    requirePermission(c.request, "purchase_orders");
    const order = await loadDraft(c, p.po_id);
    if (order.status !== "draft") {
      c.session.flash.push({
        kind: "error",
        text: `${order.number} is no longer a draft: nothing was changed.`,
      });
      return redirectTo(c.reply, ordersPath(storeApi(c.request).storeId, `/${order.id}`));
    }
    return editorAction(c, order);
  });
}
