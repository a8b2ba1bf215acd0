import { html } from "../../html/template.ts";
import { AdminError } from "../admin.ts";
import { type PageContext, queryOf, sendPage, takeFlash } from "../context.ts";
import { notAvailable, page, storePath, table } from "../layout.ts";
import { ORDER_STATUSES, type Order, ordersPath, paymentWords, statusWords } from "../purchase-order-data.ts";
import { queryString } from "../query-string.ts";
import { storeApi } from "../store-api.ts";
import { money, storeInfoOf } from "../store-pages.ts";
import { purchaseOrderPage, purchaseOrderPdf } from "./purchase-order.ts";
import { purchaseOrderActionRoutes } from "./purchase-order-actions.ts";
import { newOrderLink } from "./purchase-order-draft.ts";
import { purchaseOrderLifecycleRoutes } from "./purchase-order-lifecycle.ts";
import type { RouteAdder } from "./suppliers.ts";

/**
 * The store's purchase orders (issue 20 item 3): filters (status, supplier, location, type, archived),
 * a search by number or reference, newest first unless sorted otherwise, keyset pages of 50. One page
 * is four API calls whatever it shows: the store, the orders, and the suppliers and locations the
 * filters offer.
 */

interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

const PAGE_SIZE = 50;
/** The filters offer this many suppliers and locations (the API's largest page): one call each. */
const CHOICES = 250;

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
  const store = await storeInfoOf(ctx.request);
  const api = storeApi(ctx.request);
  const flash = takeFlash(ctx.session);
  const render = (body: ReturnType<typeof html>, status = 200) =>
    sendPage(
      ctx.reply,
      page({ title: "Purchase orders", session: ctx.session, store, tab: "purchase_orders", body, flash }),
      status,
    );
  if (!api.has("GET", "/purchase_orders")) return render(notAvailable("The purchase order viewer"));
  const q = queryOf(ctx.request);
  const filters = {
    q: (q.q ?? "").trim(),
    status: q.status ?? "",
    supplier_id: q.supplier_id ?? "",
    location_id: q.location_id ?? "",
    type: q.type ?? "",
    archived: q.archived ?? "",
    sort: q.sort || "-created_at",
  };
  let rows: Order[] = [];
  let next: string | null = null;
  let problem: ReturnType<typeof html> | "" = "";
  const [listed, suppliers, locations] = await Promise.all([
    api
      .get<Page<Order>>(`/purchase_orders${queryString({ ...filters, limit: PAGE_SIZE, cursor: q.cursor })}`)
      .catch((error: unknown) => {
        if (error instanceof AdminError && (error.status === 400 || error.status === 422)) return error;
        throw error;
      }),
    api.get<Page<{ id: number; name: string; archived: boolean }>>(
      `/suppliers${queryString({ archived: "all", limit: CHOICES })}`,
    ),
    api.get<Page<{ id: number; name: string }>>(`/locations${queryString({ limit: CHOICES })}`),
  ]);
  if (listed instanceof AdminError) problem = refusal(listed);
  else {
    rows = listed.data;
    next = listed.has_more ? listed.next_cursor : null;
  }
  const here = ordersPath(store.id);
  const supplierChoices = [...suppliers.data].sort((a, b) => a.name.localeCompare(b.name));
  const body = html`${newOrderLink(ctx.request, store.id)}
<form method="get" action="${here}" class="filters" role="search" aria-label="Find purchase orders">
<div class="field"><label for="po-q">Number or reference</label>
<input type="search" id="po-q" name="q" value="${filters.q}" maxlength="100" placeholder="PO-0034"></div>
<div class="field"><label for="po-status">Status</label>
<select id="po-status" name="status">${STATUS_CHOICES.map(
    ([value, label]) => html`<option value="${value}"${selected(filters.status === value)}>${label}</option>`,
  )}</select></div>
<div class="field"><label for="po-supplier">Supplier</label>
<select id="po-supplier" name="supplier_id"><option value="">Any</option>${supplierChoices.map(
    (s) =>
      html`<option value="${s.id}"${selected(filters.supplier_id === String(s.id))}>${s.name}${s.archived ? " (archived)" : ""}</option>`,
  )}</select></div>
<div class="field"><label for="po-location">Ships to</label>
<select id="po-location" name="location_id"><option value="">Any</option>${locations.data.map(
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
        html`<a href="${storePath(store.id, `/suppliers/${o.supplier.id}`)}">${o.supplier.name}</a>`,
    },
    { header: "Status", cell: (o) => statusWords(o.status) },
    { header: "Total", cell: (o) => money(o.totals.total, o.currency), numeric: true },
    { header: "Reference", cell: (o) => o.reference },
    { header: "Ships to", cell: (o) => o.location?.name ?? null },
    { header: "Payment", cell: (o) => paymentWords(o.payment_status) },
    { header: "Expected", cell: (o) => o.expected_at },
    { header: "Created", cell: (o) => o.created_at.slice(0, 10) },
  ],
  rows,
  problem ? "No orders shown." : "No purchase orders match.",
)}
<nav class="pager" aria-label="Pages">
${q.cursor ? html`<a href="${here}${queryString(filters)}">First page</a>` : ""}
${next ? html`<a href="${here}${queryString({ ...filters, cursor: next })}" rel="next">Next page</a>` : ""}
</nav>`;
  return render(body, problem ? 422 : 200);
}

/** Every purchase order page and action, under /console/stores/:id/purchase_orders. */
export function purchaseOrderRoutes(get: RouteAdder, post: RouteAdder): void {
  get("/stores/:id/purchase_orders", (c) => purchaseOrdersPage(c));
  get("/stores/:id/purchase_orders/:po_id", (c, p) => purchaseOrderPage(c, p.po_id));
  get("/stores/:id/purchase_orders/:po_id/pdf", (c, p) => purchaseOrderPdf(c, p.po_id));
  purchaseOrderActionRoutes(get, post);
  purchaseOrderLifecycleRoutes(get, post);
}
