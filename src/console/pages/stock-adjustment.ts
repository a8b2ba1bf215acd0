import { html, type SafeHtml } from "../../html/template.ts";
import { can, requirePermission } from "../actor.ts";
import { AdminError } from "../admin.ts";
import { field, formOf, type PageContext, redirectTo } from "../context.ts";
import { itemField, type PickedItem, pickItem } from "../item-picker.ts";
import { csrfField, dl, table, timeHtml } from "../layout.ts";
import { levelItemLabel, levelsAt } from "../stock-levels.ts";
import { storeApi } from "../store-api.ts";
import { formKey, storeInfoOf } from "../store-pages.ts";
import {
  type Adjustment,
  type AdjustmentLine,
  adjustmentsPath,
  deltaField,
  loadAdjustment,
  parseDelta,
  render,
  STATUS_WORDS,
  signed,
} from "./stock-adjustment-view.ts";

/**
 * One stock adjustment's page: its lines with the available quantity before and after, a draft's
 * lines changed, removed or added, and apply or cancel after a confirmation (an Idempotency-Key made
 * when the page was drawn, so a double click or a reload applies once).
 */

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

export async function adjustmentPage(
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
    ...(adjustment.applied_at
      ? [["Applied", timeHtml(adjustment.applied_at, store.timezone)] as [string, SafeHtml]]
      : []),
    ...(adjustment.cancelled_at
      ? [["Cancelled", timeHtml(adjustment.cancelled_at, store.timezone)] as [string, SafeHtml]]
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
export async function saveLinesAction(ctx: PageContext, rawId: unknown) {
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

export async function addLineAction(ctx: PageContext, rawId: unknown) {
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
export async function finishAction(ctx: PageContext, rawId: unknown, action: "apply" | "cancel") {
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
