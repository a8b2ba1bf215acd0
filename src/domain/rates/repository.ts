import type { Insertable } from "kysely";
import type { Db } from "../../db/database.ts";
import type { ExchangeRatesTable } from "../../db/tables/purchase_orders.ts";

/** SQL for a store's tax rates and exchange rates. No rules here. */

export async function taxRatesOf(db: Db, storeId: number) {
  return db
    .selectFrom("tax_rates")
    .select(["id", "name", "rate_percent"])
    .where("store_id", "=", storeId)
    .orderBy("id")
    .execute();
}

/** The ids of the store's tax rates, locked: two replacements of the set queue. */
export async function lockTaxRateIds(trx: Db, storeId: number): Promise<Set<number>> {
  const rows = await trx
    .selectFrom("tax_rates")
    .select("id")
    .where("store_id", "=", storeId)
    .forUpdate()
    .execute();
  return new Set(rows.map((r) => r.id));
}

export async function deleteTaxRates(trx: Db, storeId: number, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await trx
    .deleteFrom("tax_rates")
    .where("store_id", "=", storeId)
    .where("id", "in", [...ids])
    .execute();
}

export async function updateTaxRate(
  trx: Db,
  storeId: number,
  id: number,
  set: { name: string; rate_percent: string; updated_at: Date },
): Promise<void> {
  await trx.updateTable("tax_rates").set(set).where("store_id", "=", storeId).where("id", "=", id).execute();
}

export async function insertTaxRates(
  trx: Db,
  storeId: number,
  rows: ReadonlyArray<{ name: string; rate_percent: string }>,
  now: Date,
): Promise<void> {
  if (rows.length === 0) return;
  await trx
    .insertInto("tax_rates")
    .values(
      rows.map((r) => ({
        store_id: storeId,
        name: r.name,
        rate_percent: r.rate_percent,
        created_at: now,
        updated_at: now,
      })),
    )
    .execute();
}

export async function exchangeRatesOf(db: Db, storeId: number) {
  return db
    .selectFrom("exchange_rates")
    .select(["currency", "rate_to_base", "date"])
    .where("store_id", "=", storeId)
    .orderBy("currency")
    .execute();
}

export async function replaceExchangeRateRows(
  trx: Db,
  storeId: number,
  rows: ReadonlyArray<Insertable<ExchangeRatesTable>>,
): Promise<void> {
  await trx.deleteFrom("exchange_rates").where("store_id", "=", storeId).execute();
  if (rows.length > 0)
    await trx
      .insertInto("exchange_rates")
      .values([...rows])
      .execute();
}
