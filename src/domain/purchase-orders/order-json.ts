/**
 * A whole purchase order as GET shows it (presentPurchaseOrder, presenter.ts), written by the
 * database as one JSON text: the header, its lines (line-text.ts), charges, platform_sync, receipts
 * with their lines and platform_sync, and payments, with the same keys in the same order as the
 * presenter and the response schema, compact as the serializer writes them. For the small order's
 * read (one-statement-read.ts), which sends the text as the answer's `data`: the API neither builds
 * its rows from 56 columns and six arrays, nor presents them (Big.js for every amount), nor
 * serializes them (issue 22 item 2), as the supplier and variant reads already do.
 *
 * Values follow the presenter: timestamps as `toISOString` writes them, money as
 * `formatMoney`/`formatUnitCost` in the currency the presenter uses for that amount, the numbers the
 * presenter makes with `Number(…)` as float8 (the same double), a location without a name as
 * `Location <id>`, a record without a platform_sync row as never moved (synced).
 * test/http/purchase-order-one-statement-read.test.ts holds it to the full read, byte for byte.
 */
import { moneySqlText } from "../money-sql.ts";
import { json, jsonArraySql, linesJsonSql, object, orNull } from "./line-text.ts";

/** `Date#toISOString` of a timestamptz, quoted (null stays null). */
const iso = (expr: string) =>
  orNull(`'"' || to_char(${expr} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'`);
/** Any scalar as PostgreSQL's JSON writes it: strings escaped, a date as `YYYY-MM-DD` (json, see line-text.ts). */
const value = (expr: string) => orNull(`to_json(${expr})`);
/** `Number(numeric text)`: the nearest double, written as PostgreSQL writes a float8 (shortest exact). */
const num = (expr: string) => `to_json((${expr})::float8)`;
/** A nullable amount, formatMoney'd. */
const moneyOrNull = (expr: string, places: string) => orNull(json.money(expr, places));

const array = jsonArraySql;

/** `{id, name}` of a location, its name `Location <id>` when the mirror has none (locationRef). */
const locationRef = (id: string, name: string) =>
  object([
    ["id", json.int(id)],
    ["name", `to_json(coalesce(${name}, 'Location ' || ${id}))`],
  ]);

/** platform_sync of one record: its row, else never moved (NEVER_MOVED: synced, never attempted). */
const syncOf = (type: "purchase_order" | "receipt", id: string) =>
  `coalesce((select ${object([
    ["state", value("ps.state")],
    ["attempted_at", iso("ps.attempted_at")],
    ["error", value("ps.error")],
  ])} from platform_sync_states ps
    where ps.store_id = po.store_id and ps.subject_type = '${type}' and ps.subject_id = ${id}),
    '{"state":"synced","attempted_at":null,"error":null}')`;

const ADDRESS_KEYS = ["line1", "line2", "city", "province_code", "zip", "country", "country_code", "phone"];

/** A location's address field as presented: its string, else null (shipToAddress's `pick`). */
const pick = (key: string) =>
  `case when jsonb_typeof(loc.address->'${key}') = 'string' then loc.address->'${key}' else 'null' end`;

/** ship_to_address: the override as text, else the location's address, else null. */
const SHIP_TO = `case
  when po.ship_to_override is not null then ${object([
    ["name", "'null'"],
    ["text", value("po.ship_to_override")],
    ...ADDRESS_KEYS.map((k) => [k, "'null'"] as const),
  ])}
  when loc.address is null then 'null'
  else ${object([
    ["name", value("loc.name")],
    ["text", "'null'"],
    ...ADDRESS_KEYS.map((k) => [k, pick(k)] as const),
  ])}
end`;

/** A charge's custom split, amounts in the charge's currency (`cp.places`). */
const CUSTOM_SPLIT = `case when c.custom_split is null then 'null' else ${array(
  object([
    ["position", "s.value->'position'"],
    ["amount", json.money("(s.value->>'amount')::numeric", "cp.places")],
  ]),
  "from jsonb_array_elements(c.custom_split) with ordinality s",
  "s.ordinality",
)} end`;

/** presentCharge: its amount in the charge's currency, the order-currency amounts in the order's. */
const CHARGES = array(
  object([
    ["id", json.int("c.id")],
    ["kind", value("c.kind")],
    ["label", value("c.label")],
    ["amount", json.money("c.amount", "cp.places")],
    ["currency", value("c.currency")],
    ["amount_in_order_currency", json.money("c.amount_in_order_currency", "cur.places")],
    ["tax_amount", json.money("c.tax_amount", "cur.places")],
    ["billed_by_supplier", json.bool("c.billed_by_supplier")],
    ["allocation_method", value("c.allocation_method")],
    ["position", json.int("c.position")],
    ["custom_split", CUSTOM_SPLIT],
  ]),
  `from purchase_order_charges c
  cross join lateral (select ${moneySqlText.minorUnits("c.currency")} as places) cp
  where c.store_id = po.store_id and c.purchase_order_id = po.id`,
  "c.position, c.id",
);

/** presentReceiptLine: the booked cost in the order's currency, the landed one in the store's. */
const RECEIPT_LINES = array(
  object([
    ["id", json.int("rl.id")],
    ["line_id", json.int("rl.line_id")],
    ["quantity", json.int("rl.quantity")],
    ["surplus_quantity", json.int("rl.surplus_quantity")],
    ["rejected_quantity", json.int("rl.rejected_quantity")],
    ["unit_cost", json.unitCost("rl.unit_cost", "cur.places")],
    ["landed_unit_cost", json.unitCost("rl.landed_unit_cost", "cur.store_places")],
    ["allocated_charge_amount", json.money("rl.allocated_charge_amount", "cur.places")],
  ]),
  "from receipt_lines rl where rl.receipt_id = r.id",
  "rl.id",
);

/** presentReceipt, oldest first. */
const RECEIPTS = array(
  object([
    ["id", json.int("r.id")],
    ["purchase_order_id", json.int("r.purchase_order_id")],
    ["received_at", iso("r.received_at")],
    ["voided_at", iso("r.voided_at")],
    ["source", value("r.source")],
    ["location", locationRef("r.location_id", "rloc.name")],
    [
      "invoice",
      object([
        ["reference", value("r.invoice_reference")],
        ["date", value("r.invoice_date")],
        ["total", moneyOrNull("r.invoice_total", "cur.places")],
      ]),
    ],
    ["exchange_rate", num("r.exchange_rate")],
    ["rejected_disposition", value("r.rejected_disposition")],
    ["note", value("r.note")],
    ["lines", RECEIPT_LINES],
    ["platform_sync", syncOf("receipt", "r.id")],
    ["created_at", iso("r.created_at")],
    ["updated_at", iso("r.updated_at")],
  ]),
  `from receipts r
  left join locations rloc on rloc.id = r.location_id and rloc.store_id = r.store_id
  where r.store_id = po.store_id and r.purchase_order_id = po.id`,
  "r.created_at, r.id",
);

/** presentPayment, oldest first, in the payment's own currency. */
const PAYMENTS = array(
  object([
    ["id", json.int("p.id")],
    ["amount", json.money("p.amount", moneySqlText.minorUnits("p.currency"))],
    ["currency", value("p.currency")],
    ["paid_on", value("p.paid_on")],
    ["method", value("p.method")],
    ["reference", value("p.reference")],
    ["note", value("p.note")],
    ["created_at", iso("p.created_at")],
  ]),
  "from payments p where p.store_id = po.store_id and p.purchase_order_id = po.id",
  "p.created_at, p.id",
);

/**
 * SQL of the order's JSON text for the order `po`, its supplier `s` and location `loc` (left joins
 * in the enclosing statement, as in the small read), with `cur.places` and `cur.store_places` the
 * minor units of the order's and the store's currency (orderCurrenciesSql). `withParts: false`
 * writes empty charges, receipts and payments without reading them: for an order known to have none
 * (one-statement-read.ts), whose statement then sets up none of their reads.
 */
export function orderJsonSql({ withParts = true }: { withParts?: boolean } = {}): string {
  const none = "'[]'";
  return object([
    ["id", json.int("po.id")],
    ["sequential_id", json.int("po.sequential_id")],
    ["number", value("po.number")],
    ["status", value("po.status")],
    ["type", value("po.type")],
    ["archived", json.bool("po.archived")],
    ["archived_at", iso("po.archived_at")],
    ["source", value("po.source")],
    [
      "supplier",
      object([
        ["id", json.int("po.supplier_id")],
        ["name", `to_json(coalesce(s.name, ''))`],
      ]),
    ],
    ["supplier_id", json.int("po.supplier_id")],
    ["currency", value("po.currency")],
    [
      "exchange_rate",
      object([
        ["rate", num("po.exchange_rate")],
        ["base_currency", value("po.exchange_rate_base_currency")],
        ["date", value("po.exchange_rate_date")],
        ["source", value("po.exchange_rate_source")],
      ]),
    ],
    ["reference", value("po.reference")],
    ["customer_order_number", value("po.customer_order_number")],
    ["supplier_order_number", value("po.supplier_order_number")],
    ["invoice_number", value("po.invoice_number")],
    ["account_number", value("po.account_number")],
    ["notes", value("po.notes")],
    ["expected_at", value("po.expected_at")],
    ["payment_due_on", value("po.payment_due_on")],
    ["payment_status", value("po.payment_status")],
    ["paid_at", iso("po.paid_at")],
    ["location", locationRef("po.location_id", "loc.name")],
    ["updates_stock", json.bool("po.updates_stock")],
    ["ships_to_customer", json.bool("po.ships_to_customer")],
    ["ship_to_address", SHIP_TO],
    [
      "tax",
      object([
        ["rate_id", json.int("po.tax_rate_id")],
        ["name", value("po.tax_rate_name")],
        ["rate_percent", num("po.tax_rate_percent")],
        ["taxes_included", json.bool("po.taxes_included")],
        ["charges_taxable", json.bool("po.charges_taxable")],
      ]),
    ],
    [
      "totals",
      object([
        ["currency", value("po.currency")],
        ["subtotal", json.money("po.subtotal", "cur.places")],
        ["charges", json.money("po.charges_total", "cur.places")],
        ["tax", json.money("po.tax_total", "cur.places")],
        ["total", json.money("po.total", "cur.places")],
      ]),
    ],
    ["lines", linesJsonSql("cur.places")],
    ["charges", withParts ? CHARGES : none],
    ["platform_sync", syncOf("purchase_order", "po.id")],
    ["sent_at", iso("po.sent_at")],
    ["ordered_at", iso("po.ordered_at")],
    ["in_transit_at", iso("po.in_transit_at")],
    ["received_at", iso("po.received_at")],
    ["closed_at", iso("po.closed_at")],
    ["created_at", iso("po.created_at")],
    ["updated_at", iso("po.updated_at")],
    ["return_reason", value("po.return_reason")],
    ["return_source_po_id", json.int("po.return_source_po_id")],
    ["ship_to_override", value("po.ship_to_override")],
    ["bill_to_override", value("po.bill_to_override")],
    ["receipts", withParts ? RECEIPTS : none],
    ["payments", withParts ? PAYMENTS : none],
  ]);
}

/**
 * `cross join lateral` of the minor units of the order's currency (`places`) and of the store's,
 * its exchange rate's base (`store_places`: landed costs), each found once per order.
 */
export function orderCurrenciesSql(): string {
  return `cross join lateral (select ${moneySqlText.minorUnits("po.currency")} as places,
    ${moneySqlText.minorUnits("po.exchange_rate_base_currency")} as store_places) cur`;
}
