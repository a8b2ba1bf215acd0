import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { getStore } from "../domain/stores/index.ts";
import { PdfResponse, sendPurchaseOrderPdf } from "../http/pdf-response.ts";
import { ErrorBody, Id } from "../http/schemas/common.ts";

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 422: ErrorBody };

/**
 * Admin routes the console needs beyond the other modules' own: the purchase order PDF, which the API
 * serves only to a store's key (GET /v2/purchase_orders/{id}/pdf), made available to the admin token.
 * Same document and renderer as the API route.
 */
export async function consoleAdminRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    "/stores/:id/purchase_orders/:po_id/pdf",
    {
      schema: {
        tags: ["admin"],
        params: Type.Object({ id: Id, po_id: Id }),
        querystring: Type.Object(
          { received: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
        response: {
          200: PdfResponse,
          ...errors,
          // The render pool's bound (a few PDFs rendering per store at once): 429 `rate_limited`
          // with Retry-After, as on the API's PDF route.
          429: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      const { id, po_id } = request.params;
      await getStore(ctx.db, id);
      return sendPurchaseOrderPdf(reply, ctx, id, po_id, request.query.received === true);
    },
  );
}
