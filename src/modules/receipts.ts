import type { FastifyInstance } from "fastify";
import { addHistory } from "../domain/purchase-orders/index.ts";
import { orderIdOfReceipt } from "../domain/receipts/index.ts";
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
    const orderId = await orderIdOfReceipt(trx, failure.storeId, failure.subjectId);
    if (orderId === undefined) return;
    await addHistory(trx, {
      storeId: failure.storeId,
      orderId,
      type: "platform_sync_failed",
      by: "system",
      via: null,
      data: { receipt_id: failure.subjectId, error: failure.error, job_id: failure.jobId },
      at: ctx.clock.now(),
    });
  },
};
