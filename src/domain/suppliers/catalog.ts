import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import type { StoredTier } from "../../db/tables/suppliers.ts";
import { findVariants } from "../catalog/index.ts";
import { DetailCollector, invalidTransition, notFound } from "../errors.ts";
import { localDate } from "../local-time.ts";
import { parseDecimalInput } from "../money.ts";
import type { SupplierRow } from "./presenter.ts";
import { type CatalogRow, promoteDue } from "./pricing.ts";
import {
  type CatalogUpdate,
  catalogRowsFor,
  clearOtherPrimaries,
  deleteCatalogRow,
  findSupplier,
  insertCatalogRow,
  updateCatalogRow,
} from "./repository.ts";
import { MONEY_LIMIT } from "./supplier-input.ts";

/** A supplier's catalog: which items it supplies, in what packs, at which tiered prices. */

/** The store a request acts for (the principal's store). */
export interface StoreRef {
  id: number;
  currency: string;
  timezone: string;
}

export interface CatalogRowInput {
  inventory_item_id?: number;
  variant_id?: number;
  supplier_sku?: string | null;
  pack_size?: number;
  pack_unit?: string;
  min_order_qty?: number;
  is_primary?: boolean;
  tiers?: Array<{ min_qty: number; price: number | string }>;
  effective_from?: string;
}

const NO_TIERS = {
  effective_tiers: null,
  effective_from: null,
  effective_currency: null,
  upcoming_tiers: null,
  upcoming_from: null,
  upcoming_currency: null,
};

/** Tiers checked and normalised: unique min_qty, price ≥ 0 with ≤ 8 places, sorted by min_qty. */
function parseTiers(
  tiers: CatalogRowInput["tiers"],
  base: string,
  problems: DetailCollector,
): StoredTier[] | undefined {
  if (tiers === undefined) return undefined;
  const out: StoredTier[] = [];
  const seen = new Map<number, number>();
  tiers.forEach((tier, j) => {
    const field = `${base}.tiers.${j}`;
    const first = seen.get(tier.min_qty);
    if (first !== undefined)
      problems.add(`${field}.min_qty`, "duplicate", `repeats the min_qty of ${base}.tiers.${first}`);
    else seen.set(tier.min_qty, j);
    const parsed = parseDecimalInput(tier.price, { maxPlaces: 8 });
    if (!parsed.ok) problems.add(`${field}.price`, parsed.code, parsed.message);
    else if (parsed.value.gte(MONEY_LIMIT)) problems.add(`${field}.price`, "out_of_range", "is too large");
    else out.push({ min_qty: tier.min_qty, price: parsed.value.toFixed() });
  });
  return out.sort((a, b) => a.min_qty - b.min_qty);
}

function supplierForCatalogWrite(supplier: SupplierRow | undefined): SupplierRow {
  if (!supplier) throw notFound("supplier");
  if (supplier.merged_into_id !== null) {
    throw invalidTransition(
      `Supplier is merged into supplier ${supplier.merged_into_id}; write the catalog of the surviving supplier.`,
    );
  }
  return supplier;
}

/**
 * PUT /suppliers/{id}/catalog. Every row is checked (tiers, and the item named within the store's
 * mirror) before anything is written: one bad row refuses the whole request. Then each row is upserted:
 * fields left out are left alone; `tiers` replaces the price list (with a future `effective_from` only
 * the upcoming set, leaving the one in force); `tiers: []` removes both sets; `is_primary: true` clears
 * other suppliers' pins on the item. Returns the rows as they now stand, in request order.
 */
export async function putCatalog(
  ctx: AppContext,
  trx: Db,
  store: StoreRef,
  supplierId: number,
  rows: readonly CatalogRowInput[],
): Promise<{ rows: CatalogRow[]; today: string }> {
  const supplier = supplierForCatalogWrite(
    await findSupplier(trx, store.id, supplierId, { forUpdate: true }),
  );
  const now = ctx.clock.now();
  const today = localDate(now, store.timezone);
  const problems = new DetailCollector();

  const tiersByRow = rows.map((row, i) => parseTiers(row.tiers, `rows.${i}`, problems));
  const variants = await findVariants(trx, store.id, {
    inventoryItemIds: rows.flatMap((r) => (r.inventory_item_id === undefined ? [] : [r.inventory_item_id])),
    variantIds: rows.flatMap((r) => (r.variant_id === undefined ? [] : [r.variant_id])),
  });
  const knownItems = new Set(variants.byInventoryItemId.keys());
  const itemOfVariant = new Map(
    [...variants.byVariantId.values()].map((v) => [v.id, v.inventory_item_id] as const),
  );
  const items: number[] = [];
  const rowOfItem = new Map<number, number>();
  rows.forEach((row, i) => {
    const base = `rows.${i}`;
    if (row.effective_from !== undefined && row.tiers === undefined)
      problems.add(`${base}.effective_from`, "requires_tiers", "is only read together with tiers");
    if (row.inventory_item_id === undefined && row.variant_id === undefined) {
      problems.add(`${base}.inventory_item_id`, "required", "inventory_item_id or variant_id is required");
      return;
    }
    let item: number | undefined;
    let field = `${base}.inventory_item_id`;
    if (row.inventory_item_id !== undefined) {
      if (knownItems.has(row.inventory_item_id)) item = row.inventory_item_id;
      else problems.add(field, "not_found", "no such inventory item in this store");
    }
    if (row.variant_id !== undefined) {
      const ofVariant = itemOfVariant.get(row.variant_id);
      if (ofVariant === undefined) {
        problems.add(`${base}.variant_id`, "not_found", "no such variant in this store");
      } else if (row.inventory_item_id === undefined) {
        item = ofVariant;
        field = `${base}.variant_id`;
      } else if (item !== undefined && ofVariant !== item) {
        problems.add(`${base}.variant_id`, "mismatch", "names another inventory item than inventory_item_id");
      }
    }
    if (item === undefined) return;
    const first = rowOfItem.get(item);
    if (first !== undefined) problems.add(field, "duplicate", `names the same item as rows.${first}`);
    else rowOfItem.set(item, i);
    items[i] = item;
  });
  problems.throwIfAny();

  const currency = supplier.currency ?? store.currency;
  const existing = new Map(
    (
      await catalogRowsFor(trx, store.id, [supplierId], {
        inventoryItemIds: [...rowOfItem.keys()],
        forUpdate: true,
      })
    ).map((r) => [Number(r.inventory_item_id), r]),
  );
  const written: CatalogRow[] = [];
  for (const [i, input] of rows.entries()) {
    const item = items[i];
    const current = existing.get(item);
    let tierColumns = current ? promoteDue(current, today) : NO_TIERS;
    const tiers = tiersByRow[i];
    if (tiers !== undefined) {
      if (tiers.length === 0) tierColumns = NO_TIERS;
      else if (input.effective_from !== undefined && input.effective_from > today)
        tierColumns = {
          ...tierColumns,
          upcoming_tiers: tiers,
          upcoming_from: input.effective_from,
          upcoming_currency: currency,
        };
      else
        tierColumns = {
          effective_tiers: tiers,
          effective_from: input.effective_from ?? null,
          effective_currency: currency,
          upcoming_tiers: null,
          upcoming_from: null,
          upcoming_currency: null,
        };
    }
    const set: CatalogUpdate = {
      ...tierColumns,
      effective_tiers: tierColumns.effective_tiers ? JSON.stringify(tierColumns.effective_tiers) : null,
      upcoming_tiers: tierColumns.upcoming_tiers ? JSON.stringify(tierColumns.upcoming_tiers) : null,
      source: "api",
      updated_at: now,
    };
    if (input.supplier_sku !== undefined)
      set.supplier_sku = input.supplier_sku === "" ? null : input.supplier_sku;
    if (input.pack_size !== undefined) set.pack_size = input.pack_size;
    if (input.pack_unit !== undefined) set.pack_unit = input.pack_unit;
    if (input.min_order_qty !== undefined) set.min_order_qty = input.min_order_qty;
    if (input.is_primary !== undefined) set.is_primary = input.is_primary;
    const row = current
      ? await updateCatalogRow(trx, store.id, current.id, set)
      : await insertCatalogRow(trx, {
          ...set,
          effective_tiers: set.effective_tiers ?? null,
          upcoming_tiers: set.upcoming_tiers ?? null,
          effective_from: tierColumns.effective_from,
          effective_currency: tierColumns.effective_currency,
          upcoming_from: tierColumns.upcoming_from,
          upcoming_currency: tierColumns.upcoming_currency,
          supplier_sku: set.supplier_sku ?? null,
          store_id: store.id,
          supplier_id: supplierId,
          inventory_item_id: item,
          created_at: now,
        });
    if (input.is_primary === true) await clearOtherPrimaries(trx, store.id, item, supplierId, now);
    written.push(row);
  }
  return { rows: written, today };
}

/** DELETE /suppliers/{id}/catalog/{inventory_item_id}: the association and its prices go. */
export async function deleteCatalogItem(
  trx: Db,
  storeId: number,
  supplierId: number,
  inventoryItemId: number,
): Promise<void> {
  const supplier = await findSupplier(trx, storeId, supplierId, { forUpdate: true });
  if (!supplier) throw notFound("supplier");
  if (!(await deleteCatalogRow(trx, storeId, supplierId, inventoryItemId)))
    throw notFound("catalog row for that item");
}
