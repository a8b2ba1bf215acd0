import { html, type SafeHtml } from "../../html/template.ts";
import { requirePermission } from "../actor.ts";
import { AdminError } from "../admin.ts";
import { confirmed } from "../confirm.ts";
import { fieldList, formOf, type PageContext, queryOf, redirectTo, sendPage, takeFlash } from "../context.ts";
import { csrfField, page } from "../layout.ts";
import { queryString } from "../query-string.ts";
import { storeApi } from "../store-api.ts";
import { formKey, type StoreInfo, storeInfoOf } from "../store-pages.ts";
import {
  idempotencyKeyOf,
  loadSupplier,
  SUPPLIER_LABELS,
  type Supplier,
  suppliersPath,
  valuesOf,
} from "../supplier-form.ts";

/**
 * Merging suppliers into one (issue 20 item 2): on the surviving supplier's page, pick the duplicates
 * to merge into it; a confirmation page shows what would move (orders, catalog items, price lists, the
 * survivor's empty fields filled from the sources) from the API's merge preview, which writes nothing;
 * the merge itself is the API's, with an Idempotency-Key per confirmation so a double click merges once.
 */

interface Moved {
  purchase_orders: number;
  items: number;
  price_lists: number;
  suppliers: number;
}

const PICK_LIMIT = 100;

function render(ctx: PageContext, store: StoreInfo, title: string, body: SafeHtml, status = 200) {
  return sendPage(
    ctx.reply,
    page({ title, session: ctx.session, store, tab: "suppliers", body, flash: takeFlash(ctx.session) }),
    status,
  );
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The API's refusal (a source already merged, a network link) in words, with the sources' names. */
function refusalText(error: AdminError, byId: Map<number, Supplier>, sourceIds: number[]): SafeHtml {
  const items = error.details.map((d) => {
    const index = /^source_ids\.(\d+)$/.exec(d.field);
    const name = index
      ? byId.get(sourceIds[Number(index[1])])?.name
      : d.field === "target_id"
        ? "This supplier"
        : null;
    return html`<li>${name ?? ""} ${d.message}</li>`;
  });
  return html`<div class="flash flash-error" role="alert" id="merge-errors"><p>Nothing was merged. ${error.details.length === 0 ? error.message : ""}</p>${items.length > 0 ? html`<ul>${items}</ul>` : ""}</div>`;
}

async function pickPage(
  ctx: PageContext,
  store: StoreInfo,
  target: Supplier,
  picked: number[],
  problem: SafeHtml | string,
  status: number,
) {
  const q = (queryOf(ctx.request).q ?? "").trim();
  const found = await storeApi(ctx.request).get<{ data: Supplier[]; has_more: boolean }>(
    `/suppliers${queryString({ limit: PICK_LIMIT, q })}`,
  );
  const candidates = found.data.filter((s) => s.id !== target.id && s.merged_into_id === null);
  const base = suppliersPath(store.id, `/${target.id}`);
  const body = html`<p>Pick the suppliers that are duplicates of <strong>${target.name}</strong>. Their purchase orders and catalog items move to ${target.name}, they are archived, and ${target.name}'s empty fields are filled from them. You see what moves before anything changes.</p>
<form method="get" action="${base}/merge" class="filters" role="search" aria-label="Find suppliers to merge">
<div class="field"><label for="merge-q">Search</label>
<input type="search" id="merge-q" name="q" value="${q}" placeholder="Name, company, email"></div>
<div><button type="submit">Find</button></div>
</form>
${problem}
<form method="post" action="${base}/merge" class="stack wide" aria-labelledby="merge-sources">
${csrfField(ctx.session)}
<fieldset${problem ? html` aria-describedby="merge-errors"` : ""}><legend id="merge-sources">Merge into ${target.name}</legend>
${
  candidates.length === 0
    ? html`<p>${q ? "No other supplier matches that search." : "There is no other active supplier."}</p>`
    : html`<ul class="choices">${candidates.map(
        (s) =>
          html`<li><label><input type="checkbox" name="source_ids" value="${s.id}"${picked.includes(s.id) ? html` checked` : ""}> <a href="${suppliersPath(store.id, `/${s.id}`)}">${s.name}</a> <span class="hint">${[s.company_name, s.email, s.currency].filter(Boolean).join(" · ")}</span></label></li>`,
      )}</ul>`
}
${found.has_more ? html`<p class="hint">Showing the first ${PICK_LIMIT}; search to find others.</p>` : ""}
</fieldset>
<div><button type="submit">See what would move</button> <a href="${base}">Cancel</a></div>
</form>`;
  return render(ctx, store, `Merge into ${target.name}`, body, status);
}

export async function mergePage(ctx: PageContext, rawId: unknown) {
  requirePermission(ctx.request, "suppliers");
  const store = await storeInfoOf(ctx.request);
  const target = await loadSupplier(ctx, rawId);
  return pickPage(ctx, store, target, [], "", 200);
}

/** The target's fields a merge fills from the sources, as label: value pairs. */
function filledFields(before: Supplier, after: Supplier): [string, string][] {
  const was = valuesOf(before);
  const now = valuesOf(after);
  return Object.keys(now)
    .filter((name) => now[name] !== was[name] && now[name] !== "")
    .map((name) => [SUPPLIER_LABELS[name] ?? name, now[name].replace(/\n/g, ", ")]);
}

/**
 * First POST (no `confirm`): the API's preview as a confirmation page. Second POST (`confirm=yes`,
 * the same sources, the page's one-time key): the merge.
 */
export async function mergeAction(ctx: PageContext, rawId: unknown) {
  requirePermission(ctx.request, "suppliers");
  const store = await storeInfoOf(ctx.request);
  const target = await loadSupplier(ctx, rawId);
  const form = formOf(ctx.request);
  const sourceIds = [
    ...new Set(
      fieldList(form, "source_ids")
        .filter((v) => /^\d{1,10}$/.test(v))
        .map(Number),
    ),
  ];
  if (sourceIds.length === 0) {
    const problem = html`<div class="flash flash-error" role="alert" id="merge-errors"><p>Pick at least one supplier to merge into ${target.name}.</p></div>`;
    return pickPage(ctx, store, target, [], problem, 422);
  }
  const api = storeApi(ctx.request);
  const input = { target_id: target.id, source_ids: sourceIds };
  const sources = await Promise.all(sourceIds.map((id) => loadSupplier(ctx, id)));
  const byId = new Map(sources.map((s) => [s.id, s]));
  const base = suppliersPath(store.id, `/${target.id}`);
  try {
    if (confirmed(form)) {
      const merged = await api.post<{ data: Supplier; moved: Omit<Moved, "price_lists"> }>(
        "/suppliers/merge",
        input,
        {
          idempotencyKey: idempotencyKeyOf(form),
        },
      );
      const m = merged.moved;
      ctx.session.flash.push({
        kind: "ok",
        text: `Merged ${plural(m.suppliers, "supplier", "suppliers")} into ${merged.data.name}: ${plural(m.purchase_orders, "purchase order", "purchase orders")} and ${plural(m.items, "catalog item", "catalog items")} moved.`,
      });
      return redirectTo(ctx.reply, base);
    }
    const preview = await api.post<{ data: Supplier; moved: Moved }>("/suppliers/merge/preview", input);
    const m = preview.moved;
    const filled = filledFields(target, preview.data);
    const body = html`<section class="confirm" aria-labelledby="confirm-question">
<h2 id="confirm-question">Merge ${plural(sources.length, "supplier", "suppliers")} into ${target.name}?</h2>
<p>${sources.map((s, i) => html`${i > 0 ? ", " : ""}<a href="${suppliersPath(store.id, `/${s.id}`)}">${s.name}</a>`)} will be archived as merged into ${target.name}. This cannot be undone.</p>
<table class="compact">
<caption>What moves to ${target.name}</caption>
<tbody>
<tr><th scope="row">Purchase orders</th><td class="num">${m.purchase_orders}</td></tr>
<tr><th scope="row">Catalog items</th><td class="num">${m.items}</td></tr>
<tr><th scope="row">Of them with price lists</th><td class="num">${m.price_lists}</td></tr>
</tbody></table>
${
  filled.length > 0
    ? html`<h3>Filled in from the merged suppliers</h3><dl class="pairs">${filled.map(([k, v]) => html`<div><dt>${k}</dt><dd>${v}</dd></div>`)}</dl>`
    : html`<p class="hint">None of ${target.name}'s fields change.</p>`
}
<p class="hint">An item ${target.name} already supplies keeps ${target.name}'s own terms and prices; the merged supplier's are dropped.</p>
<form method="post" action="${base}/merge" class="inline">${csrfField(ctx.session)}
<input type="hidden" name="confirm" value="yes"><input type="hidden" name="_key" value="${formKey()}">
${sourceIds.map((id) => html`<input type="hidden" name="source_ids" value="${id}">`)}
<button type="submit" class="danger">Merge into ${target.name}</button></form>
<a href="${base}/merge">Pick again</a>
</section>`;
    return render(ctx, store, "Merge suppliers?", body);
  } catch (error) {
    if (!(error instanceof AdminError) || (error.status !== 422 && error.status !== 409)) throw error;
    return pickPage(ctx, store, target, sourceIds, refusalText(error, byId, sourceIds), 422);
  }
}
