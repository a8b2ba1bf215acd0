import { type Selectable, sql } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database } from "../../db/schema.ts";
import {
  type CatalogChanges,
  PlatformPermanentError,
  type PlatformProductOption,
  type ProductStatus,
} from "../connector.ts";
import { EMPTY_ADDRESS } from "./catalog.ts";

/** The change feed: everything with a change number after the watermark, up to `limit` changes. */
export async function listSimChanges(
  db: Db,
  storeId: number,
  watermark: string | null,
  limit: number,
): Promise<CatalogChanges> {
  const after = watermark === null ? 0 : Number(watermark);
  if (!Number.isSafeInteger(after) || after < 0) throw new PlatformPermanentError("bad watermark");
  const shop = await db
    .selectFrom("sim_stores")
    .select("change_seq")
    .where("store_id", "=", storeId)
    .executeTakeFirst();
  const latest = Number(shop?.change_seq ?? 0);
  const upTo = Math.min(latest, after + limit);
  if (upTo <= after)
    return {
      products: [],
      variants: [],
      locations: [],
      levels: [],
      itemCosts: [],
      watermark: String(after),
      hasMore: false,
    };
  const changed = { storeId, after, upTo };
  const [products, variants, locations, levels, costs] = await Promise.all([
    changedRows(db, "sim_products", changed),
    changedRows(db, "sim_variants", changed),
    changedRows(db, "sim_locations", changed),
    changedRows(db, "sim_inventory_levels", changed),
    db
      .selectFrom("sim_variants")
      .select(["inventory_item_id", "unit_cost", "unit_cost_currency"])
      .where("store_id", "=", storeId)
      .where("cost_seq", ">", after)
      .where("cost_seq", "<=", upTo)
      .orderBy("cost_seq")
      .execute(),
  ]);
  return {
    products: products.map((p) => ({
      id: p.id,
      title: p.title,
      handle: p.handle,
      vendor: p.vendor,
      productType: p.product_type,
      status: p.status as ProductStatus,
      tags: p.tags,
      options: p.options as PlatformProductOption[],
      imageUrl: p.image_url,
      createdAt: p.created_at,
      updatedAt: p.updated_at,
    })),
    variants: variants.map((v) => ({
      id: v.id,
      productId: v.product_id,
      title: v.title,
      sku: v.sku,
      barcode: v.barcode,
      position: v.position,
      price: v.price,
      compareAtPrice: v.compare_at_price,
      weightGrams: v.weight_grams,
      inventoryPolicy: v.inventory_policy,
      taxable: v.taxable,
      imageUrl: v.image_url,
      inventoryItem: {
        id: v.inventory_item_id,
        tracked: v.tracked,
        unitCost: v.unit_cost,
        unitCostCurrency: v.unit_cost_currency,
      },
      createdAt: v.created_at,
      updatedAt: v.updated_at,
    })),
    locations: locations.map((l) => ({
      id: l.id,
      name: l.name,
      active: l.active,
      fulfillmentService: l.fulfillment_service,
      address: { ...EMPTY_ADDRESS, ...l.address },
      createdAt: l.created_at,
      updatedAt: l.updated_at,
    })),
    levels: levels.map((l) => ({
      inventoryItemId: l.inventory_item_id,
      locationId: l.location_id,
      available: l.available,
      onHand: l.on_hand,
      committed: l.committed,
      incoming: l.incoming,
      version: Number(l.change_seq),
      updatedAt: l.updated_at,
    })),
    itemCosts: costs.map((c) => ({
      inventoryItemId: c.inventory_item_id,
      unitCost: c.unit_cost,
      currency: c.unit_cost_currency,
    })),
    watermark: String(upTo),
    hasMore: upTo < latest,
  };
}

/** The simulator's tables with a change number on each row. */
type NumberedTable = "sim_products" | "sim_variants" | "sim_locations" | "sim_inventory_levels";

/** The rows of `table` changed in (after, upTo], in change order. */
async function changedRows<T extends NumberedTable>(
  db: Db,
  table: T,
  changed: { storeId: number; after: number; upTo: number },
): Promise<Selectable<Database[T]>[]> {
  const rows = await db
    .selectFrom(table as NumberedTable)
    .selectAll()
    .where("store_id", "=", changed.storeId)
    .where("change_seq", ">", changed.after)
    .where("change_seq", "<=", changed.upTo)
    .orderBy("change_seq")
    .execute();
  // Kysely types a row of the union as every table's columns at once; a row is of `table` only.
  return rows as unknown as Selectable<Database[T]>[];
}

/** Stores on the simulated platform whose change feed is ahead of the given watermarks. */
export async function simStoresWithChanges(db: Db): Promise<number[]> {
  const rows = await db
    .selectFrom("sim_stores as s")
    .leftJoin("mirror_sync_states as m", "m.store_id", "s.store_id")
    .select("s.store_id")
    .where((eb) =>
      eb.or([
        eb("m.watermark", "is", null),
        eb("s.change_seq", ">", sql<number>`cast(${sql.ref("m.watermark")} as bigint)`),
      ]),
    )
    .execute();
  return rows.map((r) => r.store_id);
}
