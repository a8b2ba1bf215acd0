import { requirePermission } from "../actor.ts";
import { AdminError } from "../admin.ts";
import { field, formOf, type PageContext, redirectTo } from "../context.ts";
import { type PickedItem, pickItem } from "../item-picker.ts";
import { itemLabel } from "../item-search.ts";
import { loadOrder } from "../purchase-order-data.ts";
import {
  apiProblems,
  applyScan,
  bodyDigest,
  emptyValues,
  extraField,
  type FieldProblem,
  type PlannedReceipt,
  plannedReceipts,
  postedValues,
  type ReceiveValues,
  type ResolvedExtra,
  receiptKey,
} from "../receive-form.ts";
import { locationsOf } from "../stock-levels.ts";
import { storeApi } from "../store-api.ts";
import { formKey, storeInfoOf } from "../store-pages.ts";
import { idempotencyKeyOf } from "../supplier-form.ts";
import { orderPath, type Preview, type RenderState, renderReceive } from "./receive-view.ts";

/**
 * The receive screen of an open order (issue 20 item 4): per line what is outstanding and what arrived
 * (received, surplus, rejected with a reason, a unit cost for this delivery, lot and expiry, the
 * location it goes into), items the supplier sent that are not on the order, the day it arrived, a
 * scan input that adds one unit per code (a scanner types the code and Enter; console.js does it in
 * the page, the server does it without script), the landed-cost preview of the API, then booking.
 *
 * The form's Idempotency-Key is made when the form is first rendered and carried through every
 * re-render (scan, preview), so a double click or a reload of the booking books once; a delivery into
 * several locations is one receipt per location, each under a key derived from the form's. Booking
 * needs a preview of exactly what is booked: a form changed after its preview is previewed again.
 */

export async function receivePage(ctx: PageContext, rawOrderId: unknown) {
  requirePermission(ctx.request, "receiving");
  const [store, order, locations] = await Promise.all([
    storeInfoOf(ctx.request),
    loadOrder(ctx.request, rawOrderId),
    locationsOf(storeApi(ctx.request)),
  ]);
  return renderReceive(ctx, store, order, locations, emptyValues(order), { key: formKey() });
}

/** Each typed item not on the order read by the item picker (a call or three each, in parallel). */
async function pickExtras(ctx: PageContext, values: ReceiveValues) {
  const api = storeApi(ctx.request);
  const picks = new Map<number, PickedItem>();
  await Promise.all(
    values.extras.map(async (extra, row) => {
      if (extra.item.trim() === "" && extra.chosen === "") {
        picks.set(row, {
          kind: "none",
          message: "is required: type a SKU, a barcode or words of the title.",
        });
        return;
      }
      picks.set(row, await pickItem(api, extra.item, extra.chosen));
    }),
  );
  const resolved: ResolvedExtra[] = [];
  const problems: FieldProblem[] = [];
  for (const [row, picked] of [...picks].sort((a, b) => a[0] - b[0])) {
    if (picked.kind === "item") {
      resolved.push({ row, variantId: picked.variant.id, label: itemLabel(picked.variant) });
      // The form keeps what names the item alone: its SKU or barcode, else the choice made.
      const code = picked.variant.sku || picked.variant.barcode;
      const extra = values.extras[row];
      if (code) Object.assign(extra, { item: code, chosen: "" });
      else extra.chosen = String(picked.variant.id);
    } else
      problems.push({
        name: extraField.item(row),
        message: `Item ${row + 1} ${picked.kind === "none" ? picked.message : "matches several items: choose one."}`,
      });
  }
  return { picks, resolved, problems };
}

export async function receiveAction(ctx: PageContext, rawOrderId: unknown) {
  requirePermission(ctx.request, "receiving");
  const [store, order, locations] = await Promise.all([
    storeInfoOf(ctx.request),
    loadOrder(ctx.request, rawOrderId),
    locationsOf(storeApi(ctx.request)),
  ]);
  const form = formOf(ctx.request);
  const values = postedValues(order, form);
  const key = idempotencyKeyOf(form) ?? formKey();
  const action = field(form, "_do");
  const show = (state: Omit<RenderState, "key">, status = 200) =>
    renderReceive(ctx, store, order, locations, values, { key, ...state }, status);

  if (action === "scan") {
    const code = field(form, "scan");
    return show(code === "" ? {} : { scanned: applyScan(order, values, code) });
  }
  const picked = await pickExtras(ctx, values);
  if (action === "more") return show({ picks: picked.picks });
  const { receipts, problems } = plannedReceipts(order, values, picked.resolved);
  problems.unshift(...picked.problems);
  if (problems.length > 0) return show({ problems, picks: picked.picks }, 422);
  if (receipts.length === 0)
    return show(
      {
        problems: [{ name: "", message: "Enter at least one unit received or rejected." }],
        picks: picked.picks,
      },
      422,
    );
  const api = storeApi(ctx.request);
  // A refused receipt stored its refusal under its key: the corrected form is a new request.
  const refused = (error: unknown, receipt: PlannedReceipt, booking = false) => {
    if (error instanceof AdminError && error.status === 422 && error.details.length > 0)
      return renderReceive(
        ctx,
        store,
        order,
        locations,
        values,
        {
          key: booking ? formKey() : key,
          problems: apiProblems(error.details, receipt),
          picks: picked.picks,
        },
        422,
      );
    throw error;
  };
  const digest = bodyDigest(receipts);
  if (action === "book" && field(form, "_previewed") === digest) {
    let booked = 0;
    for (const receipt of receipts) {
      try {
        await api.post(`/purchase_orders/${order.id}/receipts`, receipt.body, {
          idempotencyKey: receiptKey(key, receipts, receipt),
        });
      } catch (error) {
        if (booked === 0) return refused(error, receipt, true);
        // Some receipts are booked: the form no longer matches the order, so it starts again from it.
        if (!(error instanceof AdminError)) throw error;
        ctx.session.flash.push({
          kind: "error",
          text: `${booked} of ${receipts.length} receipts were booked on ${order.number}; the one into ${locations.find((l) => String(l.id) === receipt.location)?.name ?? "the order's location"} was refused (${error.message}). Enter what it held again.`,
        });
        return redirectTo(ctx.reply, orderPath(store.id, order.id, "/receive"));
      }
      booked += 1;
    }
    const good = receipts.reduce(
      (s, r) =>
        s +
        r.body.lines.reduce((n, l) => n + l.quantity, 0) +
        (r.body.unordered ?? []).reduce((n, u) => n + u.quantity, 0),
      0,
    );
    const into = `${good} ${good === 1 ? "unit" : "units"} into stock`;
    ctx.session.flash.push({
      kind: "ok",
      text:
        receipts.length === 1
          ? `Receipt booked on ${order.number}: ${into}.`
          : `${receipts.length} receipts booked on ${order.number}, one per location: ${into}.`,
    });
    return redirectTo(ctx.reply, `${orderPath(store.id, order.id)}#receipts`);
  }
  const previews: { receipt: PlannedReceipt; preview: Preview }[] = [];
  for (const receipt of receipts) {
    try {
      previews.push({
        receipt,
        preview: await api.post<Preview>(`/purchase_orders/${order.id}/receipts/preview`, receipt.body),
      });
    } catch (error) {
      return refused(error, receipt);
    }
  }
  return show({
    previews,
    previewed: digest,
    picks: picked.picks,
    ...(action === "book" && {
      notice: "The delivery changed since its preview: check the landed costs below and book again.",
    }),
  });
}
