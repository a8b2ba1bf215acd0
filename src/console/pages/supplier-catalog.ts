import { html, type SafeHtml } from "../../html/template.ts";
import { requirePermission } from "../actor.ts";
import { AdminError } from "../admin.ts";
import {
  CATALOG_CSV_HEADER,
  type CatalogRowInput,
  catalogCsvSkus,
  formatTiers,
  parseTiers,
  type RowProblem,
  readCatalogCsv,
  toCsv,
} from "../catalog-csv.ts";
import {
  field,
  formOf,
  type PageContext,
  platformIdOf,
  queryOf,
  redirectTo,
  sendPage,
  takeFlash,
} from "../context.ts";
import { itemLabel, searchItems, type Variant, variantsByItem, variantsBySku } from "../item-search.ts";
import { actionButton, csrfField, page, table } from "../layout.ts";
import { queryString } from "../query-string.ts";
import { storeApi } from "../store-api.ts";
import { money, type StoreInfo, storeInfoOf } from "../store-pages.ts";
import { loadSupplier, type Supplier, suppliersPath } from "../supplier-form.ts";
import { shownDate } from "../times.ts";

/**
 * A supplier's catalog in the console: its items with pack sizes, minimum quantities and price tiers
 * (effective and upcoming), adding an item found by title, SKU or barcode, and the CSV import (every
 * row checked first, nothing written when any is wrong) and export.
 */

export interface TierSet {
  currency: string;
  effective_from: string | null;
  tiers: { min_qty: number; price: string }[];
}

export interface CatalogRow {
  inventory_item_id: number;
  supplier_sku: string | null;
  pack_size: number;
  pack_unit: string;
  min_order_qty: number;
  is_primary: boolean;
  price: string | null;
  price_currency: string | null;
  price_list: { effective: TierSet | null; upcoming: TierSet | null } | null;
}

interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** Catalog rows on one page of the supplier's page, as the console's other lists. */
const CATALOG_PAGE_SIZE = 50;

export async function allCatalogRows(ctx: PageContext, supplierId: number): Promise<CatalogRow[]> {
  const api = storeApi(ctx.request);
  const rows: CatalogRow[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 40; page++) {
    const query = new URLSearchParams({ limit: "250", ...(cursor ? { cursor } : {}) });
    const res: Page<CatalogRow> = await api.get(`/suppliers/${supplierId}/catalog?${query}`);
    rows.push(...res.data);
    if (!res.has_more || !res.next_cursor) break;
    cursor = res.next_cursor;
  }
  return rows;
}

/** One item's row of the supplier's catalog, or null: the API's filter reads that row alone. */
export async function catalogRowOf(
  ctx: PageContext,
  supplierId: number,
  itemId: number,
): Promise<CatalogRow | null> {
  const query = queryString({ inventory_item_id: itemId });
  const res: Page<CatalogRow> = await storeApi(ctx.request).get(`/suppliers/${supplierId}/catalog${query}`);
  return res.data.find((r) => r.inventory_item_id === itemId) ?? null;
}

function tiersText(set: TierSet | null | undefined): string | null {
  if (!set || set.tiers.length === 0) return null;
  return set.tiers.map((t) => `${t.min_qty}+ at ${money(t.price, set.currency)}`).join(", ");
}

const catalogAnchor = "catalog";

/** The catalog part of the supplier's page. */
export async function catalogSection(
  ctx: PageContext,
  store: StoreInfo,
  supplier: Supplier,
  writable: boolean,
  importProblems: RowProblem[] = [],
  csvText = "",
): Promise<SafeHtml> {
  // One page of the catalog, as every list of the console is paged: a distributor's catalog of
  // thousands of items would otherwise be read whole (up to 40 API calls) and drawn on one page, and
  // rows past the 10,000th left off without a word.
  const query = queryOf(ctx.request);
  const cursor = query.catalog_cursor ?? "";
  const catalogPage: Page<CatalogRow> = await storeApi(ctx.request).get(
    `/suppliers/${supplier.id}/catalog${queryString({ limit: CATALOG_PAGE_SIZE, cursor })}`,
  );
  const rows = catalogPage.data;
  const next = catalogPage.has_more ? catalogPage.next_cursor : null;
  const byItem = await variantsByItem(
    storeApi(ctx.request),
    rows.map((r) => r.inventory_item_id),
  );
  const base = suppliersPath(store.id, `/${supplier.id}`);
  const q = (query.item_q ?? "").trim();
  const found = writable && q !== "" ? await searchItems(storeApi(ctx.request), q) : [];
  const currency = supplier.currency ?? store.currency;
  return html`<h2 id="${catalogAnchor}">Catalog</h2>
${table(
  `Items ${supplier.name} supplies`,
  [
    {
      header: "Item",
      cell: (r) =>
        byItem.get(r.inventory_item_id)
          ? itemLabel(byItem.get(r.inventory_item_id) as Variant)
          : `Item ${r.inventory_item_id}`,
    },
    { header: "SKU", cell: (r) => byItem.get(r.inventory_item_id)?.sku ?? null },
    { header: "Supplier SKU", cell: (r) => r.supplier_sku },
    {
      header: "Pack",
      cell: (r) => (r.pack_size > 1 ? `${r.pack_size} per ${r.pack_unit}` : r.pack_unit),
      numeric: true,
    },
    { header: "Minimum", cell: (r) => r.min_order_qty, numeric: true },
    {
      header: "Price tiers",
      cell: (r) => tiersText(r.price_list?.effective) ?? money(r.price, r.price_currency),
    },
    {
      header: "Upcoming",
      cell: (r) =>
        r.price_list?.upcoming && r.price_list.upcoming.tiers.length > 0
          ? `${tiersText(r.price_list.upcoming)} from ${shownDate(r.price_list.upcoming.effective_from) ?? r.price_list.upcoming.effective_from}`
          : null,
    },
    { header: "Primary supplier", cell: (r) => r.is_primary },
    ...(writable
      ? [
          {
            header: "Prices",
            cell: (r: CatalogRow) =>
              html`<a href="${base}/catalog/${r.inventory_item_id}/prices">Prices of ${byItem.get(r.inventory_item_id)?.sku ?? `item ${r.inventory_item_id}`}</a>`,
          },
        ]
      : []),
    ...(writable
      ? [
          {
            header: "Remove",
            cell: (r: CatalogRow) => {
              const item = byItem.get(r.inventory_item_id);
              return actionButton(
                ctx.session,
                `${base}/catalog/${r.inventory_item_id}/remove`,
                "Remove",
                { name: "confirm_label", value: item?.sku ?? String(r.inventory_item_id) },
                `Remove ${item ? itemLabel(item) : `item ${r.inventory_item_id}`} from the catalog`,
              );
            },
          },
        ]
      : []),
  ],
  rows,
  cursor ? "No more items." : "No items yet.",
)}
<nav class="pager" aria-label="Pages of the catalog">
${cursor ? html`<a href="${base}#${catalogAnchor}">First page</a>` : ""}
${next ? html`<a href="${base}${queryString({ catalog_cursor: next })}#${catalogAnchor}" rel="next">Next page</a>` : ""}
</nav>
<p><a href="${base}/catalog.csv" download>Export the catalog as CSV</a></p>
${
  writable
    ? html`<h3 id="add-item">Add an item</h3>
<form method="get" action="${base}#add-item" class="filters" role="search" aria-label="Find an item to add">
<div class="field"><label for="item-q">Title, SKU or barcode</label>
<input type="search" id="item-q" name="item_q" value="${q}"></div>
<div><button type="submit">Find items</button></div>
</form>
${q !== "" && found.length === 0 ? html`<p role="status">No item matches “${q}”.</p>` : ""}
${found.map((v) => addRowForm(ctx, base, v, currency))}
<h3 id="import">Import from CSV</h3>
${importErrors(importProblems)}
<form method="post" action="${base}/catalog/import" class="stack wide" aria-label="Import the catalog from CSV">
${csrfField(ctx.session)}
<div class="field"><label for="catalog-csv">CSV rows <span class="hint">(columns: ${CATALOG_CSV_HEADER.join(", ")}; tiers as “1:4.50 10:4.00”)</span></label>
<textarea id="catalog-csv" name="csv" rows="6" spellcheck="false" data-file-target="catalog-file"${importProblems.length > 0 ? html` aria-invalid="true" aria-describedby="import-errors"` : ""}>${csvText}</textarea></div>
<div class="field"><label for="catalog-file">Or choose a file <span class="hint">(fills the box above)</span></label>
<input type="file" id="catalog-file" accept=".csv,text/csv" data-fills="catalog-csv"></div>
<div><button type="submit">Import</button></div>
</form>`
    : ""
}`;
}

function addRowForm(ctx: PageContext, base: string, v: Variant, currency: string): SafeHtml {
  const id = `add-${v.id}`;
  return html`<form method="post" action="${base}/catalog" class="stack wide item-add" aria-label="Add ${itemLabel(v)}">
${csrfField(ctx.session)}
<input type="hidden" name="variant_id" value="${v.id}">
<p><strong>${itemLabel(v)}</strong> <span class="muted">${[v.sku, v.barcode].filter(Boolean).join(" · ")}</span></p>
<div class="grid">
<div class="field"><label for="${id}-sku">Supplier SKU</label><input type="text" id="${id}-sku" name="supplier_sku"></div>
<div class="field"><label for="${id}-pack">Pack size</label><input type="text" inputmode="numeric" id="${id}-pack" name="pack_size" value="1"></div>
<div class="field"><label for="${id}-moq">Minimum order quantity</label><input type="text" inputmode="numeric" id="${id}-moq" name="min_order_qty" value="1"></div>
<div class="field"><label for="${id}-tiers">Price tiers in ${currency} <span class="hint">(“1:4.50 10:4.00”: from quantity 1 at 4.50, from 10 at 4.00)</span></label><input type="text" id="${id}-tiers" name="tiers"></div>
<div class="check"><input type="checkbox" id="${id}-primary" name="is_primary" value="true"> <label for="${id}-primary">Primary supplier of this item</label></div>
</div>
<div><button type="submit">Add to catalog</button></div>
</form>`;
}

function importErrors(problems: RowProblem[]): SafeHtml | string {
  if (problems.length === 0) return "";
  return html`<div class="flash flash-error" role="alert" id="import-errors"><p>Nothing was imported. Correct these rows and import again:</p><ul>${problems.map(
    (p) => html`<li>Line ${p.line}, ${p.column}: ${p.message}</li>`,
  )}</ul></div>`;
}

async function renderSupplier(
  ctx: PageContext,
  store: StoreInfo,
  supplier: Supplier,
  section: SafeHtml,
  status: number,
) {
  return sendPage(
    ctx.reply,
    page({
      title: supplier.name,
      session: ctx.session,
      store,
      tab: "suppliers",
      body: html`${section}<p><a href="${suppliersPath(store.id, `/${supplier.id}`)}">Back to ${supplier.name}</a></p>`,
      flash: takeFlash(ctx.session),
    }),
    status,
  );
}

const COLUMN_WORDS: Record<string, string> = {
  supplier_sku: "supplier SKU",
  pack_size: "pack size",
  pack_unit: "pack unit",
  min_order_qty: "minimum order quantity",
  is_primary: "primary supplier",
  tiers: "price tiers",
  effective_from: "effective from",
  variant_id: "item",
  inventory_item_id: "item",
};

/** The API's row details (`rows.3.tiers.0.price`) as the file's lines and columns. */
function apiProblems(error: AdminError, lineOf: (index: number) => number): RowProblem[] {
  return error.details.map((d) => {
    const m = /^rows\.(\d+)\.?([a-z_]+)?/.exec(d.field);
    if (!m) return { line: 1, column: d.field, message: d.message };
    return { line: lineOf(Number(m[1])), column: m[2] ?? "row", message: d.message };
  });
}

export async function importCatalogCsv(ctx: PageContext, rawSupplierId: unknown) {
  requirePermission(ctx.request, "suppliers");
  const store = await storeInfoOf(ctx.request);
  const supplier = await loadSupplier(ctx, rawSupplierId);
  const text = field(formOf(ctx.request), "csv");
  const bySku = await variantsBySku(storeApi(ctx.request), catalogCsvSkus(text));
  const { rows, problems } = readCatalogCsv(text, (sku) => bySku.get(sku));
  let refused = problems;
  if (refused.length === 0 && rows.length > 0) {
    try {
      await storeApi(ctx.request).put(`/suppliers/${supplier.id}/catalog`, { rows });
      ctx.session.flash.push({
        kind: "ok",
        text: `Imported ${rows.length === 1 ? "1 row" : `${rows.length} rows`}.`,
      });
      return redirectTo(ctx.reply, `${suppliersPath(store.id, `/${supplier.id}`)}#${catalogAnchor}`);
    } catch (error) {
      if (!(error instanceof AdminError) || error.status !== 422) throw error;
      refused = apiProblems(error, (index) => index + 2);
    }
  } else if (rows.length === 0 && refused.length === 0) {
    refused = [{ line: 1, column: "file", message: "has no rows under its header" }];
  }
  const section = await catalogSection(ctx, store, supplier, true, refused, text);
  return renderSupplier(ctx, store, supplier, section, 422);
}

export async function saveCatalogRow(ctx: PageContext, rawSupplierId: unknown) {
  requirePermission(ctx.request, "suppliers");
  const store = await storeInfoOf(ctx.request);
  const supplier = await loadSupplier(ctx, rawSupplierId);
  const form = formOf(ctx.request);
  const number = (name: string) => {
    const raw = field(form, name);
    return raw === "" ? undefined : /^\d+$/.test(raw) ? Number(raw) : raw;
  };
  const tiersRaw = field(form, "tiers");
  const tiers = tiersRaw === "" ? undefined : parseTiers(tiersRaw);
  const problems: RowProblem[] = [];
  if (tiers === null)
    problems.push({
      line: 1,
      column: "price tiers",
      message: 'must be "quantity:price" pairs, such as "1:4.50 10:4.00"',
    });
  const row: Record<string, unknown> = {
    variant_id: platformIdOf(field(form, "variant_id")),
    supplier_sku: field(form, "supplier_sku") || null,
    pack_size: number("pack_size"),
    min_order_qty: number("min_order_qty"),
    is_primary: field(form, "is_primary") === "true",
    ...(tiers ? { tiers } : {}),
  };
  if (problems.length === 0) {
    try {
      await storeApi(ctx.request).put(`/suppliers/${supplier.id}/catalog`, {
        rows: [row as CatalogRowInput],
      });
      ctx.session.flash.push({ kind: "ok", text: "Item added to the catalog." });
      return redirectTo(ctx.reply, `${suppliersPath(store.id, `/${supplier.id}`)}#${catalogAnchor}`);
    } catch (error) {
      if (!(error instanceof AdminError) || error.status !== 422) throw error;
      problems.push(
        ...apiProblems(error, () => 1).map((p) => ({ ...p, column: COLUMN_WORDS[p.column] ?? p.column })),
      );
    }
  }
  const list = html`<div class="flash flash-error" role="alert"><p>The item was not added:</p><ul>${problems.map(
    (p) => html`<li>${p.column[0].toUpperCase()}${p.column.slice(1)} ${p.message}</li>`,
  )}</ul></div>`;
  const section = await catalogSection(ctx, store, supplier, true);
  return renderSupplier(ctx, store, supplier, html`${list}${section}`, 422);
}

export async function removeCatalogRow(ctx: PageContext, rawSupplierId: unknown, rawItemId: unknown) {
  requirePermission(ctx.request, "suppliers");
  const store = await storeInfoOf(ctx.request);
  const supplier = await loadSupplier(ctx, rawSupplierId);
  const itemId = platformIdOf(rawItemId);
  const form = formOf(ctx.request);
  const base = suppliersPath(store.id, `/${supplier.id}`);
  if (field(form, "confirm") !== "yes") {
    // A removal asks first: the price tiers go with the row.
    const label = field(form, "confirm_label") || `item ${itemId}`;
    const body = html`<p>Remove <strong>${label}</strong> from ${supplier.name}'s catalog? Its supplier SKU and price tiers are deleted with it.</p>
<form method="post" action="${base}/catalog/${itemId}/remove" class="inline">${csrfField(ctx.session)}<input type="hidden" name="confirm" value="yes"><button type="submit" class="danger">Remove from catalog</button></form>
<a href="${base}#${catalogAnchor}">Keep it</a>`;
    return sendPage(
      ctx.reply,
      page({ title: "Remove from catalog?", session: ctx.session, store, tab: "suppliers", body }),
    );
  }
  await storeApi(ctx.request).delete(`/suppliers/${supplier.id}/catalog/${itemId}`);
  ctx.session.flash.push({ kind: "ok", text: "Item removed from the catalog." });
  return redirectTo(ctx.reply, `${base}#${catalogAnchor}`);
}

export async function exportCatalogCsv(ctx: PageContext, rawSupplierId: unknown) {
  const supplier = await loadSupplier(ctx, rawSupplierId);
  const rows = await allCatalogRows(ctx, supplier.id);
  const byItem = await variantsByItem(
    storeApi(ctx.request),
    rows.map((r) => r.inventory_item_id),
  );
  const lines = rows.map((r) => [
    byItem.get(r.inventory_item_id)?.sku ?? "",
    String(r.inventory_item_id),
    r.supplier_sku ?? "",
    String(r.pack_size),
    r.pack_unit,
    String(r.min_order_qty),
    r.is_primary ? "yes" : "no",
    formatTiers(r.price_list?.effective?.tiers ?? []),
    r.price_list?.effective?.effective_from ?? "",
  ]);
  const fileName = `${supplier.name.replace(/[^A-Za-z0-9._-]+/g, "-")}-catalog.csv`;
  return ctx.reply
    .code(200)
    .type("text/csv; charset=utf-8")
    .header("content-disposition", `attachment; filename="${fileName}"`)
    .send(toCsv([[...CATALOG_CSV_HEADER], ...lines]));
}
