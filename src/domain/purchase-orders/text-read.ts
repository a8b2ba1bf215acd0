/**
 * A big order read with its lines as JSON text written by the database (line-text.ts): the order's
 * row, its version and every part in one prepared statement, the lines as one string, the other parts
 * as the one-statement read gives them. For the GET of an order beyond the small read's size, a
 * header-only PATCH's read-ahead, a list page and a PDF, whose 500 lines the API's event loop then
 * neither builds, presents nor serializes (issue 18 item 2). On both databases: the embedded one
 * builds the text on its own thread (db/pglite-thread.ts), where its rows came to the loop as 500
 * objects to rebuild from a structured copy and present; measured in docs/reliability.md, 5b.
 */
import { copyRowsBinary, sqlInts } from "../../db/copy-binary.ts";
import type { Db } from "../../db/database.ts";
import { type HotQuery, hotSql, onPool } from "../../db/prepared.ts";
import { jsonArrayBytes, type TextOrBytes } from "../../db/text-bytes.ts";
import { notFound } from "../errors.ts";
import { MAX_LINES_PER_ORDER } from "./line-cap.ts";
import { linesJsonSql, linesPiecesSql, type OrderWithLinesText } from "./line-text.ts";
import { assembleOrders, type OrderParts, presentSummaries } from "./loading.ts";
import {
  ORDER_COLUMNS_SQL,
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
  } & LinesColumns;

/**
 * The lines' text as a statement gives it: on the embedded database one column, handed over as bytes
 * (`_utf8`, db/text-bytes.ts); on PostgreSQL in pieces of LINES_PER_PIECE lines (line-text.ts,
 * `linesPiecesSql`), which the driver decodes as strings small enough for V8's young generation and
 * `takeLines` writes into bytes at once (text-bytes.ts, `jsonArrayBytes`: why).
 */
type LinesColumns = { lines_utf8?: TextOrBytes } & Partial<Record<`${typeof PIECE}_${number}`, string>>;

const LINES_PER_PIECE = 50;
const PIECES = Math.ceil(MAX_LINES_PER_ORDER / LINES_PER_PIECE);
const PIECE = "lines_piece";
const PIECE_NAMES = Array.from({ length: PIECES }, (_, i) => `${PIECE}_${i + 1}` as const);

/** The lines' columns of a statement (in pieces or one text), and what they need after its joins. */
function linesColumnsSql(pieces: boolean): { columns: string; from: string } {
  return pieces
    ? linesPiecesSql(PIECE, PIECES, LINES_PER_PIECE)
    : { columns: `${linesJsonSql()} as lines_utf8`, from: "" };
}

/** The lines' text of a row (bytes from either database's pieces or `_utf8`), its lines' columns taken out of it. */
function takeLines(row: LinesColumns): TextOrBytes {
  if (row.lines_utf8 !== undefined) {
    const text = row.lines_utf8;
    delete row.lines_utf8;
    return text;
  }
  const pieces = PIECE_NAMES.map((name) => row[name] ?? "");
  for (const name of PIECE_NAMES) delete row[name];
  return jsonArrayBytes(pieces);
}

const orderTextSql = (pieces: boolean) => {
  const lines = linesColumnsSql(pieces);
  return `select ${ORDER_COLUMNS_SQL},
  s.name as supplier_name, loc.name as location_name, loc.address as location_address,
  po.xmin::text as version,
  ${lines.columns},
  ${otherPartColumns(wholePart)}
from purchase_orders po
left join suppliers s on s.id = po.supplier_id and s.store_id = po.store_id
left join locations loc on loc.id = po.location_id and loc.store_id = po.store_id
${lines.from}
where po.store_id = $1 and po.id = $2`;
};

/** Built on first use: the currencies' minor units are read from Intl then, not at start-up. */
const statements: Partial<Record<"text" | "pieces", HotQuery<[number, number], OrderTextRow>>> = {};

/** The order's statement for `db`: its lines in pieces on a PostgreSQL pool, as one text elsewhere. */
function orderWithLinesText(db: Db): HotQuery<[number, number], OrderTextRow> {
  const pieces = onPool(db);
  const kind = pieces ? "pieces" : "text";
  let query = statements[kind];
  if (!query) {
    query = hotSql<[number, number], OrderTextRow>(
      pieces ? "stockroom_order_lines_pieces" : "stockroom_order_lines_text",
      orderTextSql(pieces),
      { priority: false },
    );
    statements[kind] = query;
  }
  return query;
}

/** What one statement reads of an order: its row and version, its parts but lines, its lines' text. */
export interface OrderTextRead {
  record: OrderRecord;
  version: string;
  /** Every part but the lines (empty here: they are in `linesJson`). */
  parts: OrderParts;
  linesJson: TextOrBytes;
}

/** The order in one statement with its lines as text; undefined when the store has no such order. */
export async function readOrderText(db: Db, storeId: number, id: number): Promise<OrderTextRead | undefined> {
  const [row] = await orderWithLinesText(db).run(db, storeId, id);
  if (!row) return undefined;
  const linesJson = takeLines(row);
  const { version, charges, receipts, receipt_lines, payments, sync, ...record } = row;
  return {
    record: record as OrderRecord,
    version,
    parts: partsOf({ lines: null, charges, receipts, receipt_lines, payments, sync }),
    linesJson,
  };
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
/** The SQL of every page order's lines' text, for PostgreSQL's COPY; built on first use. */
let pageLinesSelect: string | undefined;

/**
 * The lines' JSON text of each order of a page, by order id. On PostgreSQL through a binary COPY
 * (db/copy-binary.ts): the text reaches the loop as the bytes the server wrote, where an ordinary
 * result gave it as strings (in pieces of 50 lines, ~850 KB for a page of three 500-line orders)
 * that were then encoded into bytes again: 0.84 of the 1.2 MB a page allocated on the loop.
 */
async function pageLinesText(
  db: Db,
  storeId: number,
  ids: readonly number[],
): Promise<Map<number, TextOrBytes>> {
  if (!onPool(db)) {
    pageLinesStatement ??= hotSql(
      "stockroom_page_lines_text",
      `select po.id, ${linesJsonSql()} as lines_utf8 from purchase_orders po
where po.store_id = $1 and po.id = any($2::int[])`,
      { priority: false },
    );
    const rows = await pageLinesStatement.run(db, storeId, [...ids]);
    return new Map(rows.map((row) => [row.id, row.lines_utf8]));
  }
  pageLinesSelect ??= `select po.id, ${linesJsonSql()} from purchase_orders po`;
  const rows = await copyRowsBinary(
    db,
    `${pageLinesSelect} where po.store_id = ${sqlInts([storeId])} and po.id in (${sqlInts(ids)})`,
  );
  const lines = new Map<number, TextOrBytes>();
  for (const [id, text] of rows) if (id && text) lines.set(id.readInt32BE(0), text);
  return lines;
}

/** A list row presented without lines, with its lines as the server wrote their JSON text. */
export interface SummaryWithLinesText {
  readonly order: PurchaseOrderSummary;
  readonly linesJson: TextOrBytes;
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
  return heads.map((order) => ({ order, linesJson: texts.get(order.id) ?? "[]" }));
}
