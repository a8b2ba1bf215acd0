import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { notFound } from "../domain/errors.ts";
import { listDeliveries, listWebhooks, presentWebhook, redeliverDelivery } from "../domain/webhooks/index.ts";
import {
  DeliveriesQuery,
  DeliverySchema,
  RedeliverResultSchema,
  WebhookSchema,
} from "../http/routes/webhooks.ts";
import { DataOf, ErrorBody, Id, Page } from "../http/schemas/common.ts";

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 422: ErrorBody };
const tags = ["admin"];

/** The console's view of a store's webhooks: endpoints, their delivery logs, and resending one delivery. */
export async function webhookAdminRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  async function requireStore(id: number): Promise<void> {
    const store = await ctx.db.selectFrom("stores").select("id").where("id", "=", id).executeTakeFirst();
    if (!store) throw notFound("store");
  }

  app.get(
    "/stores/:id/webhooks",
    {
      schema: {
        tags,
        params: Type.Object({ id: Id }),
        response: { 200: DataOf(Type.Array(WebhookSchema)), ...errors },
      },
    },
    async (request) => {
      await requireStore(request.params.id);
      return { data: (await listWebhooks(ctx.db, request.params.id)).map(presentWebhook) };
    },
  );

  app.get(
    "/stores/:id/webhooks/:webhook_id/deliveries",
    {
      schema: {
        tags,
        params: Type.Object({ id: Id, webhook_id: Id }),
        querystring: DeliveriesQuery,
        response: { 200: Page(DeliverySchema), ...errors },
      },
    },
    async (request) => {
      await requireStore(request.params.id);
      return listDeliveries(ctx, ctx.db, request.params.id, request.params.webhook_id, request.query);
    },
  );

  app.post(
    "/stores/:id/webhooks/:webhook_id/deliveries/:delivery_id/redeliver",
    {
      schema: {
        tags,
        params: Type.Object({ id: Id, webhook_id: Id, delivery_id: Id }),
        response: { 202: RedeliverResultSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { id, webhook_id, delivery_id } = request.params;
      await requireStore(id);
      const data = await ctx.db
        .transaction()
        .execute((trx) => redeliverDelivery(ctx, trx, id, webhook_id, delivery_id));
      return reply.code(202).send({ data });
    },
  );
}
