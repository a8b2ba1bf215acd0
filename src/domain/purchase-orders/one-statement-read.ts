/**
 * `GET /v2/purchase_orders/{id}` of a small order in one statement (issue 22 item 2). The full read
 * (loading.ts) is the order's row, then five statements for its parts: seven round trips and seven
 * statements planned per request, where a single-record read should cost about what the key lookup
 * costs. Here the database writes the small order's whole answer as the contract's JSON text
 * (order-json.ts), as the supplier and variant reads do; on PostgreSQL it is a scalar subquery of the
 * key lookup's own statement, a named prepared statement on each connection.
 *
 * Only for a small order (at most SMALL_ORDER_LINES lines and SMALL_ORDER_RECEIPT_LINES receipt lines):
 * the statement then answers NOT_SMALL, and the caller reads the order the full way, in its store's
 * turn and (embedded database) in chunks, so a 500-line order never holds the one connection for a
 * whole statement.
 *
 * The same file reads any order's parts in one statement (a receipt's read under the order's lock, a
 * big order's GET and PDF): every string column is sent as its text (`numeric` keeps its scale, a
 * date its `YYYY-MM-DD`), a timestamp becomes a Date again, numbers, booleans and JSON columns pass as
 * they are, exactly as the driver gives them on the full read. Which kind a column is follows from
 * its type in src/db/tables, so a column added there and not here fails the type check.
 */
import type { Db } from "../../db/database.ts";
import { hotSql, type JsonRecord, readAheadOf, readsInChunks } from "../../db/prepared.ts";
import { notFound } from "../errors.ts";
import type { SyncState } from "../stock/index.ts";
import { OrderAnswers } from "./answer-cache.ts";
import {
  assembleOrders,
  loadPurchaseOrder,
  type OrderParts,
  orderRecordsByIdQuery,
  type ReceiptRecord,
  syncKey,
} from "./loading.ts";
import { orderCurrenciesSql, orderJsonSql } from "./order-json.ts";
import type {
  ChargeRow,
  LineRow,
  OrderRecord,
  OrderRow,
  PaymentRow,
  PurchaseOrder,
  ReceiptLineRow,
} from "./presenter.ts";

/** Up to this many lines an order is read in one statement (the bench's small order has 3). */
export const SMALL_ORDER_LINES = 50;
/** And up to this many receipt lines (many small deliveries of a small order). */
export const SMALL_ORDER_RECEIPT_LINES = 200;

type KindOf<T> = [T] extends [Date | null] ? "timestamp" : [T] extends [string | null] ? "text" : "plain";

/** Every column of a row with how it crosses JSON; the kind is forced by the column's type. */
type Spec<Row> = { readonly [K in keyof Row]-?: KindOf<Row[K]> };

const ORDER: Spec<OrderRow> = {
  id: "plain",
  store_id: "plain",
  sequential_id: "plain",
  number: "text",
  status: "text",
  type: "text",
  return_reason: "text",
  return_source_po_id: "plain",
  archived: "plain",
  archived_at: "timestamp",
  source: "text",
  supplier_id: "plain",
  currency: "text",
  exchange_rate: "text",
  exchange_rate_base_currency: "text",
  exchange_rate_date: "text",
  exchange_rate_source: "text",
  reference: "text",
  customer_order_number: "text",
  supplier_order_number: "text",
  invoice_number: "text",
  account_number: "text",
  notes: "text",
  expected_at: "text",
  payment_due_on: "text",
  payment_status: "text",
  paid_at: "timestamp",
  location_id: "plain",
  updates_stock: "plain",
  ships_to_customer: "plain",
  ship_to_override: "text",
  bill_to_override: "text",
  tax_rate_id: "plain",
  tax_rate_name: "text",
  tax_rate_percent: "text",
  taxes_included: "plain",
  charges_taxable: "plain",
  subtotal: "text",
  charges_total: "text",
  tax_total: "text",
  total: "text",
  sent_at: "timestamp",
  ordered_at: "timestamp",
  in_transit_at: "timestamp",
  received_at: "timestamp",
  closed_at: "timestamp",
  last_overdue_on: "text",
  created_at: "timestamp",
  updated_at: "timestamp",
};

const LINE: Spec<LineRow> = {
  id: "plain",
  store_id: "plain",
  purchase_order_id: "plain",
  position: "plain",
  product_title: "text",
  variant_title: "text",
  sku: "text",
  supplier_sku: "text",
  barcode: "text",
  pack_code: "text",
  inventory_item_id: "plain",
  variant_id: "plain",
  product_id: "plain",
  location_id: "plain",
  quantity: "plain",
  cancelled_quantity: "plain",
  received_quantity: "plain",
  unit_cost: "text",
  discount_percent: "text",
  line_total: "text",
  tax_amount: "text",
  taxable: "plain",
  tax_rate_id: "plain",
  tax_rate_percent: "text",
  weight_grams: "plain",
  supplier_note: "text",
  internal_note: "text",
  warnings: "plain",
  created_at: "timestamp",
  updated_at: "timestamp",
};

const CHARGE: Spec<ChargeRow> = {
  id: "plain",
  store_id: "plain",
  purchase_order_id: "plain",
  position: "plain",
  kind: "text",
  label: "text",
  amount: "text",
  currency: "text",
  amount_in_order_currency: "text",
  rate_to_order_currency: "text",
  tax_amount: "text",
  billed_by_supplier: "plain",
  allocation_method: "text",
  custom_split: "plain",
  created_at: "timestamp",
  updated_at: "timestamp",
};

const RECEIPT: Spec<ReceiptRecord> = {
  id: "plain",
  store_id: "plain",
  purchase_order_id: "plain",
  received_at: "timestamp",
  voided_at: "timestamp",
  source: "text",
  location_id: "plain",
  route_to_destinations: "plain",
  invoice_reference: "text",
  invoice_date: "text",
  invoice_total: "text",
  exchange_rate: "text",
  rejected_disposition: "text",
  note: "text",
  created_at: "timestamp",
  updated_at: "timestamp",
  location_name: "text",
};

const RECEIPT_LINE: Spec<ReceiptLineRow> = {
  id: "plain",
  receipt_id: "plain",
  line_id: "plain",
  quantity: "plain",
  surplus_quantity: "plain",
  rejected_quantity: "plain",
  unit_cost: "text",
  landed_unit_cost: "text",
  allocated_charge_amount: "text",
  unordered: "plain",
};

const PAYMENT: Spec<PaymentRow> = {
  id: "plain",
  store_id: "plain",
  purchase_order_id: "plain",
  amount: "text",
  currency: "text",
  paid_on: "text",
  method: "text",
  reference: "text",
  note: "text",
  created_at: "timestamp",
};

interface SyncRow {
  subject_type: string;
  subject_id: number;
  state: SyncState["state"];
  attempted_at: Date | null;
  error: string | null;
}

const SYNC: Spec<SyncRow> = {
  subject_type: "text",
  subject_id: "plain",
  state: "text",
  attempted_at: "timestamp",
  error: "text",
};

/** A column as SQL: `alias."name"`, as text for a text kind (the exact text the driver would give). */
function column(alias: string, name: string, kind: string): string {
  return kind === "text" ? `${alias}."${name}"::text` : `${alias}."${name}"`;
}

/** `json_build_array` of a row's columns in the spec's order; `columns` names some otherwise. */
function jsonRow<Row>(spec: Spec<Row>, alias: string, columns: Partial<Record<keyof Row, string>> = {}) {
  const parts = Object.entries(spec).map(
    ([name, kind]) => columns[name as keyof Row] ?? column(alias, name, kind as string),
  );
  return `json_build_array(${parts.join(", ")})`;
}

/** The row of `values` (a json_build_array of jsonRow(spec)); timestamps become Dates again. */
function rowDecoder<Row>(spec: Spec<Row>): (values: unknown[]) => Row {
  const names = Object.keys(spec);
  const isTime = names.map((name) => spec[name as keyof Row] === "timestamp");
  return (values) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) {
      const value = values[i];
      row[names[i]] = isTime[i] && value !== null ? new Date(value as string) : value;
    }
    return row as Row;
  };
}

const sameOrder = (alias: string) => `${alias}.store_id = po.store_id and ${alias}.purchase_order_id = po.id`;

/** A part as a JSON array of rows, whatever the order's size. */
export const wholePart = (select: string) => `coalesce((${select}), '[]'::json)`;

/** The six parts of the order `po` as columns, each select wrapped by `wrap`. */
const partColumns = (wrap: (select: string) => string) => `
  ${wrap(`select json_agg(${jsonRow(LINE, "l")} order by l.position, l.id)
    from purchase_order_lines l where ${sameOrder("l")}`)} as lines,
  ${otherPartColumns(wrap)}`;

/**
 * The parts of the order `po` but its lines as columns, each select wrapped by `wrap`. The
 * platform_sync rows are read by their whole key, the order's and each of its receipts' (a subquery
 * per receipt, so the key is the lookup's whatever the planner's statistics say): as one `or` with
 * `in (select …)` the planner could only take the store's prefix of the key and filter every
 * platform_sync row of the store (each order, receipt and adjustment it ever had) through a hashed
 * subplan, and as a join, without statistics (the benchmark's server runs no autovacuum), it chose
 * the same prefix and a join filter: 306 buffers and 714 rows for an order of two receipts.
 */
export const otherPartColumns = (wrap: (select: string) => string) => `
  ${wrap(`select json_agg(${jsonRow(CHARGE, "c")} order by c.position, c.id)
    from purchase_order_charges c where ${sameOrder("c")}`)} as charges,
  ${wrap(`select json_agg(${jsonRow(RECEIPT, "r", { location_name: "rloc.name::text" })} order by r.created_at, r.id)
    from receipts r left join locations rloc on rloc.id = r.location_id and rloc.store_id = r.store_id
    where ${sameOrder("r")}`)} as receipts,
  ${wrap(`select json_agg(${jsonRow(RECEIPT_LINE, "rl")} order by rl.id)
    from receipt_lines rl join receipts r on r.id = rl.receipt_id where ${sameOrder("r")}`)} as receipt_lines,
  ${wrap(`select json_agg(${jsonRow(PAYMENT, "p")} order by p.created_at, p.id)
    from payments p where ${sameOrder("p")}`)} as payments,
  ${wrap(`select json_agg(ss.s) from (
      select ${jsonRow(SYNC, "ps")} as s from platform_sync_states ps
        where ps.store_id = po.store_id and ps.subject_type = 'purchase_order' and ps.subject_id = po.id
      union all
      select (select ${jsonRow(SYNC, "ps")} from platform_sync_states ps
          where ps.store_id = r.store_id and ps.subject_type = 'receipt' and ps.subject_id = r.id)
        from receipts r where ${sameOrder("r")}) ss where ss.s is not null`)} as sync`;

/** The order row's columns (table alias `po`), as the full read's `selectAll("po")` gives them. */
export const ORDER_COLUMNS_SQL = Object.keys(ORDER)
  .map((name) => `po."${name}"`)
  .join(", ");

/** The order's row as orderRecordQuery gives it, with its version (`xmin`): an order's head. */
type OrderHead = OrderRecord & { version: string };

const ORDER_HEAD: Spec<OrderHead> = {
  ...ORDER,
  supplier_name: "text",
  location_name: "text",
  location_address: "plain",
  version: "text",
};

/**
 * SQL of the order `po`'s head as one JSON array (tables `s` and `loc` joined as orderRecordQuery
 * joins them), for a statement whose values reach Node as bytes rather than as the driver's typed
 * values (text-read.ts); `orderHeadOf` makes it the row again.
 */
export const orderHeadJsonSql = (): string =>
  jsonRow(ORDER_HEAD, "po", {
    supplier_name: "s.name::text",
    location_name: "loc.name::text",
    location_address: "loc.address",
    version: "po.xmin::text",
  });

/** The head of orderHeadJsonSql's array: the row as the driver gives it (Dates, numerics as text). */
export const orderHeadOf: (values: unknown[]) => OrderHead = rowDecoder(ORDER_HEAD);

/**
 * The size check: at most SMALL_ORDER_LINES lines and SMALL_ORDER_RECEIPT_LINES receipt lines, each
 * counted no further than one past its bound. `offset 0` keeps it one subquery: pulled up, PostgreSQL
 * copied both counts into every part.
 */
const SIZE_SQL = `cross join lateral (select
  (select count(*) from (select 1 from purchase_order_lines l where ${sameOrder("l")}
    limit ${SMALL_ORDER_LINES + 1}) counted) <= ${SMALL_ORDER_LINES}
  and (select count(*) from (select 1 from receipt_lines rl join receipts r on r.id = rl.receipt_id
    where ${sameOrder("r")} limit ${SMALL_ORDER_RECEIPT_LINES + 1}) counted) <= ${SMALL_ORDER_RECEIPT_LINES}
  as small offset 0) size`;

/** A big order's answer from the small read: read it the full way (no row: there is no such order). */
const NOT_SMALL = "";

/** The lean read's answer for an order with charges, receipts or payments: read it with them. */
const HAS_PARTS = "+";

/**
 * The version of every row a lean answer shows (answer-cache.ts): the order's, its supplier's (its
 * name), its location's (name, address), its platform_sync's, each line's by id. Digits, commas,
 * colons and a semicolon: never a space, so `<version> <json>` splits at the first one.
 */
const versionSql = (lines: string) => `concat(po.xmin, ',', s.xmin, ',', loc.xmin, ',',
  (select ps.xmin from platform_sync_states ps where ps.store_id = po.store_id
    and ps.subject_type = 'purchase_order' and ps.subject_id = po.id), ';', array_to_string(${lines}, ','))`;

/** The lines' ids and versions in id order, at most one past the small order's bound. */
const LINE_VERSIONS = `array(select concat(l.id, ':', l.xmin) from purchase_order_lines l
  where ${sameOrder("l")} order by l.id limit ${SMALL_ORDER_LINES + 1})`;

/** Whether the order `po` has charges, receipts or payments, as a lateral `parts.found`. */
const PARTS_FOUND = `cross join lateral (select
  exists (select 1 from purchase_order_charges c where ${sameOrder("c")})
  or exists (select 1 from receipts r where ${sameOrder("r")})
  or exists (select 1 from payments p where ${sameOrder("p")}) as found offset 0) parts`;

const ORDER_JOINS = `from purchase_orders po
left join suppliers s on s.id = po.supplier_id and s.store_id = po.store_id
left join locations loc on loc.id = po.location_id and loc.store_id = po.store_id`;

/** The receipt lines' ids and versions in id order, at most one past the small order's bound. */
const RECEIPT_LINE_VERSIONS = `array(select concat(rl.id, ':', rl.xmin) from receipt_lines rl
  join receipts r on r.id = rl.receipt_id where ${sameOrder("r")} order by rl.id limit ${SMALL_ORDER_RECEIPT_LINES + 1})`;

/**
 * The version of the parts a full answer shows beside versionSql's rows, each part by id: charges,
 * receipts with their location and platform_sync, receipt lines (`receiptLines`, RECEIPT_LINE_VERSIONS),
 * payments. An added part shows as a new id, a deleted one as a missing id: no `exists` is needed.
 */
const partsVersionSql = (receiptLines: string) => `concat(
  ';', array_to_string(array(select concat(c.id, ':', c.xmin) from purchase_order_charges c
    where ${sameOrder("c")} order by c.id), ','),
  ';', array_to_string(array(select concat(r.id, ':', r.xmin, ':', rloc.xmin, ':', rps.xmin) from receipts r
    left join locations rloc on rloc.id = r.location_id and rloc.store_id = r.store_id
    left join platform_sync_states rps on rps.store_id = r.store_id and rps.subject_type = 'receipt'
      and rps.subject_id = r.id
    where ${sameOrder("r")} order by r.id), ','),
  ';', array_to_string(${receiptLines}, ','),
  ';', array_to_string(array(select concat(p.id, ':', p.xmin) from payments p
    where ${sameOrder("p")} order by p.id), ','))`;

/**
 * The small order as the contract's JSON text (order-json.ts) after its version (versionSql and
 * partsVersionSql, read in the same snapshot) and a space, NOT_SMALL for a bigger one (CASE writes
 * the JSON only for a small order).
 */
const orderJsonById = hotSql<[number, number], JsonRecord>(
  "stockroom_order_json_by_id",
  `select case when size.small then concat(${versionSql(LINE_VERSIONS)}, ${partsVersionSql(RECEIPT_LINE_VERSIONS)},
  ' ', ${orderJsonSql()}) else '${NOT_SMALL}' end as row_json
from purchase_orders po
left join suppliers s on s.id = po.supplier_id and s.store_id = po.store_id
left join locations loc on loc.id = po.location_id and loc.store_id = po.store_id
${SIZE_SQL}
${orderCurrenciesSql()}
where po.store_id = $1 and po.id = $2`,
  { priority: false },
);

/**
 * The same for an order without charges, receipts or payments (a draft, most open orders): they are
 * written empty, and only whether each has a row is read. The server sets up every part of a
 * statement on every execution, rows or none (docs/history/performance-journal.md, "Where the small
 * order's statement goes"): those three parts, their receipts' lines, locations and platform_sync, and the
 * receipt lines' count were about a third of the statement's cost for an order that has none. HAS_PARTS for
 * an order that has some, NOT_SMALL for one with more than SMALL_ORDER_LINES lines, else `<version> <json>`
 * (versionSql, read in the same snapshot as the JSON).
 */
const leanOrderJsonById = hotSql<[number, number], JsonRecord>(
  "stockroom_order_json_lean_by_id",
  `select case when parts.found then '${HAS_PARTS}'
  when size.small then concat(${versionSql(LINE_VERSIONS)}, ' ', ${orderJsonSql({ withParts: false })})
  else '${NOT_SMALL}' end as row_json
${ORDER_JOINS}
${PARTS_FOUND}
cross join lateral (select (select count(*) from (select 1 from purchase_order_lines l where ${sameOrder("l")}
    limit ${SMALL_ORDER_LINES + 1}) counted) <= ${SMALL_ORDER_LINES} as small offset 0) size
${orderCurrenciesSql()}
where po.store_id = $1 and po.id = $2`,
  { priority: false },
);

/**
 * The lean answer's version alone, for an order whose answer is kept (answer-cache.ts): the same
 * rows read, none of the JSON written or set up, a third of the lean statement's cost. HAS_PARTS and
 * NOT_SMALL as the lean statement answers them.
 */
const orderVersionById = hotSql<[number, number], JsonRecord>(
  "stockroom_order_version_by_id",
  `select case when parts.found then '${HAS_PARTS}'
  when cardinality(lv.a) > ${SMALL_ORDER_LINES} then '${NOT_SMALL}' else ${versionSql("lv.a")} end as row_json
${ORDER_JOINS}
${PARTS_FOUND}
cross join lateral (select ${LINE_VERSIONS} as a offset 0) lv
where po.store_id = $1 and po.id = $2`,
  { priority: false },
);

/**
 * The full answer's version alone, for an order noted with parts whose answer is kept: what
 * orderJsonById writes before its JSON, none of the JSON written or set up. NOT_SMALL as it answers.
 */
const orderFullVersionById = hotSql<[number, number], JsonRecord>(
  "stockroom_order_full_version_by_id",
  `select case when cardinality(lv.a) > ${SMALL_ORDER_LINES} or cardinality(rlv.a) > ${SMALL_ORDER_RECEIPT_LINES}
  then '${NOT_SMALL}' else concat(${versionSql("lv.a")}, ${partsVersionSql("rlv.a")}) end as row_json
${ORDER_JOINS}
cross join lateral (select ${LINE_VERSIONS} as a offset 0) lv
cross join lateral (select ${RECEIPT_LINE_VERSIONS} as a offset 0) rlv
where po.store_id = $1 and po.id = $2`,
  { priority: false },
);

/** The small orders' answers kept with their versions. */
const answers = new OrderAnswers();

/**
 * Orders this process has seen with charges, receipts or payments (by id), read with the full
 * statement from then on (its version alone while their answer is kept). A note is never wrong for long: an order that gained parts since (another
 * process, or before this one started) answers HAS_PARTS to the lean read and is read again in full,
 * one statement more; one that lost them is read in full, the same answer. At most NOTED_AT_MOST,
 * the oldest forgotten first.
 */
const ordersWithParts = new Set<number>();
const NOTED_AT_MOST = 100_000;

function noteParts(id: number): void {
  if (ordersWithParts.size >= NOTED_AT_MOST)
    ordersWithParts.delete(ordersWithParts.values().next().value as number);
  ordersWithParts.add(id);
}

const fullReadAhead = readAheadOf(orderJsonById, 2147483647);
const versionReadAhead = readAheadOf(orderVersionById, 2147483647);
const fullVersionReadAhead = readAheadOf(orderFullVersionById, 2147483647);

/** The statement that writes an order's answer: the full one if noted with parts, else the lean one. */
const answerStatementFor = (id: number) => (ordersWithParts.has(id) ? orderJsonById : leanOrderJsonById);

/** The statement for an order: its answer's version if kept (lean or full), else its answer's. */
function statementFor(id: number) {
  if (!answers.has(id)) return answerStatementFor(id);
  return ordersWithParts.has(id) ? orderFullVersionById : orderVersionById;
}

const readAheads = new Map([
  [orderJsonById, fullReadAhead],
  [orderVersionById, versionReadAhead],
  [orderFullVersionById, fullVersionReadAhead],
]);

/**
 * The small order's statement, written by authentication into the key lookup's own statement on
 * PostgreSQL (db/prepared.ts, keyLookupBeside): one statement and one round trip for the whole
 * request (two when a kept answer's version has moved). As statementFor picks it.
 */
export const smallOrderReadAhead = readAheadOf(leanOrderJsonById, 2147483647, (id) =>
  readAheads.get(statementFor(Number(id))),
);

/**
 * GET's whole answer (`{"data":…}`) as its UTF-8 bytes, read in one statement when the order is
 * small; null when it is not (read it with readPurchaseOrderText). 404 `not_found` when the store has
 * no such order. `ahead`: the statement's rows as smallOrderReadAhead read them with the key lookup,
 * when it did. The bytes are kept (answer-cache.ts) and sent as they are on every read that finds
 * the same version: not joined with `{"data":` and encoded again per request.
 */
export async function smallPurchaseOrderAnswer(
  db: Db,
  storeId: number,
  id: number,
  ahead?: readonly JsonRecord[],
): Promise<Buffer | null> {
  let [row] = ahead ?? (await statementFor(id).run(db, storeId, id));
  // Each statement's answer says which it is (the read ahead was picked before this request's turn).
  for (;;) {
    if (!row) throw notFound("purchase order");
    const text = row.row_json;
    if (text === NOT_SMALL) return null;
    if (text === HAS_PARTS) {
      noteParts(id);
      answers.forget(id);
      [row] = await orderJsonById.run(db, storeId, id);
      continue;
    }
    const space = text.indexOf(" ");
    // A statement's version and JSON (lean or full): kept for the next read.
    if (space >= 0) {
      const answer = Buffer.from(`{"data":${text.slice(space + 1)}}`);
      answers.keep(id, storeId, text.slice(0, space), answer);
      return answer;
    }
    // A kept answer's version: the answer, unless its rows have moved since (a lean answer's version
    // never equals a full one's: the full one has four more parts).
    const kept = answers.at(id, storeId, text);
    if (kept !== undefined) return kept;
    [row] = await answerStatementFor(id).run(db, storeId, id);
  }
}

type Parts = "lines" | "charges" | "receipts" | "receipt_lines" | "payments" | "sync";

export type PartsRow = { [K in Parts]: unknown[][] | null };

const decode = {
  line: rowDecoder(LINE),
  charge: rowDecoder(CHARGE),
  receipt: rowDecoder(RECEIPT),
  receiptLine: rowDecoder(RECEIPT_LINE),
  payment: rowDecoder(PAYMENT),
  sync: rowDecoder(SYNC),
};

/** The parts' rows as the full read gives them (OrderParts), from their JSON arrays. */
export function partsOf(row: PartsRow): OrderParts {
  const syncStates = new Map<string, SyncState>();
  for (const values of row.sync ?? []) {
    const s = decode.sync(values);
    syncStates.set(syncKey(s.subject_type, s.subject_id), {
      state: s.state,
      attempted_at: s.attempted_at?.toISOString() ?? null,
      error: s.error,
    });
  }
  return {
    lines: (row.lines ?? []).map(decode.line),
    charges: (row.charges ?? []).map(decode.charge),
    receipts: (row.receipts ?? []).map(decode.receipt),
    receiptLines: (row.receipt_lines ?? []).map(decode.receiptLine),
    payments: (row.payments ?? []).map(decode.payment),
    sync: syncStates,
  };
}

/**
 * Inside a transaction that holds the order (a receipt has its row locked; a create or a void wrote
 * it), the parts are read by the order's store and id as given, not through a lookup of the order's
 * row: without statistics the planner took `store_id = $1` for a handful of rows and found the order
 * by scanning the store's orders on a `(store_id, …)` index (every version of every order: 662
 * buffers and ~17 ms of an 18 ms statement for a receipt in the benchmark, auto_explain, where the
 * parts themselves took about 1 ms). Outside a transaction (readPurchaseOrder) the order may be
 * deleted between its two statements, so there the statement still finds the order's row first.
 */
const orderParts = hotSql<[number, number], PartsRow>(
  "stockroom_order_parts",
  `select ${partColumns(wholePart)} from (select $1::integer as store_id, $2::integer as id) po`,
  { priority: false },
);

const foundOrderParts = hotSql<[number, number], PartsRow>(
  "stockroom_found_order_parts",
  `select ${partColumns(wholePart)} from purchase_orders po where po.store_id = $1 and po.id = $2`,
  { priority: false },
);

/**
 * Every part of one order (as `loadOrderParts` reads them in six statements) in one prepared statement,
 * whatever the order's size: for a receipt, which reads the order it books once its row is locked (so
 * in a statement after the lock, which sees what an earlier receipt on the order committed), inside its
 * transaction. Only for an order the transaction holds (locked or written): it does not look the
 * order up (orderParts).
 */
export async function loadOrderPartsInOneStatement(
  trx: Db,
  storeId: number,
  orderId: number,
): Promise<OrderParts> {
  const [row] = await orderParts.run(trx, storeId, orderId);
  return partsOf(row);
}

/** The same outside a transaction: 404 `not_found` when the store has no such order (any more). */
async function loadFoundOrderParts(db: Db, storeId: number, orderId: number): Promise<OrderParts> {
  const [row] = await foundOrderParts.run(db, storeId, orderId);
  if (!row) throw notFound("purchase order");
  return partsOf(row);
}

/**
 * One order as GET shows it, read outside a transaction whatever its size (a big order's GET, its
 * PDF): on PostgreSQL its row, then every part in one prepared statement (`loadFoundOrderParts`):
 * two round trips where the full read makes seven. On the embedded database the full way, lines in
 * chunks, so a big order never holds the one connection for a whole statement.
 */
export async function readPurchaseOrder(db: Db, storeId: number, id: number): Promise<PurchaseOrder> {
  if (readsInChunks(db)) return loadPurchaseOrder(db, storeId, id);
  const order = await orderRecordsByIdQuery(db, storeId, id).executeTakeFirst();
  if (!order) throw notFound("purchase order");
  const parts = await loadFoundOrderParts(db, storeId, id);
  const presented = assembleOrders([order as OrderRecord], parts).get(id);
  if (!presented) throw notFound("purchase order");
  return presented;
}

/**
 * One order as GET shows it, read inside a write's transaction after writing it: its row (with the
 * supplier's and location's names) and its parts, one statement each, whatever its size, where
 * loadPurchaseOrder takes seven. The full read's chunks are for reads outside a transaction (on the
 * embedded database others' statements go between them); a transaction holds its connection
 * throughout anyway.
 */
export async function loadPurchaseOrderInTransaction(
  trx: Db,
  storeId: number,
  id: number,
): Promise<PurchaseOrder> {
  const order = (await orderRecordsByIdQuery(trx, storeId, id).executeTakeFirst()) as OrderRecord | undefined;
  if (!order) throw notFound("purchase order");
  const parts = await loadOrderPartsInOneStatement(trx, storeId, id);
  const presented = assembleOrders([order], parts).get(id);
  if (!presented) throw notFound("purchase order");
  return presented;
}
