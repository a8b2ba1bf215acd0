/**
 * Reading purchase orders for presentation: one order or many, with everything their presenter needs
 * (lines, charges, receipts, payments, platform_sync) in a fixed number of queries. No rules here.
 */
import { sql } from "kysely";
import type { Db } from "../../db/database.ts";
import { hotQuery, readsInChunks } from "../../db/prepared.ts";
import { notFound } from "../errors.ts";
import { eachInSlices } from "../slices.ts";
import { NEVER_MOVED, platformSyncOf, type SyncState } from "../stock/index.ts";
import {
  type ChargeRow,
  type LineRow,
  type LocationAddress,
  type OrderRecord,
  type PaymentRow,
  type PresentedReceipt,
  type PurchaseOrder,
  type PurchaseOrderSummary,
  presentPurchaseOrder,
  presentPurchaseOrderSummary,
  presentReceipt,
  RECEIPT_LINE_COLUMNS,
  type ReceiptLineRow,
  type ReceiptRow,
} from "./presenter.ts";

/**
 * The order rows (with supplier name and location) and their joins, with no condition on the order.
 * The supplier and the location are found by their primary key and only checked against the store:
 * `(x.store_id = $) is true` is a test no index can serve. Written `x.store_id = $`, a planner whose
 * statistics were taken while the store had few suppliers (a new store, or a server without
 * autovacuum) walked the store's suppliers by `suppliers_name` for the one it wanted (docs/performance.md,
 * "The write path": 116 rows for one, 28 buffers against 3).
 */
function orderRecordSelect(db: Db, storeId: number) {
  return db
    .selectFrom("purchase_orders as po")
    .leftJoin("suppliers as s", (j) =>
      j.onRef("s.id", "=", "po.supplier_id").on(sql<boolean>`(s.store_id = ${storeId}) is true`),
    )
    .leftJoin("locations as loc", (j) =>
      j.onRef("loc.id", "=", "po.location_id").on(sql<boolean>`(loc.store_id = ${storeId}) is true`),
    )
    .selectAll("po")
    .select([
      "s.name as supplier_name",
      "loc.name as location_name",
      sql<LocationAddress | null>`loc.address`.as("location_address"),
    ]);
}

/** The store's order rows (with supplier name and location), for pages: the store's indexes serve it. */
export function orderRecordQuery(db: Db, storeId: number) {
  return orderRecordSelect(db, storeId).where("po.store_id", "=", storeId);
}

/**
 * The order rows of `ids` in the store, found by their primary key: the store is a check no index can
 * serve, as the joins' (orderRecordSelect), so stale statistics never turn the read into a walk of the
 * store's orders by `purchase_orders_sequential`.
 */
export function orderRecordsByIdQuery(db: Db, storeId: number, ids: number | readonly number[]) {
  const query = orderRecordSelect(db, storeId).where(sql<boolean>`(po.store_id = ${storeId}) is true`);
  return typeof ids === "number" ? query.where("po.id", "=", ids) : query.where("po.id", "in", [...ids]);
}

function groupBy<T, K>(rows: readonly T[], key: (row: T) => K): Map<K, T[]> {
  const map = new Map<K, T[]>();
  for (const row of rows) {
    const k = key(row);
    let list = map.get(k);
    if (!list) {
      list = [];
      map.set(k, list);
    }
    list.push(row);
  }
  return map;
}

function lineRowsQuery(db: Db, storeId: number, ids: readonly number[]) {
  return db
    .selectFrom("purchase_order_lines")
    .selectAll()
    .where("store_id", "=", storeId)
    .where("purchase_order_id", "in", [...ids])
    .orderBy("purchase_order_id")
    .orderBy("position")
    .orderBy("id");
}

/**
 * The embedded database's one connection: a page of orders' 1,500 lines read in one statement held
 * every store's queries for it (tens of milliseconds, hundreds on a busy machine; issue 18 item 2).
 * In chunks of LINE_CHUNK in the same order (keyset on order, position, id), other statements go in
 * between. Outside a transaction only (readsInChunks); a store's line writes take its turn meanwhile,
 * but a receipt or its void does not, and may commit between two chunks.
 */
const LINE_CHUNK = 100;

/**
 * Chunked reads that saw an order change under them before the lines are read in one statement.
 * Every write of an order's lines updates its order row in the same transaction (a receipt sets its
 * status, a PATCH or a move its updated_at), so the row's version (`xmin`, the transaction that last
 * wrote it) read beside each chunk's lines says which moment they are from.
 */
const CHUNKED_TRIES = 3;

async function lineRowsInChunks(db: Db, storeId: number, ids: readonly number[]): Promise<LineRow[]> {
  for (let attempt = 0; attempt < CHUNKED_TRIES; attempt++) {
    const rows = await oneMomentInChunks(db, storeId, ids);
    if (rows) return rows;
  }
  return (await lineRowsQuery(db, storeId, ids).execute()) as LineRow[];
}

/**
 * The lines of `ids` in chunks, or null when an order's lines came from two moments: a chunk saw
 * another version of an order than an earlier chunk did (a receipt committed between them). An order
 * whose lines all lie in one chunk is from one moment whatever happens after.
 */
async function oneMomentInChunks(db: Db, storeId: number, ids: readonly number[]): Promise<LineRow[] | null> {
  const rows: LineRow[] = [];
  const versions = new Map<number, string>();
  for (;;) {
    const last = rows.at(-1);
    const chunk = await db
      .selectFrom("purchase_order_lines as l")
      .innerJoin("purchase_orders as po", "po.id", "l.purchase_order_id")
      .selectAll("l")
      .select(sql<string>`po.xmin::text`.as("order_version"))
      .where("l.store_id", "=", storeId)
      .where("l.purchase_order_id", "in", [...ids])
      .where((eb) =>
        last
          ? eb(
              eb.refTuple("l.purchase_order_id", "l.position", "l.id"),
              ">",
              eb.tuple(last.purchase_order_id, last.position, last.id),
            )
          : eb.lit(true),
      )
      .orderBy("l.purchase_order_id")
      .orderBy("l.position")
      .orderBy("l.id")
      .limit(LINE_CHUNK)
      .execute();
    for (const { order_version, ...line } of chunk) {
      const seen = versions.get(line.purchase_order_id);
      if (seen === undefined) versions.set(line.purchase_order_id, order_version);
      else if (seen !== order_version) return null;
      rows.push(line as LineRow);
    }
    if (chunk.length < LINE_CHUNK) return rows;
  }
}

/**
 * The lines and charges of the orders `ids`, each in order and position order (two queries; one when
 * the lines are not wanted).
 */
function lineAndChargeRows(db: Db, storeId: number, ids: readonly number[], withLines = true) {
  return Promise.all([
    !withLines
      ? Promise.resolve([] as LineRow[])
      : readsInChunks(db)
        ? lineRowsInChunks(db, storeId, ids)
        : (lineRowsQuery(db, storeId, ids).execute() as Promise<LineRow[]>),
    db
      .selectFrom("purchase_order_charges")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("purchase_order_id", "in", [...ids])
      .orderBy("purchase_order_id")
      .orderBy("position")
      .orderBy("id")
      .execute() as Promise<ChargeRow[]>,
  ]);
}

async function linesAndCharges(db: Db, storeId: number, ids: readonly number[], withLines: boolean) {
  const [lines, charges] = await lineAndChargeRows(db, storeId, ids, withLines);
  return {
    lines: groupBy(lines, (l) => l.purchase_order_id),
    charges: groupBy(charges, (c) => c.purchase_order_id),
  };
}

/**
 * List rows: presents many already-loaded order records with lines, charges and sync (3 queries), or
 * without their lines (`lines: []`, 2 queries).
 */
export async function presentSummaries(
  db: Db,
  storeId: number,
  orders: readonly OrderRecord[],
  withLines = true,
): Promise<PurchaseOrderSummary[]> {
  if (orders.length === 0) return [];
  const ids = orders.map((o) => o.id);
  const [{ lines, charges }, sync] = await Promise.all([
    linesAndCharges(db, storeId, ids, withLines),
    platformSyncOf(db, storeId, "purchase_order", ids),
  ]);
  // A page holds up to LINES_PER_PAGE lines: presented an order or so at a time, the loop let in between.
  const presented: PurchaseOrderSummary[] = [];
  await eachInSlices(
    orders,
    (o) => {
      presented.push(
        presentPurchaseOrderSummary(
          o,
          lines.get(o.id) ?? [],
          charges.get(o.id) ?? [],
          sync.get(o.id) ?? NEVER_MOVED,
        ),
      );
    },
    (o) => 1 + (lines.get(o.id)?.length ?? 0),
  );
  return presented;
}

/** A receipt row with its location's name, as the order's presentation reads it. */
export type ReceiptRecord = ReceiptRow & { location_name: string | null };

/**
 * Everything of some orders besides their own rows: lines, charges, receipts with their lines,
 * payments, and the platform_sync of the orders and of their receipts. Rows in presentation order.
 */
export interface OrderParts {
  lines: LineRow[];
  charges: ChargeRow[];
  receipts: ReceiptRecord[];
  receiptLines: ReceiptLineRow[];
  payments: PaymentRow[];
  /** platform_sync by `${subject_type}:${subject_id}`; absent means never moved (synced). */
  sync: Map<string, SyncState>;
}

export const syncKey = (type: string, id: number) => `${type}:${id}`;

/** The parts of the orders `ids` (already known to be the store's), in five queries whatever the size. */
export async function loadOrderParts(db: Db, storeId: number, ids: readonly number[]): Promise<OrderParts> {
  const [[lines, charges], receipts, receiptLines, payments, syncRows] = await Promise.all([
    lineAndChargeRows(db, storeId, ids),
    db
      .selectFrom("receipts as r")
      .leftJoin("locations as loc", (j) =>
        j.onRef("loc.id", "=", "r.location_id").on("loc.store_id", "=", storeId),
      )
      .selectAll("r")
      .select("loc.name as location_name")
      .where("r.store_id", "=", storeId)
      .where("r.purchase_order_id", "in", [...ids])
      .orderBy("r.created_at")
      .orderBy("r.id")
      .execute(),
    db
      .selectFrom("receipt_lines as rl")
      .innerJoin("receipts as r", "r.id", "rl.receipt_id")
      .select(RECEIPT_LINE_COLUMNS.map((c) => `rl.${c}` as const))
      .where("r.store_id", "=", storeId)
      .where("r.purchase_order_id", "in", [...ids])
      .orderBy("rl.id")
      .execute(),
    db
      .selectFrom("payments")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("purchase_order_id", "in", [...ids])
      .orderBy("created_at")
      .orderBy("id")
      .execute(),
    syncRowsOf(db, storeId, ids),
  ]);
  return {
    lines,
    charges,
    receipts,
    receiptLines,
    payments: payments as PaymentRow[],
    sync: syncMapOf(syncRows),
  };
}

/** The platform_sync rows of the orders `ids` and of their receipts. */
export function syncRowsOf(db: Db, storeId: number, ids: readonly number[]) {
  return db
    .selectFrom("platform_sync_states")
    .select(["subject_type", "subject_id", "state", "attempted_at", "error"])
    .where("store_id", "=", storeId)
    .where((eb) =>
      eb.or([
        eb.and([eb("subject_type", "=", "purchase_order"), eb("subject_id", "in", [...ids])]),
        eb.and([
          eb("subject_type", "=", "receipt"),
          eb(
            "subject_id",
            "in",
            eb
              .selectFrom("receipts")
              .select("id")
              .where("store_id", "=", storeId)
              .where("purchase_order_id", "in", [...ids]),
          ),
        ]),
      ]),
    )
    .execute();
}

export function syncMapOf(rows: Awaited<ReturnType<typeof syncRowsOf>>): Map<string, SyncState> {
  const sync = new Map<string, SyncState>();
  for (const r of rows)
    sync.set(syncKey(r.subject_type, r.subject_id), {
      state: r.state,
      attempted_at: r.attempted_at?.toISOString() ?? null,
      error: r.error,
    });
  return sync;
}

/** Presents orders from their rows and parts (no queries). */
export function assembleOrders(
  orders: readonly OrderRecord[],
  parts: OrderParts,
): Map<number, PurchaseOrder> {
  const assembler = orderAssembler(parts);
  const result = new Map<number, PurchaseOrder>();
  for (const order of orders) result.set(order.id, assembler.present(order));
  return result;
}

/**
 * `assembleOrders` an order or so at a time, letting the event loop in between: a few orders at the
 * line cap are tens of milliseconds of presenting.
 */
async function assembleOrdersInSlices(
  orders: readonly OrderRecord[],
  parts: OrderParts,
): Promise<Map<number, PurchaseOrder>> {
  const assembler = orderAssembler(parts);
  const result = new Map<number, PurchaseOrder>();
  await eachInSlices(
    orders,
    (order) => result.set(order.id, assembler.present(order)),
    (order) => 1 + assembler.lineCount(order.id),
  );
  return result;
}

/** Presents one order at a time from the parts of many (grouped once). */
function orderAssembler(parts: OrderParts) {
  const sync = (type: string, id: number) => parts.sync.get(syncKey(type, id)) ?? NEVER_MOVED;
  const lines = groupBy(parts.lines, (l) => l.purchase_order_id);
  const charges = groupBy(parts.charges, (c) => c.purchase_order_id);
  const linesByReceipt = groupBy(parts.receiptLines, (l) => l.receipt_id);
  const receiptsByOrder = groupBy(parts.receipts, (r) => r.purchase_order_id);
  const paymentsByOrder = groupBy(parts.payments, (p) => p.purchase_order_id);
  const present = (order: OrderRecord): PurchaseOrder => {
    const presentedReceipts: PresentedReceipt[] = (receiptsByOrder.get(order.id) ?? []).map((r) => {
      const { location_name, ...row } = r;
      return presentReceipt(row, linesByReceipt.get(r.id) ?? [], sync("receipt", r.id), {
        currency: order.currency,
        storeCurrency: order.exchange_rate_base_currency,
        locationName: location_name,
      });
    });
    return presentPurchaseOrder({
      order,
      lines: lines.get(order.id) ?? [],
      charges: charges.get(order.id) ?? [],
      sync: sync("purchase_order", order.id),
      receipts: presentedReceipts,
      payments: paymentsByOrder.get(order.id) ?? [],
    });
  };
  return { present, lineCount: (orderId: number) => lines.get(orderId)?.length ?? 0 };
}

/**
 * Full PurchaseOrders (lines, charges, receipts with their lines, payments, platform_sync) for
 * `ids`, in a fixed number of queries whatever the number of orders or lines. Missing ids are absent
 * from the map.
 */
export async function loadPurchaseOrders(
  db: Db,
  storeId: number,
  ids: readonly number[],
): Promise<Map<number, PurchaseOrder>> {
  if (ids.length === 0) return new Map();
  const orders = (await orderRecordsByIdQuery(db, storeId, ids).execute()) as OrderRecord[];
  if (orders.length === 0) return new Map();
  const parts = await loadOrderParts(
    db,
    storeId,
    orders.map((o) => o.id),
  );
  return assembleOrdersInSlices(orders, parts);
}

/**
 * lockOrderRecordForReceipt's statement, compiled once and prepared once per PostgreSQL connection
 * (db/prepared.ts): built, compiled, parsed and planned on every receipt it cost the API ~0.3 ms and
 * the server ~0.4 ms (load 13-17). Its placeholders: the supplier's, the location's and the order's
 * store, then the order's id (orderRecordQuery's joins come first).
 */
const lockForReceipt = hotQuery("stockroom_order_lock_for_receipt", (db: Db) =>
  orderRecordsByIdQuery(db, 0, 0)
    .select(sql<number>`nextval(pg_get_serial_sequence('receipts', 'id'))`.as("next_receipt_id"))
    .forUpdate("po"),
);

/**
 * The order's row with its supplier name and location, locked (`FOR UPDATE` of the order row only), for
 * a receipt: with the id the receipt will take (from the receipts' identity, in the same statement), so
 * every row the receipt writes can be written in one statement. An id taken by a receipt that is then
 * refused is left unused, as a rolled-back insert leaves its id.
 */
export async function lockOrderRecordForReceipt(
  trx: Db,
  storeId: number,
  id: number,
): Promise<{ order: OrderRecord; receiptId: number }> {
  const [row] = await lockForReceipt.run(trx, storeId, storeId, storeId, id);
  if (!row) throw notFound("purchase order");
  const { next_receipt_id: receiptId, ...order } = row;
  return { order: order as OrderRecord, receiptId: Number(receiptId) };
}

/** One full PurchaseOrder as GET returns it; 404 not_found when absent from the store. */
export async function loadPurchaseOrder(db: Db, storeId: number, id: number): Promise<PurchaseOrder> {
  const order = (await loadPurchaseOrders(db, storeId, [id])).get(id);
  if (!order) throw notFound("purchase order");
  return order;
}
