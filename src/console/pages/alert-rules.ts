import { html } from "../../html/template.ts";
import { can } from "../actor.ts";
import { AdminError, type ErrorDetail } from "../admin.ts";
import {
  field,
  formOf,
  idOf,
  loadStore,
  type PageContext,
  redirectTo,
  sendPage,
  takeFlash,
} from "../context.ts";
import { csrfField, errorSummary, notAvailable, page, storePath, table } from "../layout.ts";

interface AlertItem {
  inventory_item_id: number;
  location_id: number | null;
  reorder_point: number | null;
  max_stock: number | null;
}

interface AlertRules {
  low_stock_threshold: number | null;
  items: AlertItem[];
}

/** What the form shows: text as typed, so a refused submission comes back unchanged. */
interface RulesForm {
  low_stock_threshold: string;
  items: { inventory_item_id: string; location_id: string; reorder_point: string; max_stock: string }[];
}

const BLANK_ROWS = 3;
const MAX_ROWS = 2000;
const ITEM_FIELDS = ["inventory_item_id", "location_id", "reorder_point", "max_stock"] as const;
const LABELS: Record<(typeof ITEM_FIELDS)[number], string> = {
  inventory_item_id: "Inventory item id",
  location_id: "Location id (empty: every location)",
  reorder_point: "Reorder point",
  max_stock: "Max stock",
};

function readOnly(form: RulesForm) {
  return html`<p>Low stock threshold: ${form.low_stock_threshold === "" ? "none" : form.low_stock_threshold}</p>
${table(
  "Per-item rules",
  ITEM_FIELDS.map((f) => ({
    header: LABELS[f],
    cell: (row: RulesForm["items"][number]) => row[f],
    numeric: true,
  })),
  form.items,
  "No per-item rules.",
)}`;
}

function toForm(rules: AlertRules): RulesForm {
  const text = (n: number | null) => (n === null ? "" : String(n));
  return {
    low_stock_threshold: text(rules.low_stock_threshold),
    items: rules.items.map((i) => ({
      inventory_item_id: String(i.inventory_item_id),
      location_id: text(i.location_id),
      reorder_point: text(i.reorder_point),
      max_stock: text(i.max_stock),
    })),
  };
}

async function render(
  ctx: PageContext,
  rawId: unknown,
  values: RulesForm | null,
  error: AdminError | null,
  status: number,
) {
  const store = await loadStore(ctx, rawId);
  const path = `/admin/stores/${store.id}/alert_rules`;
  const flash = takeFlash(ctx.session);
  if (!ctx.admin.has("GET", path))
    return sendPage(
      ctx.reply,
      page({
        title: "Alert rules",
        session: ctx.session,
        store,
        tab: "alert_rules",
        body: notAvailable("Alert rules"),
        flash,
      }),
    );
  const form = values ?? toForm((await ctx.admin.get<{ data: AlertRules }>(path)).data);
  // Without the stock permission the rules are shown, not offered for editing.
  if (!can(ctx.request, "stock"))
    return sendPage(
      ctx.reply,
      page({
        title: "Alert rules",
        session: ctx.session,
        store,
        tab: "alert_rules",
        body: readOnly(form),
        flash,
      }),
      status,
    );
  const rows = [
    ...form.items,
    ...Array.from({ length: BLANK_ROWS }, () => ({
      inventory_item_id: "",
      location_id: "",
      reorder_point: "",
      max_stock: "",
    })),
  ];
  const bad = new Set((error?.details ?? []).map((d) => d.field));
  const invalid = (name: string) => (bad.has(name) ? html` aria-invalid="true"` : "");
  const body = html`<p class="muted">Item alerts (<code>item.low_stock</code>, <code>item.out_of_stock</code>, <code>item.reorder_point</code>, <code>item.overstock</code>) fire when stock crosses these lines.</p>
${error ? errorSummary(error.message, error.details) : ""}
<form method="post" action="${storePath(store.id, "/alert_rules")}" aria-label="Alert rules">
${csrfField(ctx.session)}
<input type="hidden" name="rows" value="${rows.length}">
<div class="field narrow"><label for="low-stock">Low stock threshold <span class="hint">(units on hand; empty: no low-stock alerts)</span></label>
<input type="number" id="low-stock" name="low_stock_threshold" min="0" step="1" value="${form.low_stock_threshold}"${invalid("low_stock_threshold")}></div>
<div class="table-wrap"><table>
<caption>Per-item rules (leave a row's item id empty to ignore it)</caption>
<thead><tr>${ITEM_FIELDS.map((f) => html`<th scope="col">${LABELS[f]}</th>`)}<th scope="col">Remove</th></tr></thead>
<tbody>
${rows.map(
  (row, i) =>
    html`<tr>${ITEM_FIELDS.map(
      (f) =>
        html`<td><input type="number" min="${f === "inventory_item_id" || f === "location_id" ? "1" : "0"}" step="1" name="items.${i}.${f}" value="${row[f]}" aria-label="${LABELS[f]}, row ${i + 1}"${invalid(`items.${i}.${f}`)}></td>`,
    )}<td><input type="checkbox" name="items.${i}.remove" value="1" aria-label="Remove row ${i + 1}"></td></tr>`,
)}
</tbody></table></div>
<p><button type="submit">Save alert rules</button></p>
</form>`;
  return sendPage(
    ctx.reply,
    page({ title: "Alert rules", session: ctx.session, store, tab: "alert_rules", body, flash }),
    status,
  );
}

export function alertRulesPage(ctx: PageContext, rawId: unknown) {
  return render(ctx, rawId, null, null, 200);
}

export async function saveAlertRulesAction(ctx: PageContext, rawId: unknown) {
  const storeId = idOf(rawId);
  const path = `/admin/stores/${storeId}/alert_rules`;
  ctx.admin.require("PUT", path, "Alert rules");
  const body = formOf(ctx.request);
  const count = Math.min(MAX_ROWS, Number.parseInt(field(body, "rows"), 10) || 0);
  const values: RulesForm = { low_stock_threshold: field(body, "low_stock_threshold"), items: [] };
  const details: ErrorDetail[] = [];
  const int = (text: string, name: string): number | null => {
    if (text === "") return null;
    if (!/^\d+$/.test(text)) {
      details.push({ field: name, code: "invalid_type", message: "must be a whole number of 0 or more" });
      return null;
    }
    return Number(text);
  };
  const rules: AlertRules = {
    low_stock_threshold: int(values.low_stock_threshold, "low_stock_threshold"),
    items: [],
  };
  for (let i = 0; i < count; i++) {
    const row = {
      inventory_item_id: field(body, `items.${i}.inventory_item_id`),
      location_id: field(body, `items.${i}.location_id`),
      reorder_point: field(body, `items.${i}.reorder_point`),
      max_stock: field(body, `items.${i}.max_stock`),
    };
    if (field(body, `items.${i}.remove`) === "1" || row.inventory_item_id === "") continue;
    // Numbered as sent to the admin API, so its details point at the right row.
    const n = values.items.length;
    values.items.push(row);
    rules.items.push({
      inventory_item_id: int(row.inventory_item_id, `items.${n}.inventory_item_id`) ?? 0,
      location_id: int(row.location_id, `items.${n}.location_id`),
      reorder_point: int(row.reorder_point, `items.${n}.reorder_point`),
      max_stock: int(row.max_stock, `items.${n}.max_stock`),
    });
  }
  if (details.length > 0)
    return render(
      ctx,
      storeId,
      values,
      new AdminError(422, "validation_failed", "Some fields are invalid.", details),
      422,
    );
  try {
    await ctx.admin.put(path, rules);
  } catch (error) {
    if (error instanceof AdminError && error.status === 422) return render(ctx, storeId, values, error, 422);
    throw error;
  }
  ctx.session.flash.push({ kind: "ok", text: "Alert rules saved." });
  return redirectTo(ctx.reply, storePath(storeId, "/alert_rules"));
}
