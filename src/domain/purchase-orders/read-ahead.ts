/**
 * A header-only PATCH's read-ahead (issue 18 item 2): the order's parts read before its transaction,
 * with the row's version, so the transaction that finds the row still at that version presents the
 * order from them instead of reading 500 lines while it holds the connection.
 */
import type { Db } from "../../db/database.ts";
import type { TextOrBytes } from "../../db/text-bytes.ts";
import { notFound } from "../errors.ts";
import type { PresentedOrder } from "./line-text.ts";
import { assembleOrders, type OrderParts, orderRecordsByIdQuery, syncMapOf, syncRowsOf } from "./loading.ts";
import type { OrderRecord, PurchaseOrder } from "./presenter.ts";
import { readOrderText } from "./text-read.ts";

/**
 * An order's parts read before a write's transaction, with the version of its row they are from.
 * Every write of an order's parts (lines, charges, receipts, payments) updates its row in the same
 * transaction, so a transaction that finds the row at `version` knows the parts are still these; a
 * write whose transaction would otherwise read a 500-line order (a header-only PATCH presenting it
 * for its event) reads it here instead, its lines as the database's JSON text (text-read.ts), and
 * holds the embedded database's one connection that much shorter (issue 18 item 2).
 */
export interface PartsReadAhead {
  version: string;
  parts: OrderParts;
  /**
   * The lines as the database wrote their JSON text (text-read.ts), `parts.lines` then empty: the
   * PATCH's event and answer take them as they are.
   */
  linesJson?: readonly TextOrBytes[];
}

/**
 * The order's parts and the version read before them (so they are that version's or newer: a
 * transaction finding the row still at it knows nothing was written since); undefined if absent.
 */
export async function readPartsAhead(
  db: Db,
  storeId: number,
  id: number,
): Promise<PartsReadAhead | undefined> {
  // One statement: the version and the parts are of one moment.
  const read = await readOrderText(db, storeId, id);
  return read && { version: read.version, parts: read.parts, linesJson: read.linesJson };
}

/**
 * The order as GET returns it, in a transaction that found its row at the read-ahead's version: its
 * row (with supplier and location names: `record` when the write's own statement answered it, else
 * read again) and platform_sync read again, which its parts do not follow, the rest from the
 * read-ahead (the lines as their text when it has them).
 */
export async function presentFromReadAhead(
  trx: Db,
  storeId: number,
  id: number,
  ahead: PartsReadAhead,
  record?: OrderRecord,
): Promise<PresentedOrder> {
  const [order, syncRows] = await Promise.all([
    record ?? orderRecordsByIdQuery(trx, storeId, id).executeTakeFirst(),
    syncRowsOf(trx, storeId, [id]),
  ]);
  if (!order) throw notFound("purchase order");
  const parts = { ...ahead.parts, sync: syncMapOf(syncRows) };
  const presented = assembleOrders([order as OrderRecord], parts).get(id) as PurchaseOrder;
  return ahead.linesJson === undefined ? presented : { order: presented, linesJson: ahead.linesJson };
}
