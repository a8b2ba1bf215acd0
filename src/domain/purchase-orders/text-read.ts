/**
 * A big order read with its lines as JSON text written by the database (line-text.ts): the order's
 * row, its version and every part in one prepared statement, the lines as one string, the other parts
 * as the one-statement read gives them. For the GET of an order beyond the small read's size, a
 * header-only PATCH's read-ahead, a list page and a PDF, whose 500 lines the API's event loop then
 * neither builds, presents nor serializes (issue 18 item 2). On both databases: the embedded one
 * builds the text on its own thread (db/pglite-thread.ts), where its rows came to the loop as 500
 * objects to rebuild from a structured copy and present; measured in docs/reliability.md, 5b.
 */
import type { Db } from "../../db/database.ts";
import { type HotQuery, hotSql } from "../../db/prepared.ts";
import type { TextOrBytes } from "../../db/text-bytes.ts";
import { notFound } from "../errors.ts";
import { linesJsonSql, type OrderWithLinesText } from "./line-text.ts";
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
    /** `_utf8`: bytes from the embedded database (db/text-bytes.ts). */
    lines_utf8: TextOrBytes;
  };

/** Built on first use: the currencies' minor units are read from Intl then, not at start-up. */
let statement: HotQuery<[number, number], OrderTextRow> | undefined;

const orderWithLinesText = () =>
  (statement ??= hotSql<[number, number], OrderTextRow>(
    "stockroom_order_lines_text",
    `select ${ORDER_COLUMNS_SQL},
  s.name as supplier_name, loc.name as location_name, loc.address as location_address,
  po.xmin::text as version,
  ${linesJsonSql()} as lines_utf8,
  ${otherPartColumns(wholePart)}
from purchase_orders po
left join suppliers s on s.id = po.supplier_id and s.store_id = po.store_id
left join locations loc on loc.id = po.location_id and loc.store_id = po.store_id
where po.store_id = $1 and po.id = $2`,
    { priority: false },
  ));

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
  const [row] = await orderWithLinesText().run(db, storeId, id);
  if (!row) return undefined;
  const { version, lines_utf8, charges, receipts, receipt_lines, payments, sync, ...record } = row;
  return {
    record: record as OrderRecord,
    version,
    parts: partsOf({ lines: null, charges, receipts, receipt_lines, payments, sync }),
    linesJson: lines_utf8,
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

let pageStatement: HotQuery<[number, number[]], { id: number; lines_utf8: TextOrBytes }> | undefined;

/** The lines' JSON text of each order of a page (one statement, whatever the page's lines). */
const pageLinesText = () =>
  (pageStatement ??= hotSql<[number, number[]], { id: number; lines_utf8: TextOrBytes }>(
    "stockroom_page_lines_text",
    `select po.id, ${linesJsonSql()} as lines_utf8 from purchase_orders po
where po.store_id = $1 and po.id = any($2::int[])`,
    { priority: false },
  ));

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
    pageLinesText().run(
      db,
      storeId,
      orders.map((o) => o.id),
    ),
  ]);
  const linesOf = new Map(texts.map((row) => [row.id, row.lines_utf8]));
  return heads.map((order) => ({ order, linesJson: linesOf.get(order.id) ?? "[]" }));
}
