import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { sendPurchaseOrder } from "../../domain/documents/index.ts";
import { actorOf } from "../../domain/purchase-orders/index.ts";
import { PdfResponse, sendPurchaseOrderPdf } from "../pdf-response.ts";
import { principalOf } from "../plugins/auth.ts";
import { commonErrorResponses, DataOf, IdParam, OptionalBody } from "../schemas/common.ts";
import { sendWrite } from "../write.ts";
import { PurchaseOrderSchema } from "./purchase-orders/schemas.ts";

const Email = Type.String({ format: "email", maxLength: 320 });

/** GET /purchase_orders/{id}/pdf and POST /purchase_orders/{id}/send. */
export async function documentRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    "/purchase_orders/:id/pdf",
    {
      config: { scope: "read", storeTurn: true },
      schema: {
        tags: ["purchase orders"],
        summary: "The order as a PDF; `received=true` renders the receiving copy (no prices)",
        params: IdParam,
        querystring: Type.Object(
          { received: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
        response: {
          200: PdfResponse,
          ...commonErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const { store } = principalOf(request);
      return sendPurchaseOrderPdf(
        reply,
        app.ctx,
        store.id,
        request.params.id,
        request.query.received === true,
      );
    },
  );

  app.post(
    "/purchase_orders/:id/send",
    {
      config: { scope: "write:purchase_orders" },
      schema: {
        tags: ["purchase orders"],
        summary: "Email the order with its PDF to the supplier; a draft becomes ordered",
        params: IdParam,
        // Every field is optional, so no body at all is the plain send (as the other actions take it).
        body: OptionalBody({
          to: Type.Optional(Type.Array(Email, { maxItems: 20 })),
          cc: Type.Optional(Type.Array(Email, { maxItems: 20 })),
          subject: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
          message: Type.Optional(Type.String({ maxLength: 10_000 })),
        }),
        response: { 200: DataOf(PurchaseOrderSchema), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { store } = principal;
      return sendWrite(request, reply, async (trx) => {
        const order = await sendPurchaseOrder(
          app.ctx,
          trx,
          store,
          actorOf(principal),
          request.params.id,
          request.body ?? {},
        );
        return { status: 200, body: { data: order } };
      });
    },
  );
}
