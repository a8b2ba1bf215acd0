import { type RawBuilder, sql } from "kysely";
import { minorUnits } from "./money.ts";

/**
 * money.ts's text formats written by the database, for pages it writes as JSON (db/json-text.ts). Only
 * for numeric(20, 8) columns (every money column of the catalog and of suppliers): eight places at
 * most, so "up to 8 places" needs no rounding. PostgreSQL's `round(numeric, n)` rounds half away from
 * zero, as roundHalfUp does, prints exactly n places, and has no negative zero.
 */

let exceptionsText: string | undefined;

/** ` JPY:0 KWD:3 …`: every currency whose minor units are not two (read once, from Intl). */
function exceptions(): string {
  exceptionsText ??= Intl.supportedValuesOf("currency")
    .filter((c) => /^[A-Z]{3}$/.test(c) && minorUnits(c) !== 2)
    .map((c) => ` ${c}:${minorUnits(c)}`)
    .join("");
  return exceptionsText;
}

/**
 * minorUnits(code) in SQL for an uppercase code: the currencies whose minor units are not two, from
 * the same Intl data minorUnits reads, written into the statement as one text (` JPY:0 KWD:3 …`) and
 * found with strpos (its text stays the same, so the statement stays prepared); any other code has
 * two, as Intl answers for a code it does not know. A CASE of its 40-odd codes cost PostgreSQL about
 * 4 µs an evaluation, three times a variant: more than the rest of its JSON.
 */
export function minorUnitsSql(code: RawBuilder<unknown>): RawBuilder<number> {
  const table = sql.lit(exceptions());
  return sql<number>`coalesce(substr(${table}, nullif(strpos(${table}, ' ' || ${code} || ':'), 0) + 5, 1)::int, 2)`;
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

/**
 * The same three as SQL text around SQL text, for statements written as text
 * (purchase-orders/line-text.ts): `code`, `value` and `places` are SQL expressions.
 */
export const moneySqlText = {
  // The exceptions are codes, colons, digits and spaces: nothing to escape in the literal.
  minorUnits: (code: string) =>
    `coalesce(substr('${exceptions()}', nullif(strpos('${exceptions()}', ' ' || ${code} || ':'), 0) + 5, 1)::int, 2)`,
  money: (value: string, places: string) => `round(${value}, ${places})::text`,
  unitCost: (value: string, places: string) =>
    `round(trim_scale(${value}), greatest(scale(trim_scale(${value})), ${places}))::text`,
};
