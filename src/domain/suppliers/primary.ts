import type { Db } from "../../db/database.ts";

export interface PrimarySupplier {
  id: number;
  name: string;
}

/**
 * The supplier an item is ordered from by default: the one its catalog row pins as primary, else the
 * first active supplier that added it to its catalog. Archived suppliers are never chosen (an order
 * cannot use them).
 */
export async function primarySuppliersOf(
  db: Db,
  storeId: number,
  inventoryItemIds: readonly number[],
): Promise<Map<number, PrimarySupplier>> {
  const ids = [...new Set(inventoryItemIds)];
  const out = new Map<number, PrimarySupplier>();
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom("supplier_catalog_items as c")
    .innerJoin("suppliers as s", (join) =>
      join.onRef("s.id", "=", "c.supplier_id").onRef("s.store_id", "=", "c.store_id"),
    )
    .select(["c.inventory_item_id", "c.is_primary", "s.id", "s.name"])
    .where("c.store_id", "=", storeId)
    .where("c.inventory_item_id", "in", ids)
    .where("s.archived", "=", false)
    .orderBy("c.inventory_item_id")
    .orderBy("c.is_primary", "desc")
    .orderBy("c.id")
    .execute();
  for (const row of rows) {
    const item = Number(row.inventory_item_id);
    if (!out.has(item)) out.set(item, { id: row.id, name: row.name });
  }
  return out;
}
