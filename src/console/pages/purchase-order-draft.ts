import type { FastifyRequest } from "fastify";
import { html, type SafeHtml } from "../../html/template.ts";
import { can, requirePermission } from "../actor.ts";
import { AdminError, type ErrorDetail } from "../admin.ts";
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
  type CatalogRow,
  catalogTerms,
  type DraftState,
  draftOfForm,
  draftOfOrder,
  emptyDraft,
  lineLabel,
  NOT_TAXED,
  type Order,
  quantityWarnings,
  startingQuantity,
  tierPrice,
} from "../draft-order.ts";
import { searchItems, type Variant, variantsOfItems } from "../item-search.ts";
import { csrfField, page, storePath } from "../layout.ts";
import { type Location, locationsOf } from "../stock-levels.ts";
import { type StoreApi, storeApi } from "../store-api.ts";
import { formKey, money, type StoreInfo, storeInfoOf } from "../store-pages.ts";
import {
  pickSupplier,
  type SupplierFilter,
  supplierFieldValue,
  supplierPickField,
  supplierProblem,
} from "../supplier-filter.ts";
import type { RouteAdder } from "./suppliers.ts";

/**
 * Raising and editing a draft purchase order (issue 20 item 3): supplier, ship-to location, currency and
 * exchange rate, expected date, reference, notes, charges, and lines found with a picker (title, SKU or
 * barcode; the supplier's catalog items first, with their tier prices). The whole draft travels in the
 * form, so every step works without script; console.js adds the live warnings and totals. Saving is one
 * API call (create, or PATCH of a draft); the API's totals and warnings are the truth, shown on the
 * order's page where it is marked ordered.
 */

interface Page<T> {
  data: T[];
}

interface TaxRate {
  id: number;
  name: string;
  rate_percent: string | number;
}

const ordersPath = (storeId: number, rest = "") => storePath(storeId, `/purchase_orders${rest}`);

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

/** A refused save: the API's details placed on the editor's fields. */
interface Problems {
  message: string;
  /** Field id → the message shown under it. */
  byField: Map<string, string>;
  /** The summary's lines: field id (to link to) and text in the user's words. */
  summary: { id: string | null; text: string }[];
}

const HEADER_FIELDS: Record<string, [string, string]> = {
  supplier_id: ["po-supplier", "Supplier"],
  location_id: ["po-location", "Ships to"],
  currency: ["po-currency", "Currency"],
  exchange_rate: ["po-rate", "Exchange rate"],
  expected_at: ["po-expected", "Expected on"],
  reference: ["po-reference", "Reference"],
  notes: ["po-notes", "Notes"],
  tax_rate_id: ["po-tax", "Tax"],
  taxes_included: ["po-taxes-included", "Prices include tax"],
  charges_taxable: ["po-charges-taxable", "Charges are taxed"],
};

/** A line's fields the API may refuse, with the editor's id and the words for them. */
const LINE_FIELDS: Record<string, [string, string]> = {
  quantity: ["line-qty", "quantity"],
  unit_cost: ["line-cost", "unit cost"],
  discount_percent: ["line-discount", "discount"],
  tax_rate_id: ["line-tax", "tax"],
  taxable: ["line-tax", "tax"],
};

function problemsOf(error: AdminError, draft: DraftState, rowOfLine: number[]): Problems {
  const byField = new Map<string, string>();
  const summary: Problems["summary"] = [];
  const place = (id: string | null, label: string, message: string) => {
    if (id !== null && byField.has(id)) return;
    const text = `${label} ${message}`;
    if (id !== null) byField.set(id, text);
    summary.push({ id, text });
  };
  for (const d of error.details as ErrorDetail[]) {
    const [head, index, rest] = d.field.split(".");
    if (HEADER_FIELDS[head]) {
      place(HEADER_FIELDS[head][0], HEADER_FIELDS[head][1], d.message);
    } else if (head === "lines" && index !== undefined && /^\d+$/.test(index)) {
      const row = rowOfLine[Number(index)] ?? 0;
      const line = draft.lines[row];
      const [prefix, what] = LINE_FIELDS[rest] ?? LINE_FIELDS.quantity;
      place(`${prefix}-${row}`, `Line ${row + 1} (${line?.label ?? "item"}) ${what}`, d.message);
    } else if (head === "lines") {
      place(
        "item-q",
        "Lines:",
        d.message === "must NOT have fewer than 1 items" ? "add at least one item." : d.message,
      );
    } else if (head === "charges" && index !== undefined && /^\d+$/.test(index)) {
      place(`charge-amount-${index}`, `Charge ${Number(index) + 1}`, d.message);
    } else {
      place(null, "", d.message);
    }
  }
  if (summary.length === 0) summary.push({ id: null, text: error.message });
  return { message: "Nothing was saved. Please correct:", byField, summary };
}

const invalid = (problems: Problems | null, id: string) =>
  problems?.byField.has(id) ? html` aria-invalid="true" aria-describedby="${id}-error"` : "";
const errorUnder = (problems: Problems | null, id: string) =>
  problems?.byField.has(id)
    ? html`<p class="field-error" id="${id}-error">${problems.byField.get(id)}</p>`
    : "";

/** Decimal places of a currency, as the API rounds to them. */
function minorUnits(currency: string): number {
  try {
    return (
      new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ??
      2
    );
  } catch {
    return 2;
  }
}

/** A currency code as typed, when it is one (a refused "US" must not break the page that says so). */
const knownCurrency = (code: string) => (/^[A-Z]{3}$/.test(code) && minorUnits(code) >= 0 ? code : "");

interface EditorData {
  store: StoreInfo;
  supplier: SupplierFilter;
  locations: Location[];
  terms: Map<number, CatalogRow>;
  found: Variant[];
  /** With nothing typed, how many of the supplier's catalog items the picker could not show. */
  moreInCatalog: number;
  currency: string;
  taxRates: TaxRate[];
}

/** The picker's list: this many items, found or (nothing typed) browsed. */
const PICKER_ROWS = 25;

/**
 * With nothing typed, the picker lists the supplier's catalog items (by name, up to PICKER_ROWS) with
 * their terms and tier prices, then the store's other items to fill the list: what this supplier sells
 * is what an order to it is mostly made of. Two API calls (the catalog's variants by item, a page of
 * the store's variants).
 */
async function browseItems(api: StoreApi, terms: Map<number, CatalogRow>): Promise<Variant[]> {
  const catalogIds = [...terms.keys()].slice(0, PICKER_ROWS);
  const [inCatalog, others] = await Promise.all([
    catalogIds.length === 0 ? Promise.resolve([]) : variantsOfItems(api, catalogIds),
    catalogIds.length >= PICKER_ROWS
      ? Promise.resolve({ data: [] as Variant[] })
      : api.get<Page<Variant>>(`/variants?limit=${PICKER_ROWS + catalogIds.length}`),
  ]);
  const byName = (a: Variant, b: Variant) =>
    lineLabel(a.product_title, a.title).localeCompare(lineLabel(b.product_title, b.title));
  const rest = others.data.filter((v) => !terms.has(v.inventory_item_id));
  return [...inCatalog.sort(byName), ...rest].slice(0, PICKER_ROWS);
}

/**
 * The supplier the form names (a choice among offered ones, the one it held, or the name typed): the
 * draft then holds its id and name, or keeps the text as typed with no id.
 */
async function settleSupplier(ctx: PageContext, draft: DraftState): Promise<SupplierFilter> {
  const picked = await pickSupplier(
    storeApi(ctx.request),
    draft.supplierText,
    draft.supplierId,
    draft.supplierChoice,
  );
  draft.supplierId = picked.kind === "supplier" ? String(picked.supplier.id) : "";
  draft.supplierText = supplierFieldValue(picked);
  draft.supplierChoice = "";
  return picked;
}

/** Everything the editor shows besides the draft: a bounded number of API calls, none per line. */
async function editorData(
  ctx: PageContext,
  draft: DraftState,
  supplier: SupplierFilter,
): Promise<EditorData> {
  const { request } = ctx;
  const api = storeApi(request);
  const supplierId = supplier.kind === "supplier" ? supplier.supplier.id : null;
  // The store's tax rates are settings (the admin API's), which every staff member of the store reads.
  const [store, locations, terms, taxRates] = await Promise.all([
    storeInfoOf(request),
    locationsOf(api),
    catalogTerms(api, supplierId).catch(() => new Map<number, CatalogRow>()),
    ctx.admin.get<Page<TaxRate>>(`/admin/stores/${api.storeId}/tax_rates`).then((r) => r.data),
  ]);
  // The supplier's catalog items first, typed or not: what this supplier sells, at its prices.
  const found =
    draft.itemQ === ""
      ? await browseItems(api, terms)
      : await searchItems(api, draft.itemQ, PICKER_ROWS, new Set(terms.keys()));
  const shownFromCatalog = found.filter((v) => terms.has(v.inventory_item_id)).length;
  const currency =
    knownCurrency(draft.currency) ||
    (supplier.kind === "supplier" ? supplier.supplier.currency : null) ||
    store.currency;
  return {
    store,
    supplier,
    locations,
    terms,
    found,
    moreInCatalog: draft.itemQ === "" ? Math.max(0, terms.size - shownFromCatalog) : 0,
    currency,
    taxRates,
  };
}

function tiersText(row: CatalogRow | undefined, currency: string): string | null {
  const set = row?.price_list.effective;
  if (!set || set.tiers.length === 0) return null;
  return [...set.tiers]
    .sort((a, b) => a.min_qty - b.min_qty)
    .map((t) => `${t.min_qty}+ at ${money(t.price, set.currency) ?? t.price}`)
    .join(", ")
    .concat(set.currency !== currency ? ` (prices in ${set.currency}, not the order's ${currency})` : "");
}

function termsText(row: CatalogRow | undefined): string | null {
  if (!row) return null;
  const parts = [
    row.supplier_sku ? `Supplier SKU ${row.supplier_sku}` : null,
    row.pack_size > 1 ? `packs of ${row.pack_size} (${row.pack_unit})` : null,
    row.min_order_qty > 1 ? `minimum ${row.min_order_qty}` : null,
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(" · ") : null;
}

/**
 * A line's tax as one choice: the order's tax, none, or one of the store's rates (a rate removed since
 * the line was saved stays selectable by name, and the API says it is gone on save).
 */
function lineTaxSelect(
  line: DraftState["lines"][number],
  i: number,
  taxRates: TaxRate[],
  problems: Problems | null,
): SafeHtml {
  const id = `line-tax-${i}`;
  const option = (value: string, rate: string, label: string) =>
    html`<option value="${value}"${line.tax === value ? html` selected` : ""} data-rate="${rate}">${label}</option>`;
  const known = line.tax === "" || line.tax === NOT_TAXED || taxRates.some((r) => String(r.id) === line.tax);
  return html`<label class="visually-hidden" for="${id}">Tax on ${line.label}</label>
<select class="line-tax" id="${id}" name="line_tax_${i}"${invalid(problems, id)}>${option("", "order", "Order's tax")}${option(NOT_TAXED, "0", "Not taxed")}${taxRates.map(
    (r) => option(String(r.id), String(r.rate_percent), `${r.name} (${String(r.rate_percent)}%)`),
  )}${known ? "" : option(line.tax, "0", "A removed rate")}</select>${errorUnder(problems, id)}`;
}

function linesSection(draft: DraftState, data: EditorData, problems: Problems | null): SafeHtml {
  const { terms, currency } = data;
  const rows = draft.lines.map((line, i) => {
    const row = line.itemId === null ? undefined : terms.get(line.itemId);
    const set = row?.price_list.effective;
    const tiers = set && set.currency === currency ? set.tiers : [];
    const quantity = Number(line.quantity);
    const tier = Number.isSafeInteger(quantity) ? tierPrice(row, currency, quantity) : null;
    const warnings = quantityWarnings(row, line.quantity);
    const about = [termsText(row), tiersText(row, currency)].filter(Boolean).join(" · ");
    return html`<tr data-line data-moq="${row?.min_order_qty ?? 1}" data-pack="${row?.pack_size ?? 1}" data-pack-unit="${row?.pack_unit ?? ""}" data-tiers="${JSON.stringify(tiers)}" data-base-cost="${line.baseCost}">
<th scope="row" class="item-cell"><span class="item-name">${line.label}</span>${line.sku ? html` <span class="muted">${line.sku}</span>` : ""}${about ? html`<br><span class="hint">${about}</span>` : ""}
<input type="hidden" name="line_id_${i}" value="${line.lineId ?? ""}"><input type="hidden" name="line_variant_${i}" value="${line.variantId ?? ""}"><input type="hidden" name="line_item_${i}" value="${line.itemId ?? ""}"><input type="hidden" name="line_label_${i}" value="${line.label}"><input type="hidden" name="line_sku_${i}" value="${line.sku}"><input type="hidden" name="line_base_${i}" value="${line.baseCost}"></th>
<td class="num" data-label="Quantity"><label class="visually-hidden" for="line-qty-${i}">Quantity of ${line.label}</label>
<input type="number" inputmode="numeric" min="1" step="1" class="qty" id="line-qty-${i}" name="line_qty_${i}" value="${line.quantity}"${invalid(problems, `line-qty-${i}`)} aria-describedby="line-warn-${i}">
${errorUnder(problems, `line-qty-${i}`)}<p class="line-warning" id="line-warn-${i}" aria-live="polite">${warnings.join(" ")}</p></td>
<td class="num" data-label="Unit cost"><label class="visually-hidden" for="line-cost-${i}">Unit cost of ${line.label} (blank: the supplier's price)</label>
<input type="text" inputmode="decimal" class="cost" id="line-cost-${i}" name="line_cost_${i}" value="${line.unitCost}" placeholder="${tier ?? line.baseCost ?? ""}"${invalid(problems, `line-cost-${i}`)}>${errorUnder(problems, `line-cost-${i}`)}</td>
<td class="num" data-label="Discount %"><label class="visually-hidden" for="line-discount-${i}">Discount in percent on ${line.label} (blank: none)</label>
<input type="text" inputmode="decimal" class="discount" id="line-discount-${i}" name="line_discount_${i}" value="${line.discount}"${invalid(problems, `line-discount-${i}`)}>${errorUnder(problems, `line-discount-${i}`)}</td>
<td data-label="Tax">${lineTaxSelect(line, i, data.taxRates, problems)}</td>
<td class="num" data-label="Line total"><output class="line-total" for="line-qty-${i} line-cost-${i}"></output></td>
<td><label><input type="checkbox" name="line_remove_${i}" value="yes"${line.remove ? html` checked` : ""}> Remove</label></td>
</tr>`;
  });
  return html`<div class="table-wrap"><table class="draft-lines cards">
<caption>Lines <span class="hint">(a blank unit cost takes the supplier's price for the quantity)</span></caption>
<thead><tr><th scope="col">Item</th><th scope="col" class="num">Quantity</th><th scope="col" class="num">Unit cost (${currency})</th><th scope="col" class="num">Discount %</th><th scope="col">Tax</th><th scope="col" class="num">Line total</th><th scope="col"><span class="visually-hidden">Remove</span></th></tr></thead>
<tbody>${rows.length === 0 ? html`<tr><td colspan="7" class="empty">No lines yet: find items below and add them.</td></tr>` : rows}</tbody>
</table></div>
<input type="hidden" name="line_count" value="${draft.lines.length}">`;
}

function pickerSection(draft: DraftState, data: EditorData, problems: Problems | null): SafeHtml {
  const { terms, currency, found, moreInCatalog } = data;
  const results =
    found.length === 0
      ? draft.itemQ === ""
        ? html`<p role="status">This store has no items yet.</p>`
        : html`<p role="status">No item matches “${draft.itemQ}”.</p>`
      : html`<ul class="picker-results" aria-label="${draft.itemQ === "" ? "Items to add" : "Items found"}">${found.map(
          (v) => {
            const row = terms.get(v.inventory_item_id);
            const about = [row ? "From this supplier" : null, termsText(row), tiersText(row, currency)]
              .filter(Boolean)
              .join(" · ");
            return html`<li><button type="submit" name="_do" value="add:${v.id}" class="add">Add</button> <span class="item-name">${lineLabel(v.product_title, v.title)}</span>${v.sku ? html` <span class="muted">${v.sku}</span>` : ""}${v.barcode ? html` <span class="muted">${v.barcode}</span>` : ""}${about ? html`<br><span class="hint">${about}</span>` : ""}</li>`;
          },
        )}</ul>${
          moreInCatalog > 0
            ? html`<p class="hint">${moreInCatalog} more of this supplier's items: type a title, SKU or barcode to find them.</p>`
            : ""
        }`;
  return html`<fieldset class="picker"><legend>Add items</legend>
<div class="field"><label for="item-q">Find by title, SKU or barcode</label>
<div class="row"><input type="search" id="item-q" name="item_q" value="${draft.itemQ}"${invalid(problems, "item-q")}>
<button type="submit" name="_do" value="search">Search</button></div>${errorUnder(problems, "item-q")}</div>
${results}
</fieldset>`;
}

function chargesSection(draft: DraftState, currency: string, problems: Problems | null): SafeHtml {
  const rows = [...draft.charges, { kind: "shipping" as const, label: "", amount: "" }];
  return html`<fieldset class="charges"><legend>Charges <span class="hint">(in ${currency}; leave the amount blank for none)</span></legend>
${rows.map(
  (c, i) => html`<div class="row charge">
<div class="field"><label for="charge-kind-${i}">Kind</label><select id="charge-kind-${i}" name="charge_kind_${i}">
<option value="shipping"${c.kind === "shipping" ? html` selected` : ""}>Shipping</option>
<option value="other"${c.kind === "other" ? html` selected` : ""}>Other</option></select></div>
<div class="field"><label for="charge-label-${i}">Label</label><input type="text" id="charge-label-${i}" name="charge_label_${i}" value="${c.label}"></div>
<div class="field"><label for="charge-amount-${i}">Amount</label><input type="text" inputmode="decimal" class="charge-amount" id="charge-amount-${i}" name="charge_amount_${i}" value="${c.amount}"${invalid(problems, `charge-amount-${i}`)}>${errorUnder(problems, `charge-amount-${i}`)}</div>
</div>`,
)}
<input type="hidden" name="charge_count" value="${rows.length}">
</fieldset>`;
}

/** The rate the draft's tax picker names, in percent ("0" for no tax or a rate no longer there). */
function draftRatePercent(draft: DraftState, taxRates: TaxRate[]): string {
  return String(taxRates.find((r) => String(r.id) === draft.taxRateId)?.rate_percent ?? "0");
}

/** The order's tax: one of the store's rates (or none), whether prices include it, whether charges bear it. */
function taxFields(draft: DraftState, taxRates: TaxRate[], problems: Problems | null): SafeHtml {
  const check = (id: string, name: string, on: boolean, label: string) =>
    html`<div class="field check"><label><input type="checkbox" id="${id}" name="${name}" value="yes"${on ? html` checked` : ""}${invalid(problems, id)}> ${label}</label>${errorUnder(problems, id)}</div>`;
  return html`<div class="field"><label for="po-tax">Tax</label>
<select id="po-tax" name="tax_rate_id"${invalid(problems, "po-tax")}>
<option value="" data-rate="0">No tax</option>${taxRates.map(
    (r) =>
      html`<option value="${r.id}"${draft.taxRateId === String(r.id) ? html` selected` : ""} data-rate="${String(r.rate_percent)}">${r.name} (${String(r.rate_percent)}%)</option>`,
  )}
</select>${errorUnder(problems, "po-tax")}</div>
${check("po-taxes-included", "taxes_included", draft.taxesIncluded, "Prices include tax")}
${check("po-charges-taxable", "charges_taxable", draft.chargesTaxable, "Charges are taxed")}`;
}

function totalsSection(order: Order | null, draft: DraftState, data: EditorData): SafeHtml {
  const { currency } = data;
  const saved = order?.totals;
  const shown = (amount: string | undefined) =>
    amount === undefined ? "on save" : (money(amount, currency) ?? "");
  // The draft's own tax choice (the picker's), so the preview follows the form rather than the saved order.
  return html`<section class="totals" aria-labelledby="totals-title" data-currency="${currency}" data-minor="${minorUnits(currency)}" data-tax-rate="${draftRatePercent(draft, data.taxRates)}" data-taxes-included="${String(draft.taxesIncluded)}" data-charges-taxable="${String(draft.chargesTaxable)}">
<h2 id="totals-title">Totals</h2>
<p class="hint">${
    saved
      ? "As last saved; the figures follow your changes as you type, and the saved order is computed by Stockroom with the same rounding."
      : "Computed when you save; the figures follow your changes as you type."
  }</p>
<dl class="pairs">
<div><dt>Subtotal</dt><dd><output id="total-subtotal">${shown(saved?.subtotal)}</output></dd></div>
<div><dt>Charges</dt><dd><output id="total-charges">${shown(saved?.charges)}</output></dd></div>
<div><dt>Tax</dt><dd><output id="total-tax">${shown(saved?.tax)}</output></dd></div>
<div><dt>Total</dt><dd><strong><output id="total-total">${shown(saved?.total)}</output></strong></dd></div>
</dl></section>`;
}

function editorBody(
  ctx: PageContext,
  action: string,
  draft: DraftState,
  data: EditorData,
  order: Order | null,
  problems: Problems | null,
): SafeHtml {
  const { locations, store, currency, taxRates } = data;
  const selected = (a: string, b: number) => (a === String(b) ? html` selected` : "");
  const summary = problems
    ? html`<div class="flash flash-error" role="alert" tabindex="-1" id="form-errors"><p>${problems.message}</p><ul>${problems.summary.map(
        (s) => (s.id ? html`<li><a href="#${s.id}">${s.text}</a></li>` : html`<li>${s.text}</li>`),
      )}</ul></div>`
    : "";
  const text = (id: string, name: string, label: string, value: string, extra: SafeHtml | string = "") =>
    html`<div class="field"><label for="${id}">${label}</label><input type="text" id="${id}" name="${name}" value="${value}"${extra}${invalid(problems, id)}>${errorUnder(problems, id)}</div>`;
  return html`${summary}
<form method="post" action="${action}" class="draft-order" data-draft-order aria-label="${order ? `Edit ${order.number}` : "New purchase order"}">
${csrfField(ctx.session)}
<input type="hidden" name="_key" value="${draft.key}">
<fieldset class="grid-2"><legend>Order</legend>
${supplierPickField({
  id: "po-supplier",
  label: "Supplier",
  filter: data.supplier,
  error: problems?.byField.get("po-supplier") ?? null,
})}
<div class="field"><label for="po-location">Ships to</label>
<select id="po-location" name="location_id"${invalid(problems, "po-location")}>
<option value="">The store's default location</option>${locations.map((l) => html`<option value="${l.id}"${selected(draft.locationId, l.id)}>${l.name}</option>`)}
</select>${errorUnder(problems, "po-location")}</div>
${text("po-currency", "currency", "Currency (blank: the supplier's)", draft.currency, html` maxlength="3" autocapitalize="characters"`)}
${text("po-rate", "exchange_rate", `Exchange rate to ${store.currency} (blank: the store's rates)`, draft.exchangeRate, html` inputmode="decimal"`)}
<div class="field"><label for="po-expected">Expected on</label><input type="date" id="po-expected" name="expected_at" value="${draft.expectedAt}"${invalid(problems, "po-expected")}>${errorUnder(problems, "po-expected")}</div>
${text("po-reference", "reference", "Reference", draft.reference)}
${taxFields(draft, taxRates, problems)}
<div class="field wide"><label for="po-notes">Notes <span class="hint">(printed on the order)</span></label><textarea id="po-notes" name="notes" rows="2"${invalid(problems, "po-notes")}>${draft.notes}</textarea>${errorUnder(problems, "po-notes")}</div>
</fieldset>
${linesSection(draft, data, problems)}
${pickerSection(draft, data, problems)}
${chargesSection(draft, currency, problems)}
${totalsSection(order, draft, data)}
<div class="actions"><button type="submit" name="_do" value="save" class="primary">Save draft</button>
<a href="${order ? ordersPath(store.id, `/${order.id}`) : ordersPath(store.id)}">Cancel</a></div>
</form>`;
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

/** A line for the item the user chose in the picker, at the supplier's starting quantity. */
async function addLine(ctx: PageContext, draft: DraftState, variantText: string): Promise<void> {
  if (!/^\d{1,16}$/.test(variantText)) return;
  const api = storeApi(ctx.request);
  const variant = (await api.get<{ data: Variant }>(`/variants/${variantText}`)).data;
  const supplierId = /^\d{1,10}$/.test(draft.supplierId) ? Number(draft.supplierId) : null;
  const terms = await catalogTerms(api, supplierId).catch(() => new Map<number, CatalogRow>());
  draft.lines.push({
    lineId: null,
    variantId: variant.id,
    itemId: variant.inventory_item_id,
    label: lineLabel(variant.product_title, variant.title),
    sku: variant.sku ?? "",
    quantity: String(startingQuantity(terms.get(variant.inventory_item_id))),
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
      const supplierId = supplier.kind === "supplier" ? supplier.supplier.id : order.supplier.id;
      const terms = await catalogTerms(api, supplierId).catch(() => new Map<number, CatalogRow>());
      const currency = knownCurrency(draft.currency) || order.currency;
      keptLinePrice = (line, quantity) =>
        line.itemId === null ? null : tierPrice(terms.get(line.itemId), currency, quantity);
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
    if (todo.startsWith("add:")) await addLine(ctx, draft, todo.slice(4));
  }
  const data = await editorData(ctx, draft, supplier);
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
  const terms = await catalogTerms(storeApi(ctx.request), order.supplier.id);
  const draft = draftOfOrder(order, terms, formKey());
  const data = await editorData(ctx, draft, await settleSupplier(ctx, draft));
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
