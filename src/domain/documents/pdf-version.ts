import type { Db } from "../../db/database.ts";
import { hotSql } from "../../db/prepared.ts";
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

const pdfVersionQuery = hotSql<[storeId: number, orderId: number], PdfVersion>(
  "stockroom_pdf_version",
  `select po.number as order_number, po.xmin::text as order_version, po.bill_to_override,
    po.supplier_id, s.xmin::text as supplier_version,
    po.location_id, loc.xmin::text as location_version, loc.name as location_name,
    loc.address as location_address,
    st.name as store_name, st.domain as store_domain, st.owner_email as store_email,
    st.timezone as store_timezone
  from purchase_orders po
  join stores st on st.id = po.store_id
  left join suppliers s on s.store_id = po.store_id and s.id = po.supplier_id
  left join locations loc on loc.store_id = po.store_id and loc.id = po.location_id
  where po.store_id = $1 and po.id = $2`,
);

/** The order's PDF version, or 404 `not_found` as the order's own read answers. */
export async function readPdfVersion(db: Db, storeId: number, orderId: number): Promise<PdfVersion> {
  const [row] = await pdfVersionQuery.run(db, storeId, orderId);
  if (!row) throw notFound("purchase order");
  return row;
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
