import { html, type SafeHtml } from "../../html/template.ts";
import { can, requirePermission } from "../actor.ts";
import { AdminError } from "../admin.ts";
import { field, formOf, type PageContext, queryOf, redirectTo, sendPage, takeFlash } from "../context.ts";
import { csrfField, page, storePath, table } from "../layout.ts";
import { queryString } from "../query-string.ts";
import { levelItemLabel, locationsOf, type Page, type StockLevel } from "../stock-levels.ts";
import { storeApi } from "../store-api.ts";
import { formKey, type StoreInfo, storeInfoOf } from "../store-pages.ts";
import type { RouteAdder } from "./suppliers.ts";

/**
 * The store's stock (issue 20 item 6): levels per location with search, and the items at or below
 * their low-stock threshold or reorder point, each with a "raise an order" form that drafts a purchase
 * order for the item's primary supplier with the suggested quantity and opens it. One page is three API
 * calls (the store, its locations, one page of /v2/stock_levels), whatever its number of rows.
 */

const PAGE_SIZE = 50;

export const stockPath = (storeId: number, rest = "") => storePath(storeId, `/stock${rest}`);

function render(ctx: PageContext, store: StoreInfo, title: string, body: SafeHtml, status = 200) {
  return sendPage(
    ctx.reply,
    page({ title, session: ctx.session, store, tab: "stock", body, flash: takeFlash(ctx.session) }),
    status,
  );
}

function itemCell(l: StockLevel): SafeHtml {
  return html`<span class="item">${levelItemLabel(l)}</span>${
    l.sku ? html`<br><span class="muted">SKU ${l.sku}</span>` : ""
  }`;
}

const BELOW_WORDS = { low_stock: "Low stock", reorder_point: "Reorder point" } as const;

function belowText(l: StockLevel): string {
  return l.below
    .map((b) =>
      b === "low_stock"
        ? `${BELOW_WORDS.low_stock}: ${l.on_hand} on hand, threshold ${l.low_stock_threshold}`
        : `${BELOW_WORDS.reorder_point}: ${l.available + l.incoming} available and incoming, point ${l.reorder_point}`,
    )
    .join("; ");
}

function raiseOrderForm(ctx: PageContext, store: StoreInfo, l: StockLevel): SafeHtml | string {
  if (!l.primary_supplier)
    return html`<span class="muted">No supplier lists this item.</span> <a href="${storePath(store.id, "/suppliers")}">Suppliers</a>`;
  const id = `raise-${l.id}`;
  const quantity = Math.max(1, l.suggested_quantity ?? 1);
  return html`<form method="post" action="${stockPath(store.id, "/low/order")}" class="inline raise" aria-label="Raise an order for ${levelItemLabel(l)}">
${csrfField(ctx.session)}<input type="hidden" name="_key" value="${formKey()}">
<input type="hidden" name="supplier_id" value="${l.primary_supplier.id}">
<input type="hidden" name="location_id" value="${l.location.id}">
<input type="hidden" name="inventory_item_id" value="${l.inventory_item_id}">
<input type="hidden" name="item_label" value="${levelItemLabel(l)}">
<input type="number" id="${id}" name="quantity" min="1" max="100000000" step="1" value="${quantity}" class="qty" aria-label="Quantity to order of ${levelItemLabel(l)}">
<button type="submit">Raise an order</button></form>`;
}

async function stockPage(ctx: PageContext, low: boolean) {
  const store = await storeInfoOf(ctx.request);
  const api = storeApi(ctx.request);
  const q = queryOf(ctx.request);
  const search = (q.q ?? "").trim().slice(0, 200);
  const locationId = /^\d{1,16}$/.test(q.location ?? "") ? q.location : "";
  const filters = { q: search, location: locationId };
  // The API finds words by their start and refuses a search of only punctuation: nothing can match it.
  const noWords = search !== "" && !/[\p{L}\p{N}]/u.test(search);
  const nothing: Page<StockLevel> = { data: [], has_more: false, next_cursor: null };
  const [locations, levels] = await Promise.all([
    locationsOf(api),
    noWords
      ? nothing
      : api.get<Page<StockLevel>>(
          `/stock_levels${queryString({
            limit: PAGE_SIZE,
            q: search,
            location_id: locationId,
            low_stock: low ? "true" : "",
            cursor: q.cursor,
          })}`,
        ),
  ]);
  const here = stockPath(store.id, low ? "/low" : "");
  const ordering = low && can(ctx.request, "purchase_orders");
  const columns = [
    { header: "Item", cell: itemCell },
    { header: "Location", cell: (l: StockLevel) => l.location.name ?? `Location ${l.location.id}` },
    { header: "Available", cell: (l: StockLevel) => l.available, numeric: true },
    { header: "On hand", cell: (l: StockLevel) => l.on_hand, numeric: true },
    { header: "Incoming", cell: (l: StockLevel) => l.incoming, numeric: true },
    { header: "On order", cell: (l: StockLevel) => l.on_order, numeric: true },
    ...(low
      ? [
          { header: "Below", cell: belowText },
          { header: "Suggested", cell: (l: StockLevel) => l.suggested_quantity, numeric: true },
          {
            header: "Primary supplier",
            cell: (l: StockLevel) =>
              l.primary_supplier
                ? html`<a href="${storePath(store.id, `/suppliers/${l.primary_supplier.id}`)}">${l.primary_supplier.name}</a>`
                : null,
          },
          ...(ordering ? [{ header: "Order", cell: (l: StockLevel) => raiseOrderForm(ctx, store, l) }] : []),
        ]
      : []),
  ];
  const body = html`<nav class="views" aria-label="Stock views"><a href="${stockPath(store.id)}"${low ? "" : html` aria-current="page"`}>All levels</a>
<a href="${stockPath(store.id, "/low")}"${low ? html` aria-current="page"` : ""}>Low stock</a>
<a href="${storePath(store.id, "/stock_adjustments")}">Adjustments</a>
<a href="${storePath(store.id, "/alert_rules")}">Alert rules</a></nav>
${
  low
    ? html`<p class="muted">Items at or below the store's low-stock threshold (on hand) or their reorder point (available and incoming), by the <a href="${storePath(store.id, "/alert_rules")}">alert rules</a>. The suggestion fills up to the max stock, or else to one above the line crossed. Incoming is what the platform expects; on order is what this store's open purchase orders still bring.</p>`
    : html`<p class="muted">Incoming is what the platform expects to arrive; on order is what this store's open purchase orders still bring.</p>`
}
<form method="get" action="${here}" class="filters" role="search" aria-label="Find stock">
<div class="field"><label for="stock-q">Search</label>
<input type="search" id="stock-q" name="q" value="${search}" placeholder="Title, SKU or barcode" maxlength="200"></div>
<div class="field"><label for="stock-location">Location</label>
<select id="stock-location" name="location">
<option value="">Every location</option>
${locations.map((l) => html`<option value="${l.id}"${String(l.id) === locationId ? html` selected` : ""}>${l.name}</option>`)}
</select></div>
<div><button type="submit">Find</button></div>
</form>
${table(
  low ? "Items to reorder" : "Stock levels",
  columns,
  levels.data,
  search || locationId
    ? "No item matches that search."
    : low
      ? "No item is at or below its low-stock threshold or reorder point."
      : "No stock levels yet.",
  store.timezone,
  // Up to ten columns: on a phone a card per row, the item first, then its quantities by name.
  { cards: true },
)}
<nav class="pager" aria-label="Pages">
${q.cursor ? html`<a href="${here}${queryString(filters)}">First page</a>` : ""}
${levels.has_more && levels.next_cursor ? html`<a href="${here}${queryString({ ...filters, cursor: levels.next_cursor })}" rel="next">Next page</a>` : ""}
</nav>`;
  return render(ctx, store, low ? "Low stock" : "Stock", body);
}

/** Drafts an order for the item's primary supplier through the API, then opens it. */
async function raiseOrderAction(ctx: PageContext) {
  requirePermission(ctx.request, "purchase_orders");
  const store = await storeInfoOf(ctx.request);
  const form = formOf(ctx.request);
  const label = field(form, "item_label") || "the item";
  const quantityText = field(form, "quantity");
  const ids = ["supplier_id", "location_id", "inventory_item_id"].map((name) => field(form, name));
  if (!/^[1-9]\d{0,8}$/.test(quantityText) || ids.some((id) => !/^[1-9]\d{0,15}$/.test(id))) {
    ctx.session.flash.push({
      kind: "error",
      text: `Quantity to order of ${label} must be a whole number of 1 or more. Nothing was ordered.`,
    });
    return redirectTo(ctx.reply, stockPath(store.id, "/low"));
  }
  const [supplierId, locationId, itemId] = ids.map(Number);
  try {
    const created = await storeApi(ctx.request).post<{ data: { id: number; number: string } }>(
      "/purchase_orders",
      {
        supplier_id: supplierId,
        location_id: locationId,
        lines: [{ inventory_item_id: itemId, quantity: Number(quantityText) }],
      },
      { idempotencyKey: field(form, "_key") || undefined },
    );
    ctx.session.flash.push({
      kind: "ok",
      text: `Draft ${created.data.number} raised for ${quantityText} × ${label}. Check it, then mark it ordered.`,
    });
    return redirectTo(ctx.reply, storePath(store.id, `/purchase_orders/${created.data.id}`));
  } catch (error) {
    if (error instanceof AdminError && error.status === 422) {
      const why = error.details.map((d) => d.message).join("; ") || error.message;
      ctx.session.flash.push({ kind: "error", text: `No order was raised for ${label}: ${why}` });
      return redirectTo(ctx.reply, stockPath(store.id, "/low"));
    }
    throw error;
  }
}

/** The stock pages' routes, under /console/stores/:id/stock. */
export function stockRoutes(get: RouteAdder, post: RouteAdder): void {
  get("/stores/:id/stock", (c) => stockPage(c, false));
  get("/stores/:id/stock/low", (c) => stockPage(c, true));
  post("/stores/:id/stock/low/order", (c) => raiseOrderAction(c));
}
