import { html } from "../../html/template.ts";
import { requirePermission } from "../actor.ts";
import { AdminError } from "../admin.ts";
import { parseTiers } from "../catalog-csv.ts";
import {
  field,
  formOf,
  type PageContext,
  PageNotFound,
  platformIdOf,
  redirectTo,
  sendPage,
  takeFlash,
} from "../context.ts";
import { itemLabel, variantsByItem } from "../item-search.ts";
import { csrfField, dateHtml, dl, page } from "../layout.ts";
import { storeApi } from "../store-api.ts";
import { fieldError, formErrors, invalidAttrs, money, type StoreInfo, storeInfoOf } from "../store-pages.ts";
import { loadSupplier, type Supplier, suppliersPath } from "../supplier-form.ts";
import { shownDate } from "../times.ts";
import { catalogRowOf, type TierSet } from "./supplier-catalog.ts";

/**
 * A catalog item's prices from one supplier (issue 20 item 2): the tiers in force and the upcoming
 * ones, and a form for new tiers from a date. A future date makes them the upcoming set, leaving the
 * prices in force until then (the API's catalog `effective_from`); today or no date puts them in force
 * at once.
 */

const LABELS = { tiers: "Price tiers", effective_from: "Effective from" } as const;
const inputId = (name: string) => `prices-${name.replace(/_/g, "-")}`;

function tiersText(set: TierSet | null | undefined): string | null {
  if (!set || set.tiers.length === 0) return null;
  return set.tiers.map((t) => `${t.min_qty}+ at ${money(t.price, set.currency)}`).join(", ");
}

/** The API's `rows.0.tiers.1.price` as the form's field. */
function formError(error: AdminError): AdminError {
  return new AdminError(
    error.status,
    error.code,
    error.message,
    error.details.map((d) => ({ ...d, field: d.field.replace(/^rows\.0\./, "") })),
  );
}

async function render(
  ctx: PageContext,
  store: StoreInfo,
  supplier: Supplier,
  itemId: number,
  values: { tiers: string; effective_from: string },
  error: AdminError | null,
) {
  const [row, byItem] = await Promise.all([
    catalogRowOf(ctx, supplier.id, itemId),
    variantsByItem(storeApi(ctx.request), [itemId]),
  ]);
  if (!row) throw new PageNotFound(`${supplier.name}'s catalog has no such item.`);
  const variant = byItem.get(itemId);
  const label = variant ? itemLabel(variant) : `Item ${itemId}`;
  const base = suppliersPath(store.id, `/${supplier.id}`);
  const currency = supplier.currency ?? store.currency;
  const upcoming = row.price_list?.upcoming;
  const body = html`${dl([
    ["Supplier", html`<a href="${base}">${supplier.name}</a>`],
    ["SKU", variant?.sku ?? null],
    ["Supplier SKU", row.supplier_sku],
    ["Prices in force", tiersText(row.price_list?.effective) ?? money(row.price, row.price_currency)],
    ["In force since", dateHtml(row.price_list?.effective?.effective_from)],
    ["Upcoming prices", tiersText(upcoming)],
    ["Upcoming from", dateHtml(upcoming?.effective_from)],
  ])}
<h2 id="new-prices">New prices</h2>
<p class="hint">With a date in the future the new tiers wait until that day and the prices in force stay until then; with today's date or none they apply at once. New upcoming prices replace upcoming ones already set.</p>
${formErrors(error, LABELS, inputId)}
<form method="post" action="${base}/catalog/${itemId}/prices" class="stack" aria-labelledby="new-prices">
${csrfField(ctx.session)}
<div class="field"><label for="${inputId("tiers")}">Price tiers in ${currency} <span class="hint">(“1:4.50 10:4.00”: from quantity 1 at 4.50, from 10 at 4.00)</span></label>
<input type="text" id="${inputId("tiers")}" name="tiers" required value="${values.tiers}"${invalidAttrs(error, "tiers", inputId("tiers"))}>${fieldError(error, "tiers", inputId("tiers"), LABELS.tiers)}</div>
<div class="field"><label for="${inputId("effective_from")}">Effective from <span class="hint">(the store's date; empty: now)</span></label>
<input type="date" id="${inputId("effective_from")}" name="effective_from" value="${values.effective_from}"${invalidAttrs(error, "effective_from", inputId("effective_from"))}>${fieldError(error, "effective_from", inputId("effective_from"), LABELS.effective_from)}</div>
<div><button type="submit">Save prices</button> <a href="${base}#catalog">Back to ${supplier.name}</a></div>
</form>`;
  return sendPage(
    ctx.reply,
    page({
      title: `Prices of ${label}`,
      session: ctx.session,
      store,
      tab: "suppliers",
      body,
      flash: takeFlash(ctx.session),
    }),
    error ? 422 : 200,
  );
}

export async function pricesPage(ctx: PageContext, rawSupplierId: unknown, rawItemId: unknown) {
  requirePermission(ctx.request, "suppliers");
  const store = await storeInfoOf(ctx.request);
  const supplier = await loadSupplier(ctx, rawSupplierId);
  const itemId = platformIdOf(rawItemId);
  return render(ctx, store, supplier, itemId, { tiers: "", effective_from: "" }, null);
}

export async function savePricesAction(ctx: PageContext, rawSupplierId: unknown, rawItemId: unknown) {
  requirePermission(ctx.request, "suppliers");
  const store = await storeInfoOf(ctx.request);
  const supplier = await loadSupplier(ctx, rawSupplierId);
  const itemId = platformIdOf(rawItemId);
  const form = formOf(ctx.request);
  const values = { tiers: field(form, "tiers"), effective_from: field(form, "effective_from") };
  const tiers = parseTiers(values.tiers);
  if (tiers === null || tiers.length === 0) {
    const error = new AdminError(422, "validation_failed", "Price tiers are not valid.", [
      {
        field: "tiers",
        code: "invalid_format",
        message: 'must be "quantity:price" pairs, such as "1:4.50 10:4.00"',
      },
    ]);
    return render(ctx, store, supplier, itemId, values, error);
  }
  try {
    await storeApi(ctx.request).put(`/suppliers/${supplier.id}/catalog`, {
      rows: [
        {
          inventory_item_id: itemId,
          tiers: tiers.map((t) => ({ min_qty: t.min_qty, price: t.price })),
          ...(values.effective_from !== "" && { effective_from: values.effective_from }),
        },
      ],
    });
  } catch (error) {
    if (error instanceof AdminError && (error.status === 422 || error.status === 400))
      return render(ctx, store, supplier, itemId, values, formError(error));
    throw error;
  }
  ctx.session.flash.push({
    kind: "ok",
    text: values.effective_from
      ? `Prices saved, from ${shownDate(values.effective_from) ?? values.effective_from}.`
      : "Prices saved; they apply now.",
  });
  return redirectTo(ctx.reply, `${suppliersPath(store.id, `/${supplier.id}`)}/catalog/${itemId}/prices`);
}
