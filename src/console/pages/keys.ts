import type { AdminKeyView, Page, RequestLogView } from "../../admin/views.ts";
import { SCOPES } from "../../domain/scopes.ts";
import { html, type SafeHtml } from "../../html/template.ts";
import { AdminError } from "../admin.ts";
import { confirmed, confirmStep } from "../confirm.ts";
import {
  field,
  fieldList,
  formOf,
  idOf,
  loadStore,
  type PageContext,
  PageNotFound,
  queryOf,
  redirectTo,
  sendPage,
  takeFlash,
} from "../context.ts";
import { csrfField, errorSummary, page, storePath, table } from "../layout.ts";
import { queryString } from "../query-string.ts";
import { settingsNav } from "../settings-nav.ts";
import { instantOf } from "../times.ts";

const SCOPE_HINTS: Record<string, string> = {
  read: "read everything",
  "write:purchase_orders": "purchase orders, receipts, payments",
  "write:suppliers": "suppliers and their catalogs",
  "write:inventory": "stock adjustments",
  "write:manufacturing": "manufacturing",
  webhooks: "webhook subscriptions",
};

function keyState(key: AdminKeyView, now: number): SafeHtml {
  if (key.revoked_at) return html`<span class="badge badge-bad">Revoked</span>`;
  if (key.expires_at && Date.parse(key.expires_at) <= now)
    return html`<span class="badge badge-neutral">Expired</span>`;
  return html`<span class="badge badge-ok">Active</span>`;
}

interface KeyForm {
  name: string;
  scopes: string[];
  expires_at: string;
}

async function renderKeys(
  ctx: PageContext,
  rawId: unknown,
  values: KeyForm,
  error: AdminError | null,
  status: number,
) {
  const store = await loadStore(ctx, rawId);
  const keys = (await ctx.admin.get<{ data: AdminKeyView[] }>(`/admin/stores/${store.id}/keys`)).data;
  const now = ctx.request.server.ctx.clock.now().getTime();
  // The secret of a key made a moment ago, shown on this page once and then forgotten.
  const fresh = ctx.session.newKey?.storeId === store.id ? ctx.session.newKey : null;
  if (fresh) ctx.session.newKey = null;
  const secretPanel = fresh
    ? html`<section class="secret" aria-labelledby="new-key-title">
<h2 id="new-key-title">New key “${fresh.name}”</h2>
<p><strong>Copy the secret now.</strong> It is shown only this once; the service keeps only a hash of it.</p>
<div class="row">
<label for="new-key-secret">Secret</label>
<input type="text" id="new-key-secret" readonly value="${fresh.key}" autocomplete="off" spellcheck="false">
<button type="button" data-copy-target="new-key-secret" data-copy-status="copy-status">Copy</button>
</div>
<p id="copy-status" role="status" aria-live="polite" class="hint"></p>
</section>`
    : "";
  const body = html`${settingsNav(store.id, "keys")}${secretPanel}
${table(
  "API keys",
  [
    { header: "ID", cell: (k) => k.id, numeric: true },
    { header: "Name", cell: (k) => k.name },
    { header: "Prefix", cell: (k) => html`<code>${k.prefix}</code>` },
    { header: "Scopes", cell: (k) => k.scopes },
    { header: "State", cell: (k) => keyState(k, now) },
    { header: "Expires", cell: (k) => k.expires_at },
    { header: "Last used", cell: (k) => k.last_used_at },
    { header: "Created", cell: (k) => k.created_at },
    {
      header: "Actions",
      cell: (k) =>
        k.revoked_at
          ? html`<a href="${storePath(store.id, `/request_log${queryString({ key_id: k.id })}`)}">Requests</a>`
          : html`<a href="${storePath(store.id, `/request_log${queryString({ key_id: k.id })}`)}">Requests</a>
<form method="post" action="${storePath(store.id, `/keys/${k.id}/revoke`)}" class="inline">${csrfField(ctx.session)}<button type="submit" aria-label="Revoke ${k.name}">Revoke</button></form>`,
    },
  ],
  keys,
  "No keys yet. Create one below.",
  store.timezone,
)}
<h2 id="create-key">Create a key</h2>
${error ? errorSummary(error.message, error.details) : ""}
<form method="post" action="${storePath(store.id, "/keys")}" class="stack" aria-labelledby="create-key">
${csrfField(ctx.session)}
<div class="field"><label for="key-name">Name <span class="hint">(who or what uses it)</span></label>
<input type="text" id="key-name" name="name" required maxlength="200" value="${values.name}"></div>
<fieldset><legend>Scopes</legend>
${SCOPES.map(
  (scope) =>
    html`<label><input type="checkbox" name="scopes" value="${scope}"${values.scopes.includes(scope) ? html` checked` : ""}> <code>${scope}</code> <span class="hint">${SCOPE_HINTS[scope] ?? ""}</span></label>`,
)}
</fieldset>
<div class="field"><label for="key-expires">Expires at <span class="hint">(optional; the store's time)</span></label>
<input type="datetime-local" id="key-expires" name="expires_at" value="${values.expires_at}"></div>
<div><button type="submit">Create key</button></div>
</form>`;
  return sendPage(
    ctx.reply,
    page({
      title: "API keys",
      session: ctx.session,
      store,
      tab: "settings",
      body,
      flash: takeFlash(ctx.session),
    }),
    status,
  );
}

export function keysPage(ctx: PageContext, rawId: unknown) {
  return renderKeys(ctx, rawId, { name: "", scopes: ["read"], expires_at: "" }, null, 200);
}

/**
 * `YYYY-MM-DDTHH:MM[:SS]` from a datetime-local field, read in the store's zone: the keys' times are
 * shown in it, so a key set to expire at 18:00 shows 18:00. Null: no expiry; undefined: not a time.
 */
function expiryOf(value: string, timeZone: string): string | null | undefined {
  if (value === "") return null;
  return instantOf(value, timeZone) ?? undefined;
}

export async function createKeyAction(ctx: PageContext, rawId: unknown) {
  const storeId = idOf(rawId);
  const form = formOf(ctx.request);
  const values: KeyForm = {
    name: field(form, "name"),
    scopes: fieldList(form, "scopes"),
    expires_at: field(form, "expires_at"),
  };
  const store = values.expires_at === "" ? null : await loadStore(ctx, storeId);
  const expires = expiryOf(values.expires_at, store?.timezone ?? "UTC");
  if (expires === undefined) {
    const error = new AdminError(422, "validation_failed", "expires_at: is not a date and time", [
      { field: "expires_at", code: "invalid_format", message: "is not a date and time" },
    ]);
    return renderKeys(ctx, storeId, values, error, 422);
  }
  try {
    const created = await ctx.admin.post<{ data: { id: number; name: string; prefix: string; key: string } }>(
      `/admin/stores/${storeId}/keys`,
      { name: values.name, scopes: values.scopes, ...(expires !== null && { expires_at: expires }) },
    );
    const { id, name, prefix, key } = created.data;
    ctx.session.newKey = { storeId, id, name, prefix, key };
    ctx.session.flash.push({ kind: "ok", text: `Key “${name}” created.` });
    return redirectTo(ctx.reply, storePath(storeId, "/keys"));
  } catch (error) {
    if (error instanceof AdminError && error.status === 422)
      return renderKeys(ctx, storeId, values, error, 422);
    throw error;
  }
}

/** Whether a key still opens the API (neither revoked nor expired). */
function isLive(key: AdminKeyView, now: number): boolean {
  return !key.revoked_at && !(key.expires_at && Date.parse(key.expires_at) <= now);
}

export async function revokeKeyAction(ctx: PageContext, rawId: unknown, rawKeyId: unknown) {
  const storeId = idOf(rawId);
  const keyId = idOf(rawKeyId);
  const path = `/admin/stores/${storeId}/keys`;
  // Revoking the store's last live key cuts every integration off: that asks first.
  if (!confirmed(formOf(ctx.request))) {
    const keys = (await ctx.admin.get<{ data: AdminKeyView[] }>(path)).data;
    const now = ctx.request.server.ctx.clock.now().getTime();
    const key = keys.find((k) => k.id === keyId);
    if (!key) throw new PageNotFound("This store has no key with that id.");
    const live = keys.filter((k) => isLive(k, now));
    if (live.length === 1 && live[0].id === keyId) {
      const store = await loadStore(ctx, storeId);
      const body = html`${settingsNav(storeId, "keys")}${confirmStep({
        session: ctx.session,
        action: storePath(storeId, `/keys/${keyId}/revoke`),
        question: html`Revoke “${key.name}”, the store's last active key?`,
        consequence:
          "Every integration using the API with this store stops working until a new key is made and given to it. A revoked key cannot be turned back on.",
        button: `Revoke ${key.name}`,
        cancelHref: storePath(storeId, "/keys"),
        cancel: "Keep the key",
      })}`;
      return sendPage(
        ctx.reply,
        page({ title: "Revoke the last key?", session: ctx.session, store, tab: "settings", body }),
      );
    }
  }
  const key = await ctx.admin.post<{ data: AdminKeyView }>(`${path}/${keyId}/revoke`);
  ctx.session.flash.push({
    kind: "ok",
    text: `Key “${key.data.name}” (${key.data.prefix}) revoked.`,
  });
  return redirectTo(ctx.reply, storePath(storeId, "/keys"));
}

export async function requestLogPage(ctx: PageContext, rawId: unknown) {
  const store = await loadStore(ctx, rawId);
  const q = queryOf(ctx.request);
  const filters = { key_id: q.key_id ?? "", status: q.status ?? "", limit: q.limit ?? "" };
  const keys = (await ctx.admin.get<{ data: AdminKeyView[] }>(`/admin/stores/${store.id}/keys`)).data;
  const keyName = new Map(keys.map((k) => [k.id, `${k.name} (${k.prefix})`]));
  let rows: RequestLogView[] = [];
  let next: string | null = null;
  let problem: SafeHtml | string = "";
  try {
    const result = await ctx.admin.get<Page<RequestLogView>>(
      `/admin/stores/${store.id}/request_log${queryString({ ...filters, cursor: q.cursor })}`,
    );
    rows = result.data;
    next = result.has_more ? result.next_cursor : null;
  } catch (error) {
    if (!(error instanceof AdminError) || (error.status !== 422 && error.status !== 400)) throw error;
    problem = errorSummary(error.message, error.details);
  }
  const body = html`${settingsNav(store.id, "request_log")}<form method="get" action="${storePath(store.id, "/request_log")}" class="filters" role="search" aria-label="Filter the request log">
<div class="field"><label for="log-key">Key</label>
<select id="log-key" name="key_id">
<option value="">All keys</option>
${keys.map((k) => html`<option value="${k.id}"${String(k.id) === filters.key_id ? html` selected` : ""}>${k.name} (${k.prefix})</option>`)}
</select></div>
<div class="field"><label for="log-status">Status</label>
<input type="number" id="log-status" name="status" min="100" max="599" inputmode="numeric" value="${filters.status}"></div>
${filters.limit !== "" ? html`<input type="hidden" name="limit" value="${filters.limit}">` : ""}
<div><button type="submit">Filter</button> <a href="${storePath(store.id, "/request_log")}">Clear</a></div>
</form>
${problem}
${table(
  "Requests, newest first",
  [
    { header: "Time", cell: (r) => r.created_at },
    { header: "Method", cell: (r) => r.method },
    { header: "Path", cell: (r) => html`<code>${r.path}</code>` },
    { header: "Status", cell: (r) => r.status, numeric: true },
    { header: "Key", cell: (r) => (r.key_id === null ? null : (keyName.get(r.key_id) ?? `#${r.key_id}`)) },
    { header: "Duration (ms)", cell: (r) => r.duration_ms, numeric: true },
    { header: "Idempotency key", cell: (r) => r.idempotency_key },
    { header: "Request id", cell: (r) => html`<code>${r.request_id}</code>` },
  ],
  rows,
  "No requests match.",
  store.timezone,
)}
<nav class="pager" aria-label="Pages">
${q.cursor ? html`<a href="${storePath(store.id, `/request_log${queryString(filters)}`)}">First page</a>` : ""}
${next ? html`<a href="${storePath(store.id, `/request_log${queryString({ ...filters, cursor: next })}`)}" rel="next">Next page</a>` : ""}
</nav>`;
  return sendPage(
    ctx.reply,
    page({
      title: "Request log",
      session: ctx.session,
      store,
      tab: "settings",
      body,
      flash: takeFlash(ctx.session),
    }),
  );
}
