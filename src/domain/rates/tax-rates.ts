import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { DetailCollector } from "../errors.ts";
import { parseDecimalInput } from "../money.ts";
import { getStore } from "../stores/index.ts";
import { deleteTaxRates, insertTaxRates, lockTaxRateIds, taxRatesOf, updateTaxRate } from "./repository.ts";

/**
 * The store's tax rates (docs/decisions.md, "Stores and the admin API"). PUT replaces the whole set: a rate
 * sent with its `id` is changed, one without is added, one left out is deleted.
 */

export interface TaxRateView {
  id: number;
  name: string;
  rate_percent: number;
}

export interface TaxRateInput {
  id?: number;
  name: string;
  rate_percent: number | string;
}

export async function listTaxRates(db: Db, storeId: number): Promise<TaxRateView[]> {
  await getStore(db, storeId);
  return presentTaxRates(db, storeId);
}

async function presentTaxRates(db: Db, storeId: number): Promise<TaxRateView[]> {
  return (await taxRatesOf(db, storeId)).map((r) => ({
    id: r.id,
    name: r.name,
    rate_percent: Number(r.rate_percent),
  }));
}

/** Every rate is checked (known id, named once, 0 to 100 with at most 4 places) before anything is written. */
export async function replaceTaxRates(
  ctx: AppContext,
  storeId: number,
  rates: readonly TaxRateInput[],
): Promise<TaxRateView[]> {
  await getStore(ctx.db, storeId);
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    const existing = await lockTaxRateIds(trx, storeId);
    const problems = new DetailCollector();
    const seen = new Set<number>();
    const rows = rates.map((rate, i) => {
      if (rate.id !== undefined) {
        if (!existing.has(rate.id))
          problems.add(`rates.${i}.id`, "not_found", "is not a tax rate of this store");
        else if (seen.has(rate.id)) problems.add(`rates.${i}.id`, "duplicate", "is named twice");
        seen.add(rate.id);
      }
      const parsed = parseDecimalInput(rate.rate_percent, { maxPlaces: 4 });
      if (!parsed.ok) problems.add(`rates.${i}.rate_percent`, parsed.code, parsed.message);
      else if (parsed.value.gt(100))
        problems.add(`rates.${i}.rate_percent`, "out_of_range", "must be at most 100");
      return { id: rate.id, name: rate.name, rate_percent: parsed.ok ? parsed.value.toString() : "0" };
    });
    problems.throwIfAny();
    await deleteTaxRates(
      trx,
      storeId,
      [...existing].filter((id) => !seen.has(id)),
    );
    for (const row of rows) {
      if (row.id !== undefined)
        await updateTaxRate(trx, storeId, row.id, {
          name: row.name,
          rate_percent: row.rate_percent,
          updated_at: now,
        });
    }
    await insertTaxRates(
      trx,
      storeId,
      rows.filter((r) => r.id === undefined),
      now,
    );
  });
  return presentTaxRates(ctx.db, storeId);
}
