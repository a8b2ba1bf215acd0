import { html, type SafeHtml } from "../../html/template.ts";
import { AdminError } from "../admin.ts";
import { idOf, type PageContext, PageNotFound, sendPage, takeFlash } from "../context.ts";
import { page, storePath } from "../layout.ts";
import { storeApi } from "../store-api.ts";
import type { StoreInfo } from "../store-pages.ts";

/**
 * What the stock adjustment pages share: the adjustment as the API answers it, its page frame, its
 * loading (a 404 is the page's "no such adjustment"), and the signed change field a draft's lines use.
 */

export interface AdjustmentLine {
  id: number;
  product_title: string | null;
  variant_title: string | null;
  sku: string | null;
  inventory_item_id: number;
  variant_id: number;
  delta: number;
  quantity_before: number | null;
  quantity_after: number | null;
}

export interface Adjustment {
  id: number;
  number: string;
  status: "draft" | "applied" | "cancelled";
  reason: string;
  reason_label: string;
  note: string | null;
  location: { id: number; name: string };
  lines: AdjustmentLine[];
  applied_at: string | null;
  cancelled_at: string | null;
  created_at: string;
  updated_at: string;
}

export const STATUS_WORDS: Record<string, string> = {
  draft: "Draft",
  applied: "Applied",
  cancelled: "Cancelled",
};

export const adjustmentsPath = (storeId: number, rest = "") =>
  storePath(storeId, `/stock_adjustments${rest}`);

export function render(ctx: PageContext, store: StoreInfo, title: string, body: SafeHtml, status = 200) {
  return sendPage(
    ctx.reply,
    page({ title, session: ctx.session, store, tab: "stock", body, flash: takeFlash(ctx.session) }),
    status,
  );
}

export async function loadAdjustment(ctx: PageContext, rawId: unknown): Promise<Adjustment> {
  try {
    return (await storeApi(ctx.request).get<{ data: Adjustment }>(`/stock_adjustments/${idOf(rawId)}`)).data;
  } catch (error) {
    if (error instanceof AdminError && error.status === 404)
      throw new PageNotFound("This store has no such stock adjustment.");
    throw error;
  }
}

export function signed(n: number): string {
  return n > 0 ? `+${n}` : String(n);
}

export function deltaField(id: string, name: string, value: string, error: string | null): SafeHtml {
  return html`<div class="field narrow"><label for="${id}">Change <span class="hint">(units to add, or to remove with a minus: −3)</span></label>
<input type="text" inputmode="numeric" id="${id}" name="${name}" value="${value}" required${
    error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ""
  }>${error ? html`<p class="field-error" id="${id}-error">Change ${error}</p>` : ""}</div>`;
}

/** "+3", "-3", "−3" (the typographic minus) or "3" → the number; anything else → null. */
export function parseDelta(text: string): number | null {
  const normal = text.replace("−", "-").replace(/\s+/g, "");
  if (!/^[+-]?\d{1,10}$/.test(normal)) return null;
  const n = Number(normal);
  return Number.isSafeInteger(n) ? n : null;
}
