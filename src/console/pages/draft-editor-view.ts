import { html, type SafeHtml } from "../../html/template.ts";
import type { PageContext } from "../context.ts";
import {
  type CatalogRow,
  type DraftState,
  lineLabel,
  NOT_TAXED,
  type Order,
  quantityWarnings,
  RECORDED_RATE,
  tierPrice,
} from "../draft-order.ts";
import { csrfField, storePath } from "../layout.ts";
import { CHARGE_KIND_WORDS } from "../purchase-order-data.ts";
import { money } from "../store-pages.ts";
import { supplierPickField } from "../supplier-filter.ts";
import { type EditorData, minorUnits, type TaxRate } from "./draft-editor-data.ts";
import { errorUnder, invalid, type Problems } from "./draft-problems.ts";

/** The draft pages' base path: the store's purchase orders. */
export const ordersPath = (storeId: number, rest = "") => storePath(storeId, `/purchase_orders${rest}`);

/**
 * How the draft editor is drawn: the header fields, the lines with their warnings and tax, the item
 * picker, the charges, the order's tax and the totals (console.js updates the warnings and totals live).
 */

export function tiersText(row: CatalogRow | undefined, currency: string): string | null {
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
<option value="shipping"${c.kind === "shipping" ? html` selected` : ""}>${CHARGE_KIND_WORDS.shipping}</option>
<option value="other"${c.kind === "other" ? html` selected` : ""}>${CHARGE_KIND_WORDS.other}</option></select></div>
<div class="field"><label for="charge-label-${i}">Label</label><input type="text" id="charge-label-${i}" name="charge_label_${i}" value="${c.label}"></div>
<div class="field"><label for="charge-amount-${i}">Amount</label><input type="text" inputmode="decimal" class="charge-amount" id="charge-amount-${i}" name="charge_amount_${i}" value="${c.amount}"${invalid(problems, `charge-amount-${i}`)}>${errorUnder(problems, `charge-amount-${i}`)}</div>
</div>`,
)}
<input type="hidden" name="charge_count" value="${rows.length}">
</fieldset>`;
}

/**
 * The order's tax as it recorded it (name and percent) when its rate has since been removed from the
 * store's rates; null when the order has no rate or its rate is still one of the store's.
 */
function recordedRate(order: Order | null, taxRates: TaxRate[]): Order["tax"] | null {
  const id = order?.tax.rate_id ?? null;
  return order && id !== null && !taxRates.some((r) => r.id === id) ? order.tax : null;
}

/** Whether the draft keeps the order's recorded (removed) rate: as opened, or as chosen since. */
const keepsRecorded = (draft: DraftState, recorded: Order["tax"] | null) =>
  recorded !== null && (draft.taxRateId === RECORDED_RATE || draft.taxRateId === String(recorded.rate_id));

/** The rate the draft's tax picker names, in percent ("0" for no tax or an unknown rate). */
function draftRatePercent(draft: DraftState, taxRates: TaxRate[], order: Order | null): string {
  const recorded = recordedRate(order, taxRates);
  if (keepsRecorded(draft, recorded)) return String(recorded?.rate_percent);
  return String(taxRates.find((r) => String(r.id) === draft.taxRateId)?.rate_percent ?? "0");
}

/**
 * The order's tax: one of the store's rates (or none), whether prices include it, whether charges bear
 * it. A rate removed from the store since the order was saved is shown by the name and percent the
 * order recorded, and kept unless another is picked.
 */
function taxFields(
  draft: DraftState,
  taxRates: TaxRate[],
  order: Order | null,
  problems: Problems | null,
): SafeHtml {
  const check = (id: string, name: string, on: boolean, label: string) =>
    html`<div class="field check"><label><input type="checkbox" id="${id}" name="${name}" value="yes"${on ? html` checked` : ""}${invalid(problems, id)}> ${label}</label>${errorUnder(problems, id)}</div>`;
  const recorded = recordedRate(order, taxRates);
  const keptOption = recorded
    ? html`<option value="${RECORDED_RATE}"${keepsRecorded(draft, recorded) ? html` selected` : ""} data-rate="${String(recorded.rate_percent)}">${recorded.name ?? "Tax"} (${String(recorded.rate_percent)}%), as the order recorded it: no longer one of the store's rates</option>`
    : "";
  return html`<div class="field"><label for="po-tax">Tax</label>
<select id="po-tax" name="tax_rate_id"${invalid(problems, "po-tax")}>
<option value="" data-rate="0">No tax</option>${keptOption}${taxRates.map(
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
  return html`<section class="totals" aria-labelledby="totals-title" data-currency="${currency}" data-minor="${minorUnits(currency)}" data-tax-rate="${draftRatePercent(draft, data.taxRates, order)}" data-taxes-included="${String(draft.taxesIncluded)}" data-charges-taxable="${String(draft.chargesTaxable)}">
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

export function editorBody(
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
${taxFields(draft, taxRates, order, problems)}
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
