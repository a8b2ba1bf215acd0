import type { Db } from "../../db/database.ts";
import { hotSql } from "../../db/prepared.ts";
import { notFound } from "../errors.ts";

/**
 * What a purchase order's PDF depends on: the version of each row it prints (the order, its supplier,
 * its ship-to location) and the few fields of the store it prints, which go into the version by value
 * (the store's row is rewritten by every new order's number, so its version would empty the store's
 * PDFs at each order). A cached PDF needs nothing more: its request reads that version and sends the
 * bytes (issue 22 item 4).
 *
 * A row's version is its `xmin`, the transaction that last wrote it. The order's covers its lines and
 * charges: every write of them updates the order's row in the same transaction (totals, status or
 * updated_at; the chunked line reads in purchase-orders/loading.ts rely on the same rule).
 *
 * The database writes the version as one text, so a cached PDF's statement answers two columns (a
 * RowDescription and a row the driver parses on the event loop for every PDF served); the full row
 * below, with what a rendering needs besides, is read only when the PDF is not cached.
 */
const VERSION = `concat_ws(':', po.xmin::text, coalesce(s.xmin::text, '-'), coalesce(loc.xmin::text, '-'),
    json_build_array(st.name, st.domain, st.owner_email, st.timezone)::text)`;

const FROM = `from purchase_orders po
  join stores st on st.id = po.store_id
  left join suppliers s on s.store_id = po.store_id and s.id = po.supplier_id
  left join locations loc on loc.store_id = po.store_id and loc.id = po.location_id
  where po.store_id = $1 and po.id = $2`;

/** The order's number (the file's name) and its PDF's version. */
export interface PdfHead {
  readonly order_number: string;
  readonly version: string;
}

/** The version with what a rendering needs: the store, the ship-to location and the bill-to. */
export interface PdfVersion extends PdfHead {
  readonly bill_to_override: string | null;
  readonly supplier_id: number;
  readonly location_id: number;
  readonly location_name: string | null;
  readonly location_address: Record<string, string | null> | null;
  readonly store_name: string;
  readonly store_domain: string;
  readonly store_email: string | null;
  readonly store_timezone: string;
}

const pdfHeadQuery = hotSql<[storeId: number, orderId: number], PdfHead>(
  "stockroom_pdf_head",
  `select po.number as order_number, ${VERSION} as version
  ${FROM}`,
);

const pdfVersionQuery = hotSql<[storeId: number, orderId: number], PdfVersion>(
  "stockroom_pdf_version",
  `select po.number as order_number, ${VERSION} as version, po.bill_to_override,
    po.supplier_id, po.location_id, loc.name as location_name, loc.address as location_address,
    st.name as store_name, st.domain as store_domain, st.owner_email as store_email,
    st.timezone as store_timezone
  ${FROM}`,
);

/** The order's number and PDF version, or 404 `not_found` as the order's own read answers. */
export async function readPdfHead(db: Db, storeId: number, orderId: number): Promise<PdfHead> {
  const [row] = await pdfHeadQuery.run(db, storeId, orderId);
  if (!row) throw notFound("purchase order");
  return row;
}

/** The order's PDF version with what its rendering needs, or 404 `not_found`. */
export async function readPdfVersion(db: Db, storeId: number, orderId: number): Promise<PdfVersion> {
  const [row] = await pdfVersionQuery.run(db, storeId, orderId);
  if (!row) throw notFound("purchase order");
  return row;
}

/**
 * The cache key of a rendering: the store, the order, the copy and the version. A transaction id
 * comes back only after some four billion transactions, and a stale entry would need this very order
 * rewritten by that very id then.
 */
export function pdfKeyOf(storeId: number, orderId: number, receivingCopy: boolean, version: string): string {
  return `${storeId}:${orderId}:${receivingCopy ? "receiving" : "priced"}:${version}`;
}
