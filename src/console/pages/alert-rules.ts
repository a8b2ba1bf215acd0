import { html, type SafeHtml } from "../../html/template.ts";
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
import { itemField, type PickedItem, pickItem } from "../item-picker.ts";
import { itemLabel, type Variant, variantsByItem } from "../item-search.ts";
import { csrfField, notAvailable, page, storePath, table } from "../layout.ts";
import { type Location, locationsOf } from "../stock-levels.ts";
import { storeApi } from "../store-api.ts";

/**
 * The store's item alert rules: the low-stock threshold and per-item reorder points and maximums. Items
 * are named (title and SKU) and added with the item picker (SKU, barcode or title), locations chosen by
 * name; a refused field (a reorder point above the max stock, which the API refuses too) is marked
 * where it is, in the user's words. The rules live in the admin API, which lets a store's staff read
 * them and its inventory users write them.
 */

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

interface RowValues {
  inventory_item_id: string;
  location_id: string;
  reorder_point: string;
  max_stock: string;
}

/** What the form shows: text as typed, so a refused submission comes back unchanged. */
interface RulesForm {
  low_stock_threshold: string;
  items: RowValues[];
  /** The rule being added: the item as typed and its fields. */
  add: RowValues & { item: string };
}

const MAX_ROWS = 10_000;
const NUMBER_FIELDS = ["reorder_point", "max_stock"] as const;
const WORDS: Record<string, string> = {
  inventory_item_id: "Item",
  location_id: "Location",
  reorder_point: "Reorder point",
  max_stock: "Max stock",
  low_stock_threshold: "Low stock threshold",
};

const blankAdd = () => ({
  item: "",
  inventory_item_id: "",
  location_id: "",
  reorder_point: "",
  max_stock: "",
});

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
    add: blankAdd(),
  };
}

/** Problems by form field name (`items.3.max_stock`, `add.reorder_point`, `low_stock_threshold`). */
type Problems = Map<string, string>;

function problemAttrs(problems: Problems, name: string, id: string): SafeHtml | string {
  return problems.has(name) ? html` aria-invalid="true" aria-describedby="${id}-error"` : "";
}

function problemText(problems: Problems, name: string, id: string, label: string): SafeHtml | string {
  const message = problems.get(name);
  return message ? html`<p class="field-error" id="${id}-error">${label} ${message}</p>` : "";
}

function locationSelect(id: string, name: string, value: string, locations: Location[], label: string) {
  return html`<select id="${id}" name="${name}" aria-label="${label}">
<option value="">Every location</option>
${locations.map((l) => html`<option value="${l.id}"${String(l.id) === value ? html` selected` : ""}>${l.name}</option>`)}
</select>`;
}

function labelOf(byItem: Map<number, Variant>, itemId: string): SafeHtml {
  const v = byItem.get(Number(itemId));
  return v
    ? html`${itemLabel(v)}${v.sku ? html`<br><span class="muted">SKU ${v.sku}</span>` : ""}`
    : html`Item ${itemId} <span class="muted">(not in the catalog)</span>`;
}

async function render(
  ctx: PageContext,
  rawId: unknown,
  values: RulesForm | null,
  problems: Problems,
  picked: PickedItem | null,
  status: number,
) {
  const store = await loadStore(ctx, rawId);
  const path = `/admin/stores/${store.id}/alert_rules`;
  const flash = takeFlash(ctx.session);
  const show = (body: SafeHtml) =>
    sendPage(
      ctx.reply,
      page({ title: "Alert rules", session: ctx.session, store, tab: "alert_rules", body, flash }),
      status,
    );
  if (!ctx.admin.has("GET", path)) return show(notAvailable("Alert rules"));
  const api = storeApi(ctx.request, store.id);
  const [form, locations] = await Promise.all([
    values ?? ctx.admin.get<{ data: AlertRules }>(path).then((r) => toForm(r.data)),
    locationsOf(api),
  ]);
  const itemIds = form.items
    .map((r) => Number(r.inventory_item_id))
    .filter((id) => Number.isSafeInteger(id) && id > 0);
  const byItem = await variantsByItem(api, itemIds);
  const locationName = (id: string) =>
    id === "" ? "Every location" : (locations.find((l) => String(l.id) === id)?.name ?? `Location ${id}`);
  const intro = html`<p class="muted">Item alerts (<code>item.low_stock</code>, <code>item.out_of_stock</code>, <code>item.reorder_point</code>, <code>item.overstock</code>) fire when stock crosses these lines, and the <a href="${storePath(store.id, "/stock/low")}">low stock</a> page lists the items at or below them.</p>`;
  // Without the stock permission the rules are shown, not offered for editing.
  if (!can(ctx.request, "stock"))
    return show(html`${intro}<p>Low stock threshold: ${form.low_stock_threshold === "" ? "none" : form.low_stock_threshold}</p>
${table(
  "Per-item rules",
  [
    { header: "Item", cell: (r: RowValues) => labelOf(byItem, r.inventory_item_id) },
    { header: "Location", cell: (r: RowValues) => locationName(r.location_id) },
    { header: "Reorder point", cell: (r: RowValues) => r.reorder_point, numeric: true },
    { header: "Max stock", cell: (r: RowValues) => r.max_stock, numeric: true },
  ],
  form.items,
  "No per-item rules.",
)}`);
  const numberInput = (name: string, id: string, value: string, label: string) =>
    html`<input type="number" id="${id}" name="${name}" min="0" max="1000000000" step="1" value="${value}" class="qty" aria-label="${label}"${problemAttrs(problems, name, id)}>${problemText(problems, name, id, WORDS[name.split(".").pop() as string] ?? "")}`;
  const body = html`${intro}
${
  problems.size > 0 || picked?.kind === "none" || picked?.kind === "choose"
    ? html`<div class="flash flash-error" role="alert" id="form-errors"><p>Nothing was saved. Please correct the fields marked below.</p></div>`
    : ""
}
<form method="post" action="${storePath(store.id, "/alert_rules")}" aria-label="Alert rules">
${csrfField(ctx.session)}
<input type="hidden" name="rows" value="${form.items.length}">
<div class="field narrow"><label for="low-stock">Low stock threshold <span class="hint">(units on hand; empty: no low-stock alerts)</span></label>
<input type="number" id="low-stock" name="low_stock_threshold" min="0" max="1000000000" step="1" value="${form.low_stock_threshold}"${problemAttrs(problems, "low_stock_threshold", "low-stock")}>
${problemText(problems, "low_stock_threshold", "low-stock", "Low stock threshold")}</div>
<div class="table-wrap"><table>
<caption>Per-item rules</caption>
<thead><tr><th scope="col">Item</th><th scope="col">Location</th><th scope="col">Reorder point</th><th scope="col">Max stock</th><th scope="col">Remove</th></tr></thead>
<tbody>
${
  form.items.length === 0
    ? html`<tr><td colspan="5" class="empty">No per-item rules yet: add one below.</td></tr>`
    : form.items.map((row, i) => {
        const label = byItem.get(Number(row.inventory_item_id))
          ? itemLabel(byItem.get(Number(row.inventory_item_id)) as Variant)
          : `item ${row.inventory_item_id}`;
        return html`<tr><td><input type="hidden" name="items.${i}.inventory_item_id" value="${row.inventory_item_id}">${labelOf(byItem, row.inventory_item_id)}${problemText(problems, `items.${i}.inventory_item_id`, `rule-${i}-item`, "Item")}${problemText(problems, `items.${i}`, `rule-${i}`, "This rule")}</td>
<td>${locationSelect(`rule-${i}-location`, `items.${i}.location_id`, row.location_id, locations, `Location of the rule for ${label}`)}${problemText(problems, `items.${i}.location_id`, `rule-${i}-location`, "Location")}</td>
${NUMBER_FIELDS.map((f) => html`<td>${numberInput(`items.${i}.${f}`, `rule-${i}-${f}`, row[f], `${WORDS[f]} of ${label}`)}</td>`)}
<td><input type="checkbox" name="items.${i}.remove" value="1" aria-label="Remove the rule for ${label}"></td></tr>`;
      })
}
</tbody></table></div>
<fieldset id="add-rule"><legend>Add a rule</legend>
${problemText(problems, "add", "rule-add", "This rule")}
<div class="grid">
${itemField({ id: "rule-add-item", name: "add_item", label: "Item", value: form.add.item, picked })}
<div class="field"><label for="rule-add-location">Location</label>${locationSelect("rule-add-location", "add.location_id", form.add.location_id, locations, "Location")}</div>
<div class="field narrow"><label for="rule-add-reorder_point">Reorder point</label>${numberInput("add.reorder_point", "rule-add-reorder_point", form.add.reorder_point, "Reorder point")}</div>
<div class="field narrow"><label for="rule-add-max_stock">Max stock</label>${numberInput("add.max_stock", "rule-add-max_stock", form.add.max_stock, "Max stock")}</div>
</div></fieldset>
<p><button type="submit">Save alert rules</button></p>
</form>`;
  return show(body);
}

export function alertRulesPage(ctx: PageContext, rawId: unknown) {
  return render(ctx, rawId, null, new Map(), null, 200);
}

export async function saveAlertRulesAction(ctx: PageContext, rawId: unknown) {
  const storeId = idOf(rawId);
  const path = `/admin/stores/${storeId}/alert_rules`;
  ctx.admin.require("PUT", path, "Alert rules");
  const body = formOf(ctx.request);
  const count = Math.min(MAX_ROWS, Number.parseInt(field(body, "rows"), 10) || 0);
  const values: RulesForm = {
    low_stock_threshold: field(body, "low_stock_threshold"),
    items: [],
    add: {
      item: field(body, "add_item"),
      inventory_item_id: "",
      location_id: field(body, "add.location_id"),
      reorder_point: field(body, "add.reorder_point"),
      max_stock: field(body, "add.max_stock"),
    },
  };
  const problems: Problems = new Map();
  const int = (text: string, name: string): number | null => {
    if (text === "") return null;
    if (!/^\d{1,10}$/.test(text) || Number(text) > 1_000_000_000) {
      problems.set(name, "must be a whole number from 0 to 1,000,000,000");
      return null;
    }
    return Number(text);
  };
  const rules: AlertRules = {
    low_stock_threshold: int(values.low_stock_threshold, "low_stock_threshold"),
    items: [],
  };
  // The API numbers the rows as sent; `formNames[n]` is the form's name of the row sent as `items.n`.
  const formNames: string[] = [];
  for (let i = 0; i < count; i++) {
    const row = {
      inventory_item_id: field(body, `items.${i}.inventory_item_id`),
      location_id: field(body, `items.${i}.location_id`),
      reorder_point: field(body, `items.${i}.reorder_point`),
      max_stock: field(body, `items.${i}.max_stock`),
    };
    if (field(body, `items.${i}.remove`) === "1" || !/^[1-9]\d{0,15}$/.test(row.inventory_item_id)) continue;
    const n = values.items.length;
    values.items.push(row);
    formNames.push(`items.${n}`);
    rules.items.push({
      inventory_item_id: Number(row.inventory_item_id),
      location_id: /^[1-9]\d{0,15}$/.test(row.location_id) ? Number(row.location_id) : null,
      reorder_point: int(row.reorder_point, `items.${n}.reorder_point`),
      max_stock: int(row.max_stock, `items.${n}.max_stock`),
    });
  }
  let picked: PickedItem | null = null;
  if (values.add.item !== "" || field(body, "add_item_variant") !== "") {
    picked = await pickItem(storeApi(ctx.request, storeId), values.add.item, field(body, "add_item_variant"));
    if (picked.kind === "item") {
      formNames.push("add");
      rules.items.push({
        inventory_item_id: picked.variant.inventory_item_id,
        location_id: /^[1-9]\d{0,15}$/.test(values.add.location_id) ? Number(values.add.location_id) : null,
        reorder_point: int(values.add.reorder_point, "add.reorder_point"),
        max_stock: int(values.add.max_stock, "add.max_stock"),
      });
    }
  } else if (values.add.reorder_point !== "" || values.add.max_stock !== "") {
    picked = { kind: "none", message: "is required to add a rule." };
  }
  if (problems.size > 0 || (picked !== null && picked.kind !== "item"))
    return render(ctx, storeId, values, problems, picked, 422);
  try {
    await ctx.admin.put(path, rules);
  } catch (error) {
    if (error instanceof AdminError && error.status === 422) {
      for (const d of error.details as ErrorDetail[]) {
        const match = /^items\.(\d+)(\..+)?$/.exec(d.field);
        const name = match
          ? `${formNames[Number(match[1])] ?? `items.${match[1]}`}${match[2] ?? ""}`
          : d.field;
        if (!problems.has(name)) problems.set(name, d.message);
      }
      if (picked?.kind === "item") picked = null;
      return render(ctx, storeId, values, problems, picked, 422);
    }
    throw error;
  }
  ctx.session.flash.push({ kind: "ok", text: "Alert rules saved." });
  return redirectTo(ctx.reply, storePath(storeId, "/alert_rules"));
}
