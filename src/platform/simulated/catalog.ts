import type { Selectable } from "kysely";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/database.ts";
import type { SimProductsTable, SimVariantsTable } from "../../db/tables/catalog.ts";
import { inTransaction } from "../../db/transaction.ts";
import type { PlatformProductOption, ProductStatus } from "../connector.ts";
import { allocateChanges, chunks, ensureSimStore, newIds } from "./shop.ts";

/**
 * The simulated platform's catalog: creating locations and products (with their variants, inventory
 * items and starting levels), each write numbered in the shop's change sequence.
 */

function slugify(text: string): string {
  return (
    text
      .toLowerCase()
      .normalize("NFKD")
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 80) || "product"
  );
}

export interface NewSimLocation {
  name: string;
  active?: boolean;
  fulfillmentService?: string;
  address?: Partial<Record<string, string | null>>;
}

export const EMPTY_ADDRESS = {
  line1: null,
  line2: null,
  city: null,
  province_code: null,
  zip: null,
  country: null,
  country_code: null,
  phone: null,
};

export async function createSimLocations(
  db: Db,
  clock: Clock,
  storeId: number,
  locations: readonly NewSimLocation[],
): Promise<number[]> {
  return inTransaction(db, async (trx) => {
    await ensureSimStore(trx, storeId);
    const first = await allocateChanges(trx, storeId, locations.length);
    const ids = await newIds(trx, locations.length);
    const now = clock.now();
    await trx
      .insertInto("sim_locations")
      .values(
        locations.map((l, i) => ({
          store_id: storeId,
          id: ids[i],
          name: l.name,
          active: l.active ?? true,
          fulfillment_service: l.fulfillmentService ?? "manual",
          address: JSON.stringify({ ...EMPTY_ADDRESS, ...l.address }),
          change_seq: first + i,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
    return ids;
  });
}

export interface NewSimVariant {
  title: string;
  sku?: string | null;
  barcode?: string | null;
  /** Decimal strings. */
  price: string;
  compareAtPrice?: string | null;
  unitCost?: string | null;
  weightGrams?: number;
  tracked?: boolean;
  inventoryPolicy?: string;
  taxable?: boolean;
  imageUrl?: string | null;
}

export interface NewSimProduct {
  title: string;
  vendor?: string | null;
  productType?: string | null;
  status?: ProductStatus;
  tags?: string[];
  options?: PlatformProductOption[];
  imageUrl?: string | null;
  variants: NewSimVariant[];
}

export interface StockFor {
  available: number;
  committed?: number;
  incoming?: number;
}

export interface CreatedSimProduct {
  id: number;
  variants: Array<{ id: number; inventoryItemId: number }>;
}

/**
 * Creates products with their variants and inventory items, and a level for every item at every active
 * location (`stock` gives the starting quantities; default 0). Bulk multi-row inserts, so a catalog of
 * many thousand variants is made in seconds.
 */
export async function createSimProducts(
  db: Db,
  clock: Clock,
  storeId: number,
  currency: string,
  products: readonly NewSimProduct[],
  stock?: (context: {
    productIndex: number;
    variantIndex: number;
    locationIndex: number;
    locationId: number;
    tracked: boolean;
  }) => StockFor,
): Promise<CreatedSimProduct[]> {
  return inTransaction(db, async (trx) => {
    await ensureSimStore(trx, storeId);
    const locations = await trx
      .selectFrom("sim_locations")
      .select("id")
      .where("store_id", "=", storeId)
      .where("active", "=", true)
      .orderBy("id")
      .execute();
    const variantCount = products.reduce((n, p) => n + p.variants.length, 0);
    const levelCount = variantCount * locations.length;
    let seq = await allocateChanges(trx, storeId, products.length + variantCount + levelCount);
    const ids = await newIds(trx, products.length + 2 * variantCount);
    let nextId = 0;
    const now = clock.now();

    const productRows = [];
    const variantRows = [];
    const levelRows = [];
    const created: CreatedSimProduct[] = [];
    for (const p of products) {
      const productId = ids[nextId++];
      const handle = `${slugify(p.title)}-${productId}`;
      productRows.push({
        store_id: storeId,
        id: productId,
        title: p.title,
        handle,
        vendor: p.vendor ?? null,
        product_type: p.productType ?? null,
        status: p.status ?? "active",
        tags: p.tags ?? [],
        options: JSON.stringify(p.options ?? [{ name: "Title", position: 1, values: ["Default Title"] }]),
        image_url: p.imageUrl ?? null,
        change_seq: seq++,
        created_at: now,
        updated_at: now,
      });
      created.push({ id: productId, variants: [] });
      for (const [vi, v] of p.variants.entries()) {
        const variantId = ids[nextId++];
        const itemId = ids[nextId++];
        created[created.length - 1].variants.push({ id: variantId, inventoryItemId: itemId });
        variantRows.push({
          store_id: storeId,
          id: variantId,
          product_id: productId,
          inventory_item_id: itemId,
          title: v.title,
          sku: v.sku ?? null,
          barcode: v.barcode ?? null,
          position: vi + 1,
          price: v.price,
          compare_at_price: v.compareAtPrice ?? null,
          weight_grams: v.weightGrams ?? 0,
          inventory_policy: v.inventoryPolicy ?? "deny",
          taxable: v.taxable ?? true,
          image_url: v.imageUrl ?? null,
          tracked: v.tracked ?? true,
          unit_cost: v.unitCost ?? null,
          unit_cost_currency: v.unitCost ? currency : null,
          change_seq: 0,
          created_at: now,
          updated_at: now,
        });
      }
    }
    for (const row of variantRows) row.change_seq = seq++;
    let vIndex = 0;
    for (const [pi, p] of products.entries()) {
      for (const [vi, v] of p.variants.entries()) {
        const itemId = variantRows[vIndex++].inventory_item_id;
        for (const [li, location] of locations.entries()) {
          const s = stock?.({
            productIndex: pi,
            variantIndex: vi,
            locationIndex: li,
            locationId: location.id,
            tracked: v.tracked ?? true,
          }) ?? { available: 0 };
          const committed = s.committed ?? 0;
          levelRows.push({
            store_id: storeId,
            inventory_item_id: itemId,
            location_id: location.id,
            available: s.available,
            on_hand: s.available + committed,
            committed,
            incoming: s.incoming ?? 0,
            change_seq: seq++,
            created_at: now,
            updated_at: now,
          });
        }
      }
    }
    for (const part of chunks(productRows)) await trx.insertInto("sim_products").values(part).execute();
    for (const part of chunks(variantRows, 500)) await trx.insertInto("sim_variants").values(part).execute();
    for (const part of chunks(levelRows, 2000))
      await trx.insertInto("sim_inventory_levels").values(part).execute();
    return created;
  });
}

/** Products by id, in the order asked, each with its variants by position. */
export async function readSimProducts(
  db: Db,
  ids: readonly number[],
): Promise<Array<{ product: Selectable<SimProductsTable>; variants: Selectable<SimVariantsTable>[] }>> {
  if (ids.length === 0) return [];
  const productRows = await db
    .selectFrom("sim_products")
    .selectAll()
    .where("id", "in", [...ids])
    .execute();
  const variantRows = await db
    .selectFrom("sim_variants")
    .selectAll()
    .where("product_id", "in", [...ids])
    .orderBy("product_id")
    .orderBy("position")
    .execute();
  return ids.map((id) => ({
    product: productRows.find((r) => r.id === id)!,
    variants: variantRows.filter((v) => v.product_id === id),
  }));
}
