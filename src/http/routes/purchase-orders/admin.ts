import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import {
  listPurchaseOrders,
  loadPurchaseOrder,
  parseStatusFilter,
} from "../../../domain/purchase-orders/index.ts";
import { getStore } from "../../../domain/stores/index.ts";
import { DataOf, ErrorBody, Id, Page } from "../../schemas/common.ts";
import { PurchaseOrderListQuery } from "./index.ts";
import { PurchaseOrderSchema, PurchaseOrderSummarySchema } from "./schemas.ts";

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 422: ErrorBody };

/** Read-only purchase order views for the admin console (same presenters as the API). */
export async function purchaseOrderAdminRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    "/stores/:id/purchase_orders",
    {
      schema: {
        tags: ["admin"],
        params: Type.Object({ id: Id }),
        querystring: PurchaseOrderListQuery,
        response: { 200: Page(PurchaseOrderSummarySchema), ...errors },
      },
    },
    async (request) => {
      await getStore(ctx.db, request.params.id);
      const statuses = parseStatusFilter(request.query.status);
      return listPurchaseOrders(
        ctx,
        ctx.db,
        request.params.id,
        { ...request.query, statuses },
        "admin_purchase_orders",
      );
    },
  );

  app.get(
    "/stores/:id/purchase_orders/:po_id",
    {
      schema: {
        tags: ["admin"],
        params: Type.Object({ id: Id, po_id: Id }),
        response: { 200: DataOf(PurchaseOrderSchema), ...errors },
      },
    },
    async (request) => {
      await getStore(ctx.db, request.params.id);
      return { data: await loadPurchaseOrder(ctx.db, request.params.id, request.params.po_id) };
    },
  );
}
