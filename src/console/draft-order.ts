import type { FormBody } from "./context.ts";
import { field } from "./context.ts";
import type { StoreApi } from "./store-api.ts";

/**
 * A draft purchase order as the console's editor holds it between round trips: the form carries the
 * whole draft (header, charges, lines), so searching for an item, adding or removing a line and fixing
 * a refused field all work without script, and nothing reaches the API before "Save draft". Also the
 * supplier's catalog terms the editor warns with (minimum order quantity, pack size, tier prices), by
 * the same rules the API applies on save.
 */

export interface DraftLine {
  /** A saved line's id (kept on save); null for a line added in this editor. */
  lineId: number | null;
  variantId: number | null;
  itemId: number | null;
  label: string;
  sku: string;
  quantity: string;
  /** As typed; "" leaves the price to the API (the catalog tier for the quantity, else the item's cost). */
  unitCost: string;
  /** The cost the API would give a blank cost when no tier applies (for the live preview only). */
  baseCost: string;
  /** The line's discount in percent as typed; "" for none. */
  discount: string;
  /**
   * The line's tax: "" takes the order's, NOT_TAXED is no tax on this line, else one of the store's
   * rates by id (the API's `taxable` and `tax_rate_id` of a line, as one choice).
   */
  tax: string;
  remove: boolean;
}

/** The line tax choice of a line that bears no tax (`taxable: false`). */
export const NOT_TAXED = "none";

/**
 * The order's tax choice "as the order recorded it", offered when the rate it was saved with has since
 * been removed from the store: not sent, so the PATCH keeps the order's name and percent (the API no
 * longer knows the rate's id, and "No tax" would drop it).
 */
export const RECORDED_RATE = "recorded";

export interface DraftCharge {
  kind: "shipping" | "other";
  label: string;
  amount: string;
}

export interface DraftState {
  /** The supplier's id once the name typed is resolved (supplier-filter.ts); "" before. */
  supplierId: string;
  /** The supplier's name as typed (or as resolved). */
  supplierText: string;
  /** A supplier chosen among those the text matched. */
  supplierChoice: string;
  locationId: string;
  currency: string;
  exchangeRate: string;
  expectedAt: string;
  reference: string;
  notes: string;
  /** One of the store's tax rates by id, "" for no tax, RECORDED_RATE for the order's removed one. */
  taxRateId: string;
  taxesIncluded: boolean;
  chargesTaxable: boolean;
  lines: DraftLine[];
  charges: DraftCharge[];
  /** The picker's search. */
  itemQ: string;
  /** One Idempotency-Key per form: a double submit creates one draft. */
  key: string;
}

export interface Tier {
  min_qty: number;
  price: string;
}

export interface CatalogRow {
  inventory_item_id: number;
  supplier_sku: string | null;
  pack_size: number;
  pack_unit: string;
  min_order_qty: number;
  price_list: { effective: { currency: string; tiers: Tier[] } | null };
}

/** The lines of a saved order the editor reads. */
export interface OrderLine {
  id: number;
  variant_id: number | null;
  inventory_item_id: number | null;
  product_title: string | null;
  variant_title: string | null;
  sku: string | null;
  quantity: number;
  unit_cost: string;
  discount_percent: number | null;
  line_total: string;
  taxable: boolean;
  /** The line's own rate; null takes the order's. */
  tax_rate_id: number | null;
  tax_rate_percent: number;
  warnings: { code: string; message: string }[];
}

export interface Order {
  id: number;
  number: string;
  status: string;
  currency: string;
  supplier: { id: number; name: string };
  location: { id: number; name: string };
  exchange_rate: { rate: number; source: string };
  expected_at: string | null;
  reference: string | null;
  notes: string | null;
  tax: {
    rate_id: number | null;
    name: string | null;
    rate_percent: number;
    taxes_included: boolean;
    charges_taxable: boolean;
  };
  totals: { currency: string; subtotal: string; charges: string; tax: string; total: string };
  lines: OrderLine[];
  charges: { kind: "shipping" | "other"; label: string | null; amount: string; currency: string }[];
}

interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

const nonNegativeInt = (text: string) => (/^\d{1,9}$/.test(text) ? Number(text) : null);

/** The line label the console shows everywhere: "Classic Tee – M". */
export function lineLabel(product: string | null, variant: string | null): string {
  const v = variant && variant !== "Default Title" ? variant : null;
  return [product, v].filter(Boolean).join(" – ") || "Untitled item";
}

export function emptyDraft(key: string): DraftState {
  return {
    supplierId: "",
    supplierText: "",
    supplierChoice: "",
    locationId: "",
    currency: "",
    exchangeRate: "",
    expectedAt: "",
    reference: "",
    notes: "",
    taxRateId: "",
    taxesIncluded: false,
    chargesTaxable: false,
    lines: [],
    charges: [],
    itemQ: "",
    key,
  };
}

/** A saved draft as the editor opens it; a cost the catalog would give anyway is left blank. */
export function draftOfOrder(order: Order, terms: Map<number, CatalogRow>, key: string): DraftState {
  return {
    supplierId: String(order.supplier.id),
    supplierText: order.supplier.name,
    supplierChoice: "",
    locationId: String(order.location.id),
    currency: order.currency,
    exchangeRate: order.exchange_rate.source === "manual" ? String(order.exchange_rate.rate) : "",
    expectedAt: order.expected_at ?? "",
    reference: order.reference ?? "",
    notes: order.notes ?? "",
    taxRateId: order.tax.rate_id === null ? "" : String(order.tax.rate_id),
    taxesIncluded: order.tax.taxes_included,
    chargesTaxable: order.tax.charges_taxable,
    lines: order.lines.map((l) => {
      const tier =
        l.inventory_item_id === null
          ? null
          : tierPrice(terms.get(l.inventory_item_id), order.currency, l.quantity);
      return {
        lineId: l.id,
        variantId: l.variant_id,
        itemId: l.inventory_item_id,
        label: lineLabel(l.product_title, l.variant_title),
        sku: l.sku ?? "",
        quantity: String(l.quantity),
        unitCost: tier !== null && sameAmount(tier, l.unit_cost) ? "" : l.unit_cost,
        baseCost: l.unit_cost,
        discount: l.discount_percent === null ? "" : String(l.discount_percent),
        tax: !l.taxable ? NOT_TAXED : l.tax_rate_id === null ? "" : String(l.tax_rate_id),
        remove: false,
      };
    }),
    charges: order.charges.map((c) => ({ kind: c.kind, label: c.label ?? "", amount: c.amount })),
    itemQ: "",
    key,
  };
}

/** The draft as the posted form holds it. */
export function draftOfForm(form: FormBody): DraftState {
  const lineCount = Math.min(nonNegativeInt(field(form, "line_count")) ?? 0, 1000);
  const lines: DraftLine[] = [];
  for (let i = 0; i < lineCount; i++) {
    const variantId = nonNegativeInt(field(form, `line_variant_${i}`));
    const lineId = nonNegativeInt(field(form, `line_id_${i}`));
    if (variantId === null && lineId === null) continue;
    lines.push({
      lineId,
      variantId,
      itemId: nonNegativeInt(field(form, `line_item_${i}`)),
      label: field(form, `line_label_${i}`) || "Untitled item",
      sku: field(form, `line_sku_${i}`),
      quantity: field(form, `line_qty_${i}`),
      unitCost: field(form, `line_cost_${i}`),
      baseCost: field(form, `line_base_${i}`),
      discount: field(form, `line_discount_${i}`),
      tax: field(form, `line_tax_${i}`),
      remove: field(form, `line_remove_${i}`) === "yes",
    });
  }
  const chargeCount = Math.min(nonNegativeInt(field(form, "charge_count")) ?? 0, 100);
  const charges: DraftCharge[] = [];
  for (let i = 0; i < chargeCount; i++) {
    const amount = field(form, `charge_amount_${i}`);
    if (amount === "") continue;
    charges.push({
      kind: field(form, `charge_kind_${i}`) === "other" ? "other" : "shipping",
      label: field(form, `charge_label_${i}`),
      amount,
    });
  }
  return {
    supplierId: field(form, "supplier_id"),
    supplierText: field(form, "supplier"),
    supplierChoice: field(form, "supplier_choice"),
    locationId: field(form, "location_id"),
    currency: field(form, "currency").toUpperCase(),
    exchangeRate: field(form, "exchange_rate"),
    expectedAt: field(form, "expected_at"),
    reference: field(form, "reference"),
    notes: field(form, "notes"),
    taxRateId: field(form, "tax_rate_id"),
    taxesIncluded: field(form, "taxes_included") === "yes",
    chargesTaxable: field(form, "charges_taxable") === "yes",
    lines,
    charges,
    itemQ: field(form, "item_q"),
    key: field(form, "_key"),
  };
}

/** A typed number as the API takes it: digits stay a string (the API reports what is wrong with it). */
const asNumberish = (text: string): number | string => (/^\d{1,15}$/.test(text) ? Number(text) : text);
const orNull = (text: string) => (text === "" ? null : text);
/** A typed percent as the API takes it (a number); anything else as typed, for the API to name. */
const percentOrText = (text: string): number | string | null =>
  text === "" ? null : /^\d{1,3}(\.\d{1,4})?$/.test(text) ? Number(text) : text;

/**
 * The API body of the draft (create, or a PATCH replacing lines and charges), and for each line sent
 * the editor's row it came from, so `lines.2.quantity` is marked on the right row.
 */
export function apiBody(
  draft: DraftState,
  /**
   * A kept line's price when its cost is left blank: the API reprices new lines only, and a kept line
   * keeps its cost, so the editor sends the supplier's tier for the new quantity itself.
   */
  keptLinePrice: (line: DraftLine, quantity: number) => string | null = () => null,
): { body: Record<string, unknown>; rowOfLine: number[] } {
  const rowOfLine: number[] = [];
  const lines = draft.lines.flatMap((line, row) => {
    if (line.remove) return [];
    rowOfLine.push(row);
    const quantity = asNumberish(line.quantity);
    const cost =
      line.unitCost !== "" || line.lineId === null || typeof quantity !== "number"
        ? line.unitCost
        : (keptLinePrice(line, quantity) ?? "");
    return [
      {
        ...(line.lineId !== null ? { id: line.lineId } : { variant_id: line.variantId }),
        quantity,
        ...(cost !== "" && { unit_cost: cost }),
        discount_percent: percentOrText(line.discount),
        taxable: line.tax !== NOT_TAXED,
        tax_rate_id: line.tax === "" || line.tax === NOT_TAXED ? null : asNumberish(line.tax),
      },
    ];
  });
  return {
    body: {
      ...(draft.supplierId !== "" && { supplier_id: asNumberish(draft.supplierId) }),
      location_id: draft.locationId === "" ? null : asNumberish(draft.locationId),
      currency: orNull(draft.currency),
      ...(draft.exchangeRate !== "" && { exchange_rate: draft.exchangeRate }),
      expected_at: orNull(draft.expectedAt),
      reference: orNull(draft.reference),
      notes: orNull(draft.notes),
      ...(draft.taxRateId !== RECORDED_RATE && {
        tax_rate_id: draft.taxRateId === "" ? null : asNumberish(draft.taxRateId),
      }),
      taxes_included: draft.taxesIncluded,
      charges_taxable: draft.chargesTaxable,
      charges: draft.charges.map((c) => ({
        kind: c.kind,
        label: orNull(c.label),
        amount: c.amount,
      })),
      lines,
    },
    rowOfLine,
  };
}

/**
 * The supplier's catalog rows by inventory item as the picker browses them: the first thousand
 * (four pages); `complete` when that is the whole catalog.
 */
export async function catalogTerms(
  api: StoreApi,
  supplierId: number | null,
): Promise<{ rows: Map<number, CatalogRow>; complete: boolean }> {
  const rows = new Map<number, CatalogRow>();
  if (supplierId === null) return { rows, complete: true };
  let cursor: string | null = null;
  for (let page = 0; page < 4; page++) {
    const query = `limit=250${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const res: Page<CatalogRow> = await api.get(`/suppliers/${supplierId}/catalog?${query}`);
    for (const row of res.data) rows.set(row.inventory_item_id, row);
    if (!res.has_more || !res.next_cursor) return { rows, complete: true };
    cursor = res.next_cursor;
  }
  return { rows, complete: false };
}

/** The supplier's catalog rows of these items, whatever the catalog's size: one call per 250 items. */
export async function catalogRowsOf(
  api: StoreApi,
  supplierId: number,
  itemIds: number[],
): Promise<CatalogRow[]> {
  const chunks: number[][] = [];
  for (let i = 0; i < itemIds.length; i += 250) chunks.push(itemIds.slice(i, i + 250));
  const pages = await Promise.all(
    chunks.map((ids) =>
      api.get<Page<CatalogRow>>(
        `/suppliers/${supplierId}/catalog?limit=250&inventory_item_id=${ids.join(",")}`,
      ),
    ),
  );
  return pages.flatMap((p) => p.data);
}

/** The tier price for a quantity in the order's currency (the highest tier not above it), else null. */
export function tierPrice(row: CatalogRow | undefined, currency: string, quantity: number): string | null {
  const set = row?.price_list.effective;
  if (!set || set.currency !== currency) return null;
  let best: Tier | null = null;
  for (const tier of set.tiers)
    if (tier.min_qty <= quantity && (!best || tier.min_qty > best.min_qty)) best = tier;
  return best?.price ?? null;
}

function sameAmount(a: string, b: string): boolean {
  const norm = (s: string) => s.replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "");
  return norm(a) === norm(b);
}

/**
 * What the API warns on save (below the minimum order quantity, not a whole number of packs), for the
 * quantity as typed; console.js says the same while the user types.
 */
export function quantityWarnings(row: CatalogRow | undefined, quantityText: string): string[] {
  const quantity = nonNegativeInt(quantityText);
  if (!row || quantity === null || quantity < 1) return [];
  const pack = Math.max(1, row.pack_size);
  const min = Math.max(1, row.min_order_qty);
  const suggested = Math.ceil(Math.max(quantity, min) / pack) * pack;
  const out: string[] = [];
  if (quantity < min) out.push(`Below the supplier's minimum order of ${min}.`);
  if (pack > 1 && quantity % pack !== 0)
    out.push(`Not a whole number of packs of ${pack} (${row.pack_unit}).`);
  if (out.length > 0) out.push(`Suggested: ${suggested}.`);
  return out;
}

/** The quantity a new line starts at: the supplier's minimum, rounded up to whole packs. */
export function startingQuantity(row: CatalogRow | undefined): number {
  if (!row) return 1;
  const pack = Math.max(1, row.pack_size);
  return Math.ceil(Math.max(1, row.min_order_qty) / pack) * pack;
}
