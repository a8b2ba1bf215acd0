/**
 * A big order read with its lines as JSON text written by the database (line-text.ts): the order's
 * row, its version and every part in one statement, the lines as one text, the other parts as the
 * one-statement read gives them. For the GET of an order beyond the small read's size, a header-only
 * PATCH's read-ahead, a list page and a PDF, whose 500 lines the API's event loop then neither builds,
 * presents nor serializes (issue 18 item 2). On both databases the lines' text reaches the loop as
 * bytes, never as a string: the embedded database builds it on its own thread (db/pglite-thread.ts)
 * and hands it over; PostgreSQL writes it through a binary COPY (db/copy-binary.ts). Measured in
 * docs/history/reliability-journal.md, 5b.
 */
import { type BinaryRow, copyRowsBinary, sqlInts } from "../../db/copy-binary.ts";
import type { Db } from "../../db/database.ts";
import { type HotQuery, hotSql, onPool } from "../../db/prepared.ts";
import type { TextOrBytes } from "../../db/text-bytes.ts";
import { notFound } from "../errors.ts";
import { linePiecesSql, linesJsonSql, type OrderWithLinesText } from "./line-text.ts";
import { assembleOrders, type OrderParts, presentSummaries } from "./loading.ts";
import {
  ORDER_COLUMNS_SQL,
  orderHeadJsonSql,
  orderHeadOf,
  otherPartColumns,
  type PartsRow,
  partsOf,
  wholePart,
} from "./one-statement-read.ts";
import type { OrderRecord, PurchaseOrderSummary } from "./presenter.ts";

type OrderTextRow = OrderRecord &
  Omit<PartsRow, "lines"> & {
    /** The row's version (`xmin`): read-ahead.ts. */
    version: string;
    /** The lines' text, handed over by the embedded database's thread as bytes (db/text-bytes.ts). */
    lines_utf8: TextOrBytes;
  };

/** The statement's joins after `from purchase_orders po`: the supplier's and location's names. */
const ORDER_JOINS = `left join suppliers s on s.id = po.supplier_id and s.store_id = po.store_id
left join locations loc on loc.id = po.location_id and loc.store_id = po.store_id`;

/** The order's statement on the embedded database; built on first use (the currencies' minor units are read from Intl then). */
let orderTextStatement: HotQuery<[number, number], OrderTextRow> | undefined;

/** What one statement reads of an order: its row and version, its parts but lines, its lines' text. */
export interface OrderTextRead {
  record: OrderRecord;
  version: string;
  /** Every part but the lines (empty here: they are in `linesJson`). */
  parts: OrderParts;
  /** The lines' JSON text in pieces (one on the embedded database), whose concatenation is the text. */
  linesJson: readonly TextOrBytes[];
}

/** The order in one statement with its lines as text; undefined when the store has no such order. */
export async function readOrderText(db: Db, storeId: number, id: number): Promise<OrderTextRead | undefined> {
  if (onPool(db)) return copyOrderText(db, storeId, id);
  orderTextStatement ??= hotSql<[number, number], OrderTextRow>(
    "stockroom_order_lines_text",
    `select ${ORDER_COLUMNS_SQL},
  s.name as supplier_name, loc.name as location_name, loc.address as location_address,
  po.xmin::text as version,
  ${linesJsonSql()} as lines_utf8,
  ${otherPartColumns(wholePart)}
from purchase_orders po
${ORDER_JOINS}
where po.store_id = $1 and po.id = $2`,
    { priority: false },
  );
  const [row] = await orderTextStatement.run(db, storeId, id);
  if (!row) return undefined;
  const { version, lines_utf8, charges, receipts, receipt_lines, payments, sync, ...record } = row;
  return {
    record,
    version,
    parts: partsOf({ lines: null, charges, receipts, receipt_lines, payments, sync }),
    linesJson: [lines_utf8],
  };
}

/** The order's row and its parts but lines, for its COPY: SQL up to its `where`; built on first use. */
let orderCopyHead: string | undefined;

/**
 * The order's read on PostgreSQL: one binary COPY (db/copy-binary.ts), one statement and so one
 * snapshot as before, its values as bytes. PostgreSQL's driver decodes every value of an ordinary
 * result into a string: a 500-line order's lines were ~280 KB of strings on the event loop (in pieces
 * of 50 lines, so none went to the old generation), encoded into bytes again at once, for every big
 * order's GET, header-only PATCH and uncached PDF, and the young generation they filled is collected
 * on the loop every other store's requests wait for (issue 18 item 2). Here the lines' text stays the
 * bytes the server wrote; the row and the other parts come as JSON (one-statement-read.ts decodes
 * them as the driver would have given them), a few kilobytes. The first row is the order's, the
 * lines' text follows in pieces (line-text.ts, linePiecesSql: one big row was one big message, which
 * the driver's parser took in doubling buffers), which go on as they are: the answer is written from
 * them, the event's text joined by the database.
 */
async function copyOrderText(db: Db, storeId: number, id: number): Promise<OrderTextRead | undefined> {
  orderCopyHead ??= `select -1 as piece, ${orderHeadJsonSql()}, null::text as lines,
  ${otherPartColumns(wholePart)}
from purchase_orders po
${ORDER_JOINS}`;
  const where = `po.store_id = ${sqlInts([storeId])} and po.id = ${sqlInts([id])}`;
  const [row, ...pieces] = await copyRowsBinary(
    db,
    `${orderCopyHead} where ${where}
union all select piece, null, text, null, null, null, null, null from (${linePiecesSql(where)}) lines
order by 1`,
  );
  if (!row) return undefined;
  const [, head, , charges, receipts, receipt_lines, payments, sync] = row;
  const json = (value: Buffer | null) => (value === null ? null : JSON.parse(value.toString("utf8")));
  const { version, ...record } = orderHeadOf(json(head));
  return {
    record,
    version,
    parts: partsOf({
      lines: null,
      charges: json(charges),
      receipts: json(receipts),
      receipt_lines: json(receipt_lines),
      payments: json(payments),
      sync: json(sync),
    }),
    linesJson: linesOf(pieces),
  };
}

/** The lines' text of an order without lines. */
const NO_LINES: readonly TextOrBytes[] = ["[]"];

/** An order's lines' text from its pieces' rows (linePiecesSql: the text third), `[]` without any. */
function linesOf(rows: readonly BinaryRow[]): readonly TextOrBytes[] {
  return rows.length === 0 ? NO_LINES : rows.map((row) => row[2] as Buffer);
}

/** The order as GET shows it, its lines as text; 404 `not_found` when absent. */
export async function readPurchaseOrderText(
  db: Db,
  storeId: number,
  id: number,
): Promise<OrderWithLinesText> {
  const read = await readOrderText(db, storeId, id);
  const order = read && assembleOrders([read.record], read.parts).get(id);
  if (!read || !order) throw notFound("purchase order");
  return { order, linesJson: read.linesJson };
}

/** The page's lines statement on the embedded database; built on first use, as the order's. */
let pageLinesStatement: HotQuery<[number, number[]], { id: number; lines_utf8: TextOrBytes }> | undefined;
/**
 * The lines' JSON text of each order of a page, by order id. On PostgreSQL through a binary COPY
 * (db/copy-binary.ts): the text reaches the loop as the bytes the server wrote, where an ordinary
 * result gave it as strings (in pieces of 50 lines, ~850 KB for a page of three 500-line orders)
 * that were then encoded into bytes again: 0.84 of the 1.2 MB a page allocated on the loop. Each
 * order's text comes in pieces of about 16 KB (line-text.ts, linePiecesSql), as its order's read's.
 */
async function pageLinesText(
  db: Db,
  storeId: number,
  ids: readonly number[],
): Promise<Map<number, readonly TextOrBytes[]>> {
  if (!onPool(db)) {
    pageLinesStatement ??= hotSql(
      "stockroom_page_lines_text",
      `select po.id, ${linesJsonSql()} as lines_utf8 from purchase_orders po
where po.store_id = $1 and po.id = any($2::int[])`,
      { priority: false },
    );
    const rows = await pageLinesStatement.run(db, storeId, [...ids]);
    return new Map(rows.map((row) => [row.id, [row.lines_utf8]]));
  }
  const rows = await copyRowsBinary(
    db,
    `${linePiecesSql(`po.store_id = ${sqlInts([storeId])} and po.id in (${sqlInts(ids)})`)} order by 1, 2`,
  );
  // Each order's pieces in order (line-text.ts, linePiecesSql): its lines' text.
  const lines = new Map<number, readonly TextOrBytes[]>();
  for (let from = 0; from < rows.length; ) {
    const id = (rows[from][0] as Buffer).readInt32BE(0);
    let to = from + 1;
    while (to < rows.length && (rows[to][0] as Buffer).readInt32BE(0) === id) to++;
    lines.set(id, linesOf(rows.slice(from, to)));
    from = to;
  }
  return lines;
}

/** A list row presented without lines, with its lines as the server wrote their JSON text. */
export interface SummaryWithLinesText {
  readonly order: PurchaseOrderSummary;
  readonly linesJson: readonly TextOrBytes[];
}

/**
 * presentSummaries' rows with their lines as text: a page of 250 orders holds up to
 * LINES_PER_PAGE (1,500) lines, whose rows the driver built and the loop presented and serialized
 * (issue 18 item 2). The orders' charges and sync are read and presented as before.
 */
export async function presentSummariesWithLinesText(
  db: Db,
  storeId: number,
  orders: readonly OrderRecord[],
): Promise<SummaryWithLinesText[]> {
  if (orders.length === 0) return [];
  const [heads, texts] = await Promise.all([
    presentSummaries(db, storeId, orders, false),
    pageLinesText(
      db,
      storeId,
      orders.map((o) => o.id),
    ),
  ]);
  return heads.map((order) => ({ order, linesJson: texts.get(order.id) ?? NO_LINES }));
}
