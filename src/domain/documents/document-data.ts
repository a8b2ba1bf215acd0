import type { Db } from "../../db/database.ts";
import { findOrderRow, readPurchaseOrder } from "../purchase-orders/index.ts";
import { findSupplier, presentSupplier } from "../suppliers/index.ts";
import type { AddressView, PurchaseOrderDocument } from "./purchase-order-view.ts";

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
 * Everything the PDF shows, gathered in a fixed number of queries: the order as GET returns it, its
 * supplier, the store and the ship-to location's address.
 */
export async function loadPurchaseOrderDocument(
  db: Db,
  storeId: number,
  orderId: number,
): Promise<PurchaseOrderDocument> {
  const order = await readPurchaseOrder(db, storeId, orderId);
  const [supplier, store, location, orderRow] = await Promise.all([
    findSupplier(db, storeId, order.supplier_id),
    db
      .selectFrom("stores")
      .select(["name", "domain", "owner_email", "timezone"])
      .where("id", "=", storeId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom("locations")
      .select(["name", "address"])
      .where("store_id", "=", storeId)
      .where("id", "=", order.location.id)
      .executeTakeFirst(),
    findOrderRow(db, storeId, orderId),
  ]);
  if (!supplier || !orderRow)
    throw new Error(`purchase order ${orderId} changed while its document was read`);
  const shipTo =
    order.ship_to_address ?? (location ? locationAddress(location.name, location.address) : null);
  return {
    ...order,
    ship_to_address: shipTo as PurchaseOrderDocument["ship_to_address"],
    store: { name: store.name, domain: store.domain, email: store.owner_email, timezone: store.timezone },
    supplier: presentSupplier(supplier),
    bill_to: orderRow.bill_to_override,
  };
}
