import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { AppError, DetailCollector } from "../errors.ts";
import { emitSupplier } from "./events.ts";
import type { SupplierRow } from "./presenter.ts";
import type { CatalogRow } from "./pricing.ts";
import {
  catalogRowsFor,
  deleteCatalogRowsById,
  lockSuppliers,
  updateCatalogRowsById,
  updateSupplierRow,
  updateSuppliers,
} from "./repository.ts";
import {
  ADDRESS_FIELDS,
  CONTACT_FIELDS,
  MONEY_FIELDS,
  type SupplierChanges,
  toColumns,
} from "./supplier-input.ts";

/** The suppliers of a merge, locked and checked: the surviving target and the sources in request order. */
export interface MergeParties {
  target: SupplierRow;
  sources: SupplierRow[];
}

/** Target fields filled from the first source that has them (address as one unit, see below). */
const FILLABLE_FIELDS = [...CONTACT_FIELDS, "currency", "lead_time_days", "default_updates_stock"] as const;

/**
 * Null fields of the target filled from the sources, in `source_ids` order. The address moves as a
 * whole (only when the target has no address line at all), so lines of two addresses never mix; money
 * fields are taken only from a source in the target's (possibly just filled) currency.
 */
function fillFromSources(target: SupplierRow, sources: readonly SupplierRow[]): SupplierChanges {
  const fill: SupplierChanges = {};
  for (const field of FILLABLE_FIELDS) {
    if (target[field] !== null) continue;
    const from = sources.find((s) => s[field] !== null);
    if (from) fill[field] = from[field];
  }
  if (ADDRESS_FIELDS.every((f) => target[f] === null)) {
    const from = sources.find((s) => ADDRESS_FIELDS.some((f) => s[f] !== null));
    if (from) for (const f of ADDRESS_FIELDS) fill[f] = from[f];
  }
  const currency = (fill.currency as string | null | undefined) ?? target.currency;
  for (const field of MONEY_FIELDS) {
    if (target[field] !== null) continue;
    const from = sources.find((s) => s[field] !== null && s.currency === currency);
    if (from) fill[field] = from[field];
  }
  return fill;
}

/**
 * The suppliers' half of POST /suppliers/merge (the flow is `src/use-cases/merge-suppliers.ts`): locks
 * the target and the sources in id order and checks them; every problem is one 422, and a source with
 * a live network link is `merge_network_blocked`.
 */
export async function lockMergeParties(
  trx: Db,
  storeId: number,
  input: { target_id: number; source_ids: readonly number[] },
): Promise<MergeParties> {
  const { target_id: targetId, source_ids: sourceIds } = input;
  const locked = await lockSuppliers(trx, storeId, [targetId, ...sourceIds]);
  const byId = new Map(locked.map((r) => [r.id, r]));
  const problems = new DetailCollector();
  const target = byId.get(targetId);
  if (!target) problems.add("target_id", "not_found", "no such supplier in this store");
  else if (target.merged_into_id !== null)
    problems.add("target_id", "merged", `was merged into supplier ${target.merged_into_id}`);
  else if (target.archived) problems.add("target_id", "archived", "is archived; unarchive it first");
  const seen = new Set<number>();
  sourceIds.forEach((id, i) => {
    const field = `source_ids.${i}`;
    const source = byId.get(id);
    if (id === targetId) problems.add(field, "same_as_target", "is the target itself");
    else if (seen.has(id)) problems.add(field, "duplicate", "is listed more than once");
    else if (!source) problems.add(field, "not_found", "no such supplier in this store");
    else if (source.merged_into_id !== null)
      problems.add(field, "merged", `was already merged into supplier ${source.merged_into_id}`);
    seen.add(id);
  });
  problems.throwIfAny();
  const sources = sourceIds.map((id) => byId.get(id) as SupplierRow);
  const linked = sources.find((s) => s.network_linked);
  if (linked) {
    throw new AppError(
      "merge_network_blocked",
      `Supplier ${linked.id} has a live supplier network link; unlink it before merging it away.`,
    );
  }
  return { target: target as SupplierRow, sources };
}

/**
 * Merges the supplier records: catalog rows move to the target (an item the target already has keeps
 * the target's row; the source's is dropped, and a primary pin it held passes to the row kept), the
 * sources are archived with `merged_into_id`, and the target's null fields are filled from them.
 * Events: supplier.archived (or supplier.updated for an already archived source) per source, then
 * supplier.merged with the survivor. Answers the survivor, the number of catalog rows moved and how many
 * of those carry a price list (tiers in force or upcoming).
 */
export async function mergeSupplierRecords(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  parties: MergeParties,
  now: Date,
): Promise<{ survivor: SupplierRow; movedItems: number; movedPriceLists: number }> {
  const { target: survivor, sources } = parties;
  const targetId = survivor.id;
  const sourceIds = sources.map((s) => s.id);

  // Catalog rows: the target's rows win; then the first source (in source_ids order) with the item.
  const rows = await catalogRowsFor(trx, storeId, [targetId, ...sourceIds], { forUpdate: true });
  const order = new Map(sourceIds.map((id, i) => [id, i]));
  const kept = new Map<number, CatalogRow>();
  for (const row of rows) if (row.supplier_id === targetId) kept.set(Number(row.inventory_item_id), row);
  const sourceRows = rows
    .filter((r) => r.supplier_id !== targetId)
    .sort((a, b) => (order.get(a.supplier_id) ?? 0) - (order.get(b.supplier_id) ?? 0) || a.id - b.id);
  const moveIds: number[] = [];
  let movedPriceLists = 0;
  const dropIds: number[] = [];
  const pinIds = new Set<number>();
  for (const row of sourceRows) {
    const item = Number(row.inventory_item_id);
    const keeper = kept.get(item);
    if (keeper) {
      dropIds.push(row.id);
      if (row.is_primary && !keeper.is_primary) pinIds.add(keeper.id);
    } else {
      moveIds.push(row.id);
      kept.set(item, row);
      if ((row.effective_tiers?.length ?? 0) > 0 || (row.upcoming_tiers?.length ?? 0) > 0) movedPriceLists++;
    }
  }
  await deleteCatalogRowsById(trx, storeId, dropIds);
  await updateCatalogRowsById(trx, storeId, moveIds, { supplier_id: targetId, updated_at: now });
  await updateCatalogRowsById(trx, storeId, [...pinIds], { is_primary: true, updated_at: now });

  const archivedSources = await updateSuppliers(trx, storeId, sourceIds, {
    archived: true,
    merged_into_id: targetId,
    updated_at: now,
  });
  // Keep the original archived_at of a source that was archived before the merge.
  const newlyArchived = sources.filter((s) => !s.archived).map((s) => s.id);
  const stamped = await updateSuppliers(trx, storeId, newlyArchived, { archived_at: now });
  const finalSources = new Map([...archivedSources, ...stamped].map((r) => [r.id, r]));

  const merged = await updateSupplierRow(trx, storeId, targetId, {
    ...toColumns(fillFromSources(survivor, sources)),
    updated_at: now,
  });

  for (const source of sources) {
    const after = finalSources.get(source.id) as SupplierRow;
    await emitSupplier(ctx, trx, source.archived ? "supplier.updated" : "supplier.archived", after);
  }
  await emitSupplier(ctx, trx, "supplier.merged", merged);
  return { survivor: merged, movedItems: moveIds.length, movedPriceLists };
}
