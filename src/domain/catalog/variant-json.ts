import { type RawBuilder, sql } from "kysely";
import { isoText } from "../../db/json-text.ts";
import { minorUnitsSql, moneySql, unitCostSql } from "../money-sql.ts";

/**
 * presentVariant (presenters.ts) written by the database (db/json-text.ts): the same fields in the
 * same order, as one compact JSON text per row of `variants as v`. `storeCurrency` is the store's
 * currency as SQL (a parameter, or a joined column): prices take its minor units, a unit cost its own
 * currency's (the store's when it names none). test/http/list-pages-json.test.ts holds both to the
 * same output.
 */
export function variantJson(storeCurrency: RawBuilder<string>): RawBuilder<string> {
  const storePlaces = minorUnitsSql(sql`upper(${storeCurrency})`);
  const costCurrency = sql`coalesce(v.unit_cost_currency, ${storeCurrency})`;
  return sql<string>`(select row_to_json(r)::text from (select
    v.id, v.product_id, v.inventory_item_id, v.title, v.product_title, v.sku, v.barcode, v.position,
    ${moneySql(sql`v.price`, storePlaces)} as price,
    ${moneySql(sql`v.compare_at_price`, storePlaces)} as compare_at_price,
    ${unitCostSql(sql`v.unit_cost`, minorUnitsSql(sql`upper(${costCurrency})`))} as unit_cost,
    case when v.unit_cost is null then null else ${costCurrency} end as unit_cost_currency,
    v.weight_grams, v.inventory_tracked, v.inventory_policy, v.taxable, v.image_url,
    ${isoText(sql`v.platform_updated_at`)} as platform_updated_at,
    ${isoText(sql`v.created_at`)} as created_at,
    ${isoText(sql`v.updated_at`)} as updated_at) r)`;
}
