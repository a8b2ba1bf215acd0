import { html } from "../../html/template.ts";
import { AdminError } from "../admin.ts";
import { idOf, loadStore, type PageContext, redirectTo } from "../context.ts";
import { actionButton, dl, notAvailable, storePath, table } from "../layout.ts";
import { platformSummary } from "../platform-summary.ts";
import { sendSettingsPage } from "./settings.ts";

/**
 * The platform's sync queue (settings): records by sync state, the catalog mirror, the level
 * reconciliation, and failed pushes with a retry. The shop's own state (Shopify: connected, importing,
 * disconnected and why) heads the page. These are the admin API's: the public API has no sync routes.
 */

interface SyncStatus {
  counts: Record<string, number>;
  failed: {
    job_id: number;
    subject_type: string;
    subject_id: number;
    /** The order's or adjustment's number (a receipt's order's); null when the record is gone. */
    subject_number?: string | null;
    purchase_order_id?: number | null;
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

export async function syncPage(ctx: PageContext, rawId: unknown) {
  const store = await loadStore(ctx, rawId);
  const path = `/admin/stores/${store.id}/sync`;
  if (!ctx.admin.has("GET", path))
    return sendSettingsPage(ctx, store, "platform", "Platform sync", notAvailable("Platform sync status"));
  const status = (await ctx.admin.get<{ data: SyncStatus }>(path)).data;
  const canRetry = ctx.admin.has("POST", `${path}/1/retry`);
  const countRows = Object.entries(status.counts).map(([state, n]) => ({ state, n }));
  const body = html`${platformSummary(store)}
<div class="grid-2">
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
    ? html`<section aria-labelledby="mirror-title"><h2 id="mirror-title">Catalog mirror</h2>${dl(
        [
          ["Last synced", status.mirror.synced_at],
          ["Watermark", status.mirror.watermark],
          ["Last error", status.mirror.last_error],
        ],
        store.timezone,
      )}</section>`
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
        store.timezone,
      )}</section>`
    : ""
}
</div>
${table(
  "Failed pushes to the platform",
  [
    { header: "Job", cell: (f) => f.job_id, numeric: true },
    { header: "Record", cell: (f) => recordCell(store.id, f) },
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
  store.timezone,
)}`;
  return sendSettingsPage(ctx, store, "platform", "Platform sync", body);
}

/**
 * The failed push's record by the number people know it by, linked (issue 20 item 8); the internal
 * id only when the record is gone.
 */
function recordCell(storeId: number, f: SyncStatus["failed"][number]) {
  if (f.subject_number && f.subject_type === "stock_adjustment")
    return html`Stock adjustment <a href="${storePath(storeId, `/stock_adjustments/${f.subject_id}`)}">${f.subject_number}</a>`;
  if (f.subject_number && f.purchase_order_id) {
    const order = storePath(storeId, `/purchase_orders/${f.purchase_order_id}`);
    return f.subject_type === "receipt"
      ? html`A delivery on <a href="${order}#receipts">${f.subject_number}</a>`
      : html`Purchase order <a href="${order}">${f.subject_number}</a>`;
  }
  return `${f.subject_type.replace(/_/g, " ")} ${f.subject_id}`;
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
