import type { FastifyInstance } from "fastify";
import { addHistory } from "../domain/purchase-orders/index.ts";
import { paymentRoutes } from "../http/routes/payments.ts";
import { receiptRoutes } from "../http/routes/receipts.ts";
import type { Module } from "./module.ts";

/** Receiving (receipts, landed costs, voids) and paying (payments, mark paid/unpaid) purchase orders. */
export const receiptsModule: Module = {
  name: "receipts",
  async routes(app: FastifyInstance) {
    await app.register(receiptRoutes);
    await app.register(paymentRoutes);
  },
  async onPlatformSyncFailed(ctx, trx, failure) {
    if (failure.subjectType !== "receipt") return;
    const receipt = await trx
      .selectFrom("receipts")
      .select("purchase_order_id")
      .where("store_id", "=", failure.storeId)
      .where("id", "=", failure.subjectId)
      .executeTakeFirst();
    if (!receipt) return;
    await addHistory(trx, {
      storeId: failure.storeId,
      orderId: receipt.purchase_order_id,
      type: "platform_sync_failed",
      by: "system",
      via: null,
      data: { receipt_id: failure.subjectId, error: failure.error, job_id: failure.jobId },
      at: ctx.clock.now(),
    });
  },
};
