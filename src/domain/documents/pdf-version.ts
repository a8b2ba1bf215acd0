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
 * RowDescription and a row the driver parses on the event loop for every PDF served). A PDF not
 * cached takes the store's fields from this version (pdfStoreOf) and everything else from the order's
 * read, made after it (document-data.ts): the version is read once, where a second statement read it
 * again with the store, location and bill-to beside it (loop18, docs/reliability.md 5b).
 */
const VERSION = `concat_ws(':', po.xmin::text, coalesce(s.xmin::text, '-'), coalesce(loc.xmin::text, '-'),
    json_build_array(st.name, st.domain, st.owner_email, st.timezone)::text)`;

/** The order's number (the file's name) and its PDF's version. */
export interface PdfHead {
  readonly order_number: string;
  readonly version: string;
}

const pdfHeadQuery = hotSql<[storeId: number, orderId: number], PdfHead>(
  "stockroom_pdf_head",
  `select po.number as order_number, ${VERSION} as version
  from purchase_orders po
  join stores st on st.id = po.store_id
  left join suppliers s on s.store_id = po.store_id and s.id = po.supplier_id
  left join locations loc on loc.store_id = po.store_id and loc.id = po.location_id
  where po.store_id = $1 and po.id = $2`,
);

/** The order's number and PDF version, or 404 `not_found` as the order's own read answers. */
export async function readPdfHead(db: Db, storeId: number, orderId: number): Promise<PdfHead> {
  const [row] = await pdfHeadQuery.run(db, storeId, orderId);
  if (!row) throw notFound("purchase order");
  return row;
}

/** The store's fields a PDF prints. */
export interface PdfStore {
  readonly name: string;
  readonly domain: string;
  readonly email: string | null;
  readonly timezone: string;
}

/**
 * The store's fields as a version holds them by value: its part after the third `:` (the rows'
 * versions before it are transaction ids or `-`) is the JSON array of VERSION.
 */
export function pdfStoreOf(version: string): PdfStore {
  let at = -1;
  for (let i = 0; i < 3; i++) at = version.indexOf(":", at + 1);
  const [name, domain, email, timezone] = JSON.parse(version.slice(at + 1)) as [
    string,
    string,
    string | null,
    string,
  ];
  return { name, domain, email, timezone };
}

/**
 * The cache key of a rendering: the store, the order, the copy and the version. A transaction id
 * comes back only after some four billion transactions, and a stale entry would need this very order
 * rewritten by that very id then.
 */
export function pdfKeyOf(storeId: number, orderId: number, receivingCopy: boolean, version: string): string {
  return `${storeId}:${orderId}:${receivingCopy ? "receiving" : "priced"}:${version}`;
}
