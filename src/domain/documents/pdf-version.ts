import type { Db } from "../../db/database.ts";
import { hotSql, type JsonRecord, readAheadOf } from "../../db/prepared.ts";
import { notFound } from "../errors.ts";

/**
 * What a purchase order's PDF depends on, read in one statement: the version of each row it prints
 * (the order, its supplier, its ship-to location) and the few fields of the store it prints, which
 * go into the rendering's cache key by value (the store's row is rewritten by every new order's
 * number, so its version would empty the store's PDFs at each order). A cached PDF needs nothing
 * more: its request reads this row and sends the bytes (issue 22 item 4), where it read and hashed
 * the whole order before. The same row gives a rendering the store, the location and the bill-to.
 *
 * A row's version is its `xmin`, the transaction that last wrote it. The order's covers its lines and
 * charges: every write of them updates the order's row in the same transaction (totals, status or
 * updated_at; the chunked line reads in purchase-orders/loading.ts rely on the same rule).
 */
export interface PdfVersion {
  readonly order_number: string;
  readonly order_version: string;
  readonly bill_to_override: string | null;
  readonly supplier_id: number;
  /** Null when the supplier row is gone (a rendering then fails as before). */
  readonly supplier_version: string | null;
  readonly location_id: number;
  readonly location_version: string | null;
  readonly location_name: string | null;
  readonly location_address: Record<string, string | null> | null;
  readonly store_name: string;
  readonly store_domain: string;
  readonly store_email: string | null;
  readonly store_timezone: string;
}

/**
 * The version as one JSON text (every field is text, a number or the location's JSON address), so on
 * PostgreSQL authentication reads it inside the key lookup's own statement (`pdfVersionReadAhead`):
 * a cached PDF's request is then one statement and one round trip in all.
 */
const pdfVersionJson = hotSql<[storeId: number, orderId: number], JsonRecord>(
  "stockroom_pdf_version",
  `select json_build_object(
    'order_number', po.number, 'order_version', po.xmin::text, 'bill_to_override', po.bill_to_override,
    'supplier_id', po.supplier_id, 'supplier_version', s.xmin::text,
    'location_id', po.location_id, 'location_version', loc.xmin::text, 'location_name', loc.name,
    'location_address', loc.address,
    'store_name', st.name, 'store_domain', st.domain, 'store_email', st.owner_email,
    'store_timezone', st.timezone)::text as row_json
  from purchase_orders po
  join stores st on st.id = po.store_id
  left join suppliers s on s.store_id = po.store_id and s.id = po.supplier_id
  left join locations loc on loc.store_id = po.store_id and loc.id = po.location_id
  where po.store_id = $1 and po.id = $2`,
);

/**
 * The PDF route's read-ahead: its version read by authentication with the key (PostgreSQL). Read
 * before the route waits for its store's turn, so it may be a few milliseconds older than the handler:
 * the answer is then the order as it stood during the request, and a rendering read after it is
 * never older than the version it is cached under.
 */
export const pdfVersionReadAhead = readAheadOf(pdfVersionJson, 2147483647, { json: true });

/**
 * The order's PDF version, or 404 `not_found` as the order's own read answers; `ahead`: its rows as
 * pdfVersionReadAhead read them with the key lookup, when it did.
 */
export async function readPdfVersion(
  db: Db,
  storeId: number,
  orderId: number,
  ahead?: readonly JsonRecord[],
): Promise<PdfVersion> {
  const [row] = ahead ?? (await pdfVersionJson.run(db, storeId, orderId));
  if (!row) throw notFound("purchase order");
  return JSON.parse(row.row_json) as PdfVersion;
}

/**
 * The cache key of a rendering: the store, the order, the copy, the rows' versions and the store's
 * printed fields. A transaction id comes back only after some four billion transactions, and a
 * stale entry would need this very order rewritten by that very id then.
 */
export function pdfKeyOf(storeId: number, orderId: number, receivingCopy: boolean, v: PdfVersion): string {
  const store = JSON.stringify([v.store_name, v.store_domain, v.store_email, v.store_timezone]);
  const rows = `${v.order_version}:${v.supplier_version}:${v.location_version}`;
  return `${storeId}:${orderId}:${receivingCopy ? "receiving" : "priced"}:${rows}:${store}`;
}
