import { type RawBuilder, sql } from "kysely";
import { minorUnits } from "./money.ts";

/**
 * money.ts's text formats written by the database, for pages it writes as JSON (db/json-text.ts). Only
 * for numeric(20, 8) columns (every money column of the catalog and of suppliers): eight places at
 * most, so "up to 8 places" needs no rounding. PostgreSQL's `round(numeric, n)` rounds half away from
 * zero, as roundHalfUp does, prints exactly n places, and has no negative zero.
 */

let exceptions: RawBuilder<number> | undefined;

/**
 * minorUnits(code) in SQL for an uppercase code: the currencies whose minor units are not two, from
 * the same Intl data minorUnits reads, as literals (the statement's text stays the same, so it stays
 * prepared); any other code has two, as Intl answers for a code it does not know.
 */
export function minorUnitsSql(code: RawBuilder<unknown>): RawBuilder<number> {
  if (exceptions === undefined) {
    const cases = Intl.supportedValuesOf("currency")
      .filter((c) => /^[A-Z]{3}$/.test(c) && minorUnits(c) !== 2)
      .map((c) => `when '${c}' then ${minorUnits(c)}`)
      .join(" ");
    exceptions = sql<number>`${sql.raw(cases)}`;
  }
  return sql<number>`(case ${code} ${exceptions} else 2 end)`;
}

/** formatMoney(value, currency) as text: exactly `places` decimals, rounded half up. */
export function moneySql(value: RawBuilder<unknown>, places: RawBuilder<number>): RawBuilder<string | null> {
  return sql<string | null>`round(${value}, ${places})::text`;
}

/**
 * formatUnitCost(value, currency) as text: zeros trimmed beyond the currency's minor units (`places`),
 * which are always written ("3.10", JPY "5", "0.12345678").
 */
export function unitCostSql(
  value: RawBuilder<unknown>,
  places: RawBuilder<number>,
): RawBuilder<string | null> {
  return sql<
    string | null
  >`round(trim_scale(${value}), greatest(scale(trim_scale(${value})), ${places}))::text`;
}
