import type { AppContext } from "../../../context.ts";
import { inTransaction } from "../../../db/transaction.ts";
import { markDeleted } from "../../../domain/catalog/index.ts";
import { type JobHandler, PermanentJobError } from "../../../jobs/worker.ts";
import { PRODUCT_DELETED_JOB } from "./job-types.ts";

/**
 * products/delete: the product and its variants are marked deleted in the mirror. Unlike the other
 * catalog topics the payload is acted on (its id alone): the incremental read cannot see a row that
 * is gone, and a deletion is final (Shopify does not reuse ids), so neither a duplicate nor a late
 * delivery can make it wrong. Reconciliation finds the deletions whose delivery was lost.
 */

/** The product id of a products/delete body (`{"id": 123, …}`), or null when it has none. */
export function deletedProductId(body: Buffer): number | null {
  try {
    const id = (JSON.parse(body.toString("utf8")) as { id?: unknown }).id;
    return typeof id === "number" && Number.isSafeInteger(id) && id > 0 ? id : null;
  } catch {
    return null;
  }
}

export const productDeletedJobHandler: JobHandler = {
  type: PRODUCT_DELETED_JOB,
  async run(ctx: AppContext, job) {
    const storeId = job.payload.store_id;
    const productId = job.payload.product_id;
    if (
      typeof storeId !== "number" ||
      !Number.isSafeInteger(storeId) ||
      typeof productId !== "number" ||
      !Number.isSafeInteger(productId)
    )
      throw new PermanentJobError("invalid job payload: store_id and product_id are required");
    await inTransaction(ctx.db, (trx) =>
      markDeleted(trx, storeId, { productIds: [productId], variantIds: [] }, ctx.clock.now()),
    );
  },
};
