import { REASON_LABELS } from "../../domain/stock-adjustments/index.ts";
import { html, type SafeHtml } from "../../html/template.ts";
import { can, requirePermission } from "../actor.ts";
import { AdminError } from "../admin.ts";
import { field, formOf, type PageContext, queryOf, redirectTo } from "../context.ts";
import { itemField, type PickedItem, pickItem } from "../item-picker.ts";
import { csrfField, storePath, table, timeHtml } from "../layout.ts";
import { queryString } from "../query-string.ts";
import { type Location, locationsOf, type Page } from "../stock-levels.ts";
import { storeApi } from "../store-api.ts";
import { formErrors, formKey, type StoreInfo, storeInfoOf } from "../store-pages.ts";
import { addLineAction, adjustmentPage, finishAction, saveLinesAction } from "./stock-adjustment.ts";
import {
  type Adjustment,
  adjustmentsPath,
  deltaField,
  parseDelta,
  render,
  STATUS_WORDS,
} from "./stock-adjustment-view.ts";
import type { RouteAdder } from "./suppliers.ts";

/**
 * Stock adjustments (issue 20 item 6): the list by status and a new draft with an item picker (SKU,
 * barcode or title, as typed or scanned); one adjustment's page and its actions are in
 * `stock-adjustment.ts`. Every call is the public API as the user.
 */

const PAGE_SIZE = 50;
const STATUS_FILTERS = ["draft", "applied", "cancelled", "all"] as const;

async function listPage(ctx: PageContext) {
  const store = await storeInfoOf(ctx.request);
  const q = queryOf(ctx.request);
  const status = (STATUS_FILTERS as readonly string[]).includes(q.status ?? "") ? q.status : "draft";
  const res = await storeApi(ctx.request).get<Page<Adjustment>>(
    `/stock_adjustments${queryString({ limit: PAGE_SIZE, status: status === "all" ? "" : status, cursor: q.cursor })}`,
  );
  const here = adjustmentsPath(store.id);
  const body = html`${
    can(ctx.request, "stock")
      ? html`<p><a class="button" href="${adjustmentsPath(store.id, "/new")}">New adjustment</a></p>`
      : ""
  }
<nav class="views" aria-label="Adjustments by status">${STATUS_FILTERS.map(
    (s) =>
      html`<a href="${here}${queryString({ status: s })}"${s === status ? html` aria-current="page"` : ""}>${s === "all" ? "All" : STATUS_WORDS[s]}</a>`,
  )}</nav>
${table(
  "Stock adjustments (oldest change first)",
  [
    {
      header: "Number",
      cell: (a) => html`<a href="${adjustmentsPath(store.id, `/${a.id}`)}">${a.number}</a>`,
    },
    { header: "Status", cell: (a) => STATUS_WORDS[a.status] ?? a.status },
    { header: "Location", cell: (a) => a.location.name },
    { header: "Reason", cell: (a) => a.reason_label },
    { header: "Lines", cell: (a) => a.lines.length, numeric: true },
    {
      header: "Changed",
      cell: (a) => timeHtml(a.applied_at ?? a.cancelled_at ?? a.updated_at, store.timezone),
    },
  ],
  res.data,
  status === "draft" ? "No draft adjustments." : "No adjustments here.",
)}
<nav class="pager" aria-label="Pages">
${q.cursor ? html`<a href="${here}${queryString({ status })}">First page</a>` : ""}
${res.has_more && res.next_cursor ? html`<a href="${here}${queryString({ status, cursor: res.next_cursor })}" rel="next">Next page</a>` : ""}
</nav>
<p><a href="${storePath(store.id, "/stock")}">Back to stock</a></p>`;
  return render(ctx, store, "Stock adjustments", body);
}

interface NewValues {
  location_id: string;
  reason: string;
  note: string;
  item: string;
  delta: string;
}

const NEW_LABELS = {
  location_id: "Location",
  reason: "Reason",
  note: "Note",
  lines: "Change",
} as const;

function newForm(
  ctx: PageContext,
  store: StoreInfo,
  locations: Location[],
  values: NewValues,
  picked: PickedItem | null,
  error: AdminError | null,
  posted = false,
): SafeHtml {
  const deltaError =
    error?.details.find((d) => d.field.startsWith("lines")) ??
    (posted && !parseDelta(values.delta) ? { message: "must be a whole number other than 0" } : null);
  // A fresh key on every drawing: a refused create keeps its answer under the key it was sent with, so
  // the corrected form must not send that key again (docs/decisions.md, console forms' keys).
  return html`${formErrors(error, NEW_LABELS, (name) => `adj-${name}`)}
<form method="post" action="${adjustmentsPath(store.id)}" class="stack" aria-label="New stock adjustment">
${csrfField(ctx.session)}<input type="hidden" name="_key" value="${formKey()}">
<div class="field"><label for="adj-location_id">Location</label>
<select id="adj-location_id" name="location_id" required>${locations.map(
    (l) =>
      html`<option value="${l.id}"${String(l.id) === values.location_id ? html` selected` : ""}>${l.name}</option>`,
  )}</select></div>
<div class="field"><label for="adj-reason">Reason</label>
<select id="adj-reason" name="reason">${Object.entries(REASON_LABELS).map(
    ([value, label]) =>
      html`<option value="${value}"${value === values.reason ? html` selected` : ""}>${label}</option>`,
  )}</select></div>
<div class="field"><label for="adj-note">Note <span class="hint">(optional)</span></label>
<textarea id="adj-note" name="note" rows="2" maxlength="5000">${values.note}</textarea></div>
<fieldset><legend>First line</legend>
${itemField({ id: "adj-item", name: "item", label: "Item", value: values.item, picked })}
${deltaField("adj-lines", "delta", values.delta, deltaError?.message ?? null)}
</fieldset>
<div><button type="submit">Create draft</button></div>
</form>
<p><a href="${adjustmentsPath(store.id)}">Cancel</a></p>`;
}

async function newPage(ctx: PageContext) {
  requirePermission(ctx.request, "stock");
  const store = await storeInfoOf(ctx.request);
  const locations = await locationsOf(storeApi(ctx.request));
  const values = { location_id: "", reason: "correction", note: "", item: "", delta: "" };
  return render(ctx, store, "New stock adjustment", newForm(ctx, store, locations, values, null, null));
}

async function createAction(ctx: PageContext) {
  requirePermission(ctx.request, "stock");
  const store = await storeInfoOf(ctx.request);
  const api = storeApi(ctx.request);
  const form = formOf(ctx.request);
  const values: NewValues = {
    location_id: field(form, "location_id"),
    reason: field(form, "reason"),
    note: field(form, "note"),
    item: field(form, "item"),
    delta: field(form, "delta"),
  };
  const [locations, picked] = await Promise.all([
    locationsOf(api),
    pickItem(api, values.item, field(form, "item_variant")),
  ]);
  const delta = parseDelta(values.delta);
  const refuse = (error: AdminError | null, shownPick: PickedItem | null) =>
    render(
      ctx,
      store,
      "New stock adjustment",
      newForm(ctx, store, locations, values, shownPick, error, true),
      422,
    );
  if (picked.kind !== "item") return refuse(null, picked);
  if (!delta) return refuse(null, null);
  try {
    const created = await api.post<{ data: Adjustment }>(
      "/stock_adjustments",
      {
        location_id: Number(values.location_id) || 0,
        reason: values.reason,
        note: values.note === "" ? null : values.note,
        lines: [{ variant_id: picked.variant.id, delta }],
      },
      { idempotencyKey: field(form, "_key") || undefined },
    );
    ctx.session.flash.push({
      kind: "ok",
      text: `Draft ${created.data.number} created. Add lines, then apply it.`,
    });
    return redirectTo(ctx.reply, adjustmentsPath(store.id, `/${created.data.id}`));
  } catch (error) {
    if (error instanceof AdminError && (error.status === 422 || error.status === 400)) {
      values.item = values.item || picked.variant.sku || "";
      return refuse(error, null);
    }
    throw error;
  }
}

/** The adjustment pages' routes, under /console/stores/:id/stock_adjustments. */
export function stockAdjustmentRoutes(get: RouteAdder, post: RouteAdder): void {
  get("/stores/:id/stock_adjustments", (c) => listPage(c));
  get("/stores/:id/stock_adjustments/new", (c) => newPage(c));
  post("/stores/:id/stock_adjustments", (c) => createAction(c));
  get("/stores/:id/stock_adjustments/:adj_id", (c, p) => adjustmentPage(c, p.adj_id));
  post("/stores/:id/stock_adjustments/:adj_id/lines", (c, p) => saveLinesAction(c, p.adj_id));
  post("/stores/:id/stock_adjustments/:adj_id/add", (c, p) => addLineAction(c, p.adj_id));
  post("/stores/:id/stock_adjustments/:adj_id/apply", (c, p) => finishAction(c, p.adj_id, "apply"));
  post("/stores/:id/stock_adjustments/:adj_id/cancel", (c, p) => finishAction(c, p.adj_id, "cancel"));
}
