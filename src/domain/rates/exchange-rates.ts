import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { DetailCollector } from "../errors.ts";
import { localDate } from "../local-time.ts";
import { isKnownCurrency, parseDecimalInput } from "../money.ts";
import { getStore } from "../stores/index.ts";
import { exchangeRatesOf, replaceExchangeRateRows } from "./repository.ts";

/**
 * The store's exchange rates (docs/decisions.md, "Stores and the admin API"): 1 unit of `currency` =
 * `rate_to_base` units of the store currency, as of `date` (the store's today when not sent). PUT replaces
 * the whole set.
 */

export interface ExchangeRateView {
  currency: string;
  rate_to_base: number;
  date: string;
}

export interface ExchangeRateInput {
  currency: string;
  rate_to_base: number | string;
  date?: string;
}

export async function listExchangeRates(db: Db, storeId: number): Promise<ExchangeRateView[]> {
  await getStore(db, storeId);
  return presentExchangeRates(db, storeId);
}

async function presentExchangeRates(db: Db, storeId: number): Promise<ExchangeRateView[]> {
  return (await exchangeRatesOf(db, storeId)).map((r) => ({
    currency: r.currency,
    rate_to_base: Number(r.rate_to_base),
    date: r.date,
  }));
}

/** Each currency once, a known one other than the store's, with a positive rate of at most 12 places. */
export async function replaceExchangeRates(
  ctx: AppContext,
  storeId: number,
  rates: readonly ExchangeRateInput[],
): Promise<ExchangeRateView[]> {
  const store = await getStore(ctx.db, storeId);
  const today = localDate(ctx.clock.now(), store.timezone);
  const problems = new DetailCollector();
  const seen = new Set<string>();
  const rows = rates.map((rate, i) => {
    if (!isKnownCurrency(rate.currency))
      problems.add(`rates.${i}.currency`, "invalid_value", "is not a known ISO 4217 currency code");
    else if (rate.currency === store.currency)
      problems.add(`rates.${i}.currency`, "invalid_value", "is the store currency (its rate is always 1)");
    else if (seen.has(rate.currency)) problems.add(`rates.${i}.currency`, "duplicate", "is listed twice");
    seen.add(rate.currency);
    const parsed = parseDecimalInput(rate.rate_to_base, { maxPlaces: 12, allowZero: false });
    if (!parsed.ok) problems.add(`rates.${i}.rate_to_base`, parsed.code, parsed.message);
    return {
      store_id: storeId,
      currency: rate.currency,
      rate_to_base: parsed.ok ? parsed.value.toString() : "1",
      date: rate.date ?? today,
    };
  });
  problems.throwIfAny();
  await ctx.db.transaction().execute((trx) => replaceExchangeRateRows(trx, storeId, rows));
  return presentExchangeRates(ctx.db, storeId);
}
