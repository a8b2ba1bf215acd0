/**
 * The purchase order tables' SQL (orders, lines, charges, numbering): row locks, the rows a write
 * starts from, and every write. No rules here: the callers decide what to write.
 */
import Big from "big.js";
import { type Insertable, sql, type Updateable } from "kysely";
import { type BulkColumn, type ColumnName, insertRows } from "../../db/bulk.ts";
import type { Db } from "../../db/database.ts";
import type { PurchaseOrdersTable } from "../../db/tables/purchase_orders.ts";
import { notFound } from "../errors.ts";
import type { ChargeDraft } from "./charges.ts";
import { type LineDraft, lineRowOf } from "./lines.ts";
import type { ChargeRow, LineRow, LocationAddress, OrderRecord, OrderRow } from "./presenter.ts";
import type { ComputedMoney } from "./totals.ts";

/** `SELECT … FOR UPDATE` of the order row; 404 not_found when absent from the store. */
export async function lockPurchaseOrder(trx: Db, storeId: number, id: number): Promise<OrderRow> {
  const row = await trx
    .selectFrom("purchase_orders")
    .selectAll()
    .where("store_id", "=", storeId)
    .where("id", "=", id)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw notFound("purchase order");
  return row;
}

/**
 * `SELECT … FOR UPDATE` of the order row with its version (`xmin`, read-ahead.ts), in one statement:
 * a row lock leaves the row's xmin as it was, and the row the lock returns is the newest, so this is
 * the version a read after the lock would give. For a header-only PATCH with a read-ahead (update.ts):
 * one statement fewer on the event loop for every such PATCH (issue 18 item 2).
 */
export async function lockPurchaseOrderVersion(
  trx: Db,
  storeId: number,
  id: number,
): Promise<{ order: OrderRow; version: string }> {
  const row = await trx
    .selectFrom("purchase_orders")
    .selectAll()
    .select(sql<string>`xmin::text`.as("row_version"))
    .where("store_id", "=", storeId)
    .where("id", "=", id)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw notFound("purchase order");
  const { row_version, ...order } = row;
  return { order, version: row_version };
}

/** An order's positioned rows: its lines and its charges, each replaced as a set by a PATCH. */
type OrderSetTable = "purchase_order_lines" | "purchase_order_charges";

/** In position order. Kysely types a row of either table as both tables' columns: callers name theirs. */
function selectSetOf(db: Db, table: OrderSetTable, storeId: number, orderId: number) {
  return db
    .selectFrom(table)
    .selectAll()
    .where("store_id", "=", storeId)
    .where("purchase_order_id", "=", orderId)
    .orderBy("position")
    .orderBy("id");
}

/** The order's lines, in position order. */
export async function orderLines(db: Db, storeId: number, orderId: number): Promise<LineRow[]> {
  return selectSetOf(db, "purchase_order_lines", storeId, orderId).execute();
}

export async function orderCharges(db: Db, storeId: number, orderId: number): Promise<ChargeRow[]> {
  return selectSetOf(db, "purchase_order_charges", storeId, orderId).execute();
}

async function deleteSetOf(trx: Db, table: OrderSetTable, storeId: number, orderId: number): Promise<void> {
  await trx
    .deleteFrom(table)
    .where("store_id", "=", storeId)
    .where("purchase_order_id", "=", orderId)
    .execute();
}

/** Next sequential_id of the store's orders (one atomic upsert). */
export async function nextSequentialIds(trx: Db, storeId: number, count = 1): Promise<number> {
  const row = await trx
    .insertInto("purchase_order_counters")
    .values({ store_id: storeId, last_sequential_id: count })
    .onConflict((oc) =>
      oc.column("store_id").doUpdateSet((eb) => ({
        last_sequential_id: eb("purchase_order_counters.last_sequential_id", "+", count),
      })),
    )
    .returning("last_sequential_id")
    .executeTakeFirstOrThrow();
  return row.last_sequential_id - count + 1;
}

/** `PO-0001`: prefix then the number padded to 4 digits (longer numbers are not cut). */
export function formatOrderNumber(prefix: string, n: number): string {
  return `${prefix}${String(n).padStart(4, "0")}`;
}

/** The numbers of these orders of the store (ids of other stores' or deleted orders are left out). */
export async function orderNumbersOf(
  db: Db,
  storeId: number,
  ids: readonly number[],
): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom("purchase_orders")
    .select(["id", "number"])
    .where("store_id", "=", storeId)
    .where("id", "in", [...new Set(ids)])
    .execute();
  return new Map(rows.map((r) => [r.id, r.number]));
}

/** The order's row (no lock); undefined when it is not the store's. */
export async function findOrderRow(db: Db, storeId: number, id: number): Promise<OrderRow | undefined> {
  return db
    .selectFrom("purchase_orders")
    .selectAll()
    .where("store_id", "=", storeId)
    .where("id", "=", id)
    .executeTakeFirst();
}

/** True when the order is the store's (no lock). */
export async function orderExists(db: Db, storeId: number, id: number): Promise<boolean> {
  const row = await db
    .selectFrom("purchase_orders")
    .select("id")
    .where("store_id", "=", storeId)
    .where("id", "=", id)
    .executeTakeFirst();
  return row !== undefined;
}

/** Inserts an order row; undefined when its number is already the store's (nothing written). */
export async function insertOrderRow(
  trx: Db,
  values: Insertable<PurchaseOrdersTable>,
): Promise<OrderRow | undefined> {
  return trx
    .insertInto("purchase_orders")
    .values(values)
    .onConflict((oc) => oc.columns(["store_id", "number"]).doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** Sets columns of one order; returns the row as written. */
export async function setOrder(
  trx: Db,
  storeId: number,
  id: number,
  values: Updateable<PurchaseOrdersTable>,
): Promise<OrderRow> {
  return trx
    .updateTable("purchase_orders")
    .set(values)
    .where("store_id", "=", storeId)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * setOrder answering the written row as the order's read with its supplier's and location's names
 * gives it (loading.ts, orderRecordQuery): the names read in the update's own statement, where the
 * write's answer read the row again (issue 18 item 2). The names are read in the writing transaction,
 * after the row's write, as that read was.
 */
export async function setOrderRecord(
  trx: Db,
  storeId: number,
  id: number,
  values: Updateable<PurchaseOrdersTable>,
): Promise<OrderRecord> {
  const supplier = "from suppliers s where s.id = po.supplier_id and s.store_id = po.store_id";
  const location = "from locations loc where loc.id = po.location_id and loc.store_id = po.store_id";
  return trx
    .updateTable("purchase_orders as po")
    .set(values)
    .where("po.store_id", "=", storeId)
    .where("po.id", "=", id)
    .returningAll("po")
    .returning([
      sql<string | null>`(select s.name ${sql.raw(supplier)})`.as("supplier_name"),
      sql<string | null>`(select loc.name ${sql.raw(location)})`.as("location_name"),
      sql<LocationAddress | null>`(select loc.address ${sql.raw(location)})`.as("location_address"),
    ])
    .executeTakeFirstOrThrow();
}

/** Deletes a (draft) order with its history; lines and charges go with it (foreign keys cascade). */
export async function deleteOrder(trx: Db, storeId: number, id: number): Promise<void> {
  await trx
    .deleteFrom("purchase_order_history")
    .where("store_id", "=", storeId)
    .where("purchase_order_id", "=", id)
    .execute();
  await trx.deleteFrom("purchase_orders").where("store_id", "=", storeId).where("id", "=", id).execute();
}

/** Lines or charges to write to one order, each draft with its computed money (same index). */
interface SetWrite<Draft, Money> {
  storeId: number;
  orderId: number;
  drafts: readonly Draft[];
  money: Money;
  now: Date;
}
export type LinesWrite = SetWrite<LineDraft, ComputedMoney["lines"]>;
export type ChargesWrite = SetWrite<ChargeDraft, ComputedMoney["charges"]>;

const BATCH = 1000;

type NewLine = { draft: LineDraft; money: ComputedMoney["lines"][number] };

/** A new line's columns, one array each in the insert (`insertNewLines`). */
const NEW_LINE_COLUMNS: ReadonlyArray<BulkColumn<NewLine, ColumnName<"purchase_order_lines">>> = [
  ["position", "int", (r) => r.draft.position],
  ["product_title", "text", (r) => r.draft.product_title],
  ["variant_title", "text", (r) => r.draft.variant_title],
  ["sku", "text", (r) => r.draft.sku],
  ["supplier_sku", "text", (r) => r.draft.supplier_sku],
  ["barcode", "text", (r) => r.draft.barcode],
  ["pack_code", "text", (r) => r.draft.pack_code],
  ["inventory_item_id", "bigint", (r) => r.draft.inventory_item_id],
  ["variant_id", "bigint", (r) => r.draft.variant_id],
  ["product_id", "bigint", (r) => r.draft.product_id],
  ["location_id", "bigint", (r) => r.draft.location_id],
  ["quantity", "int", (r) => r.draft.quantity],
  ["cancelled_quantity", "int", (r) => r.draft.cancelled_quantity],
  ["received_quantity", "int", (r) => r.draft.received_quantity],
  ["unit_cost", "numeric", (r) => r.draft.unit_cost],
  ["discount_percent", "numeric", (r) => r.draft.discount_percent],
  ["taxable", "boolean", (r) => r.draft.taxable],
  ["tax_rate_id", "int", (r) => r.draft.tax_rate_id],
  ["tax_rate_percent", "numeric", (r) => r.money.tax_rate_percent],
  ["weight_grams", "int", (r) => r.draft.weight_grams],
  ["supplier_note", "text", (r) => r.draft.supplier_note],
  ["internal_note", "text", (r) => r.draft.internal_note],
  ["warnings", "jsonb", (r) => r.draft.warnings],
  ["line_total", "numeric", (r) => r.money.line_total],
  ["tax_amount", "numeric", (r) => r.money.tax_amount],
];

/**
 * New lines (none keeps an id) in one statement, one array per column: a VALUES list of 100 lines
 * was 2,800 parameters, a statement text per line count, and the slowest statement of an order's
 * creation on the embedded database (5 ms of its 22). Answers their ids in order.
 */
async function insertNewLines(trx: Db, write: LinesWrite): Promise<number[]> {
  const { storeId, orderId, drafts, money, now } = write;
  const rows = drafts.map((draft, i) => ({ draft, money: money[i] }));
  const { rows: inserted } = await insertRows(
    "purchase_order_lines",
    rows,
    [
      ["store_id", "int", () => storeId],
      ["purchase_order_id", "int", () => orderId],
      ...NEW_LINE_COLUMNS,
      ["created_at", "timestamptz", (r) => r.draft.created_at ?? now],
      ["updated_at", "timestamptz", () => now],
    ],
    sql<{ id: number }>`returning id`,
  ).execute(trx);
  return inserted.map((r) => r.id);
}

/** Inserts lines (new ones in one statement; kept ones multi-row, in batches of 1,000); ids in order. */
export async function insertLines(trx: Db, write: LinesWrite): Promise<number[]> {
  const { storeId, orderId, drafts, money, now } = write;
  if (drafts.length === 0) return [];
  if (drafts.every((d) => d.id === undefined)) return insertNewLines(trx, write);
  const ids: number[] = [];
  for (let start = 0; start < drafts.length; start += BATCH) {
    const rows = drafts.slice(start, start + BATCH).map((l, i) => ({
      ...lineRowOf(storeId, orderId, l, now),
      line_total: money[start + i].line_total,
      tax_amount: money[start + i].tax_amount,
      tax_rate_percent: money[start + i].tax_rate_percent,
    }));
    const inserted = await trx.insertInto("purchase_order_lines").values(rows).returning("id").execute();
    for (const r of inserted) ids.push(r.id);
  }
  return ids;
}

/** Replaces every line of the order (kept lines keep their ids). */
export async function replaceLines(trx: Db, write: LinesWrite): Promise<void> {
  await deleteSetOf(trx, "purchase_order_lines", write.storeId, write.orderId);
  await insertLines(trx, write);
}

/** Adds `quantity` to the line's cancelled quantity. */
export async function addCancelledQuantity(
  trx: Db,
  storeId: number,
  line: Pick<LineRow, "id" | "cancelled_quantity">,
  quantity: number,
  now: Date,
): Promise<void> {
  await trx
    .updateTable("purchase_order_lines")
    .set({ cancelled_quantity: line.cancelled_quantity + quantity, updated_at: now })
    .where("id", "=", line.id)
    .where("store_id", "=", storeId)
    .execute();
}

export async function insertCharges(trx: Db, write: ChargesWrite): Promise<number[]> {
  const { storeId, orderId, drafts, money, now } = write;
  if (drafts.length === 0) return [];
  const rows = drafts.map((c, i) => ({
    store_id: storeId,
    purchase_order_id: orderId,
    position: c.position,
    kind: c.kind,
    label: c.label,
    amount: c.amount,
    currency: c.currency,
    amount_in_order_currency: money[i].amount_in_order_currency,
    rate_to_order_currency: c.rate_to_order_currency,
    tax_amount: money[i].tax_amount,
    billed_by_supplier: c.billed_by_supplier,
    allocation_method: c.allocation_method,
    custom_split: c.custom_split ? JSON.stringify(c.custom_split) : null,
    created_at: now,
    updated_at: now,
  }));
  const inserted = await trx.insertInto("purchase_order_charges").values(rows).returning("id").execute();
  return inserted.map((r) => r.id);
}

/** Replaces every charge of the order. */
export async function replaceCharges(trx: Db, write: ChargesWrite): Promise<void> {
  await deleteSetOf(trx, "purchase_order_charges", write.storeId, write.orderId);
  await insertCharges(trx, write);
}

/** Writes new line money for lines whose amounts changed (one statement). */
export async function updateLineMoney(
  trx: Db,
  storeId: number,
  lines: readonly LineRow[],
  money: ComputedMoney["lines"],
): Promise<void> {
  const changed = lines
    .map((l, i) => ({ l, m: money[i] }))
    .filter(
      ({ l, m }) =>
        !new Big(l.line_total).eq(m.line_total) ||
        !new Big(l.tax_amount).eq(m.tax_amount) ||
        !new Big(l.tax_rate_percent).eq(m.tax_rate_percent),
    );
  if (changed.length === 0) return;
  const values = sql.join(
    changed.map(
      ({ l, m }) =>
        sql`(${l.id}::integer, ${m.line_total}::numeric, ${m.tax_amount}::numeric, ${m.tax_rate_percent}::numeric)`,
    ),
  );
  await sql`update purchase_order_lines as l
    set line_total = v.line_total, tax_amount = v.tax_amount, tax_rate_percent = v.tax_rate_percent
    from (values ${values}) as v(id, line_total, tax_amount, tax_rate_percent)
    where l.id = v.id and l.store_id = ${storeId}`.execute(trx);
}

/** Writes new charge money for charges whose amounts changed (one statement). */
export async function updateChargeMoney(
  trx: Db,
  storeId: number,
  charges: readonly ChargeRow[],
  money: ComputedMoney["charges"],
): Promise<void> {
  const changed = charges
    .map((c, i) => ({ c, m: money[i] }))
    .filter(
      ({ c, m }) =>
        !new Big(c.amount_in_order_currency).eq(m.amount_in_order_currency) ||
        !new Big(c.tax_amount).eq(m.tax_amount),
    );
  if (changed.length === 0) return;
  const values = sql.join(
    changed.map(
      ({ c, m }) => sql`(${c.id}::integer, ${m.amount_in_order_currency}::numeric, ${m.tax_amount}::numeric)`,
    ),
  );
  await sql`update purchase_order_charges as c
    set amount_in_order_currency = v.amount_in_order_currency, tax_amount = v.tax_amount
    from (values ${values}) as v(id, amount_in_order_currency, tax_amount)
    where c.id = v.id and c.store_id = ${storeId}`.execute(trx);
}

/**
 * Moves every order of the suppliers `fromIds` to `toId`; returns the moved orders with the supplier
 * each one had (locked first, in id order, so a concurrent order write waits for the move).
 */
export async function moveOrdersOfSuppliers(
  trx: Db,
  storeId: number,
  fromIds: readonly number[],
  toId: number,
  now: Date,
): Promise<Array<{ id: number; supplier_id: number }>> {
  const moving = await trx
    .selectFrom("purchase_orders")
    .select(["id", "supplier_id"])
    .where("store_id", "=", storeId)
    .where("supplier_id", "in", [...fromIds])
    .orderBy("id")
    .forUpdate()
    .execute();
  if (moving.length === 0) return [];
  await trx
    .updateTable("purchase_orders")
    .set({ supplier_id: toId, updated_at: now })
    .where("store_id", "=", storeId)
    .where(
      "id",
      "in",
      moving.map((o) => o.id),
    )
    .execute();
  return moving;
}
