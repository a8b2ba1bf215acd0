import { html, type SafeHtml } from "../../html/template.ts";
import { can, requirePermission } from "../actor.ts";
import { AdminError } from "../admin.ts";
import { formOf, type PageContext, queryOf, redirectTo, sendPage, takeFlash } from "../context.ts";
import { actionButton, csrfField, dl, page, table } from "../layout.ts";
import { queryString } from "../query-string.ts";
import { storeApi } from "../store-api.ts";
import { formKey, money, type StoreInfo, storeInfoOf } from "../store-pages.ts";
import {
  idempotencyKeyOf,
  loadSupplier,
  postedValues,
  type Supplier,
  type SupplierFormValues,
  supplierForm,
  supplierInput,
  suppliersPath,
  valuesOf,
} from "../supplier-form.ts";
import {
  catalogSection,
  exportCatalogCsv,
  importCatalogCsv,
  removeCatalogRow,
  saveCatalogRow,
} from "./supplier-catalog.ts";
import { mergeAction, mergePage } from "./supplier-merge.ts";
import { pricesPage, savePricesAction } from "./supplier-prices.ts";

/**
 * The merchant's suppliers (issue 20 item 2): a list with search, the archived filter and paging; a
 * form with every SupplierInput field to create and edit one; archive and unarchive; the supplier's
 * catalog (supplier-catalog.ts). Everything goes through the public API as the signed-in user.
 */

interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

const PAGE_SIZE = 50;

function render(ctx: PageContext, store: StoreInfo, title: string, body: SafeHtml, status = 200) {
  return sendPage(
    ctx.reply,
    page({ title, session: ctx.session, store, tab: "suppliers", body, flash: takeFlash(ctx.session) }),
    status,
  );
}

export async function suppliersPage(ctx: PageContext) {
  const store = await storeInfoOf(ctx.request);
  const api = storeApi(ctx.request);
  const q = queryOf(ctx.request);
  const search = (q.q ?? "").trim();
  const archived = q.archived === "true" || q.archived === "all" ? q.archived : "";
  // The API's own search (every word the start of a word of the name, company, contact, email or
  // account number), paged like the list, so a store with any number of suppliers finds each of them.
  // A search of punctuation alone is the API's 400; here it is a hint, not an error page.
  const searchable = search === "" || /[\p{L}\p{N}]/u.test(search);
  let rows: Supplier[] = [];
  let next: string | null = null;
  if (searchable) {
    const res = await api.get<Page<Supplier>>(
      `/suppliers${queryString({ limit: PAGE_SIZE, archived, q: search, cursor: q.cursor })}`,
    );
    rows = res.data;
    next = res.has_more ? res.next_cursor : null;
  }
  const here = suppliersPath(store.id);
  const filters = { q: search, archived };
  const body = html`${
    can(ctx.request, "suppliers")
      ? html`<p><a class="button" href="${suppliersPath(store.id, "/new")}">New supplier</a></p>`
      : ""
  }
<form method="get" action="${here}" class="filters" role="search" aria-label="Find suppliers">
<div class="field"><label for="supplier-q">Search</label>
<input type="search" id="supplier-q" name="q" value="${search}" placeholder="Name, company, email"></div>
<div class="field"><label for="supplier-archived">Show</label>
<select id="supplier-archived" name="archived">
<option value=""${archived === "" ? html` selected` : ""}>Active suppliers</option>
<option value="true"${archived === "true" ? html` selected` : ""}>Archived only</option>
<option value="all"${archived === "all" ? html` selected` : ""}>Active and archived</option>
</select></div>
<div><button type="submit">Find</button></div>
</form>
${table(
  "Suppliers",
  [
    {
      header: "Name",
      cell: (s) =>
        html`<a href="${suppliersPath(store.id, `/${s.id}`)}">${s.name}</a>${s.archived ? html` <span class="badge">archived</span>` : ""}`,
    },
    { header: "Contact", cell: (s) => [s.contact_name, s.email].filter(Boolean).join(" · ") || null },
    { header: "Currency", cell: (s) => s.currency },
    {
      header: "Lead time",
      cell: (s) => leadTime(s.lead_time_days),
      numeric: true,
    },
    {
      header: "Minimum order",
      cell: (s) => money(s.min_order_value, s.currency ?? store.currency),
      numeric: true,
    },
  ],
  rows,
  !searchable
    ? "Type a letter or a digit to search."
    : search
      ? "No supplier matches that search."
      : "No suppliers yet.",
)}
<nav class="pager" aria-label="Pages">
${q.cursor ? html`<a href="${here}${queryString(filters)}">First page</a>` : ""}
${next ? html`<a href="${here}${queryString({ ...filters, cursor: next })}" rel="next">Next page</a>` : ""}
</nav>`;
  return render(ctx, store, "Suppliers", body);
}

export async function newSupplierPage(ctx: PageContext) {
  requirePermission(ctx.request, "suppliers");
  const store = await storeInfoOf(ctx.request);
  return showSupplierForm(ctx, store, null, valuesOf(null), null);
}

function showSupplierForm(
  ctx: PageContext,
  store: StoreInfo,
  supplier: Supplier | null,
  values: SupplierFormValues,
  error: AdminError | null,
) {
  const form = supplierForm({
    action: supplier ? suppliersPath(store.id, `/${supplier.id}`) : suppliersPath(store.id),
    csrf: csrfField(ctx.session),
    values,
    error,
    submit: supplier ? "Save changes" : "Create supplier",
    idempotencyKey: supplier ? undefined : formKey(),
  });
  const title = supplier ? `Edit ${supplier.name}` : "New supplier";
  return render(
    ctx,
    store,
    title,
    html`${form}<p><a href="${supplier ? suppliersPath(store.id, `/${supplier.id}`) : suppliersPath(store.id)}">Cancel</a></p>`,
    error ? 422 : 200,
  );
}

export async function createSupplierAction(ctx: PageContext) {
  requirePermission(ctx.request, "suppliers");
  const store = await storeInfoOf(ctx.request);
  const form = formOf(ctx.request);
  const values = postedValues(form);
  try {
    const created = await storeApi(ctx.request).post<{ data: Supplier }>(
      "/suppliers",
      supplierInput(values),
      {
        idempotencyKey: idempotencyKeyOf(form),
      },
    );
    ctx.session.flash.push({ kind: "ok", text: `Supplier “${created.data.name}” created.` });
    return redirectTo(ctx.reply, suppliersPath(store.id, `/${created.data.id}`));
  } catch (error) {
    if (error instanceof AdminError && error.status === 422)
      return showSupplierForm(ctx, store, null, values, error);
    throw error;
  }
}

export async function editSupplierPage(ctx: PageContext, rawId: unknown) {
  requirePermission(ctx.request, "suppliers");
  const store = await storeInfoOf(ctx.request);
  const supplier = await loadSupplier(ctx, rawId);
  return showSupplierForm(ctx, store, supplier, valuesOf(supplier), null);
}

export async function updateSupplierAction(ctx: PageContext, rawId: unknown) {
  requirePermission(ctx.request, "suppliers");
  const store = await storeInfoOf(ctx.request);
  const supplier = await loadSupplier(ctx, rawId);
  const values = postedValues(formOf(ctx.request));
  try {
    await storeApi(ctx.request).patch(`/suppliers/${supplier.id}`, supplierInput(values));
    ctx.session.flash.push({ kind: "ok", text: "Changes saved." });
    return redirectTo(ctx.reply, suppliersPath(store.id, `/${supplier.id}`));
  } catch (error) {
    if (error instanceof AdminError && error.status === 422)
      return showSupplierForm(ctx, store, supplier, values, error);
    throw error;
  }
}

export async function archiveSupplierAction(ctx: PageContext, rawId: unknown, archive: boolean) {
  requirePermission(ctx.request, "suppliers");
  const store = await storeInfoOf(ctx.request);
  const supplier = await loadSupplier(ctx, rawId);
  await storeApi(ctx.request).post(`/suppliers/${supplier.id}/${archive ? "archive" : "unarchive"}`);
  ctx.session.flash.push({
    kind: "ok",
    text: archive ? `“${supplier.name}” archived.` : `“${supplier.name}” is active again.`,
  });
  return redirectTo(ctx.reply, suppliersPath(store.id, `/${supplier.id}`));
}

/** "1 day", "12 days". */
function leadTime(days: number | null): string | null {
  return days === null ? null : `${days} ${days === 1 ? "day" : "days"}`;
}

function addressText(s: Supplier): string | null {
  const a = s.address;
  if (!a) return null;
  const locality = [a.city, [a.province, a.zip].filter(Boolean).join(" ")].filter(Boolean).join(", ");
  return [a.line1, a.line2, locality, a.country].filter(Boolean).join(" · ") || null;
}

export async function supplierPage(ctx: PageContext, rawId: unknown) {
  const store = await storeInfoOf(ctx.request);
  const supplier = await loadSupplier(ctx, rawId);
  const writable = can(ctx.request, "suppliers");
  const base = suppliersPath(store.id, `/${supplier.id}`);
  const currency = supplier.currency ?? store.currency;
  const controls = writable
    ? html`<div class="actions"><a class="button" href="${base}/edit">Edit supplier</a>
${actionButton(ctx.session, `${base}/${supplier.archived ? "unarchive" : "archive"}`, supplier.archived ? "Unarchive" : "Archive")}
${supplier.archived ? "" : html`<a class="button" href="${base}/merge">Merge duplicates into this supplier</a>`}</div>`
    : "";
  const body = html`${supplier.archived ? html`<p class="notice" role="status">This supplier is archived: new orders cannot use it.</p>` : ""}
${controls}
${dl([
  ["Company", supplier.company_name],
  ["Contact", supplier.contact_name],
  ["Email", supplier.email],
  ["Copy to", supplier.email_cc],
  ["Phone", supplier.phone],
  ["Address", addressText(supplier)],
  ["Currency", supplier.currency],
  ["Payment terms", supplier.payment_terms],
  ["Lead time", leadTime(supplier.lead_time_days)],
  ["Minimum order", money(supplier.min_order_value, currency)],
  ["Free freight from", money(supplier.free_freight_threshold, currency)],
  ["Our account number", supplier.account_number],
])}
${await catalogSection(ctx, store, supplier, writable)}
<p><a href="${suppliersPath(store.id)}">Back to suppliers</a></p>`;
  return render(ctx, store, supplier.name, body);
}

/** The supplier pages' routes, under /console/stores/:id/suppliers. */
export function supplierRoutes(get: RouteAdder, post: RouteAdder): void {
  get("/stores/:id/suppliers", (c) => suppliersPage(c));
  get("/stores/:id/suppliers/new", (c) => newSupplierPage(c));
  post("/stores/:id/suppliers", (c) => createSupplierAction(c));
  get("/stores/:id/suppliers/:supplier_id", (c, p) => supplierPage(c, p.supplier_id));
  get("/stores/:id/suppliers/:supplier_id/edit", (c, p) => editSupplierPage(c, p.supplier_id));
  post("/stores/:id/suppliers/:supplier_id", (c, p) => updateSupplierAction(c, p.supplier_id));
  post("/stores/:id/suppliers/:supplier_id/archive", (c, p) => archiveSupplierAction(c, p.supplier_id, true));
  post("/stores/:id/suppliers/:supplier_id/unarchive", (c, p) =>
    archiveSupplierAction(c, p.supplier_id, false),
  );
  get("/stores/:id/suppliers/:supplier_id/merge", (c, p) => mergePage(c, p.supplier_id));
  post("/stores/:id/suppliers/:supplier_id/merge", (c, p) => mergeAction(c, p.supplier_id));
  get("/stores/:id/suppliers/:supplier_id/catalog/:item_id/prices", (c, p) =>
    pricesPage(c, p.supplier_id, p.item_id),
  );
  post("/stores/:id/suppliers/:supplier_id/catalog/:item_id/prices", (c, p) =>
    savePricesAction(c, p.supplier_id, p.item_id),
  );
  get("/stores/:id/suppliers/:supplier_id/catalog.csv", (c, p) => exportCatalogCsv(c, p.supplier_id));
  post("/stores/:id/suppliers/:supplier_id/catalog", (c, p) => saveCatalogRow(c, p.supplier_id));
  post("/stores/:id/suppliers/:supplier_id/catalog/import", (c, p) => importCatalogCsv(c, p.supplier_id));
  post("/stores/:id/suppliers/:supplier_id/catalog/:item_id/remove", (c, p) =>
    removeCatalogRow(c, p.supplier_id, p.item_id),
  );
}

export type RouteAdder = (
  url: string,
  handler: (c: PageContext, p: Record<string, string>) => Promise<unknown>,
) => unknown;
