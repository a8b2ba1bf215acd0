/** Reading receipts: the order's receipts page (oldest first) and one receipt. */
import { sql } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Page, PageRequest } from "../../db/keyset-paging.ts";
import { keysetPage, LINES_PER_PAGE } from "../../db/keyset-paging.ts";
import { notFound } from "../errors.ts";
import {
  findOrderRow,
  type PresentedReceipt,
  presentReceipt,
  RECEIPT_LINE_COLUMNS,
  type ReceiptLineRow,
  type ReceiptRow,
} from "../purchase-orders/index.ts";
import { platformSyncOf } from "../stock/index.ts";

/** The order the receipts are presented for (its currencies); 404 when it is not the store's. */
async function orderCurrencies(db: Db, storeId: number, orderId: number) {
  const order = await findOrderRow(db, storeId, orderId);
  if (!order) throw notFound("purchase order");
  return order;
}

function receiptsQuery(db: Db, storeId: number, orderId: number) {
  return db
    .selectFrom("receipts as r")
    .leftJoin("locations as loc", (j) =>
      j.onRef("loc.id", "=", "r.location_id").on("loc.store_id", "=", storeId),
    )
    .selectAll("r")
    .select("loc.name as location_name")
    .where("r.store_id", "=", storeId)
    .where("r.purchase_order_id", "=", orderId);
}

/** Presents receipt rows of one order with their lines and platform_sync (2 queries). */
async function presentRows(
  db: Db,
  storeId: number,
  order: { currency: string; exchange_rate_base_currency: string },
  rows: readonly (ReceiptRow & { location_name: string | null })[],
): Promise<PresentedReceipt[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [lines, sync] = await Promise.all([
    db
      .selectFrom("receipt_lines")
      .select(RECEIPT_LINE_COLUMNS)
      .where("store_id", "=", storeId)
      .where("receipt_id", "in", ids)
      .orderBy("id")
      .execute() as Promise<ReceiptLineRow[]>,
    platformSyncOf(db, storeId, "receipt", ids),
  ]);
  const byReceipt = new Map<number, ReceiptLineRow[]>();
  for (const l of lines) {
    const list = byReceipt.get(l.receipt_id) ?? [];
    list.push(l);
    byReceipt.set(l.receipt_id, list);
  }
  return rows.map(({ location_name, ...row }) =>
    presentReceipt(row, byReceipt.get(row.id) ?? [], sync.get(row.id)!, {
      currency: order.currency,
      storeCurrency: order.exchange_rate_base_currency,
      locationName: location_name,
    }),
  );
}

export async function listReceipts(
  db: Db,
  cursorSecret: string,
  storeId: number,
  orderId: number,
  query: PageRequest,
): Promise<Page<PresentedReceipt>> {
  const order = await orderCurrencies(db, storeId, orderId);
  // Each receipt's line count, so a page of big receipts ends before its lines exceed LINES_PER_PAGE.
  const withLineCounts = receiptsQuery(db, storeId, orderId).select(
    sql<number>`(select count(*)::int from receipt_lines rl where rl.store_id = r.store_id and rl.receipt_id = r.id)`.as(
      "line_count",
    ),
  );
  const page = await keysetPage(
    withLineCounts,
    query,
    {
      timeColumn: "r.created_at",
      idColumn: "r.id",
      direction: "asc",
      updatedColumn: "r.updated_at",
      createdColumn: "r.created_at",
      binding: { list: "receipts", store: storeId, order: orderId },
    },
    cursorSecret,
    (row) => ({ time: row.created_at, id: row.id }),
    { weight: (row) => row.line_count, max: LINES_PER_PAGE },
  );
  const rows = page.data.map(({ line_count, ...row }) => row);
  return { ...page, data: await presentRows(db, storeId, order, rows) };
}

export async function getReceipt(
  db: Db,
  storeId: number,
  orderId: number,
  receiptId: number,
): Promise<PresentedReceipt> {
  const order = await orderCurrencies(db, storeId, orderId);
  const row = await receiptsQuery(db, storeId, orderId).where("r.id", "=", receiptId).executeTakeFirst();
  if (!row) throw notFound("receipt on this purchase order");
  const [presented] = await presentRows(db, storeId, order, [row]);
  return presented;
}
