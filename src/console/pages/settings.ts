import { html, type SafeHtml } from "../../html/template.ts";
import { AdminError } from "../admin.ts";
import { confirmed, confirmStep } from "../confirm.ts";
import {
  field,
  formOf,
  idOf,
  loadStore,
  type PageContext,
  redirectTo,
  type StoreSummary,
  sendPage,
  takeFlash,
} from "../context.ts";
import { csrfField, dl, page, storePath } from "../layout.ts";
import { platformSummary } from "../platform-summary.ts";
import { type SettingsSection, settingsIndex, settingsNav } from "../settings-nav.ts";
import { fieldError, formErrors, invalidAttrs } from "../store-pages.ts";

/**
 * The General page of the store's settings (its owner and the operator): what the store is, its API
 * access (turning it off asks first), the numbering of purchase orders and stock adjustments, the
 * platform it runs on, and the other settings pages. The store's record is the admin API's (the
 * public API has no store settings); the owner reaches only their own store's routes there.
 */

/** A page of the settings area: the Settings tab, its navigation, then the page. */
export function sendSettingsPage(
  ctx: PageContext,
  store: { id: number; name: string },
  section: SettingsSection,
  title: string,
  body: SafeHtml,
  status = 200,
) {
  return sendPage(
    ctx.reply,
    page({
      title,
      session: ctx.session,
      store,
      tab: "settings",
      body: html`${settingsNav(store.id, section)}${body}`,
      flash: takeFlash(ctx.session),
    }),
    status,
  );
}

const NUMBERING_LABELS = {
  purchase_order_prefix: "Purchase order prefix",
  next_purchase_order_number: "Next purchase order number",
  stock_adjustment_prefix: "Stock adjustment prefix",
  next_stock_adjustment_number: "Next stock adjustment number",
} as const;
type NumberingField = keyof typeof NUMBERING_LABELS;
type NumberingValues = Record<NumberingField, string>;

const numberingId = (name: string) => `numbering-${name.replace(/_/g, "-")}`;

/** The API's `numbering.purchase_order_prefix` details under the form's own names. */
function numberingError(error: AdminError | null): AdminError | null {
  if (!error) return null;
  return new AdminError(
    error.status,
    error.code,
    error.message,
    error.details.map((d) => ({ ...d, field: d.field.replace(/^numbering\./, "") })),
  );
}

function numberingForm(
  ctx: PageContext,
  store: StoreSummary,
  values: NumberingValues,
  error: AdminError | null,
) {
  const input = (name: NumberingField, numeric: boolean) => {
    const id = numberingId(name);
    return html`<div class="field"><label for="${id}">${NUMBERING_LABELS[name]}</label>
<input type="text" id="${id}" name="${name}" value="${values[name]}"${numeric ? html` inputmode="numeric" class="short"` : html` maxlength="20" class="short"`}${invalidAttrs(error, name, id)}>${fieldError(error, name, id, NUMBERING_LABELS[name])}</div>`;
  };
  const example = `${values.purchase_order_prefix}${String(values.next_purchase_order_number).padStart(4, "0")}`;
  return html`<h2 id="numbering">Numbering</h2>
<p class="hint">Numbers never repeat: a next number below one already given continues after the highest.</p>
${formErrors(error, NUMBERING_LABELS, numberingId)}
<form method="post" action="${storePath(store.id, "/settings/numbering")}" class="stack" aria-labelledby="numbering">
${csrfField(ctx.session)}
<div class="grid">
${input("purchase_order_prefix", false)}
${input("next_purchase_order_number", true)}
${input("stock_adjustment_prefix", false)}
${input("next_stock_adjustment_number", true)}
</div>
<p class="hint">The next purchase order would be numbered about <strong>${example}</strong>.</p>
<div><button type="submit">Save numbering</button></div>
</form>`;
}

/**
 * The API access switch; `from` is the page the switch sits on (where the answer returns), null to
 * show the state without the switch (a role short of the settings).
 */
export function apiAccessSection(
  ctx: PageContext,
  store: StoreSummary,
  from: "settings" | "overview" | null = "settings",
): SafeHtml {
  return html`<h2 id="api-access">API access</h2>
<div class="switch">
<p>API access is ${store.api_access ? html`<span class="state-on">on</span>` : html`<span class="state-off">off</span>`}. ${
    store.api_access
      ? "Keys of this store can call the API."
      : html`Every key of this store answers <code>402 feature_not_enabled</code>.`
  }</p>
${
  from
    ? html`<form method="post" action="${storePath(store.id, "/api_access")}" class="inline">
${csrfField(ctx.session)}
<input type="hidden" name="api_access" value="${store.api_access ? "off" : "on"}">
${from === "settings" ? html`<input type="hidden" name="back" value="settings">` : ""}
<button type="submit"${store.api_access ? html` class="danger"` : ""}>Turn API access ${store.api_access ? "off" : "on"}</button>
</form>`
    : ""
}
</div>`;
}

function numberingValuesOf(store: StoreSummary): NumberingValues {
  const n = store.numbering;
  return {
    purchase_order_prefix: String(n.purchase_order_prefix ?? ""),
    next_purchase_order_number: String(n.next_purchase_order_number ?? ""),
    stock_adjustment_prefix: String(n.stock_adjustment_prefix ?? ""),
    next_stock_adjustment_number: String(n.next_stock_adjustment_number ?? ""),
  };
}

async function renderGeneral(
  ctx: PageContext,
  rawId: unknown,
  values: NumberingValues | null,
  error: AdminError | null,
) {
  const store = await loadStore(ctx, rawId);
  const body = html`${dl([
    ["Name", store.name],
    ["Currency", store.currency],
    ["Time zone", store.timezone],
    ["Owner email", store.owner_email],
  ])}
${platformSummary(store)}
${apiAccessSection(ctx, store)}
${numberingForm(ctx, store, values ?? numberingValuesOf(store), error)}
<h2 id="more-settings">More settings</h2>
${settingsIndex(store.id)}`;
  return sendSettingsPage(ctx, store, "general", "Settings", body, error ? 422 : 200);
}

export function settingsPage(ctx: PageContext, rawId: unknown) {
  return renderGeneral(ctx, rawId, null, null);
}

/** A whole number as typed, or the text itself so the API names it as wrong. */
function wholeNumber(text: string): number | string {
  return /^\d{1,9}$/.test(text) ? Number(text) : text;
}

export async function saveNumberingAction(ctx: PageContext, rawId: unknown) {
  const storeId = idOf(rawId);
  const form = formOf(ctx.request);
  const values: NumberingValues = {
    purchase_order_prefix: field(form, "purchase_order_prefix"),
    next_purchase_order_number: field(form, "next_purchase_order_number"),
    stock_adjustment_prefix: field(form, "stock_adjustment_prefix"),
    next_stock_adjustment_number: field(form, "next_stock_adjustment_number"),
  };
  try {
    await ctx.admin.patch(`/admin/stores/${storeId}`, {
      numbering: {
        purchase_order_prefix: values.purchase_order_prefix,
        stock_adjustment_prefix: values.stock_adjustment_prefix,
        next_purchase_order_number: wholeNumber(values.next_purchase_order_number),
        next_stock_adjustment_number: wholeNumber(values.next_stock_adjustment_number),
      },
    });
  } catch (error) {
    if (error instanceof AdminError && (error.status === 422 || error.status === 400))
      return renderGeneral(ctx, storeId, values, numberingError(error));
    throw error;
  }
  ctx.session.flash.push({ kind: "ok", text: "Numbering saved." });
  return redirectTo(ctx.reply, storePath(storeId, "/settings#numbering"));
}

/**
 * API access on or off. Turning it off cuts every integration off at once, so it asks first (a page
 * with a confirm button, no script needed); turning it on does not.
 */
export async function apiAccessAction(ctx: PageContext, rawId: unknown) {
  const store = await loadStore(ctx, rawId);
  const form = formOf(ctx.request);
  const wanted = field(form, "api_access");
  const back = field(form, "back") === "settings" ? storePath(store.id, "/settings") : storePath(store.id);
  if (wanted !== "on" && wanted !== "off") {
    ctx.session.flash.push({ kind: "error", text: "Choose API access on or off." });
    return redirectTo(ctx.reply, back);
  }
  if (wanted === "off" && store.api_access && !confirmed(form)) {
    const body = confirmStep({
      session: ctx.session,
      action: storePath(store.id, "/api_access"),
      question: "Turn API access off?",
      consequence: html`Every key of ${store.name} stops working at once: integrations get <code>402 feature_not_enabled</code> until access is turned on again. The console keeps working.`,
      button: "Turn API access off",
      cancelHref: back,
      cancel: "Keep API access on",
      fields: { api_access: "off", back: field(form, "back") },
    });
    return sendSettingsPage(ctx, store, "general", "Turn API access off?", body);
  }
  await ctx.admin.patch(`/admin/stores/${store.id}`, { api_access: wanted === "on" });
  ctx.session.flash.push({ kind: "ok", text: `API access turned ${wanted}.` });
  return redirectTo(ctx.reply, back);
}
