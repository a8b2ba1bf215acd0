/**
 * A line's unit cost when the request gives none, and the warnings about its cost. The default is the
 * supplier's catalog tier in the order currency, else the variant's cost (converted from the store
 * currency at the order's exchange rate when the order is in another), else 0. A merchant must not
 * print or send an order at a cost nobody chose without being told: a converted cost carries
 * `converted_cost` and a zero cost `no_cost`, stored with the line like the catalog warnings, so GET,
 * lists, events and documents all show the same thing.
 */
import Big from "big.js";
import type { LineWarning } from "../../db/tables/purchase_orders.ts";
import type { DetailCollector } from "../errors.ts";
import { divideRoundHalfUp, formatUnitCost, UNIT_COST_PLACES } from "../money.ts";
import { tierFor, tierSetsOn } from "../suppliers/index.ts";
import type { LineDraft } from "./lines.ts";
import type { Lookups, VariantRow } from "./lookups.ts";
import { isWithin, MAX_UNIT_COST } from "./money-bounds.ts";

export interface CostTerms {
  /** The order currency. */
  currency: string;
  /** Store currency: a variant's unit cost without a currency is in it. */
  storeCurrency: string;
  /** The order's exchange rate: one unit of the order currency in the store currency. */
  exchangeRate: string;
  /** Today in the store's timezone (which supplier price set is in force). */
  today: string;
  lookups: Lookups;
}

/** Where a line's cost came from, when that needs telling. */
export type CostOrigin =
  | { kind: "converted"; from: string; fromCurrency: string; rate: string }
  /** The variant has a cost, but in a currency the order's exchange rate does not convert. */
  | { kind: "foreign"; fromCurrency: string }
  | null;

export interface DefaultCost {
  unitCost: string;
  origin: CostOrigin;
}

/**
 * A cost in the store currency as a cost in the order currency: divided by the order's rate (order
 * currency → store currency), rounded half-up to the 8 places a unit cost keeps, exactly.
 */
export function convertFromStoreCurrency(cost: Big, rateToStore: Big): Big {
  return divideRoundHalfUp(cost, rateToStore, UNIT_COST_PLACES);
}

/** The cost of `quantity` of an item on a new line (or one whose item changed). */
export function defaultUnitCost(
  terms: CostTerms,
  itemId: number,
  variant: VariantRow | undefined,
  quantity: number,
): DefaultCost {
  const row = terms.lookups.catalogByItem.get(itemId);
  if (row) {
    const { effective } = tierSetsOn(row, terms.today);
    if (effective && effective.currency === terms.currency) {
      const tier = tierFor(effective.tiers, quantity);
      if (tier) return { unitCost: new Big(tier.price).toFixed(), origin: null };
    }
  }
  const cost = variant?.unit_cost ?? null;
  if (cost === null) return { unitCost: "0", origin: null };
  const costCurrency = variant?.unit_cost_currency ?? terms.storeCurrency;
  if (costCurrency === terms.currency) return { unitCost: new Big(cost).toFixed(), origin: null };
  if (costCurrency !== terms.storeCurrency)
    return { unitCost: "0", origin: { kind: "foreign", fromCurrency: costCurrency } };
  const converted = convertFromStoreCurrency(new Big(cost), new Big(terms.exchangeRate));
  return {
    unitCost: converted.toFixed(),
    origin: {
      kind: "converted",
      from: new Big(cost).toString(),
      fromCurrency: costCurrency,
      rate: terms.exchangeRate,
    },
  };
}

/** The warnings about a line's cost: how it was converted, or that it is zero. */
export function costWarnings(unitCost: string, origin: CostOrigin, currency: string): LineWarning[] {
  const cost = new Big(unitCost);
  if (origin?.kind === "converted") {
    const from = formatUnitCost(new Big(origin.from), origin.fromCurrency);
    const to = formatUnitCost(cost, currency);
    return [
      {
        code: cost.eq(0) ? "no_cost" : "converted_cost",
        message: `The variant's cost of ${from} ${origin.fromCurrency} was converted to ${to} ${currency} at the order's exchange rate (1 ${currency} = ${new Big(origin.rate).toFixed()} ${origin.fromCurrency}).`,
        suggested_quantity: null,
      },
    ];
  }
  if (!cost.eq(0)) return [];
  const why =
    origin?.kind === "foreign"
      ? `: the variant's cost is in ${origin.fromCurrency}, which the order's exchange rate does not convert`
      : "";
  return [
    {
      code: "no_cost",
      message: `The line's unit cost is 0${why}; the supplier would see this line at no cost.`,
      suggested_quantity: null,
    },
  ];
}

/**
 * A kept line's cost warnings when its cost is kept too: a conversion stays told as it was made (at the
 * rate of that time), otherwise only a zero cost is told.
 */
export function keptCostWarnings(previous: readonly LineWarning[], unitCost: string, currency: string) {
  const converted = previous.filter((w) => w.code === "converted_cost");
  return converted.length > 0 ? converted : costWarnings(unitCost, null, currency);
}

const COST_CODES = new Set<LineWarning["code"]>(["converted_cost", "no_cost"]);

/**
 * A draft's lines after its currency or exchange rate changed. A converted cost was never chosen by
 * anyone, only derived from the rate: such a line (it still carries `converted_cost`) is priced again
 * as a new line would be at the new terms, like the charges are converted again. Every other line
 * keeps its cost: that one was given or agreed. A cost beyond a unit cost's bound is a problem on
 * `field` (the rate or currency that made it).
 */
export function repriceConvertedLines(
  terms: CostTerms,
  lines: readonly LineDraft[],
  problems: DetailCollector,
  field: string,
): { lines: LineDraft[]; repriced: boolean } {
  let repriced = false;
  const next = lines.map((line) => {
    if (line.inventory_item_id === null || !line.warnings.some((w) => w.code === "converted_cost"))
      return line;
    const variant = terms.lookups.variantsByItem.get(line.inventory_item_id);
    // Gone from the catalog: nothing to convert again, and 0 would lose a cost that was shown.
    if (!variant) return line;
    const { unitCost, origin } = defaultUnitCost(terms, line.inventory_item_id, variant, line.quantity);
    if (!isWithin(unitCost, MAX_UNIT_COST)) {
      problems.add(
        field,
        "out_of_range",
        `converts the cost of line ${line.position} to ${MAX_UNIT_COST.toFixed()} or more: give its unit_cost`,
      );
      return line;
    }
    repriced = true;
    return {
      ...line,
      unit_cost: unitCost,
      warnings: [
        ...line.warnings.filter((w) => !COST_CODES.has(w.code)),
        ...costWarnings(unitCost, origin, terms.currency),
      ],
    };
  });
  return { lines: next, repriced };
}
