import type { Db } from "../../db/database.ts";
import { readPurchaseOrderText } from "../purchase-orders/index.ts";
import { findSupplier, presentSupplier } from "../suppliers/index.ts";
import type { PdfVersion } from "./pdf-version.ts";
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

/** The ship-to location's name and address (when the order moved since its version was read). */
function readLocation(db: Db, storeId: number, locationId: number) {
  return db
    .selectFrom("locations")
    .select(["name", "address"])
    .where("store_id", "=", storeId)
    .where("id", "=", locationId)
    .executeTakeFirst();
}

/**
 * Everything the PDF shows: the order as GET returns it and its supplier, read after `version`
 * (pdf-version.ts), which brought the store, the ship-to location and the bill-to. Read after it, so
 * what is rendered is never older than the version it is cached under. An order moved to another
 * supplier or location in between has that one read again. The order's lines are left as the
 * database's JSON text (`linesJson`, the document's `lines` empty; text-read.ts): the render thread
 * parses them (render-worker.ts), so the event loop neither presents 500 lines nor copies them to the
 * thread as 500 objects (issue 18 item 2).
 */
export async function loadPurchaseOrderDocument(
  db: Db,
  storeId: number,
  orderId: number,
  version: PdfVersion,
): Promise<DocumentSource> {
  const [{ order, linesJson }, supplierRow] = await Promise.all([
    readPurchaseOrderText(db, storeId, orderId),
    findSupplier(db, storeId, version.supplier_id),
  ]);
  const supplier =
    order.supplier_id === version.supplier_id
      ? supplierRow
      : await findSupplier(db, storeId, order.supplier_id);
  if (!supplier) throw new Error(`purchase order ${orderId} changed while its document was read`);
  const location =
    order.location.id !== version.location_id
      ? await readLocation(db, storeId, order.location.id)
      : version.location_name === null
        ? undefined
        : { name: version.location_name, address: version.location_address };
  const shipTo =
    order.ship_to_address ?? (location ? locationAddress(location.name, location.address) : null);
  const document: PurchaseOrderDocument = {
    ...order,
    ship_to_address: shipTo as PurchaseOrderDocument["ship_to_address"],
    store: {
      name: version.store_name,
      domain: version.store_domain,
      email: version.store_email,
      timezone: version.store_timezone,
    },
    supplier: presentSupplier(supplier),
    bill_to: version.bill_to_override,
  };
  return { document, linesJson };
}
