import type { FastifyInstance } from "fastify";
import { settingsAdminRoutes } from "../admin/settings-routes.ts";
import { addHistory, overdueTask } from "../domain/purchase-orders/index.ts";
import { purchaseOrderAdminRoutes } from "../http/routes/purchase-orders/admin.ts";
import { purchaseOrderRoutes } from "../http/routes/purchase-orders/index.ts";
import type { Module } from "./module.ts";

export const purchaseOrdersModule: Module = {
  name: "purchase_orders",
  routes: purchaseOrderRoutes,
  async adminRoutes(app: FastifyInstance) {
    await app.register(settingsAdminRoutes);
    await app.register(purchaseOrderAdminRoutes);
  },
  periodic: [overdueTask],
  async onPlatformSyncFailed(ctx, trx, failure) {
    if (failure.subjectType !== "purchase_order") return;
    await addHistory(trx, {
      storeId: failure.storeId,
      orderId: failure.subjectId,
      type: "platform_sync_failed",
      by: "system",
      via: null,
      data: { error: failure.error, job_id: failure.jobId },
      at: ctx.clock.now(),
    });
  },
};
