import { REASON_LABELS } from "../../domain/stock-adjustments/index.ts";
import { html, type SafeHtml } from "../../html/template.ts";
import { can, requirePermission } from "../actor.ts";
import { AdminError } from "../admin.ts";
import {
  field,
  formOf,
  idOf,
  type PageContext,
  PageNotFound,
  queryOf,
  redirectTo,
  sendPage,
  takeFlash,
} from "../context.ts";
import { itemField, type PickedItem, pickItem } from "../item-picker.ts";
import { csrfField, dl, page, storePath, table, timeHtml } from "../layout.ts";
import { queryString } from "../query-string.ts";
import { type Location, levelItemLabel, levelsAt, locationsOf, type Page } from "../stock-levels.ts";
import { storeApi } from "../store-api.ts";
import { formErrors, formKey, type StoreInfo, storeInfoOf } from "../store-pages.ts";
import type { RouteAdder } from "./suppliers.ts";

/**
 * Stock adjustments (issue 20 item 6): the list by status, a new draft with an item picker (SKU,
 * barcode or title, as typed or scanned), a draft's lines changed or removed, lines added, apply (an
 * Idempotency-Key made when the page was drawn, so a double click or a reload applies once) and cancel,
 * both after a confirmation; each line shows the available quantity before and after (a draft: now and
 * after applying; an applied one: as the API recorded them). Every call is the public API as the user.
 */

interface AdjustmentLine {
  id: number;
  product_title: string | null;
  variant_title: string | null;
  sku: string | null;
  inventory_item_id: number;
  variant_id: number;
  delta: number;
  quantity_before: number | null;
  quantity_after: number | null;
}

interface Adjustment {
  id: number;
  number: string;
  status: "draft" | "applied" | "cancelled";
  reason: string;
  reason_label: string;
  note: string | null;
  location: { id: number; name: string };
  lines: AdjustmentLine[];
  applied_at: string | null;
  cancelled_at: string | null;
  created_at: string;
  updated_at: string;
}

const PAGE_SIZE = 50;
const STATUS_FILTERS = ["draft", "applied", "cancelled", "all"] as const;
const STATUS_WORDS: Record<string, string> = { draft: "Draft", applied: "Applied", cancelled: "Cancelled" };

export const adjustmentsPath = (storeId: number, rest = "") =>
  storePath(storeId, `/stock_adjustments${rest}`);

function render(ctx: PageContext, store: StoreInfo, title: string, body: SafeHtml, status = 200) {
  return sendPage(
    ctx.reply,
    page({ title, session: ctx.session, store, tab: "stock", body, flash: takeFlash(ctx.session) }),
    status,
  );
}

async function loadAdjustment(ctx: PageContext, rawId: unknown): Promise<Adjustment> {
  try {
    return (await storeApi(ctx.request).get<{ data: Adjustment }>(`/stock_adjustments/${idOf(rawId)}`)).data;
  } catch (error) {
    if (error instanceof AdminError && error.status === 404)
      throw new PageNotFound("This store has no such stock adjustment.");
    throw error;
  }
}

function signed(n: number): string {
  return n > 0 ? `+${n}` : String(n);
}

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
    { header: "Changed", cell: (a) => timeHtml(a.applied_at ?? a.cancelled_at ?? a.updated_at) },
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

function deltaField(id: string, name: string, value: string, error: string | null): SafeHtml {
  return html`<div class="field narrow"><label for="${id}">Change <span class="hint">(units to add, or to remove with a minus: −3)</span></label>
<input type="text" inputmode="numeric" id="${id}" name="${name}" value="${value}" required${
    error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ""
  }>${error ? html`<p class="field-error" id="${id}-error">Change ${error}</p>` : ""}</div>`;
}

/** "+3", "-3", "−3" (the typographic minus) or "3" → the number; anything else → null. */
function parseDelta(text: string): number | null {
  const normal = text.replace("−", "-").replace(/\s+/g, "");
  if (!/^[+-]?\d{1,10}$/.test(normal)) return null;
  const n = Number(normal);
  return Number.isSafeInteger(n) ? n : null;
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

/** Before and after of each line: a draft's from the level now, an applied one's as recorded. */
async function linesTable(
  ctx: PageContext,
  adjustment: Adjustment,
  editable: boolean,
  error: AdminError | null,
): Promise<SafeHtml> {
  const now =
    adjustment.status === "draft"
      ? await levelsAt(
          storeApi(ctx.request),
          adjustment.location.id,
          adjustment.lines.map((l) => l.inventory_item_id),
        )
      : new Map();
  const before = (l: AdjustmentLine) =>
    adjustment.status === "draft" ? (now.get(l.inventory_item_id)?.available ?? 0) : l.quantity_before;
  const after = (l: AdjustmentLine) =>
    adjustment.status === "draft"
      ? (now.get(l.inventory_item_id)?.available ?? 0) + l.delta
      : l.quantity_after;
  const lineError = (i: number) =>
    error?.details.find((d) => d.field === `lines.${i}.delta` || d.field === `lines.${i}`);
  const drafting = adjustment.status === "draft";
  const columns = [
    {
      header: "Item",
      cell: (l: AdjustmentLine) =>
        html`${levelItemLabel(l)}${l.sku ? html`<br><span class="muted">SKU ${l.sku}</span>` : ""}`,
    },
    {
      header: "Change",
      numeric: true,
      cell: (l: AdjustmentLine) => {
        if (!editable) return signed(l.delta);
        const i = adjustment.lines.indexOf(l);
        const problem = lineError(i);
        return html`<input type="hidden" name="lines.${i}.variant_id" value="${l.variant_id}"><input type="text" inputmode="numeric" class="qty" name="lines.${i}.delta" value="${signed(l.delta)}" aria-label="Change of ${levelItemLabel(l)}"${
          problem ? html` aria-invalid="true" aria-describedby="line-${i}-error"` : ""
        }>${problem ? html`<p class="field-error" id="line-${i}-error">Change ${problem.message}</p>` : ""}`;
      },
    },
    { header: drafting ? "Available now" : "Available before", cell: before, numeric: true },
    { header: drafting ? "After applying" : "Available after", cell: after, numeric: true },
    ...(editable
      ? [
          {
            header: "Remove",
            cell: (l: AdjustmentLine) => {
              const i = adjustment.lines.indexOf(l);
              return html`<input type="checkbox" name="lines.${i}.remove" value="1" aria-label="Remove ${levelItemLabel(l)}">`;
            },
          },
        ]
      : []),
  ];
  return table(`Lines at ${adjustment.location.name}`, columns, adjustment.lines, "No lines.");
}

async function adjustmentPage(
  ctx: PageContext,
  rawId: unknown,
  options: {
    error?: AdminError | null;
    add?: { item: string; delta: string; picked: PickedItem | null; deltaError: string | null };
  } = {},
) {
  const store = await storeInfoOf(ctx.request);
  const adjustment = await loadAdjustment(ctx, rawId);
  const base = adjustmentsPath(store.id, `/${adjustment.id}`);
  const editable = adjustment.status === "draft" && can(ctx.request, "stock");
  const lines = await linesTable(ctx, adjustment, editable, options.error ?? null);
  const add = options.add ?? { item: "", delta: "", picked: null, deltaError: null };
  const body = html`${dl([
    ["Status", STATUS_WORDS[adjustment.status] ?? adjustment.status],
    ["Location", adjustment.location.name],
    ["Reason", adjustment.reason_label],
    ["Note", adjustment.note],
    ...(adjustment.applied_at ? [["Applied", timeHtml(adjustment.applied_at)] as [string, SafeHtml]] : []),
    ...(adjustment.cancelled_at
      ? [["Cancelled", timeHtml(adjustment.cancelled_at)] as [string, SafeHtml]]
      : []),
  ])}
${
  options.error
    ? html`<div class="flash flash-error" role="alert" id="form-errors"><p>Nothing was changed. ${
        options.error.details.length > 0 ? "Please correct the lines marked below." : options.error.message
      }</p></div>`
    : ""
}
${
  editable
    ? html`<form method="post" action="${base}/lines" aria-label="Lines of ${adjustment.number}">
${csrfField(ctx.session)}<input type="hidden" name="rows" value="${adjustment.lines.length}">
${lines}
<p><button type="submit">Save lines</button></p>
</form>
<h2 id="add-line">Add a line</h2>
<form method="post" action="${base}/add" class="stack" aria-label="Add a line">
${csrfField(ctx.session)}
${itemField({ id: "add-item", name: "item", label: "Item", value: add.item, picked: add.picked })}
${deltaField("add-delta", "delta", add.delta, add.deltaError)}
<div><button type="submit">Add line</button></div>
</form>
<h2>Finish</h2>
<div class="actions">
<form method="post" action="${base}/apply" class="inline">${csrfField(ctx.session)}<button type="submit">Apply…</button></form>
<form method="post" action="${base}/cancel" class="inline">${csrfField(ctx.session)}<button type="submit" class="danger">Cancel adjustment…</button></form>
</div>`
    : lines
}
<p><a href="${adjustmentsPath(store.id)}">Back to adjustments</a></p>`;
  return render(
    ctx,
    store,
    `Stock adjustment ${adjustment.number}`,
    body,
    options.error || options.add ? 422 : 200,
  );
}

/** The draft's lines as the form left them: changed deltas, removed rows left out. */
async function saveLinesAction(ctx: PageContext, rawId: unknown) {
  requirePermission(ctx.request, "stock");
  const store = await storeInfoOf(ctx.request);
  const adjustment = await loadAdjustment(ctx, rawId);
  const form = formOf(ctx.request);
  const lines: { variant_id: number; delta: number }[] = [];
  const details: { field: string; code: string; message: string }[] = [];
  adjustment.lines.forEach((line, i) => {
    if (field(form, `lines.${i}.remove`) === "1") return;
    const delta = parseDelta(field(form, `lines.${i}.delta`) || signed(line.delta));
    if (delta === null)
      details.push({ field: `lines.${i}.delta`, code: "invalid_type", message: "must be a whole number" });
    lines.push({ variant_id: line.variant_id, delta: delta ?? 0 });
  });
  if (details.length > 0)
    return adjustmentPage(ctx, rawId, {
      error: new AdminError(422, "validation_failed", "Some fields are invalid.", details),
    });
  if (lines.length === 0) {
    ctx.session.flash.push({
      kind: "error",
      text: "An adjustment keeps at least one line. Nothing was changed; to drop the whole adjustment, cancel it.",
    });
    return redirectTo(ctx.reply, adjustmentsPath(store.id, `/${adjustment.id}`));
  }
  try {
    await storeApi(ctx.request).patch(`/stock_adjustments/${adjustment.id}`, { lines });
  } catch (error) {
    // The API numbers the lines as sent; the form numbers them as shown (removed rows in between).
    if (error instanceof AdminError && error.status === 422) return adjustmentPage(ctx, rawId, { error });
    throw error;
  }
  ctx.session.flash.push({ kind: "ok", text: "Lines saved." });
  return redirectTo(ctx.reply, adjustmentsPath(store.id, `/${adjustment.id}`));
}

async function addLineAction(ctx: PageContext, rawId: unknown) {
  requirePermission(ctx.request, "stock");
  const store = await storeInfoOf(ctx.request);
  const adjustment = await loadAdjustment(ctx, rawId);
  const api = storeApi(ctx.request);
  const form = formOf(ctx.request);
  const item = field(form, "item");
  const deltaText = field(form, "delta");
  const picked = await pickItem(api, item, field(form, "item_variant"));
  const delta = parseDelta(deltaText);
  const deltaError = delta === null || delta === 0 ? "must be a whole number other than 0" : null;
  if (picked.kind !== "item" || deltaError)
    return adjustmentPage(ctx, rawId, {
      add: { item, delta: deltaText, picked: picked.kind === "item" ? null : picked, deltaError },
    });
  const lines = [
    ...adjustment.lines.map((l) => ({ variant_id: l.variant_id, delta: l.delta })),
    { variant_id: picked.variant.id, delta: delta as number },
  ];
  try {
    await api.patch(`/stock_adjustments/${adjustment.id}`, { lines });
  } catch (error) {
    if (error instanceof AdminError && error.status === 422) {
      const message = error.details.map((d) => d.message).join("; ") || error.message;
      return adjustmentPage(ctx, rawId, {
        add: { item, delta: deltaText, picked: null, deltaError: message },
      });
    }
    throw error;
  }
  ctx.session.flash.push({ kind: "ok", text: `Line added: ${signed(delta as number)} × ${item}.` });
  return redirectTo(ctx.reply, `${adjustmentsPath(store.id, `/${adjustment.id}`)}#add-line`);
}

/**
 * Apply and cancel ask first (a page of their own, without script); the confirmation carries the
 * Idempotency-Key made when it was drawn, so a double click or a reload applies once.
 */
async function finishAction(ctx: PageContext, rawId: unknown, action: "apply" | "cancel") {
  requirePermission(ctx.request, "stock");
  const store = await storeInfoOf(ctx.request);
  const adjustment = await loadAdjustment(ctx, rawId);
  const form = formOf(ctx.request);
  const base = adjustmentsPath(store.id, `/${adjustment.id}`);
  if (field(form, "confirm") !== "yes") {
    const lines = await linesTable(ctx, adjustment, false, null);
    const body =
      action === "apply"
        ? html`<p>Apply ${adjustment.number} at <strong>${adjustment.location.name}</strong>? Stock moves as below and the platform is told; an applied adjustment cannot be undone (make another to reverse it).</p>
${lines}
<form method="post" action="${base}/apply" class="inline">${csrfField(ctx.session)}<input type="hidden" name="confirm" value="yes"><input type="hidden" name="_key" value="${formKey()}"><button type="submit">Apply adjustment</button></form>
<a href="${base}">Not yet</a>`
        : html`<p>Cancel ${adjustment.number}? Nothing moves, and a cancelled adjustment cannot be applied later.</p>
<form method="post" action="${base}/cancel" class="inline">${csrfField(ctx.session)}<input type="hidden" name="confirm" value="yes"><button type="submit" class="danger">Cancel adjustment</button></form>
<a href="${base}">Keep it</a>`;
    return render(
      ctx,
      store,
      action === "apply" ? `Apply ${adjustment.number}?` : `Cancel ${adjustment.number}?`,
      body,
    );
  }
  try {
    if (action === "apply")
      await storeApi(ctx.request).post(`/stock_adjustments/${adjustment.id}/apply`, undefined, {
        idempotencyKey: field(form, "_key") || formKey(),
      });
    else await storeApi(ctx.request).post(`/stock_adjustments/${adjustment.id}/cancel`);
  } catch (error) {
    if (error instanceof AdminError && error.status === 422) {
      const why = error.details.map((d) => d.message).join("; ") || error.message;
      ctx.session.flash.push({
        kind: "error",
        text: `${adjustment.number} was not ${action === "apply" ? "applied" : "cancelled"}: ${why}`,
      });
      return redirectTo(ctx.reply, base);
    }
    throw error;
  }
  ctx.session.flash.push({
    kind: "ok",
    text:
      action === "apply" ? `${adjustment.number} applied: stock moved.` : `${adjustment.number} cancelled.`,
  });
  return redirectTo(ctx.reply, base);
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
