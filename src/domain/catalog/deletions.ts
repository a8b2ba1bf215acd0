import { sql } from "kysely";
import type { Db } from "../../db/database.ts";

/**
 * Products and variants the platform deleted (docs/decisions.md, "Deleted products and variants").
 * Nothing leaves the mirror: purchase-order lines, receipts, adjustments and supplier price lists
 * refer to these rows, so a deletion marks them (`deleted_at`) and moves `updated_at`, which puts
 * them at the end of the "oldest update first" lists a client pages through. A deleted product shows
 * as `archived` (the contract has no deleted state); a deleted variant leaves the variant lists and
 * its product's variants but is still read by id. A mark is never undone: a platform does not reuse
 * ids, so a read that raced the deletion cannot bring the row back (the mirror's upserts skip
 * deleted rows).
 */

export interface CatalogRemovals {
  /** Products gone, with every variant of theirs. */
  productIds: readonly number[];
  /** Variants gone from a product that stays. */
  variantIds: readonly number[];
}

const CHUNK = 1000;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/** Marks what the platform deleted; rows already marked, or never mirrored, are left as they are. */
export async function markDeleted(
  trx: Db,
  storeId: number,
  removals: CatalogRemovals,
  now: Date,
): Promise<void> {
  for (const ids of chunks([...new Set(removals.productIds)])) {
    await trx
      .updateTable("products")
      .set({ deleted_at: now, status: "archived", updated_at: now })
      .where("store_id", "=", storeId)
      .where("id", "in", ids)
      .where("deleted_at", "is", null)
      .execute();
    await trx
      .updateTable("variants")
      .set({ deleted_at: now, updated_at: now })
      .where("store_id", "=", storeId)
      .where("product_id", "in", ids)
      .where("deleted_at", "is", null)
      .execute();
  }
  for (const ids of chunks([...new Set(removals.variantIds)])) {
    await trx
      .updateTable("variants")
      .set({ deleted_at: now, updated_at: now })
      .where("store_id", "=", storeId)
      .where("id", "in", ids)
      .where("deleted_at", "is", null)
      .execute();
  }
}

/**
 * The variants of inventory items the platform answered it no longer has (a push found them gone):
 * marked as a deletion delivery would mark them, so they leave the lists and alerts even when that
 * delivery was lost. A platform deletes a variant's inventory item with it, and a product has at
 * least one variant (Shopify refuses to delete the last one alone): a product none of whose variants
 * is left was deleted whole, so it is marked as products/delete would mark it (archived, moved to the
 * end of the lists) instead of staying listed, empty, until a sync or reconciliation reads it.
 */
export async function markItemsDeleted(
  trx: Db,
  storeId: number,
  inventoryItemIds: readonly number[],
  now: Date,
): Promise<void> {
  for (const ids of chunks([...new Set(inventoryItemIds)])) {
    const marked = await trx
      .updateTable("variants")
      .set({ deleted_at: now, updated_at: now })
      .where("store_id", "=", storeId)
      .where("inventory_item_id", "in", ids)
      .where("deleted_at", "is", null)
      .returning("product_id")
      .execute();
    const productIds = [...new Set(marked.map((v) => Number(v.product_id)))];
    if (productIds.length === 0) continue;
    await trx
      .updateTable("products")
      .set({ deleted_at: now, status: "archived", updated_at: now })
      .where("store_id", "=", storeId)
      .where("id", "in", productIds)
      .where("deleted_at", "is", null)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("variants as v")
              .select("v.id")
              .where("v.store_id", "=", storeId)
              .whereRef("v.product_id", "=", "products.id")
              .where("v.deleted_at", "is", null),
          ),
        ),
      )
      .execute();
  }
}

/**
 * Variants of the given products that are missing from their complete lists as the platform now
 * has them: those were deleted. `variantSets` maps a product id to every variant id it has.
 */
export async function markMissingVariantsDeleted(
  trx: Db,
  storeId: number,
  variantSets: ReadonlyArray<{ productId: number; variantIds: readonly number[] }>,
  now: Date,
): Promise<void> {
  if (variantSets.length === 0) return;
  for (const part of chunks(variantSets)) {
    const pairs = part.flatMap((set) => set.variantIds.map((id) => ({ product: set.productId, id })));
    const products = part.map((set) => set.productId);
    const kept = pairs.map((p) => p.id);
    await sql`
      update variants set deleted_at = ${now}, updated_at = ${now}
      where store_id = ${storeId} and deleted_at is null
        and product_id = any(${products}::bigint[])
        and not (id = any(${kept}::bigint[]))`.execute(trx);
  }
}

/** The mirror's products and variants not marked deleted: what a reconciliation checks still exist. */
export async function liveCatalogIds(
  db: Db,
  storeId: number,
): Promise<{ productIds: number[]; variantIds: number[] }> {
  const products = await db
    .selectFrom("products")
    .select("id")
    .where("store_id", "=", storeId)
    .where("deleted_at", "is", null)
    .orderBy("id")
    .execute();
  const variants = await db
    .selectFrom("variants")
    .select("id")
    .where("store_id", "=", storeId)
    .where("deleted_at", "is", null)
    .orderBy("id")
    .execute();
  return { productIds: products.map((p) => Number(p.id)), variantIds: variants.map((v) => Number(v.id)) };
}

/** Which of these inventory items belong to deleted variants (the platform has no such item now). */
export async function deletedInventoryItems(
  db: Db,
  storeId: number,
  itemIds: readonly number[],
): Promise<Set<number>> {
  if (itemIds.length === 0) return new Set();
  const rows = await db
    .selectFrom("variants")
    .select("inventory_item_id")
    .where("store_id", "=", storeId)
    // One array, one statement text whatever the count (an `in` list made a text per count).
    .where(sql<boolean>`inventory_item_id = any(${[...new Set(itemIds)]}::bigint[])`)
    .where("deleted_at", "is not", null)
    .execute();
  return new Set(rows.map((r) => Number(r.inventory_item_id)));
}
