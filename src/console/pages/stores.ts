import { html, type SafeHtml } from "../../html/template.ts";
import { can } from "../actor.ts";
import { AdminError } from "../admin.ts";
import {
  field,
  formOf,
  loadStore,
  type PageContext,
  redirectTo,
  type StoreSummary,
  sendPage,
  takeFlash,
} from "../context.ts";
import { csrfField, dl, errorSummary, page, storePath, table } from "../layout.ts";
import { platformName, platformSummary } from "../platform-summary.ts";
import { apiAccessSection } from "./settings.ts";

interface StoreForm {
  name: string;
  currency: string;
  timezone: string;
  domain: string;
  owner_email: string;
  seed: string;
}

function invalid(error: AdminError | null, name: string): SafeHtml | string {
  return error?.details.some((d) => d.field === name || d.field.startsWith(`${name}.`))
    ? html` aria-invalid="true"`
    : "";
}

function createStoreForm(ctx: PageContext, values: StoreForm, error: AdminError | null): SafeHtml {
  return html`<h2 id="create-store">Create a store</h2>
${error ? errorSummary(error.message, error.details) : ""}
<form method="post" action="/console/stores" class="stack" aria-labelledby="create-store">
${csrfField(ctx.session)}
<div class="field"><label for="store-name">Name</label>
<input type="text" id="store-name" name="name" required maxlength="200" value="${values.name}"${invalid(error, "name")}></div>
<div class="field"><label for="store-currency">Currency <span class="hint">(ISO 4217 code, e.g. USD)</span></label>
<input type="text" id="store-currency" name="currency" required minlength="3" maxlength="3" value="${values.currency}"${invalid(error, "currency")}></div>
<div class="field"><label for="store-timezone">Time zone <span class="hint">(IANA name, e.g. Europe/Berlin)</span></label>
<input type="text" id="store-timezone" name="timezone" required maxlength="64" value="${values.timezone}"${invalid(error, "timezone")}></div>
<div class="field"><label for="store-domain">Domain <span class="hint">(optional; generated when empty)</span></label>
<input type="text" id="store-domain" name="domain" maxlength="255" value="${values.domain}"${invalid(error, "domain")}></div>
<div class="field"><label for="store-owner">Owner email <span class="hint">(optional; receives webhook notices)</span></label>
<input type="email" id="store-owner" name="owner_email" value="${values.owner_email}"${invalid(error, "owner_email")}></div>
<div class="field"><label for="store-seed">Simulated platform catalog</label>
<select id="store-seed" name="seed">
<option value="empty"${values.seed !== "demo" ? html` selected` : ""}>Empty</option>
<option value="demo"${values.seed === "demo" ? html` selected` : ""}>Demo catalog</option>
</select></div>
<div><button type="submit">Create store</button></div>
</form>`;
}

async function renderStores(ctx: PageContext, values: StoreForm, error: AdminError | null, status: number) {
  const stores = (await ctx.admin.get<{ data: StoreSummary[] }>("/admin/stores")).data;
  const body = html`${table(
    `${stores.length} store${stores.length === 1 ? "" : "s"}`,
    [
      { header: "ID", cell: (s) => s.id, numeric: true },
      { header: "Name", cell: (s) => html`<a href="${storePath(s.id)}">${s.name}</a>` },
      { header: "Domain", cell: (s) => s.domain },
      { header: "Currency", cell: (s) => s.currency },
      { header: "Time zone", cell: (s) => s.timezone },
      {
        header: "Platform",
        cell: (s) => platformName(s),
      },
      {
        header: "API access",
        cell: (s) =>
          s.api_access ? html`<span class="state-on">On</span>` : html`<span class="state-off">Off</span>`,
      },
      { header: "Created", cell: (s) => s.created_at },
    ],
    stores,
    "No stores yet. Create one below.",
  )}
${createStoreForm(ctx, values, error)}`;
  return sendPage(
    ctx.reply,
    page({ title: "Stores", session: ctx.session, body, flash: takeFlash(ctx.session) }),
    status,
  );
}

const EMPTY_FORM: StoreForm = {
  name: "",
  currency: "",
  timezone: "UTC",
  domain: "",
  owner_email: "",
  seed: "empty",
};

export function storesPage(ctx: PageContext) {
  return renderStores(ctx, EMPTY_FORM, null, 200);
}

export async function createStoreAction(ctx: PageContext) {
  const form = formOf(ctx.request);
  const values: StoreForm = {
    name: field(form, "name"),
    currency: field(form, "currency").toUpperCase(),
    timezone: field(form, "timezone"),
    domain: field(form, "domain"),
    owner_email: field(form, "owner_email"),
    seed: field(form, "seed") === "demo" ? "demo" : "empty",
  };
  try {
    const created = await ctx.admin.post<{ data: StoreSummary }>("/admin/stores", {
      name: values.name,
      currency: values.currency,
      timezone: values.timezone,
      ...(values.domain !== "" && { domain: values.domain }),
      ...(values.owner_email !== "" && { owner_email: values.owner_email }),
      seed: values.seed,
    });
    ctx.session.flash.push({ kind: "ok", text: `Store “${created.data.name}” created.` });
    return redirectTo(ctx.reply, storePath(created.data.id));
  } catch (error) {
    if (error instanceof AdminError && error.status === 422) return renderStores(ctx, values, error, 422);
    throw error;
  }
}

/**
 * Where a staff member's work starts, by what their role may do: the store's front page leads with it
 * (a buyer signing in found the API switch and rate limits first). Links only, so no API call.
 */
function shortcuts(ctx: PageContext, storeId: number): SafeHtml {
  const open = `/purchase_orders?status=${encodeURIComponent("ordered,in_transit,partial")}`;
  const links: [string, string][] = [
    ...(can(ctx.request, "purchase_orders")
      ? ([
          ["New purchase order", "/purchase_orders/new"],
          ["Drafts", "/purchase_orders?status=draft"],
        ] as [string, string][])
      : []),
    ["Orders awaiting delivery", open],
    ["Low stock", "/stock/low"],
    ["Stock levels", "/stock"],
    ...(can(ctx.request, "stock")
      ? ([["New stock adjustment", "/stock_adjustments/new"]] as [string, string][])
      : []),
    ...(can(ctx.request, "suppliers") ? ([["Suppliers", "/suppliers"]] as [string, string][]) : []),
  ];
  return html`<nav class="shortcuts" aria-labelledby="shortcuts"><h2 id="shortcuts">Start here</h2>
<ul>${links.map(([label, rest]) => html`<li><a href="${storePath(storeId, rest)}">${label}</a></li>`)}</ul></nav>`;
}

/** A count as people write it: 100000 as "100,000". */
const count = (n: number) => new Intl.NumberFormat("en-US").format(n);

export async function storePage(ctx: PageContext, rawId: unknown) {
  const store = await loadStore(ctx, rawId);
  // The API's switch and the rate limits are the store's settings: shown to those who keep them.
  const keepsSettings = can(ctx.request, "settings");
  const body = html`${shortcuts(ctx, store.id)}${keepsSettings ? apiAccessSection(ctx, store, "overview") : ""}
<h2>Settings</h2>
${dl(
  [
    ["Name", store.name],
    ["Domain", store.domain],
    ["Currency", store.currency],
    ["Time zone", store.timezone],
    ["Owner email", store.owner_email],
    ["Created", store.created_at],
    ["Updated", store.updated_at],
  ],
  store.timezone,
)}
${platformSummary(store)}
<h2>Numbering</h2>
${dl([
  ["Purchase order prefix", String(store.numbering.purchase_order_prefix)],
  ["Next purchase order number", store.numbering.next_purchase_order_number],
  ["Stock adjustment prefix", String(store.numbering.stock_adjustment_prefix)],
  ["Next stock adjustment number", store.numbering.next_stock_adjustment_number],
])}
${
  keepsSettings
    ? html`<h2>Rate limits (requests per minute)</h2>
${dl([
  ["Per key", count(store.rate_limits.per_key_per_minute)],
  ["Per store", count(store.rate_limits.per_store_per_minute)],
  ["Writes per store", count(store.rate_limits.writes_per_store_per_minute)],
])}`
    : ""
}`;
  return sendPage(
    ctx.reply,
    page({
      title: "Overview",
      session: ctx.session,
      store,
      tab: "overview",
      body,
      flash: takeFlash(ctx.session),
    }),
  );
}
