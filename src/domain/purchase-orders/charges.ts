/** Order charges and exchange rates from input (docs/decisions.md, Money and Purchase orders). */
import Big from "big.js";
import type { Db } from "../../db/database.ts";
import type { DetailCollector } from "../errors.ts";
import { divideRoundHalfUp, isKnownCurrency, minorUnits, parseDecimalInput } from "../money.ts";
import { isWithin, MAX_AMOUNT, MAX_RATE } from "./money-bounds.ts";

export interface ChargeInput {
  kind?: "shipping" | "other";
  label?: string | null;
  amount: number | string;
  currency?: string | null;
  billed_by_supplier?: boolean;
  allocation_method?: "value" | "quantity" | "weight" | "custom" | "none";
  custom_split?: { position: number; amount: number | string }[] | null;
}

export interface ChargeDraft {
  position: number;
  kind: "shipping" | "other";
  label: string | null;
  amount: string;
  currency: string;
  rate_to_order_currency: string;
  billed_by_supplier: boolean;
  allocation_method: "value" | "quantity" | "weight" | "custom" | "none";
  custom_split: { position: number; amount: string }[] | null;
}

export interface StoreRate {
  rate_to_base: string;
  date: string;
}

/** The store's exchange rates for `currencies` (one query; the store currency needs none). */
export async function storeRates(
  db: Db,
  storeId: number,
  currencies: Iterable<string>,
): Promise<Map<string, StoreRate>> {
  const list = [...new Set(currencies)].filter((c) => typeof c === "string" && c.length > 0);
  const map = new Map<string, StoreRate>();
  if (list.length === 0) return map;
  const rows = await db
    .selectFrom("exchange_rates")
    .select(["currency", "rate_to_base", "date"])
    .where("store_id", "=", storeId)
    .where("currency", "in", list)
    .execute();
  for (const r of rows) map.set(r.currency, { rate_to_base: r.rate_to_base, date: r.date });
  return map;
}

export interface OrderExchangeRate {
  rate: string;
  base_currency: string;
  date: string;
  source: "identity" | "store_rates" | "manual";
}

/**
 * The order's exchange rate (order currency → store currency): `manual` when given, `identity` for
 * the store currency, else the store's rate for the currency; null when there is none.
 */
export function orderExchangeRate(
  currency: string,
  storeCurrency: string,
  manual: string | null,
  rates: Map<string, StoreRate>,
  today: string,
): OrderExchangeRate | null {
  if (manual !== null) return { rate: manual, base_currency: storeCurrency, date: today, source: "manual" };
  if (currency === storeCurrency)
    return { rate: "1", base_currency: storeCurrency, date: today, source: "identity" };
  const r = rates.get(currency);
  if (!r) return null;
  return { rate: r.rate_to_base, base_currency: storeCurrency, date: r.date, source: "store_rates" };
}

/** 1 unit of `chargeCurrency` in the order currency, through the store currency; null without a rate. */
export function chargeRate(
  chargeCurrency: string,
  orderCurrency: string,
  orderRateToBase: string,
  storeCurrency: string,
  rates: Map<string, StoreRate>,
): string | null {
  if (chargeCurrency === orderCurrency) return "1";
  const toBase = chargeCurrency === storeCurrency ? "1" : rates.get(chargeCurrency)?.rate_to_base;
  if (toBase === undefined) return null;
  return divideRoundHalfUp(new Big(toBase), new Big(orderRateToBase), 12).toString();
}

/** Charge inputs to drafts; problems on `charges.N.*`. */
export function resolveCharges(
  inputs: readonly ChargeInput[],
  ctx: {
    orderCurrency: string;
    orderRateToBase: string;
    storeCurrency: string;
    rates: Map<string, StoreRate>;
    linePositions: ReadonlySet<number>;
    problems: DetailCollector;
  },
): ChargeDraft[] {
  const { problems } = ctx;
  return inputs.map((input, index) => {
    const at = `charges.${index}`;
    const currency = input.currency ?? ctx.orderCurrency;
    let places = 2;
    let rate = "1";
    if (!isKnownCurrency(currency)) {
      problems.add(`${at}.currency`, "invalid_value", "is not a known ISO 4217 currency code");
    } else {
      places = minorUnits(currency);
      const r = chargeRate(currency, ctx.orderCurrency, ctx.orderRateToBase, ctx.storeCurrency, ctx.rates);
      if (r === null)
        problems.add(
          `${at}.currency`,
          "no_exchange_rate",
          `the store has no exchange rate for ${currency} (set one in the store's exchange rates)`,
        );
      else if (!isWithin(r, MAX_RATE))
        problems.add(
          `${at}.currency`,
          "out_of_range",
          `converts to the order currency at ${r}, more than a rate can be (below ${MAX_RATE.toFixed()})`,
        );
      else rate = r;
    }
    let amount = "0";
    const parsed = parseDecimalInput(input.amount, { maxPlaces: places });
    if (!parsed.ok) problems.add(`${at}.amount`, parsed.code, parsed.message);
    else if (!isWithin(parsed.value, MAX_AMOUNT))
      problems.add(`${at}.amount`, "out_of_range", `must be below ${MAX_AMOUNT.toFixed()}`);
    else amount = parsed.value.toString();

    const method = input.allocation_method ?? "value";
    let split: ChargeDraft["custom_split"] = null;
    if (method === "custom") {
      if (!input.custom_split || input.custom_split.length === 0) {
        problems.add(`${at}.custom_split`, "required", "is required with allocation_method custom");
      } else {
        let sum = new Big(0);
        let ok = true;
        const seen = new Set<number>();
        split = input.custom_split.map((entry, i) => {
          if (!ctx.linePositions.has(entry.position)) {
            problems.add(`${at}.custom_split.${i}.position`, "not_found", "is not the position of a line");
            ok = false;
          } else if (seen.has(entry.position)) {
            problems.add(`${at}.custom_split.${i}.position`, "duplicate", "names a line twice");
            ok = false;
          }
          seen.add(entry.position);
          const p = parseDecimalInput(entry.amount, { maxPlaces: places });
          if (!p.ok) {
            problems.add(`${at}.custom_split.${i}.amount`, p.code, p.message);
            ok = false;
            return { position: entry.position, amount: "0" };
          }
          sum = sum.plus(p.value);
          return { position: entry.position, amount: p.value.toString() };
        });
        if (ok && parsed.ok && !sum.eq(parsed.value)) {
          problems.add(`${at}.custom_split`, "split_mismatch", `must sum to the charge amount (${amount})`);
        }
      }
    } else if (input.custom_split && input.custom_split.length > 0) {
      problems.add(`${at}.custom_split`, "not_allowed", "is only for allocation_method custom");
    }
    return {
      position: index + 1,
      kind: input.kind ?? "shipping",
      label: input.label ?? null,
      amount,
      currency,
      rate_to_order_currency: rate,
      billed_by_supplier: input.billed_by_supplier ?? true,
      allocation_method: method,
      custom_split: split,
    };
  });
}
