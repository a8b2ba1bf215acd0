import { html, type SafeHtml } from "../../html/template.ts";
import { type PageContext, sendPage, takeFlash } from "../context.ts";
import { itemField, type PickedItem } from "../item-picker.ts";
import { csrfField, page, storePath } from "../layout.ts";
import { lineLabel, type Order, type OrderLine, RECEIVABLE } from "../purchase-order-data.ts";
import {
  extraField,
  type FieldProblem,
  lineField,
  MAX_EXTRAS,
  type PlannedReceipt,
  type ReceiveValues,
  statusAfter,
} from "../receive-form.ts";
import type { Location } from "../stock-levels.ts";
import { money, type StoreInfo } from "../store-pages.ts";

/**
 * How the receive screen is drawn (`receive.ts` handles its requests): each order line's counts and
 * destination, the items not on the order, the landed-cost preview of the API, and the form around
 * them, with the refused fields marked in the user's words.
 */

export interface PreviewLine {
  line_id: number | null;
  quantity: number;
  surplus_quantity: number;
  rejected_quantity: number;
  unit_cost: string;
  landed_unit_cost: string;
  allocated_charge_amount: string;
  location_id: number;
}

export interface Preview {
  data: { location: { id: number; name: string } | null; lines: PreviewLine[] };
  purchase_order_status_after: string;
}

export interface RenderState {
  key: string;
  problems?: FieldProblem[];
  scanned?: { ok: boolean; message: string };
  /** The receipts previewed, each with the API's preview. */
  previews?: { receipt: PlannedReceipt; preview: Preview }[];
  previewed?: string;
  notice?: string;
  /** How the picker read each item not on the order, by form row. */
  picks?: Map<number, PickedItem>;
}

export const orderPath = (storeId: number, orderId: number, rest = "") =>
  storePath(storeId, `/purchase_orders/${orderId}${rest}`);

const STATUS_WORDS: Record<string, string> = {
  ordered: "ordered",
  in_transit: "in transit",
  partial: "partly received",
  received: "received",
  closed: "closed",
};

function problemFor(problems: readonly FieldProblem[], name: string): FieldProblem | undefined {
  return problems.find((p) => p.name === name);
}

/** An input's aria attributes and its message under it, when the form was refused on it. */
function fieldState(problems: readonly FieldProblem[], name: string) {
  const problem = problemFor(problems, name);
  return {
    attrs: problem ? html` aria-invalid="true" aria-describedby="${name}-error"` : "",
    message: problem
      ? html`<p class="field-error" id="${name}-error">${problem.short ?? problem.message}</p>`
      : "",
  };
}

function countInput(name: string, value: string, label: string, problems: readonly FieldProblem[]) {
  const state = fieldState(problems, name);
  return html`<input type="number" inputmode="numeric" min="0" step="1" id="${name}" name="${name}" value="${value}" aria-label="${label}"${state.attrs}>${state.message}`;
}

/** Where a row's units go: the delivery's "Receive into", or a location of the store. */
function destinationSelect(
  name: string,
  value: string,
  label: string,
  locations: readonly Location[],
  problems: readonly FieldProblem[],
) {
  const state = fieldState(problems, name);
  const known = value === "" || locations.some((l) => String(l.id) === value);
  return html`<select id="${name}" name="${name}" aria-label="${label}"${state.attrs}><option value="">The delivery's</option>${locations.map(
    (l) => html`<option value="${l.id}"${String(l.id) === value ? html` selected` : ""}>${l.name}</option>`,
  )}${known ? "" : html`<option value="${value}" selected>Another location</option>`}</select>${state.message}`;
}

function lineRow(
  line: OrderLine,
  values: ReceiveValues,
  currency: string,
  locations: readonly Location[],
  problems: readonly FieldProblem[],
): SafeHtml {
  const v = values.lines.get(line.id);
  const label = lineLabel(line);
  const reason = fieldState(problems, lineField.reason(line.id));
  const cost = fieldState(problems, lineField.unitCost(line.id));
  const lot = fieldState(problems, lineField.lot(line.id));
  const expiry = fieldState(problems, lineField.expiry(line.id));
  const codes = [line.sku, line.barcode, line.supplier_sku].filter(
    (c): c is string => c !== null && c !== "",
  );
  return html`<tr data-line="${line.id}" data-outstanding="${line.outstanding_quantity}" data-codes="${JSON.stringify(codes.map((c) => c.trim().toLowerCase()))}">
<th scope="row" class="item"><span class="item-name">${label}</span>${line.sku ? html` <span class="muted">SKU ${line.sku}</span>` : ""}</th>
<td class="num" data-label="Outstanding">${line.outstanding_quantity}</td>
<td data-label="Received">${countInput(lineField.received(line.id), v?.received ?? "", `Received of ${label}`, problems)}</td>
<td data-label="Surplus">${countInput(lineField.surplus(line.id), v?.surplus ?? "", `Surplus of ${label}`, problems)}</td>
<td data-label="Rejected">${countInput(lineField.rejected(line.id), v?.rejected ?? "", `Rejected of ${label}`, problems)}</td>
<td data-label="Reason"><input type="text" id="${lineField.reason(line.id)}" name="${lineField.reason(line.id)}" value="${v?.reason ?? ""}" maxlength="500" aria-label="Reason rejected, ${label}"${reason.attrs}>${reason.message}</td>
<td data-label="Unit cost"><input type="text" inputmode="decimal" id="${lineField.unitCost(line.id)}" name="${lineField.unitCost(line.id)}" value="${v?.unitCost ?? ""}" placeholder="${line.unit_cost}" aria-label="Unit cost in ${currency} of ${label} (ordered at ${money(line.unit_cost, currency)})"${cost.attrs}>${cost.message}</td>
<td data-label="Lot and expiry" class="lot"><div class="lot-fields"><input type="text" id="${lineField.lot(line.id)}" name="${lineField.lot(line.id)}" value="${v?.lot ?? ""}" maxlength="200" aria-label="Lot number of ${label}"${lot.attrs}>${lot.message}<input type="date" id="${lineField.expiry(line.id)}" name="${lineField.expiry(line.id)}" value="${v?.expiry ?? ""}" aria-label="Expiry of ${label}"${expiry.attrs}>${expiry.message}</div></td>
<td data-label="Into">${destinationSelect(lineField.destination(line.id), v?.destination ?? "", `Destination of ${label}`, locations, problems)}</td>
</tr>`;
}

/** The items not on the order: each row typed or scanned, plus one empty row to add another. */
function extrasSection(
  values: ReceiveValues,
  state: RenderState,
  currency: string,
  locations: readonly Location[],
  problems: readonly FieldProblem[],
): SafeHtml {
  const rows = Math.min(values.extras.length + 1, MAX_EXTRAS);
  const row = (n: number) => {
    const v = values.extras[n] ?? { item: "", chosen: "", quantity: "", unitCost: "", destination: "" };
    const cost = fieldState(problems, extraField.unitCost(n));
    return html`<li class="extra">
${itemField({ id: extraField.item(n), name: extraField.item(n), label: `Item ${n + 1}`, value: v.item, picked: state.picks?.get(n) ?? null })}${
  v.chosen !== "" && state.picks?.get(n)?.kind === "item"
    ? html`<input type="hidden" name="${extraField.item(n)}_variant" value="${v.chosen}">`
    : ""
}
<div class="field"><label for="${extraField.quantity(n)}">Quantity</label>${countInput(extraField.quantity(n), v.quantity, `Quantity of item ${n + 1}`, problems)}</div>
<div class="field"><label for="${extraField.unitCost(n)}">Unit cost (${currency}) <span class="hint">(empty: the supplier's price)</span></label>
<input type="text" inputmode="decimal" id="${extraField.unitCost(n)}" name="${extraField.unitCost(n)}" value="${v.unitCost}"${cost.attrs}>${cost.message}</div>
<div class="field"><label for="${extraField.destination(n)}">Into</label>${destinationSelect(extraField.destination(n), v.destination, `Destination of item ${n + 1}`, locations, problems)}</div>
</li>`;
  };
  return html`<fieldset class="extras"><legend>Items not on the order</legend>
<p class="hint">Surplus the supplier sent of items this order does not list: they are added to the order as received lines.</p>
<ol class="extras-list">${Array.from({ length: rows }, (_, n) => row(n))}</ol>
${rows < MAX_EXTRAS ? html`<div class="actions"><button type="submit" name="_do" value="more" class="secondary">Another item</button></div>` : ""}
</fieldset>`;
}

function previewSection(state: RenderState, order: Order, store: StoreInfo, locations: Map<number, string>) {
  const { previews } = state;
  if (!previews || previews.length === 0) return "";
  const byId = new Map(order.lines.map((l) => [l.id, l]));
  const rows = previews.flatMap(({ receipt, preview }) => {
    let extra = 0;
    return preview.data.lines.map((l) => {
      const line = l.line_id === null ? undefined : byId.get(l.line_id);
      const name = line
        ? lineLabel(line)
        : `${receipt.extraRows[extra++]?.label ?? "Item"} (not on the order)`;
      return html`<tr>
<th scope="row">${name}</th>
<td class="num" data-label="Good units">${l.quantity}</td>
<td class="num" data-label="Surplus">${l.surplus_quantity}</td>
<td class="num" data-label="Rejected">${l.rejected_quantity}</td>
<td class="num" data-label="Unit cost">${money(l.unit_cost, order.currency)}</td>
<td class="num" data-label="Charges allocated">${money(l.allocated_charge_amount, order.currency)}</td>
<td class="num" data-label="Landed unit cost"><strong>${money(l.landed_unit_cost, store.currency, "rounded")}</strong></td>
<td data-label="Into">${locations.get(l.location_id) ?? preview.data.location?.name ?? "–"}</td>
</tr>`;
    });
  });
  const several = previews.length > 1;
  const status = several
    ? statusAfter(
        order,
        previews.map((p) => p.receipt),
      )
    : previews[0].preview.purchase_order_status_after;
  const after = STATUS_WORDS[status] ?? status;
  return html`<section aria-labelledby="preview-title" class="preview receive-preview" id="preview">
<h2 id="preview-title">Before booking: landed costs</h2>
${state.notice ? html`<p class="flash flash-error" role="alert">${state.notice}</p>` : ""}
<div class="table-wrap"><table class="cards">
<caption>What this delivery books</caption>
<thead><tr><th scope="col">Item</th><th scope="col" class="num">Good units</th><th scope="col" class="num">Surplus</th><th scope="col" class="num">Rejected</th><th scope="col" class="num">Unit cost</th><th scope="col" class="num">Charges allocated</th><th scope="col" class="num">Landed unit cost</th><th scope="col">Into</th></tr></thead>
<tbody>${rows}</tbody></table></div>
${several ? html`<p>The units go into ${previews.length} locations: they are booked as ${previews.length} receipts, one per location.</p>` : ""}
<p>After booking, ${order.number} is <strong>${after}</strong>. Good units go into stock at once; the platform is told in the background.</p>
<input type="hidden" name="_previewed" value="${state.previewed ?? ""}">
<div class="actions"><button type="submit" name="_do" value="book">${several ? `Book these ${previews.length} receipts` : "Book this receipt"}</button></div>
</section>`;
}

export function renderReceive(
  ctx: PageContext,
  store: StoreInfo,
  order: Order,
  locationList: Location[],
  values: ReceiveValues,
  state: RenderState,
  status = 200,
) {
  const problems = state.problems ?? [];
  const locations = new Map(locationList.map((l) => [l.id, l.name]));
  const base = orderPath(store.id, order.id);
  const open = RECEIVABLE.includes(order.status);
  const summary =
    problems.length > 0
      ? html`<div class="flash flash-error" role="alert" tabindex="-1" id="form-errors"><p>Nothing was booked. Please correct:</p><ul>${problems.map(
          (p) =>
            p.name ? html`<li><a href="#${p.name}">${p.message}</a></li>` : html`<li>${p.message}</li>`,
        )}</ul></div>`
      : "";
  const location = fieldState(problems, "location_id");
  const receivedOn = fieldState(problems, "received_on");
  const scanned = state.scanned;
  const form = html`<form method="post" action="${base}/receive" class="receive" aria-label="Receive ${order.number}">
${csrfField(ctx.session)}
<input type="hidden" name="_key" value="${state.key}">
<div class="scan field">
<label for="scan">Scan or type a SKU or barcode <span class="hint">(adds one unit to its line)</span></label>
<div class="scan-row"><input type="text" id="scan" name="scan" autocomplete="off" autocapitalize="off" spellcheck="false" data-scan="receive" data-order="${order.number}" aria-describedby="scan-status">
<button type="submit" name="_do" value="scan">Add one</button></div>
<p id="scan-status" role="status" class="${scanned && !scanned.ok ? "scan-unknown" : "scan-ok"}">${scanned?.message ?? ""}</p>
</div>
${summary}
<div class="table-wrap"><table class="cards receive-lines">
<caption>Lines of ${order.number}</caption>
<thead><tr><th scope="col">Item</th><th scope="col" class="num">Outstanding</th><th scope="col">Received</th><th scope="col">Surplus</th><th scope="col">Rejected</th><th scope="col">Reason</th><th scope="col">Unit cost (${order.currency})</th><th scope="col">Lot and expiry</th><th scope="col">Into</th></tr></thead>
<tbody>${order.lines.map((l) => lineRow(l, values, order.currency, locationList, problems))}</tbody>
</table></div>
${extrasSection(values, state, order.currency, locationList, problems)}
<fieldset class="delivery"><legend>The delivery</legend>
<div class="field"><label for="location_id">Receive into <span class="hint">(the lines marked “The delivery's”)</span></label>
<select id="location_id" name="location_id"${location.attrs}>${locationList.map(
    (l) =>
      html`<option value="${l.id}"${values.locationId === String(l.id) ? html` selected` : ""}>${l.name}</option>`,
  )}${
    values.locationId !== "" && !locations.has(Number(values.locationId))
      ? html`<option value="${values.locationId}" selected>${order.location?.name ?? "The order's location"}</option>`
      : ""
  }</select>${location.message}</div>
<div class="field"><label for="received_on">Received on <span class="hint">(empty: today)</span></label>
<input type="date" id="received_on" name="received_on" value="${values.receivedOn}"${receivedOn.attrs}>${receivedOn.message}</div>
<div class="field" role="group" aria-labelledby="disposition-label"><span id="disposition-label" class="label">Rejected units</span>
<label><input type="radio" name="rejected_disposition" value="replace"${values.disposition === "replace" ? html` checked` : ""}> stay outstanding (the supplier replaces them)</label>
<label><input type="radio" name="rejected_disposition" value="remove"${values.disposition === "remove" ? html` checked` : ""}> are cancelled from the order</label></div>
<div class="field"><label for="invoice_reference">Invoice reference</label>
<input type="text" id="invoice_reference" name="invoice_reference" value="${values.invoiceReference}" maxlength="200"${fieldState(problems, "invoice_reference").attrs}>${fieldState(problems, "invoice_reference").message}</div>
<div class="field"><label for="note">Note</label>
<input type="text" id="note" name="note" value="${values.note}" maxlength="5000"${fieldState(problems, "note").attrs}>${fieldState(problems, "note").message}</div>
</fieldset>
<div class="actions"><button type="submit" name="_do" value="preview">Preview landed costs</button></div>
${previewSection(state, order, store, locations)}
</form>`;
  const body = open
    ? html`<p>${order.supplier.name} · ${order.number} is ${STATUS_WORDS[order.status] ?? order.status}. Enter what arrived, preview the landed costs, then book.</p>
${form}
<p><a href="${base}">Back to ${order.number}</a></p>`
    : html`<p role="status">${order.number} is ${STATUS_WORDS[order.status] ?? order.status}: ${order.status === "draft" ? "it takes deliveries once it is marked ordered." : "it takes no more deliveries."}</p>
<p><a href="${base}">Back to ${order.number}</a></p>`;
  return sendPage(
    ctx.reply,
    page({
      title: `Receive ${order.number}`,
      session: ctx.session,
      store,
      tab: "purchase_orders",
      body,
      flash: takeFlash(ctx.session),
    }),
    status,
  );
}
