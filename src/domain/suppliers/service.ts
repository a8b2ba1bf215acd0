import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { DetailCollector, invalidTransition, notFound } from "../errors.ts";
import { getStore } from "../stores/index.ts";
import { emitSupplier } from "./events.ts";
import type { SupplierRow } from "./presenter.ts";
import { findSupplier, insertSupplier, updateSupplierRow } from "./repository.ts";
import {
  type SupplierChanges,
  type SupplierInput,
  sameValue,
  supplierChanges,
  toColumns,
} from "./supplier-input.ts";

/** Suppliers themselves: create, change, archive and unarchive, and the admin's network link. */

async function requireSupplier(trx: Db, storeId: number, id: number): Promise<SupplierRow> {
  const row = await findSupplier(trx, storeId, id, { forUpdate: true });
  if (!row) throw notFound("supplier");
  return row;
}

export async function createSupplier(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  input: SupplierInput & { name: string },
): Promise<SupplierRow> {
  const problems = new DetailCollector();
  const changes = supplierChanges(input, null, problems);
  problems.throwIfAny();
  const now = ctx.clock.now();
  const row = await insertSupplier(trx, {
    ...toColumns(changes),
    name: input.name,
    store_id: storeId,
    created_at: now,
    updated_at: now,
  });
  await emitSupplier(ctx, trx, "supplier.created", row);
  return row;
}

/** PATCH: only the fields sent change; nothing written (and no event) when nothing differs. */
export async function updateSupplier(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  id: number,
  input: SupplierInput,
): Promise<SupplierRow> {
  const current = await requireSupplier(trx, storeId, id);
  const problems = new DetailCollector();
  const changes = supplierChanges(input, current.currency, problems);
  problems.throwIfAny();
  const differing: SupplierChanges = {};
  for (const [field, value] of Object.entries(changes)) {
    if (!sameValue(field, current[field as keyof SupplierRow], value))
      differing[field as keyof SupplierRow] = value;
  }
  if (Object.keys(differing).length === 0) return current;
  const row = await updateSupplierRow(trx, storeId, id, {
    ...toColumns(differing),
    updated_at: ctx.clock.now(),
  });
  await emitSupplier(ctx, trx, "supplier.updated", row);
  return row;
}

export async function archiveSupplier(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  id: number,
): Promise<SupplierRow> {
  const current = await requireSupplier(trx, storeId, id);
  if (current.archived) {
    throw invalidTransition(
      current.merged_into_id !== null
        ? `Supplier is archived (merged into supplier ${current.merged_into_id}).`
        : "Supplier is already archived.",
    );
  }
  const now = ctx.clock.now();
  const row = await updateSupplierRow(trx, storeId, id, {
    archived: true,
    archived_at: now,
    updated_at: now,
  });
  await emitSupplier(ctx, trx, "supplier.archived", row);
  return row;
}

export async function unarchiveSupplier(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  id: number,
): Promise<SupplierRow> {
  const current = await requireSupplier(trx, storeId, id);
  if (current.merged_into_id !== null) {
    throw invalidTransition(
      `Supplier is merged into supplier ${current.merged_into_id}; a merged supplier cannot be unarchived.`,
    );
  }
  if (!current.archived)
    throw invalidTransition("Supplier is active; only an archived supplier can be unarchived.");
  const row = await updateSupplierRow(trx, storeId, id, {
    archived: false,
    archived_at: null,
    updated_at: ctx.clock.now(),
  });
  await emitSupplier(ctx, trx, "supplier.updated", row);
  return row;
}

/**
 * Admin: mark a supplier as linked (or not) to a supplier network; a linked supplier can't be merged
 * away. The link is not part of the v2 Supplier, so neither `updated_at` nor an event changes.
 */
export async function setNetworkLink(
  ctx: AppContext,
  storeId: number,
  supplierId: number,
  linked: boolean,
): Promise<SupplierRow> {
  return ctx.db.transaction().execute(async (trx) => {
    await getStore(trx, storeId);
    const current = await findSupplier(trx, storeId, supplierId, { forUpdate: true });
    if (!current) throw notFound("supplier");
    return updateSupplierRow(trx, storeId, supplierId, { network_linked: linked });
  });
}
