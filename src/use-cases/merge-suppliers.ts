import type { AppContext } from "../context.ts";
import type { Db } from "../db/database.ts";
import { type Actor, loadPurchaseOrders, moveOrdersToSupplier } from "../domain/purchase-orders/index.ts";
import { lockMergeParties, mergeSupplierRecords, type SupplierRow } from "../domain/suppliers/index.ts";
import { emit } from "../events/outbox.ts";

/**
 * POST /suppliers/merge: a flow over two modules, so it lives above both (purchase orders already
 * read suppliers; suppliers calling back into purchase orders would make the two a cycle).
 * The suppliers are locked and checked; the sources' purchase orders move to the target, each with an
 * `updated` history row (`changes.supplier_id`) by `actor`; then the supplier records merge (catalog,
 * archive, fill; supplier events), and last each moved order emits purchase_order.updated with the
 * order as GET now returns it. All in the caller's transaction.
 */

export interface MergeResult {
  survivor: SupplierRow;
  moved: { purchase_orders: number; items: number; price_lists: number; suppliers: number };
}

export async function mergeSuppliers(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  input: { target_id: number; source_ids: number[] },
  actor: Actor,
): Promise<MergeResult> {
  const parties = await lockMergeParties(trx, storeId, input);
  const now = ctx.clock.now();
  const movedOrders = await moveOrdersToSupplier(trx, storeId, input.source_ids, input.target_id, actor, now);
  const { survivor, movedItems, movedPriceLists } = await mergeSupplierRecords(
    ctx,
    trx,
    storeId,
    parties,
    now,
  );
  const orders = await loadPurchaseOrders(
    trx,
    storeId,
    movedOrders.map((o) => o.id),
  );
  for (const [id, order] of orders) {
    await emit(ctx, trx, {
      storeId,
      name: "purchase_order.updated",
      subjectType: "purchase_order",
      subjectId: id,
      data: order,
    });
  }
  return {
    survivor,
    moved: {
      purchase_orders: movedOrders.length,
      items: movedItems,
      price_lists: movedPriceLists,
      suppliers: parties.sources.length,
    },
  };
}

/** Carries a preview's result out of the transaction it rolls back. */
class PreviewRolledBack extends Error {
  constructor(readonly result: MergeResult) {
    super("merge preview rolled back");
  }
}

/**
 * POST /suppliers/merge/preview: the merge run as it would run now, in a transaction that is then
 * rolled back, so the counts and the survivor are the merge's own (same locks, checks and rules, no
 * second copy of them to drift) and nothing is written: no record, history row or event.
 */
export async function previewMergeSuppliers(
  ctx: AppContext,
  storeId: number,
  input: { target_id: number; source_ids: number[] },
  actor: Actor,
): Promise<MergeResult> {
  try {
    await ctx.db.transaction().execute(async (trx) => {
      throw new PreviewRolledBack(await mergeSuppliers(ctx, trx, storeId, input, actor));
    });
  } catch (error) {
    if (error instanceof PreviewRolledBack) return error.result;
    throw error;
  }
  throw new Error("a merge preview's transaction committed");
}
