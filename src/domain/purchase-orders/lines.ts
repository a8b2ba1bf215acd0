/**
 * Order lines from input: the item from the catalog mirror, the price from the supplier's tiers or the
 * variant's cost, warnings, field checks. Everything looked up was read before (`lookups.ts`).
 */
import type { LineWarning } from "../../db/tables/purchase_orders.ts";
import type { DetailCollector } from "../errors.ts";
import { isKnownCurrency, parseDecimalInput } from "../money.ts";
import {
  type CostOrigin,
  type CostTerms,
  costWarnings,
  defaultUnitCost,
  keptCostWarnings,
} from "./line-costs.ts";
import { checkNamedLocation, type VariantRow } from "./lookups.ts";
import { isWithin, MAX_UNIT_COST } from "./money-bounds.ts";
import type { LineRow } from "./presenter.ts";

export interface LineInput {
  id?: number;
  variant_id?: number;
  inventory_item_id?: number;
  product_title?: string | null;
  variant_title?: string | null;
  sku?: string | null;
  supplier_sku?: string | null;
  barcode?: string | null;
  pack_code?: string | null;
  location_id?: number | null;
  quantity?: number;
  unit_cost?: number | string;
  discount_percent?: number | null;
  weight_grams?: number;
  taxable?: boolean;
  tax_rate_id?: number | null;
  supplier_note?: string | null;
  internal_note?: string | null;
}

/** Warnings against the supplier catalog row: below its minimum, or not a whole number of packs. */
export function lineWarnings(
  quantity: number,
  terms: { min_order_qty: number; pack_size: number; pack_unit: string } | undefined,
): LineWarning[] {
  if (!terms) return [];
  const pack = Math.max(1, terms.pack_size);
  const min = Math.max(1, terms.min_order_qty);
  const suggested = Math.ceil(Math.max(quantity, min) / pack) * pack;
  const warnings: LineWarning[] = [];
  if (quantity < min) {
    warnings.push({
      code: "below_min_order_qty",
      message: `The quantity is below the supplier's minimum order quantity of ${min}.`,
      suggested_quantity: suggested,
    });
  }
  if (pack > 1 && quantity % pack !== 0) {
    warnings.push({
      code: "not_pack_multiple",
      message: `The quantity is not a multiple of the supplier's pack size of ${pack} (${terms.pack_unit}).`,
      suggested_quantity: suggested,
    });
  }
  return warnings;
}

/** Everything of a line that is stored, except the money computed from it and the order. */
export interface LineDraft {
  /** Kept line's id (PATCH); absent for a new line. */
  id?: number;
  position: number;
  product_title: string | null;
  variant_title: string | null;
  sku: string | null;
  supplier_sku: string | null;
  barcode: string | null;
  pack_code: string | null;
  inventory_item_id: number | null;
  variant_id: number | null;
  product_id: number | null;
  location_id: number | null;
  quantity: number;
  cancelled_quantity: number;
  received_quantity: number;
  unit_cost: string;
  discount_percent: string | null;
  taxable: boolean;
  tax_rate_id: number | null;
  /** The line's own rate snapshot (meaningful when tax_rate_id is set). */
  tax_rate_percent: string;
  weight_grams: number;
  supplier_note: string | null;
  internal_note: string | null;
  warnings: LineWarning[];
  created_at?: Date;
}

/** A line's own fields, the same in its draft and its stored row (not its id, warnings or times). */
export const LINE_COLUMNS = [
  "position",
  "product_title",
  "variant_title",
  "sku",
  "supplier_sku",
  "barcode",
  "pack_code",
  "inventory_item_id",
  "variant_id",
  "product_id",
  "location_id",
  "quantity",
  "cancelled_quantity",
  "received_quantity",
  "unit_cost",
  "discount_percent",
  "taxable",
  "tax_rate_id",
  "tax_rate_percent",
  "weight_grams",
  "supplier_note",
  "internal_note",
] as const satisfies readonly (keyof LineDraft & keyof LineRow)[];

type LineColumns = Pick<LineDraft, (typeof LINE_COLUMNS)[number]>;

/** The line's own fields of a draft or a stored row. */
export function lineColumnsOf(line: LineColumns): LineColumns {
  return Object.fromEntries(LINE_COLUMNS.map((column) => [column, line[column]])) as LineColumns;
}

/**
 * A draft as a `purchase_order_lines` row, less the money columns (`line_total`, `tax_amount`) that the
 * order's totals fill.
 */
export function lineRowOf(storeId: number, orderId: number, l: LineDraft, now: Date) {
  return {
    ...(l.id !== undefined && { id: l.id }),
    store_id: storeId,
    purchase_order_id: orderId,
    ...lineColumnsOf(l),
    warnings: JSON.stringify(l.warnings),
    created_at: l.created_at ?? now,
    updated_at: now,
  };
}

export interface ResolveContext extends CostTerms {
  /** Field path prefix of the lines (`lines`). */
  path: string;
  /** First position for these lines (1 for a full set, after the last line when appending). */
  firstPosition: number;
  /** Current lines by id, when `id` may keep a line (PATCH). */
  existing?: Map<number, LineRow>;
  problems: DetailCollector;
}

const pick = <T>(given: T | undefined, fallback: T): T => (given === undefined ? fallback : given);

/**
 * Resolves line inputs into line drafts, adding every field problem to `ctx.problems` (paths like
 * `lines.1.variant_id`). Drafts of lines with problems are still returned (callers throw first).
 */
export function resolveLines(ctx: ResolveContext, inputs: readonly LineInput[]): LineDraft[] {
  const { lookups, problems, path } = ctx;
  const seenIds = new Set<number>();
  return inputs.map((input, index) => {
    const at = `${path}.${index}`;
    let base: LineRow | undefined;
    if (input.id !== undefined) {
      if (!ctx.existing) {
        problems.add(`${at}.id`, "not_allowed", "a new line cannot name an id");
      } else if (seenIds.has(input.id)) {
        problems.add(`${at}.id`, "duplicate", "names a line already named in this request");
      } else {
        base = ctx.existing.get(input.id);
        if (!base) problems.add(`${at}.id`, "not_found", "is not a line of this purchase order");
        seenIds.add(input.id);
      }
    }

    // The item: by variant_id, inventory_item_id, or the kept line's.
    let variant: VariantRow | undefined;
    let itemId: number | null = base ? base.inventory_item_id : null;
    let variantId: number | null = base ? base.variant_id : null;
    let itemChanged = false;
    if (input.variant_id !== undefined) {
      variant = lookups.variantsById.get(input.variant_id);
      if (!variant) problems.add(`${at}.variant_id`, "not_found", "is not a variant of this store");
      else if (
        input.inventory_item_id !== undefined &&
        Number(variant.inventory_item_id) !== input.inventory_item_id
      )
        problems.add(`${at}.inventory_item_id`, "mismatch", "is not the inventory item of the given variant");
    } else if (input.inventory_item_id !== undefined) {
      variant = lookups.variantsByItem.get(input.inventory_item_id);
      if (!variant)
        problems.add(`${at}.inventory_item_id`, "not_found", "is not an inventory item of this store");
    }
    if (variant) {
      const newItem = Number(variant.inventory_item_id);
      itemChanged = !base || base.inventory_item_id !== newItem;
      itemId = newItem;
      variantId = Number(variant.id);
      const itemField = `${at}.${input.variant_id !== undefined ? "variant_id" : "inventory_item_id"}`;
      if (itemChanged && base && base.received_quantity > 0) {
        problems.add(itemField, "line_received", "the line has received units: its item cannot change");
      }
      // A line already on the order keeps its deleted item (it is still received, cancelled, closed);
      // a new one cannot take it: nothing is left on the platform to order into
      // (docs/decisions.md, "Deleted products and variants").
      if (itemChanged && variant.deleted_at !== null) {
        problems.add(itemField, "deleted", "was deleted on the platform: a new line cannot order it");
      }
    }
    const mirror = itemChanged && variant ? variant : null;
    const fromMirror = mirror !== null;

    const quantity = pick(input.quantity, base?.quantity);
    if (quantity === undefined) problems.add(`${at}.quantity`, "required", "is required");
    const qty = quantity ?? 0;
    if (base && input.quantity !== undefined && qty < base.received_quantity + base.cancelled_quantity) {
      problems.add(
        `${at}.quantity`,
        "below_received",
        `cannot be below received + cancelled (${base.received_quantity + base.cancelled_quantity})`,
      );
    }

    const productTitle = pick(
      input.product_title,
      mirror ? mirror.product_title : (base?.product_title ?? null),
    );
    // A line naming an item (or an id) that was not found already has its problem.
    const namedItem =
      input.variant_id !== undefined ||
      input.inventory_item_id !== undefined ||
      (input.id !== undefined && !base);
    if (itemId === null && !namedItem && (productTitle === null || productTitle.trim() === "")) {
      problems.add(
        `${at}.product_title`,
        "required",
        "is required on a custom line (no variant_id or inventory_item_id)",
      );
    }

    const locationId = pick(input.location_id, base?.location_id ?? null);
    if (input.location_id !== undefined && input.location_id !== null)
      checkNamedLocation(lookups, input.location_id, `${at}.location_id`, problems);

    const taxRateId = pick(input.tax_rate_id, base?.tax_rate_id ?? null);
    let taxRatePercent =
      base?.tax_rate_id != null && taxRateId === base.tax_rate_id ? base.tax_rate_percent : "0";
    if (input.tax_rate_id !== undefined && input.tax_rate_id !== null) {
      const rate = lookups.taxRates.get(input.tax_rate_id);
      if (!rate) problems.add(`${at}.tax_rate_id`, "not_found", "is not a tax rate of this store");
      else taxRatePercent = rate.rate_percent;
    }

    let unitCost: string;
    let costOrigin: CostOrigin = null;
    const keepsCost = input.unit_cost === undefined && base !== undefined && !itemChanged;
    if (input.unit_cost !== undefined) {
      const parsed = parseDecimalInput(input.unit_cost, { maxPlaces: 8 });
      if (!parsed.ok) {
        problems.add(`${at}.unit_cost`, parsed.code, parsed.message);
        unitCost = "0";
      } else if (!isWithin(parsed.value, MAX_UNIT_COST)) {
        problems.add(`${at}.unit_cost`, "out_of_range", `must be below ${MAX_UNIT_COST.toFixed()}`);
        unitCost = "0";
      } else unitCost = parsed.value.toString();
    } else if (keepsCost && base) {
      unitCost = base.unit_cost;
    } else if (itemId !== null) {
      ({ unitCost, origin: costOrigin } = defaultUnitCost(ctx, itemId, variant, qty));
      if (!isWithin(unitCost, MAX_UNIT_COST)) {
        problems.add(
          `${at}.unit_cost`,
          "out_of_range",
          `the variant's cost at the order's exchange rate is ${MAX_UNIT_COST.toFixed()} or more: give unit_cost`,
        );
        unitCost = "0";
      }
    } else {
      unitCost = "0";
    }

    let discount: string | null = base ? base.discount_percent : null;
    if (input.discount_percent !== undefined) {
      if (input.discount_percent === null) discount = null;
      else {
        const parsed = parseDecimalInput(input.discount_percent, { maxPlaces: 4 });
        if (!parsed.ok) problems.add(`${at}.discount_percent`, parsed.code, parsed.message);
        else if (parsed.value.gt(100))
          problems.add(`${at}.discount_percent`, "out_of_range", "must be at most 100");
        else discount = parsed.value.toString();
      }
    }

    const catalogRow = itemId !== null ? lookups.catalogByItem.get(itemId) : undefined;
    const supplierSku = pick(
      input.supplier_sku,
      fromMirror ? (catalogRow?.supplier_sku ?? null) : (base?.supplier_sku ?? null),
    );

    return {
      ...(base && { id: base.id, created_at: base.created_at }),
      position: ctx.firstPosition + index,
      product_title: productTitle,
      variant_title: pick(input.variant_title, mirror ? mirror.title : (base?.variant_title ?? null)),
      sku: pick(input.sku, mirror ? mirror.sku : (base?.sku ?? null)),
      supplier_sku: supplierSku,
      barcode: pick(input.barcode, mirror ? mirror.barcode : (base?.barcode ?? null)),
      pack_code: pick(input.pack_code, base?.pack_code ?? null),
      inventory_item_id: itemId,
      variant_id: variantId,
      product_id: mirror ? Number(mirror.product_id) : (base?.product_id ?? null),
      location_id: locationId,
      quantity: qty,
      cancelled_quantity: base?.cancelled_quantity ?? 0,
      received_quantity: base?.received_quantity ?? 0,
      unit_cost: unitCost,
      discount_percent: discount,
      taxable: pick(input.taxable, base?.taxable ?? true),
      tax_rate_id: taxRateId,
      tax_rate_percent: taxRatePercent,
      weight_grams: pick(input.weight_grams, mirror ? mirror.weight_grams : (base?.weight_grams ?? 0)),
      supplier_note: pick(input.supplier_note, base?.supplier_note ?? null),
      internal_note: pick(input.internal_note, base?.internal_note ?? null),
      warnings: [
        ...lineWarnings(qty, catalogRow),
        // An unknown order currency is already refused on `currency`; its costs cannot be formatted.
        ...(!isKnownCurrency(ctx.currency)
          ? []
          : keepsCost && base
            ? keptCostWarnings(base.warnings ?? [], unitCost, ctx.currency)
            : costWarnings(unitCost, costOrigin, ctx.currency)),
      ],
    };
  });
}

/** Ids the lines refer to, for `fetchLookups`. */
export function referencesOf(inputs: readonly LineInput[], existing: readonly LineRow[] = []) {
  const variantIds: number[] = [];
  const itemIds: number[] = [];
  const locationIds: number[] = [];
  const taxRateIds: number[] = [];
  for (const l of inputs) {
    if (l.variant_id !== undefined) variantIds.push(l.variant_id);
    if (l.inventory_item_id !== undefined) itemIds.push(l.inventory_item_id);
    if (l.location_id != null) locationIds.push(l.location_id);
    if (l.tax_rate_id != null) taxRateIds.push(l.tax_rate_id);
  }
  for (const l of existing) if (l.inventory_item_id !== null) itemIds.push(l.inventory_item_id);
  return { variantIds, itemIds, locationIds, taxRateIds };
}
