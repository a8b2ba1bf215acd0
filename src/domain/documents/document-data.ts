import type { Db } from "../../db/database.ts";
import { notFound } from "../errors.ts";
import { assembleOrders, readOrderText } from "../purchase-orders/index.ts";
import { findSupplier, presentSupplier } from "../suppliers/index.ts";
import { type PdfHead, pdfStoreOf } from "./pdf-version.ts";
import type { AddressView, PurchaseOrderDocument } from "./purchase-order-view.ts";
import type { DocumentSource } from "./render-worker.ts";

function locationAddress(name: string, address: Record<string, string | null> | null): AddressView {
  const a = address ?? {};
  return {
    name,
    line1: a.line1 ?? null,
    line2: a.line2 ?? null,
    city: a.city ?? null,
    province: a.province_code ?? a.province ?? null,
    zip: a.zip ?? null,
    country: a.country ?? null,
    country_code: a.country_code ?? null,
    phone: a.phone ?? null,
  };
}

/**
 * Everything the PDF shows: the order as GET returns it, read after `head` (pdf-version.ts), and its
 * supplier, read after the order; the store's fields are the head's, which holds them by value. Read
 * after the version, so what is rendered is never older than the version it is cached under. The
 * ship-to location is the order read's own (its row joined in the same statement), as are the
 * bill-to and the supplier's id: one statement fewer than reading them beside the version again. The
 * order's lines are left as the database's JSON text (`linesJson`, the document's `lines` empty;
 * text-read.ts): the render thread parses them (render-worker.ts), so the event loop neither presents
 * 500 lines nor copies them to the thread as 500 objects (issue 18 item 2).
 */
export async function loadPurchaseOrderDocument(
  db: Db,
  storeId: number,
  orderId: number,
  head: PdfHead,
): Promise<DocumentSource> {
  const read = await readOrderText(db, storeId, orderId);
  const order = read && assembleOrders([read.record], read.parts).get(orderId);
  if (!read || !order) throw notFound("purchase order");
  const supplier = await findSupplier(db, storeId, order.supplier_id);
  if (!supplier) throw new Error(`purchase order ${orderId} changed while its document was read`);
  const { location_name, location_address } = read.record;
  const shipTo =
    order.ship_to_address ??
    (location_name === null ? null : locationAddress(location_name, location_address));
  const store = pdfStoreOf(head.version);
  const document: PurchaseOrderDocument = {
    ...order,
    ship_to_address: shipTo as PurchaseOrderDocument["ship_to_address"],
    store: { name: store.name, domain: store.domain, email: store.email, timezone: store.timezone },
    supplier: presentSupplier(supplier),
    bill_to: read.record.bill_to_override,
  };
  return { document, linesJson: read.linesJson };
}
