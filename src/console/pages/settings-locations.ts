import { html } from "../../html/template.ts";
import { AdminError } from "../admin.ts";
import { field, formOf, idOf, loadStore, type PageContext, platformIdOf, redirectTo } from "../context.ts";
import { csrfField, storePath, table } from "../layout.ts";
import { sendSettingsPage } from "./settings.ts";

/**
 * Location visibility (settings): the platform's locations, and which of them the store uses. A hidden
 * location is left out of the API's location list and cannot take new orders or stock moves; the
 * platform's own locations are not changed.
 */

interface AdminLocation {
  id: number;
  name: string;
  active: boolean;
  fulfillment_service: string;
  address: { city: string | null; province_code: string | null; country: string | null };
  hidden: boolean;
}

function place(l: AdminLocation): string | null {
  const a = l.address;
  return [a.city, a.province_code, a.country].filter(Boolean).join(", ") || null;
}

export async function locationsPage(ctx: PageContext, rawId: unknown) {
  const store = await loadStore(ctx, rawId);
  const locations = (await ctx.admin.get<{ data: AdminLocation[] }>(`/admin/stores/${store.id}/locations`))
    .data;
  const body = html`<p>Hide a location the store does not stock from: it is left out of the API's locations and of new orders and stock moves. Nothing changes on the platform.</p>
${table(
  "Locations",
  [
    { header: "Location", cell: (l) => l.name },
    { header: "Where", cell: (l) => place(l) },
    {
      header: "On the platform",
      cell: (l) =>
        l.active ? html`<span class="state-on">Active</span>` : html`<span class="state-off">Inactive</span>`,
    },
    {
      header: "In Stockroom",
      cell: (l) =>
        l.hidden ? html`<span class="state-off">Hidden</span>` : html`<span class="state-on">Shown</span>`,
    },
    {
      header: "Change",
      cell: (
        l,
      ) => html`<form method="post" action="${storePath(store.id, `/settings/locations/${l.id}`)}" class="inline">
${csrfField(ctx.session)}<input type="hidden" name="hidden" value="${l.hidden ? "false" : "true"}">
<button type="submit">${l.hidden ? "Show" : "Hide"} ${l.name}</button></form>`,
    },
  ],
  locations,
  "The platform has no locations for this store yet.",
)}`;
  return sendSettingsPage(ctx, store, "locations", "Locations", body);
}

export async function locationVisibilityAction(ctx: PageContext, rawId: unknown, rawLocationId: unknown) {
  const storeId = idOf(rawId);
  const locationId = platformIdOf(rawLocationId);
  const hidden = field(formOf(ctx.request), "hidden");
  if (hidden !== "true" && hidden !== "false") {
    ctx.session.flash.push({ kind: "error", text: "Choose to show or hide the location." });
    return redirectTo(ctx.reply, storePath(storeId, "/settings/locations"));
  }
  try {
    const updated = await ctx.admin.patch<{ data: AdminLocation }>(
      `/admin/stores/${storeId}/locations/${locationId}`,
      { hidden: hidden === "true" },
    );
    ctx.session.flash.push({
      kind: "ok",
      text: `${updated.data.name} is ${updated.data.hidden ? "hidden" : "shown"}.`,
    });
  } catch (error) {
    if (!(error instanceof AdminError) || error.status !== 422) throw error;
    ctx.session.flash.push({ kind: "error", text: `Not changed: ${error.message}` });
  }
  return redirectTo(ctx.reply, storePath(storeId, "/settings/locations"));
}
