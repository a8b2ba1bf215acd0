import { EVENT_CATALOGUE } from "../../domain/webhooks/index.ts";
import { html, type SafeHtml } from "../../html/template.ts";
import { AdminError } from "../admin.ts";
import { confirmed, confirmStep } from "../confirm.ts";
import {
  field,
  fieldList,
  formOf,
  idOf,
  type PageContext,
  PageNotFound,
  queryOf,
  redirectTo,
} from "../context.ts";
import { actionButton, csrfField, dl, notAvailable, storePath, table } from "../layout.ts";
import { queryString } from "../query-string.ts";
import { storeApi } from "../store-api.ts";
import { fieldError, formErrors, invalidAttrs, type StoreInfo, storeInfoOf } from "../store-pages.ts";
import { sendSettingsPage } from "./settings.ts";

/**
 * The store's webhooks (settings), through the public API as the signed-in owner or the operator:
 * create one (its signing secret shown once), pause and resume, send a test, delete (asks first),
 * the delivery log with redelivery. The API's rules apply as they are (https, public addresses, at
 * most 10 endpoints).
 */

interface Webhook {
  id: number;
  url: string;
  description: string | null;
  events: string[];
  status: "active" | "paused" | "disabled";
  consecutive_failures: number;
  last_delivered_at: string | null;
  last_failed_at: string | null;
  disabled_at: string | null;
  disabled_reason: string | null;
}

interface Delivery {
  id: number;
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

const LABELS = { url: "URL", events: "Events", description: "Description" } as const;
const inputId = (name: string) => `webhook-${name}`;

/** Events a merchant subscribes to; the test event is sent on request, to any endpoint. */
const SUBSCRIBABLE = EVENT_CATALOGUE.filter((e) => e !== "webhook.test");

const webhooksPath = (storeId: number, rest = "") => storePath(storeId, `/webhooks${rest}`);

/** The webhook routes are the webhooks module's: a build without it says so instead of failing. */
function available(ctx: PageContext): boolean {
  return ctx.request.server.findRoute({ method: "GET", url: "/v2/webhooks" }) !== null;
}

function statusBadge(status: string): SafeHtml {
  const kind = status === "active" ? "ok" : status === "disabled" ? "bad" : "neutral";
  return html`<span class="badge badge-${kind}">${status}</span>`;
}

function eventsText(events: string[]): string {
  return events.includes("*") ? "All events" : events.join(", ");
}

interface WebhookForm {
  url: string;
  description: string;
  events: string[];
}

function createForm(ctx: PageContext, storeId: number, values: WebhookForm, error: AdminError | null) {
  const all = values.events.includes("*");
  return html`<h2 id="new-webhook">Add an endpoint</h2>
${formErrors(error, LABELS, inputId)}
<form method="post" action="${webhooksPath(storeId)}" class="stack wide" aria-labelledby="new-webhook">
${csrfField(ctx.session)}
<div class="field"><label for="${inputId("url")}">URL <span class="hint">(https, reachable from the internet)</span></label>
<input type="url" id="${inputId("url")}" name="url" required maxlength="2000" value="${values.url}"${invalidAttrs(error, "url", inputId("url"))}>${fieldError(error, "url", inputId("url"), LABELS.url)}</div>
<div class="field"><label for="${inputId("description")}">Description <span class="hint">(optional: what listens there)</span></label>
<input type="text" id="${inputId("description")}" name="description" maxlength="500" value="${values.description}"${invalidAttrs(error, "description", inputId("description"))}>${fieldError(error, "description", inputId("description"), LABELS.description)}</div>
<fieldset id="${inputId("events")}"${invalidAttrs(error, "events", inputId("events"))}><legend>Events</legend>
<label><input type="checkbox" name="events" value="*"${all ? html` checked` : ""}> <strong>All events</strong> <span class="hint">(including ones added later)</span></label>
<div class="grid">${SUBSCRIBABLE.map(
    (e) =>
      html`<label><input type="checkbox" name="events" value="${e}"${values.events.includes(e) ? html` checked` : ""}> <code>${e}</code></label>`,
  )}</div>
${fieldError(error, "events", inputId("events"), LABELS.events)}
</fieldset>
<div><button type="submit">Add endpoint</button></div>
</form>`;
}

async function renderWebhooks(ctx: PageContext, values: WebhookForm, error: AdminError | null) {
  const store = await storeInfoOf(ctx.request);
  if (!available(ctx)) return sendSettingsPage(ctx, store, "webhooks", "Webhooks", notAvailable("Webhooks"));
  const hooks = (await storeApi(ctx.request).get<{ data: Webhook[] }>("/webhooks")).data;
  const fresh = ctx.session.newWebhookSecret?.storeId === store.id ? ctx.session.newWebhookSecret : null;
  if (fresh) ctx.session.newWebhookSecret = null;
  const secretPanel = fresh
    ? html`<section class="secret" aria-labelledby="new-secret-title">
<h2 id="new-secret-title">Signing secret of ${fresh.url}</h2>
<p><strong>Copy the secret now.</strong> It is shown only this once; the receiver checks each delivery's signature with it.</p>
<div class="row">
<label for="new-webhook-secret">Secret</label>
<input type="text" id="new-webhook-secret" readonly value="${fresh.secret}" autocomplete="off" spellcheck="false">
<button type="button" data-copy-target="new-webhook-secret" data-copy-status="copy-status">Copy</button>
</div>
<p id="copy-status" role="status" aria-live="polite" class="hint"></p>
</section>`
    : "";
  const body = html`${secretPanel}
${table(
  "Webhook endpoints",
  [
    {
      header: "Endpoint",
      cell: (w) =>
        html`<a href="${webhooksPath(store.id, `/${w.id}`)}">${w.url}</a>${w.description ? html`<br><span class="hint">${w.description}</span>` : ""}`,
    },
    { header: "Status", cell: (w) => statusBadge(w.status) },
    { header: "Events", cell: (w) => eventsText(w.events) },
    { header: "Failures in a row", cell: (w) => w.consecutive_failures, numeric: true },
    { header: "Last delivered", cell: (w) => w.last_delivered_at },
  ],
  hooks,
  "No endpoints yet. Add one below.",
  store.timezone,
)}
${hooks.length < 10 ? createForm(ctx, store.id, values, error) : html`<p class="notice">A store has at most 10 endpoints: delete one to add another.</p>`}`;
  return sendSettingsPage(ctx, store, "webhooks", "Webhooks", body, error ? 422 : 200);
}

export function webhooksPage(ctx: PageContext) {
  return renderWebhooks(ctx, { url: "", description: "", events: ["*"] }, null);
}

export async function createWebhookAction(ctx: PageContext) {
  const storeId = idOf((ctx.request.params as { id?: string }).id);
  const form = formOf(ctx.request);
  const values: WebhookForm = {
    url: field(form, "url"),
    description: field(form, "description"),
    events: fieldList(form, "events"),
  };
  const events = values.events.includes("*") ? ["*"] : values.events;
  try {
    const created = await storeApi(ctx.request).post<{ data: Webhook & { secret: string } }>("/webhooks", {
      url: values.url,
      events,
      ...(values.description !== "" && { description: values.description }),
    });
    ctx.session.newWebhookSecret = {
      storeId,
      webhookId: created.data.id,
      url: created.data.url,
      secret: created.data.secret,
    };
    ctx.session.flash.push({ kind: "ok", text: `Endpoint ${created.data.url} added.` });
    return redirectTo(ctx.reply, webhooksPath(storeId));
  } catch (error) {
    if (error instanceof AdminError && (error.status === 422 || error.status === 400))
      return renderWebhooks(ctx, values, error);
    throw error;
  }
}

async function loadWebhook(ctx: PageContext, rawWebhookId: unknown): Promise<Webhook> {
  const id = idOf(rawWebhookId);
  try {
    return (await storeApi(ctx.request).get<{ data: Webhook }>(`/webhooks/${id}`)).data;
  } catch (error) {
    if (error instanceof AdminError && error.status === 404)
      throw new PageNotFound("This store has no webhook with that id.");
    throw error;
  }
}

export async function webhookPage(ctx: PageContext, rawWebhookId: unknown) {
  const store = await storeInfoOf(ctx.request);
  if (!available(ctx))
    return sendSettingsPage(
      ctx,
      store,
      "webhooks",
      "Webhook deliveries",
      notAvailable("The webhook delivery log"),
    );
  const hook = await loadWebhook(ctx, rawWebhookId);
  const q = queryOf(ctx.request);
  const filters = {
    status: q.status === "succeeded" || q.status === "failed" ? q.status : "",
    limit: /^\d{1,3}$/.test(q.limit ?? "") ? q.limit : "",
  };
  const result = await storeApi(ctx.request).get<{
    data: Delivery[];
    next_cursor: string | null;
    has_more: boolean;
  }>(`/webhooks/${hook.id}/deliveries${queryString({ ...filters, cursor: q.cursor })}`);
  const here = webhooksPath(store.id, `/${hook.id}`);
  const live = hook.status === "active";
  const body = html`${dl(
    [
      ["URL", html`<code>${hook.url}</code>`],
      ["Description", hook.description],
      ["Status", statusBadge(hook.status)],
      ["Events", eventsText(hook.events)],
      ["Failures in a row", hook.consecutive_failures],
      ["Disabled", hook.disabled_at],
      ["Disabled because", hook.disabled_reason],
    ],
    store.timezone,
  )}
<div class="actions">
${actionButton(ctx.session, `${here}/status`, live ? "Pause" : "Resume", { name: "status", value: live ? "paused" : "active" })}
${live ? actionButton(ctx.session, `${here}/test`, "Send a test event") : ""}
${actionButton(ctx.session, `${here}/delete`, "Delete endpoint")}
</div>
${live ? "" : html`<p class="hint">Tests and redeliveries wait until the endpoint is resumed.</p>`}
<h2 id="deliveries">Deliveries</h2>
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
  "Delivery attempts, newest first",
  [
    { header: "Time", cell: (d) => d.created_at },
    {
      header: "Event",
      cell: (d) => html`<code>${d.event}</code><br><code class="hint">${d.event_id}</code>`,
    },
    { header: "Attempt", cell: (d) => d.attempt, numeric: true },
    {
      header: "Result",
      cell: (d) =>
        html`<span class="badge badge-${d.status === "succeeded" ? "ok" : "bad"}">${d.status}</span>${d.status_code ? ` ${d.status_code}` : ""}`,
    },
    { header: "Error", cell: (d) => d.error },
    { header: "Next attempt", cell: (d) => d.next_attempt_at },
    {
      header: "Redeliver",
      cell: (d) =>
        live
          ? actionButton(ctx.session, `${here}/deliveries/${d.id}/redeliver`, `Redeliver ${d.event}`)
          : null,
    },
  ],
  result.data,
  "No delivery attempts yet.",
  store.timezone,
)}
<nav class="pager" aria-label="Pages">
${q.cursor ? html`<a href="${here}${queryString(filters)}">First page</a>` : ""}
${result.has_more && result.next_cursor ? html`<a href="${here}${queryString({ ...filters, cursor: result.next_cursor })}" rel="next">Next page</a>` : ""}
</nav>
<p><a href="${webhooksPath(store.id)}">Back to webhooks</a></p>`;
  return sendSettingsPage(ctx, store, "webhooks", "Webhook", body);
}

/** A refusal of the API (422, 409) as a message on the webhook's page; anything else is an error page. */
async function onWebhook(
  ctx: PageContext,
  rawWebhookId: unknown,
  act: (store: StoreInfo, hook: Webhook) => Promise<string>,
) {
  const store = await storeInfoOf(ctx.request);
  const hook = await loadWebhook(ctx, rawWebhookId);
  try {
    ctx.session.flash.push({ kind: "ok", text: await act(store, hook) });
  } catch (error) {
    if (!(error instanceof AdminError) || (error.status !== 422 && error.status !== 409)) throw error;
    ctx.session.flash.push({ kind: "error", text: `Not done: ${error.message}` });
  }
  return redirectTo(ctx.reply, webhooksPath(store.id, `/${hook.id}`));
}

export function webhookStatusAction(ctx: PageContext, rawWebhookId: unknown) {
  return onWebhook(ctx, rawWebhookId, async (_store, hook) => {
    const status = field(formOf(ctx.request), "status") === "paused" ? "paused" : "active";
    await storeApi(ctx.request).patch(`/webhooks/${hook.id}`, { status });
    return status === "paused"
      ? "Endpoint paused: deliveries wait until it is resumed."
      : "Endpoint resumed.";
  });
}

export function testWebhookAction(ctx: PageContext, rawWebhookId: unknown) {
  return onWebhook(ctx, rawWebhookId, async (_store, hook) => {
    const sent = await storeApi(ctx.request).post<{ data: { event_id: string } }>(
      `/webhooks/${hook.id}/test`,
    );
    return `Test event ${sent.data.event_id} queued; it shows below once delivered.`;
  });
}

export function redeliverAction(ctx: PageContext, rawWebhookId: unknown, rawDeliveryId: unknown) {
  const deliveryId = idOf(rawDeliveryId);
  return onWebhook(ctx, rawWebhookId, async (_store, hook) => {
    const res = await storeApi(ctx.request).post<{ data: { queued: number; event_ids: string[] } }>(
      `/webhooks/${hook.id}/deliveries/${deliveryId}/redeliver`,
    );
    return `Queued ${res.data.queued} event${res.data.queued === 1 ? "" : "s"} for redelivery (${res.data.event_ids.join(", ")}).`;
  });
}

/** Deleting an endpoint asks first: its delivery log goes with it and the receiver hears nothing more. */
export async function deleteWebhookAction(ctx: PageContext, rawWebhookId: unknown) {
  const store = await storeInfoOf(ctx.request);
  const hook = await loadWebhook(ctx, rawWebhookId);
  if (!confirmed(formOf(ctx.request))) {
    const body = confirmStep({
      session: ctx.session,
      action: webhooksPath(store.id, `/${hook.id}/delete`),
      question: html`Delete the endpoint ${hook.url}?`,
      consequence:
        "It receives no more events, and its delivery log is deleted with it. To receive events there again, add it anew (with a new signing secret).",
      button: "Delete endpoint",
      cancelHref: webhooksPath(store.id, `/${hook.id}`),
      cancel: "Keep it",
    });
    return sendSettingsPage(ctx, store, "webhooks", "Delete this endpoint?", body);
  }
  await storeApi(ctx.request).delete(`/webhooks/${hook.id}`);
  ctx.session.flash.push({ kind: "ok", text: `Endpoint ${hook.url} deleted.` });
  return redirectTo(ctx.reply, webhooksPath(store.id));
}
