import { html, type SafeHtml } from "../../html/template.ts";
import { AdminError } from "../admin.ts";
import {
  idOf,
  loadStore,
  type PageContext,
  PageNotFound,
  queryOf,
  redirectTo,
  type StoreSummary,
  sendPage,
  takeFlash,
} from "../context.ts";
import { actionButton, dl, notAvailable, page, type StoreTab, storePath, table } from "../layout.ts";
import { queryString } from "../query-string.ts";

interface Webhook {
  id: number;
  url: string;
  description: string | null;
  events: string[];
  status: string;
  api_version: number;
  consecutive_failures: number;
  last_delivered_at: string | null;
  last_failed_at: string | null;
  disabled_at: string | null;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

interface Delivery {
  id: number;
  webhook_id: number;
  event_id: string;
  event: string;
  attempt: number;
  status: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  next_attempt_at: string | null;
  created_at: string;
}

interface SyncStatus {
  counts: Record<string, number>;
  failed: {
    job_id: number;
    subject_type: string;
    subject_id: number;
    attempts: number;
    error: string | null;
    attempted_at: string | null;
  }[];
  mirror?: { watermark: string | null; synced_at: string | null; last_error: string | null };
  /** A Shopify store's level reconciliation; null for a platform that needs none. */
  reconciliation?: {
    last_reconciled_at: string | null;
    levels_checked: number;
    levels_repaired: number;
    last_error: string | null;
    failed_at: string | null;
  } | null;
}

function unavailablePage(
  ctx: PageContext,
  store: StoreSummary,
  title: string,
  tab: StoreTab,
  feature: string,
) {
  return sendPage(
    ctx.reply,
    page({
      title,
      session: ctx.session,
      store,
      tab,
      body: notAvailable(feature),
      flash: takeFlash(ctx.session),
    }),
  );
}

function webhookStatus(status: string): SafeHtml {
  const kind = status === "active" ? "ok" : status === "disabled" ? "bad" : "neutral";
  return html`<span class="badge badge-${kind}">${status}</span>`;
}

export async function webhooksPage(ctx: PageContext, rawId: unknown) {
  const store = await loadStore(ctx, rawId);
  const path = `/admin/stores/${store.id}/webhooks`;
  if (!ctx.admin.has("GET", path)) return unavailablePage(ctx, store, "Webhooks", "webhooks", "Webhooks");
  const hooks = (await ctx.admin.get<{ data: Webhook[] }>(path)).data;
  const body = html`<p class="muted">Endpoints are created through the API (<code>POST /v2/webhooks</code>) with a key that has the <code>webhooks</code> scope.</p>
${table(
  "Webhook endpoints",
  [
    { header: "ID", cell: (w) => w.id, numeric: true },
    { header: "URL", cell: (w) => html`<code>${w.url}</code>` },
    { header: "Status", cell: (w) => webhookStatus(w.status) },
    { header: "Events", cell: (w) => w.events },
    { header: "Failures in a row", cell: (w) => w.consecutive_failures, numeric: true },
    { header: "Last delivered", cell: (w) => w.last_delivered_at },
    { header: "Last failed", cell: (w) => w.last_failed_at },
    {
      header: "Delivery log",
      cell: (w) =>
        html`<a href="${storePath(store.id, `/webhooks/${w.id}`)}">Deliveries of webhook ${w.id}</a>`,
    },
  ],
  hooks,
  "This store has no webhooks.",
)}`;
  return sendPage(
    ctx.reply,
    page({
      title: "Webhooks",
      session: ctx.session,
      store,
      tab: "webhooks",
      body,
      flash: takeFlash(ctx.session),
    }),
  );
}

export async function deliveriesPage(ctx: PageContext, rawId: unknown, rawWebhookId: unknown) {
  const store = await loadStore(ctx, rawId);
  const webhookId = idOf(rawWebhookId);
  const listPath = `/admin/stores/${store.id}/webhooks`;
  const path = `${listPath}/${webhookId}/deliveries`;
  if (!ctx.admin.has("GET", path) || !ctx.admin.has("GET", listPath))
    return unavailablePage(ctx, store, "Webhook deliveries", "webhooks", "The webhook delivery log");
  const hook = (await ctx.admin.get<{ data: Webhook[] }>(listPath)).data.find((w) => w.id === webhookId);
  if (!hook) throw new PageNotFound("This store has no webhook with that id.");
  const q = queryOf(ctx.request);
  const filters = {
    status: q.status === "succeeded" || q.status === "failed" ? q.status : "",
    limit: q.limit ?? "",
  };
  let result: { data: Delivery[]; next_cursor: string | null; has_more: boolean };
  try {
    result = await ctx.admin.get(`${path}${queryString({ ...filters, cursor: q.cursor })}`);
  } catch (error) {
    if (error instanceof AdminError && error.status === 404)
      throw new PageNotFound("This store has no webhook with that id.");
    throw error;
  }
  const canRedeliver = ctx.admin.has("POST", `${path}/1/redeliver`);
  const here = storePath(store.id, `/webhooks/${webhookId}`);
  const body = html`${dl([
    ["URL", html`<code>${hook.url}</code>`],
    ["Status", webhookStatus(hook.status)],
    ["Events", hook.events],
    ["Description", hook.description],
    ["Failures in a row", hook.consecutive_failures],
    ["Disabled", hook.disabled_at],
    ["Disabled because", hook.disabled_reason],
  ])}
<form method="get" action="${here}" class="filters" role="search" aria-label="Filter deliveries">
<div class="field"><label for="delivery-status">Result</label>
<select id="delivery-status" name="status">
<option value="">All</option>
<option value="succeeded"${filters.status === "succeeded" ? html` selected` : ""}>Succeeded</option>
<option value="failed"${filters.status === "failed" ? html` selected` : ""}>Failed</option>
</select></div>
<div><button type="submit">Filter</button></div>
</form>
${table(
  "Delivery attempts",
  [
    { header: "ID", cell: (d) => d.id, numeric: true },
    { header: "Time", cell: (d) => d.created_at },
    {
      header: "Event",
      cell: (d) => html`<code>${d.event}</code><br><code class="hint">${d.event_id}</code>`,
    },
    { header: "Attempt", cell: (d) => d.attempt, numeric: true },
    {
      header: "Result",
      cell: (d) =>
        html`<span class="badge badge-${d.status === "succeeded" ? "ok" : "bad"}">${d.status}</span>`,
    },
    { header: "HTTP status", cell: (d) => d.status_code, numeric: true },
    { header: "Duration (ms)", cell: (d) => d.duration_ms, numeric: true },
    { header: "Error", cell: (d) => d.error },
    { header: "Next attempt", cell: (d) => d.next_attempt_at },
    {
      header: "Actions",
      cell: (d) =>
        canRedeliver
          ? actionButton(ctx.session, `${here}/deliveries/${d.id}/redeliver`, `Redeliver ${d.id}`)
          : html`<span class="muted">Redelivery not available yet</span>`,
    },
  ],
  result.data,
  "No delivery attempts yet.",
)}
<nav class="pager" aria-label="Pages">
${q.cursor ? html`<a href="${here}${queryString(filters)}">First page</a>` : ""}
${result.has_more && result.next_cursor ? html`<a href="${here}${queryString({ ...filters, cursor: result.next_cursor })}" rel="next">Next page</a>` : ""}
</nav>`;
  return sendPage(
    ctx.reply,
    page({
      title: `Webhook ${webhookId} deliveries`,
      session: ctx.session,
      store,
      tab: "webhooks",
      body,
      flash: takeFlash(ctx.session),
    }),
  );
}

export async function redeliverAction(
  ctx: PageContext,
  rawId: unknown,
  rawWebhookId: unknown,
  rawDeliveryId: unknown,
) {
  const storeId = idOf(rawId);
  const webhookId = idOf(rawWebhookId);
  const deliveryId = idOf(rawDeliveryId);
  const path = `/admin/stores/${storeId}/webhooks/${webhookId}/deliveries/${deliveryId}/redeliver`;
  ctx.admin.require("POST", path, "Redelivery");
  const back = storePath(storeId, `/webhooks/${webhookId}`);
  try {
    const res = await ctx.admin.post<{ data: { queued: number; event_ids: string[] } }>(path);
    ctx.session.flash.push({
      kind: "ok",
      text: `Queued ${res.data.queued} event${res.data.queued === 1 ? "" : "s"} for redelivery (${res.data.event_ids.join(", ")}).`,
    });
  } catch (error) {
    if (!(error instanceof AdminError) || error.status !== 422) throw error;
    ctx.session.flash.push({ kind: "error", text: `Not redelivered: ${error.message}` });
  }
  return redirectTo(ctx.reply, back);
}

export async function syncPage(ctx: PageContext, rawId: unknown) {
  const store = await loadStore(ctx, rawId);
  const path = `/admin/stores/${store.id}/sync`;
  if (!ctx.admin.has("GET", path))
    return unavailablePage(ctx, store, "Platform sync", "sync", "Platform sync status");
  const status = (await ctx.admin.get<{ data: SyncStatus }>(path)).data;
  const canRetry = ctx.admin.has("POST", `${path}/1/retry`);
  const countRows = Object.entries(status.counts).map(([state, n]) => ({ state, n }));
  const body = html`<div class="grid-2">
${table(
  "Records by sync state",
  [
    { header: "State", cell: (r) => r.state },
    { header: "Records", cell: (r) => r.n, numeric: true },
  ],
  countRows,
)}
${
  status.mirror
    ? html`<section aria-labelledby="mirror-title"><h2 id="mirror-title">Catalog mirror</h2>${dl([
        ["Last synced", status.mirror.synced_at],
        ["Watermark", status.mirror.watermark],
        ["Last error", status.mirror.last_error],
      ])}</section>`
    : ""
}
${
  status.reconciliation
    ? html`<section aria-labelledby="reconciliation-title"><h2 id="reconciliation-title">Level reconciliation</h2>${dl(
        [
          ["Last reconciled", status.reconciliation.last_reconciled_at],
          ["Levels checked", status.reconciliation.levels_checked],
          ["Levels repaired", status.reconciliation.levels_repaired],
          ["Last error", status.reconciliation.last_error],
          ["Failed at", status.reconciliation.failed_at],
        ],
      )}</section>`
    : ""
}
</div>
${table(
  "Failed pushes to the platform",
  [
    { header: "Job", cell: (f) => f.job_id, numeric: true },
    { header: "Record", cell: (f) => `${f.subject_type.replace(/_/g, " ")} ${f.subject_id}` },
    { header: "Attempts", cell: (f) => f.attempts, numeric: true },
    { header: "Last attempt", cell: (f) => f.attempted_at },
    { header: "Error", cell: (f) => f.error },
    {
      header: "Actions",
      cell: (f) =>
        canRetry
          ? actionButton(ctx.session, storePath(store.id, `/sync/${f.job_id}/retry`), `Retry job ${f.job_id}`)
          : html`<span class="muted">Retry not available yet</span>`,
    },
  ],
  status.failed,
  "No failed pushes.",
)}`;
  return sendPage(
    ctx.reply,
    page({
      title: "Platform sync",
      session: ctx.session,
      store,
      tab: "sync",
      body,
      flash: takeFlash(ctx.session),
    }),
  );
}

export async function retrySyncAction(ctx: PageContext, rawId: unknown, rawJobId: unknown) {
  const storeId = idOf(rawId);
  const jobId = idOf(rawJobId);
  const path = `/admin/stores/${storeId}/sync/${jobId}/retry`;
  ctx.admin.require("POST", path, "Sync retry");
  try {
    await ctx.admin.post(path);
    ctx.session.flash.push({ kind: "ok", text: `Job ${jobId} queued again.` });
  } catch (error) {
    if (!(error instanceof AdminError) || (error.status !== 422 && error.status !== 404)) throw error;
    ctx.session.flash.push({ kind: "error", text: `Job ${jobId} not retried: ${error.message}` });
  }
  return redirectTo(ctx.reply, storePath(storeId, "/sync"));
}
