import type { Db } from "../../db/database.ts";
import { OPEN_STATUSES } from "./transitions.ts";

/**
 * What the store's own placed orders still bring of each item at each location: the outstanding
 * quantity (ordered less received and cancelled) of open purchase orders that update stock, summed per
 * item and location (a line without its own location goes to its order's). Drafts are not on order
 * yet; return orders bring nothing. Keyed `item:location`.
 */
export async function onOrderQuantities(
  db: Db,
  storeId: number,
  inventoryItemIds: readonly number[],
): Promise<Map<string, number>> {
  const ids = [...new Set(inventoryItemIds)];
  const out = new Map<string, number>();
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom("purchase_order_lines as l")
    .innerJoin("purchase_orders as po", (join) =>
      join.onRef("po.id", "=", "l.purchase_order_id").onRef("po.store_id", "=", "l.store_id"),
    )
    .select((eb) => [
      "l.inventory_item_id",
      eb.fn.coalesce("l.location_id", "po.location_id").as("location_id"),
      eb.fn
        .sum<string | number>(
          eb.fn("greatest", [
            eb.lit(0),
            eb("l.quantity", "-", eb("l.received_quantity", "+", eb.ref("l.cancelled_quantity"))),
          ]),
        )
        .as("quantity"),
    ])
    .where("l.store_id", "=", storeId)
    .where("l.inventory_item_id", "in", ids)
    .where("po.status", "in", [...OPEN_STATUSES])
    .where("po.type", "=", "purchase")
    .where("po.updates_stock", "=", true)
    .groupBy(["l.inventory_item_id", (eb) => eb.fn.coalesce("l.location_id", "po.location_id")])
    .execute();
  for (const row of rows) out.set(`${row.inventory_item_id}:${row.location_id}`, Number(row.quantity ?? 0));
  return out;
}
