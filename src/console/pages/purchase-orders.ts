import { html } from "../../html/template.ts";
import { AdminError } from "../admin.ts";
import { type PageContext, queryOf, sendPage, takeFlash } from "../context.ts";
import { dateHtml, notAvailable, page, storePath, table, timeHtml } from "../layout.ts";
import { ORDER_STATUSES, type Order, ordersPath, paymentWords, statusWords } from "../purchase-order-data.ts";
import { queryString } from "../query-string.ts";
import { locationsOf } from "../stock-levels.ts";
import { storeApi } from "../store-api.ts";
import { money, storeInfoOf } from "../store-pages.ts";
import {
  resolveSupplier,
  type SupplierFilter,
  supplierChoices,
  supplierFilterField,
} from "../supplier-filter.ts";
import { purchaseOrderPage, purchaseOrderPdf } from "./purchase-order.ts";
import { purchaseOrderActionRoutes } from "./purchase-order-actions.ts";
import { newOrderLink } from "./purchase-order-draft.ts";
import { purchaseOrderLifecycleRoutes } from "./purchase-order-lifecycle.ts";
import type { RouteAdder } from "./suppliers.ts";

/**
 * The store's purchase orders (issue 20 item 3): filters (status, supplier, location, type, archived),
 * a search by number or reference, newest first unless sorted otherwise, keyset pages of 50. The
 * supplier is named by typing (supplier-filter.ts: a store may have hundreds), the location chosen from
 * the store's locations. One page is three API calls whatever it shows (the store, the orders, the
 * locations, side by side), and one more when the filter names a supplier (by id, or a search by name,
 * then the orders).
 */

interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

const PAGE_SIZE = 50;

const SORTS = [
  ["-created_at", "Newest first"],
  ["created_at", "Oldest first"],
  ["-updated_at", "Recently changed"],
  ["updated_at", "Least recently changed"],
] as const;

/** "Open" is the statuses an order is expected in; the API takes them comma-separated. */
const STATUS_CHOICES: [string, string][] = [
  ["", "Any"],
  ["ordered,in_transit,partial", "Open"],
  ...ORDER_STATUSES.map((s): [string, string] => [s, statusWords(s)]),
];

/** The filters' names as the form labels them, for the API's refusals. */
const FILTER_LABELS: Record<string, string> = {
  q: "Search",
  status: "Status",
  supplier_id: "Supplier",
  supplier: "Supplier",
  location_id: "Ships to",
  type: "Type",
  archived: "Archived",
  sort: "Sort",
  cursor: "The page link",
};

const selected = (on: boolean) => (on ? html` selected` : "");

function refusal(error: AdminError) {
  const named = error.details
    .map((d) => FILTER_LABELS[d.field] ?? null)
    .filter((label): label is string => label !== null);
  const text =
    error.code === "invalid_cursor"
      ? "That page link no longer matches the filters. Start again from the first page."
      : error.code === "invalid_filter"
        ? "Choose a status from the list."
        : named.length > 0
          ? `Check ${[...new Set(named)].join(", ")}: ${error.details[0].message}.`
          : error.message;
  return html`<div class="flash flash-error" role="alert"><p>No orders shown. ${text}</p></div>`;
}

export async function purchaseOrdersPage(ctx: PageContext) {
  const api = storeApi(ctx.request);
  // The store (its name and currency, for the layout) is read beside the orders, not before them.
  const storeRead = storeInfoOf(ctx.request);
  storeRead.catch(() => {}); // awaited below; a failure is thrown there, not reported as unhandled first
  const flash = takeFlash(ctx.session);
  const render = async (body: ReturnType<typeof html>, status = 200) =>
    sendPage(
      ctx.reply,
      page({
        title: "Purchase orders",
        session: ctx.session,
        store: await storeRead,
        tab: "purchase_orders",
        body,
        flash,
      }),
      status,
    );
  if (!api.has("GET", "/purchase_orders")) return render(notAvailable("The purchase order viewer"));
  const q = queryOf(ctx.request);
  const filters = {
    q: (q.q ?? "").trim(),
    status: q.status ?? "",
    location_id: q.location_id ?? "",
    type: q.type ?? "",
    archived: q.archived ?? "",
    sort: q.sort || "-created_at",
  };
  const listOrders = (supplierId: string) =>
    api
      .get<Page<Order>>(
        // The list shows no lines: the API leaves them out (docs/performance.md, "Console pages").
        `/purchase_orders${queryString({ ...filters, supplier_id: supplierId, limit: PAGE_SIZE, cursor: q.cursor, lines: "false" })}`,
      )
      .catch((error: unknown) => {
        if (error instanceof AdminError && (error.status === 400 || error.status === 422)) return error;
        throw error;
      });
  // The form sends the supplier typed (resolved by name, then the orders read); a link names it by id
  // (the orders read at once, beside the supplier's name for the field).
  const typed = (q.supplier ?? "").trim();
  const idText = typed === "" ? (q.supplier_id ?? "").trim() : "";
  let supplier: SupplierFilter;
  let listed: Page<Order> | AdminError | null;
  const locationsRead = locationsOf(api);
  if (typed === "") {
    [supplier, listed] = await Promise.all([
      resolveSupplier(api, "", idText),
      idText === "" || /^[1-9]\d{0,9}$/.test(idText) ? listOrders(idText) : null,
    ]);
  } else {
    supplier = await resolveSupplier(api, typed, "");
    listed = supplier.kind === "supplier" ? await listOrders(String(supplier.supplier.id)) : null;
  }
  const locations = await locationsRead;
  // Its time zone names the day an order was created: a merchant's evening is the next day in UTC.
  const { timezone } = await storeRead;
  let rows: Order[] = [];
  let next: string | null = null;
  let problem: ReturnType<typeof html> | "" = "";
  const unresolved = supplier.kind === "none" || supplier.kind === "choose";
  if (unresolved) listed = null;
  if (listed instanceof AdminError) problem = refusal(listed);
  else if (listed) {
    rows = listed.data;
    next = listed.has_more ? listed.next_cursor : null;
  }
  const here = ordersPath(api.storeId);
  // What the page's links carry: the supplier by id once it is known.
  const linked = {
    q: filters.q,
    status: filters.status,
    supplier_id: supplier.kind === "supplier" ? supplier.supplier.id : "",
    location_id: filters.location_id,
    type: filters.type,
    archived: filters.archived,
    sort: filters.sort,
  };
  const body = html`${newOrderLink(ctx.request, api.storeId)}
<form method="get" action="${here}" class="filters" role="search" aria-label="Find purchase orders">
<div class="field"><label for="po-q">Number or reference</label>
<input type="search" id="po-q" name="q" value="${filters.q}" maxlength="100" placeholder="PO-0034"></div>
<div class="field"><label for="po-status">Status</label>
<select id="po-status" name="status">${STATUS_CHOICES.map(
    ([value, label]) => html`<option value="${value}"${selected(filters.status === value)}>${label}</option>`,
  )}</select></div>
${supplierFilterField({ id: "po-supplier", name: "supplier", label: "Supplier", filter: supplier })}
<div class="field"><label for="po-location">Ships to</label>
<select id="po-location" name="location_id"><option value="">Any</option>${locations.map(
    (l) => html`<option value="${l.id}"${selected(filters.location_id === String(l.id))}>${l.name}</option>`,
  )}</select></div>
<div class="field"><label for="po-type">Type</label>
<select id="po-type" name="type">
<option value=""${selected(filters.type === "")}>Any</option>
<option value="purchase"${selected(filters.type === "purchase")}>Purchases</option>
<option value="return"${selected(filters.type === "return")}>Returns</option>
</select></div>
<div class="field"><label for="po-archived">Archived</label>
<select id="po-archived" name="archived">
<option value=""${selected(filters.archived === "")}>Not archived</option>
<option value="true"${selected(filters.archived === "true")}>Archived only</option>
<option value="all"${selected(filters.archived === "all")}>Both</option>
</select></div>
<div class="field"><label for="po-sort">Sort</label>
<select id="po-sort" name="sort">${SORTS.map(
    ([value, label]) => html`<option value="${value}"${selected(filters.sort === value)}>${label}</option>`,
  )}</select></div>
<div><button type="submit">Find</button></div>
</form>
${supplierChoices(supplier, (s) => `${here}${queryString({ ...linked, supplier_id: s.id })}`)}
${problem}
${table(
  "Purchase orders",
  [
    {
      header: "Number",
      cell: (o: Order) =>
        html`<a href="${here}/${o.id}">${o.number}</a>${o.type === "return" ? html` <span class="badge">return</span>` : ""}${o.archived ? html` <span class="badge">archived</span>` : ""}`,
    },
    {
      header: "Supplier",
      cell: (o) =>
        html`<a href="${storePath(api.storeId, `/suppliers/${o.supplier.id}`)}">${o.supplier.name}</a>`,
    },
    { header: "Status", cell: (o) => statusWords(o.status) },
    { header: "Total", cell: (o) => money(o.totals.total, o.currency), numeric: true },
    { header: "Reference", cell: (o) => o.reference },
    { header: "Ships to", cell: (o) => o.location?.name ?? null },
    { header: "Payment", cell: (o) => paymentWords(o.payment_status) },
    { header: "Expected", cell: (o) => o.expected_at && dateHtml(o.expected_at) },
    { header: "Created", cell: (o) => timeHtml(o.created_at, timezone) },
  ],
  rows,
  problem || unresolved ? "No orders shown." : "No purchase orders match.",
)}
<nav class="pager" aria-label="Pages">
${q.cursor ? html`<a href="${here}${queryString(linked)}">First page</a>` : ""}
${next ? html`<a href="${here}${queryString({ ...linked, cursor: next })}" rel="next">Next page</a>` : ""}
</nav>`;
  return render(body, problem || supplier.kind === "none" ? 422 : 200);
}

/** Every purchase order page and action, under /console/stores/:id/purchase_orders. */
export function purchaseOrderRoutes(get: RouteAdder, post: RouteAdder): void {
  get("/stores/:id/purchase_orders", (c) => purchaseOrdersPage(c));
  get("/stores/:id/purchase_orders/:po_id", (c, p) => purchaseOrderPage(c, p.po_id));
  get("/stores/:id/purchase_orders/:po_id/pdf", (c, p) => purchaseOrderPdf(c, p.po_id));
  purchaseOrderActionRoutes(get, post);
  purchaseOrderLifecycleRoutes(get, post);
}
