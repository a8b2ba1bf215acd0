import type { AppContext } from "../../../context.ts";
import { inTransaction } from "../../../db/transaction.ts";
import { eraseStore } from "../../../domain/stores/index.ts";
import { type JobHandler, PermanentJobError } from "../../../jobs/worker.ts";
import { findShopByStore } from "../shops.ts";
import { SHOP_REDACT_JOB } from "./job-types.ts";

export type RedactOutcome = "erased" | "gone" | "kept_connected";

/**
 * shop/redact (sent 48 hours after the merchant uninstalled the app): the store and everything it
 * holds is erased. Only while the shop is still disconnected: a store whose shop was re-installed or
 * given a new token since is in use again and stays (a late delivery must not erase it). The store's
 * queued jobs go with it.
 */
export async function redactShop(ctx: AppContext, storeId: number, shop: string): Promise<RedactOutcome> {
  return inTransaction(ctx.db, async (trx) => {
    const row = await findShopByStore(trx, storeId);
    if (!row || row.shop !== shop) return "gone";
    if (row.status !== "disconnected") return "kept_connected";
    await ctx.jobs.deleteStoreJobs(trx, storeId);
    await trx.deleteFrom("shopify_webhook_events").where("shop", "=", shop).execute();
    await eraseStore(trx, storeId);
    return "erased";
  });
}

export const shopRedactJobHandler: JobHandler = {
  type: SHOP_REDACT_JOB,
  async run(ctx, job) {
    const storeId = job.payload.store_id;
    const shop = job.payload.shop;
    if (typeof storeId !== "number" || !Number.isSafeInteger(storeId) || typeof shop !== "string")
      throw new PermanentJobError("invalid job payload: store_id and shop are required");
    await redactShop(ctx, storeId, shop);
  },
};
