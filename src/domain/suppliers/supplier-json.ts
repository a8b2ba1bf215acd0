import { type RawBuilder, sql } from "kysely";
import { isoText } from "../../db/json-text.ts";
import { minorUnitsSql, moneySql } from "../money-sql.ts";

/**
 * presentSupplier (presenter.ts) written by the database, for list pages (db/json-text.ts): the same
 * fields in the same order, as one compact JSON text per row of `suppliers as s`. Money takes the
 * supplier's currency's minor units when it is a known code, else two (formatSupplierMoney): an
 * unknown or lower-case code finds no exception and gets two. `location_account_numbers` is written
 * as jsonb prints it (a space after each colon and comma), the same object.
 * test/http/supplier-page-json.test.ts holds both to the same output.
 */
export function supplierJson(): RawBuilder<string> {
  const places = minorUnitsSql(sql`s.currency`);
  const list = (column: string) => sql`coalesce(to_json(${sql.ref(column)}), '[]'::json)`;
  return sql<string>`(select row_to_json(r)::text from (select
    s.id, s.name, s.company_name, s.type, s.contact_name, s.phone, s.account_number, s.payment_terms,
    s.notes, s.bill_to_address, s.email, ${list("s.email_cc")} as email_cc, s.currency,
    coalesce(s.location_account_numbers, '{}'::jsonb) as location_account_numbers, s.lead_time_days,
    ${moneySql(sql`s.min_order_value`, places)} as min_order_value,
    ${moneySql(sql`s.free_freight_threshold`, places)} as free_freight_threshold,
    s.taxable, s.ships_direct, s.auto_restock, s.exclude_from_reorder, s.default_updates_stock,
    (select row_to_json(a) from (select s.address_line1 as line1, s.address_line2 as line2, s.city,
      s.province, s.zip, s.country) a) as address,
    ${list("s.match_vendors")} as match_vendors, ${list("s.match_tags")} as match_tags,
    ${list("s.match_exclude_tags")} as match_exclude_tags, ${list("s.dropship_tags")} as dropship_tags,
    s.archived, ${isoText(sql`s.archived_at`)} as archived_at, s.merged_into_id,
    ${isoText(sql`s.created_at`)} as created_at, ${isoText(sql`s.updated_at`)} as updated_at) r)`;
}
