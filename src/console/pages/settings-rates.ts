import { html, type SafeHtml } from "../../html/template.ts";
import { AdminError } from "../admin.ts";
import { fieldList, formOf, idOf, loadStore, type PageContext, redirectTo } from "../context.ts";
import { csrfField, storePath } from "../layout.ts";
import type { SettingsSection } from "../settings-nav.ts";
import { sendSettingsPage } from "./settings.ts";

/**
 * The store's tax rates and exchange rates (settings): one form per set, a row per rate and a few empty
 * rows to add one; saving replaces the whole set (the admin API's PUT), so a row left empty or marked
 * "Remove" goes. A refused row is named by its line and column, and nothing is saved.
 */

interface Column {
  name: string;
  label: string;
  hint?: string;
  kind: "text" | "decimal" | "currency" | "date";
}

interface RateSet {
  section: SettingsSection;
  title: string;
  path: string;
  intro: string;
  caption: string;
  columns: Column[];
  /** How a stored rate shows in the form. */
  valuesOf: (rate: Record<string, unknown>) => Record<string, string>;
  /** The API's input for one filled row. */
  inputOf: (row: Record<string, string>) => Record<string, unknown>;
}

const EMPTY_ROWS = 3;

/** A decimal as typed, without thousands separators; the API names a wrong one. */
const decimal = (text: string) => text.replace(/,/g, "");

const TAX: RateSet = {
  section: "tax_rates",
  title: "Tax rates",
  path: "/settings/tax_rates",
  intro: "The rates a purchase order can apply to its lines, by name.",
  caption: "Tax rates",
  columns: [
    { name: "name", label: "Name", hint: "e.g. VAT 20%", kind: "text" },
    { name: "rate_percent", label: "Rate (%)", kind: "decimal" },
  ],
  valuesOf: (r) => ({
    id: String(r.id ?? ""),
    name: String(r.name ?? ""),
    rate_percent: String(r.rate_percent ?? ""),
  }),
  inputOf: (row) => ({
    ...(/^\d+$/.test(row.id ?? "") && { id: Number(row.id) }),
    name: row.name,
    rate_percent: decimal(row.rate_percent),
  }),
};

const EXCHANGE: RateSet = {
  section: "exchange_rates",
  title: "Exchange rates",
  path: "/settings/exchange_rates",
  intro:
    "What one unit of another currency is worth in the store's currency, for orders placed with suppliers who invoice in it.",
  caption: "Exchange rates",
  columns: [
    { name: "currency", label: "Currency", hint: "e.g. EUR", kind: "currency" },
    { name: "rate_to_base", label: "Rate to the store's currency", kind: "decimal" },
    { name: "date", label: "As of", hint: "today when empty", kind: "date" },
  ],
  valuesOf: (r) => ({
    currency: String(r.currency ?? ""),
    rate_to_base: String(r.rate_to_base ?? ""),
    date: String(r.date ?? ""),
  }),
  inputOf: (row) => ({
    currency: row.currency.toUpperCase(),
    rate_to_base: decimal(row.rate_to_base),
    ...(row.date !== "" && { date: row.date }),
  }),
};

/** One refused cell: the row (1-based, as shown) and the column's label. */
interface Problem {
  row: number;
  column: string;
  message: string;
}

function problemsOf(set: RateSet, error: AdminError, shownRow: (index: number) => number): Problem[] {
  return error.details.map((d) => {
    const match = /^rates\.(\d+)(?:\.(\w+))?/.exec(d.field);
    if (!match) return { row: 0, column: "", message: `${d.field} ${d.message}` };
    const column = set.columns.find((c) => c.name === match[2]);
    return { row: shownRow(Number(match[1])), column: column?.label ?? "", message: d.message };
  });
}

function rateForm(
  ctx: PageContext,
  storeId: number,
  set: RateSet,
  rows: Record<string, string>[],
  problems: Problem[],
): SafeHtml {
  const id = (row: number, column: string) => `${set.section}-${row}-${column.replace(/_/g, "-")}`;
  const refused = (row: number, column: Column) =>
    problems.some((p) => p.row === row && (p.column === column.label || p.column === ""));
  const shown = [...rows, ...Array.from({ length: EMPTY_ROWS }, () => ({}) as Record<string, string>)];
  return html`${
    problems.length > 0
      ? html`<div class="flash flash-error" role="alert" id="rate-errors"><p>Nothing was saved. Please correct:</p><ul>${problems.map(
          (p) =>
            html`<li>${p.row > 0 ? `Row ${p.row}` : ""}${p.column ? html`, <a href="#${id(p.row, set.columns.find((c) => c.label === p.column)?.name ?? "")}">${p.column}</a>` : ""} ${p.message}</li>`,
        )}</ul></div>`
      : ""
  }
<form method="post" action="${storePath(storeId, set.path)}" class="stack wide rates" aria-label="${set.title}">
${csrfField(ctx.session)}
<div class="table-wrap"><table>
<caption>${set.caption} <span class="hint">(empty rows are left out)</span></caption>
<thead><tr><th scope="col">Row</th>${set.columns.map((c) => html`<th scope="col">${c.label}${c.hint ? html` <span class="hint">(${c.hint})</span>` : ""}</th>`)}<th scope="col">Remove</th></tr></thead>
<tbody>${shown.map((row, index) => {
    const n = index + 1;
    return html`<tr><td>${n}<input type="hidden" name="id" value="${row.id ?? ""}"></td>${set.columns.map(
      (c) =>
        html`<td><label class="visually-hidden" for="${id(n, c.name)}">${c.label}, row ${n}</label><input type="${c.kind === "date" ? "date" : "text"}" id="${id(n, c.name)}" name="${c.name}" value="${row[c.name] ?? ""}"${
          c.kind === "decimal"
            ? html` inputmode="decimal" class="short"`
            : c.kind === "currency"
              ? html` maxlength="3" autocapitalize="characters" class="short"`
              : ""
        }${refused(n, c) ? html` aria-invalid="true" aria-describedby="rate-errors"` : ""}></td>`,
    )}<td>${
      index < rows.length
        ? html`<label><input type="checkbox" name="remove" value="${n}"> <span class="visually-hidden">Remove row ${n}</span></label>`
        : ""
    }</td></tr>`;
  })}</tbody>
</table></div>
<div><button type="submit">Save ${set.title.toLowerCase()}</button></div>
</form>`;
}

async function renderRates(
  ctx: PageContext,
  rawId: unknown,
  set: RateSet,
  posted: Record<string, string>[] | null,
  problems: Problem[],
) {
  const store = await loadStore(ctx, rawId);
  const rows =
    posted ??
    (
      await ctx.admin.get<{ data: Record<string, unknown>[] }>(`/admin/stores/${store.id}/${set.section}`)
    ).data.map(set.valuesOf);
  const body = html`<p>${set.intro}</p>${rateForm(ctx, store.id, set, rows, problems)}`;
  return sendSettingsPage(ctx, store, set.section, set.title, body, problems.length > 0 ? 422 : 200);
}

/** The posted rows: one value per column per row, in order; empty and removed rows left out. */
function postedRows(ctx: PageContext, set: RateSet): { rows: Record<string, string>[]; shown: number[] } {
  const form = formOf(ctx.request);
  const raw = (name: string) => {
    const value = form[name];
    return (Array.isArray(value) ? value : value === undefined ? [] : [value]).map((v) => v.trim());
  };
  const columns = Object.fromEntries(["id", ...set.columns.map((c) => c.name)].map((n) => [n, raw(n)]));
  const removed = new Set(fieldList(form, "remove").map(Number));
  const count = Math.max(...set.columns.map((c) => columns[c.name].length));
  const rows: Record<string, string>[] = [];
  const shown: number[] = [];
  for (let i = 0; i < count; i++) {
    const row = Object.fromEntries(Object.entries(columns).map(([n, values]) => [n, values[i] ?? ""]));
    if (removed.has(i + 1) || set.columns.every((c) => row[c.name] === "")) continue;
    rows.push(row);
    shown.push(i + 1);
  }
  return { rows, shown };
}

async function saveRates(ctx: PageContext, rawId: unknown, set: RateSet) {
  const storeId = idOf(rawId);
  const { rows } = postedRows(ctx, set);
  try {
    await ctx.admin.put(`/admin/stores/${storeId}/${set.section}`, { rates: rows.map(set.inputOf) });
  } catch (error) {
    if (!(error instanceof AdminError) || (error.status !== 422 && error.status !== 400)) throw error;
    // The form shows again with the rows kept, numbered as they now stand.
    return renderRates(
      ctx,
      storeId,
      set,
      rows,
      problemsOf(set, error, (index) => index + 1),
    );
  }
  ctx.session.flash.push({ kind: "ok", text: `${set.title} saved.` });
  return redirectTo(ctx.reply, storePath(storeId, set.path));
}

export const taxRatesPage = (ctx: PageContext, rawId: unknown) => renderRates(ctx, rawId, TAX, null, []);
export const saveTaxRatesAction = (ctx: PageContext, rawId: unknown) => saveRates(ctx, rawId, TAX);
export const exchangeRatesPage = (ctx: PageContext, rawId: unknown) =>
  renderRates(ctx, rawId, EXCHANGE, null, []);
export const saveExchangeRatesAction = (ctx: PageContext, rawId: unknown) => saveRates(ctx, rawId, EXCHANGE);
