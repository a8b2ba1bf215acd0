import type { Db } from "../../../db/database.ts";
import { markReconciled } from "../shops.ts";

export interface ReconciliationStatus {
  last_reconciled_at: string | null;
  levels_checked: number;
  levels_repaired: number;
  last_error: string | null;
  failed_at: string | null;
}

/** A pass ended: its figures, and the shop's last_reconciled_at (the store's Shopify state shows it). */
export async function recordReconciliation(
  db: Db,
  storeId: number,
  pass: { at: Date; checked: number; repaired: number },
): Promise<void> {
  const row = {
    reconciled_at: pass.at,
    levels_checked: pass.checked,
    levels_repaired: pass.repaired,
    last_error: null,
    failed_at: null,
    // The pass read its operation to the end: nothing of it is left running.
    bulk_operation_id: null,
  };
  await db
    .insertInto("shopify_reconciliations")
    .values({ store_id: storeId, ...row })
    .onConflict((oc) => oc.column("store_id").doUpdateSet(row))
    .execute();
  await markReconciled(db, storeId, pass.at);
}

/** The bulk operation a pass just started: kept until a pass completes, so a dead pass's is found. */
export async function rememberBulkOperation(db: Db, storeId: number, operationId: string): Promise<void> {
  await db
    .insertInto("shopify_reconciliations")
    .values({ store_id: storeId, bulk_operation_id: operationId })
    .onConflict((oc) => oc.column("store_id").doUpdateSet({ bulk_operation_id: operationId }))
    .execute();
}

/** The bulk operation of the last pass that did not complete (it may still run), or null. */
export async function unfinishedBulkOperation(db: Db, storeId: number): Promise<string | null> {
  const row = await db
    .selectFrom("shopify_reconciliations")
    .select("bulk_operation_id")
    .where("store_id", "=", storeId)
    .executeTakeFirst();
  return row?.bulk_operation_id ?? null;
}

/** A pass failed (Shopify unreachable, token refused): kept until a pass succeeds. */
export async function recordReconciliationFailure(
  db: Db,
  storeId: number,
  failure: { at: Date; error: string },
): Promise<void> {
  const row = { last_error: failure.error.slice(0, 2000), failed_at: failure.at };
  await db
    .insertInto("shopify_reconciliations")
    .values({ store_id: storeId, ...row })
    .onConflict((oc) => oc.column("store_id").doUpdateSet(row))
    .execute();
}

/** The last passes of a store, for the admin sync view; null when none ran yet. */
export async function reconciliationStatus(db: Db, storeId: number): Promise<ReconciliationStatus | null> {
  const row = await db
    .selectFrom("shopify_reconciliations")
    .selectAll()
    .where("store_id", "=", storeId)
    .executeTakeFirst();
  if (!row) return null;
  return {
    last_reconciled_at: row.reconciled_at?.toISOString() ?? null,
    levels_checked: row.levels_checked,
    levels_repaired: row.levels_repaired,
    last_error: row.last_error,
    failed_at: row.failed_at?.toISOString() ?? null,
  };
}
