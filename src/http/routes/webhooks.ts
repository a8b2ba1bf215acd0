import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context.ts";
import {
  ALL_EVENTS,
  checkWebhookUrl,
  createWebhook,
  deleteWebhook,
  EVENT_CATALOGUE,
  getWebhook,
  listDeliveries,
  listWebhooks,
  presentWebhook,
  redeliver,
  redeliverDelivery,
  sendTestEvent,
  updateWebhook,
  type WebhookRuntime,
} from "../../domain/webhooks/index.ts";
import { principalOf } from "../plugins/auth.ts";
import {
  commonErrorResponses,
  DataOf,
  documentedRules,
  Id,
  Named,
  Nullable,
  OneOf,
  Page,
  PagingQuery,
  Timestamp,
} from "../schemas/common.ts";
import { sendWrite } from "../write.ts";

export const WebhookSchema = Named(
  "Webhook",
  Type.Object({
    id: Type.Integer(),
    url: Type.String(),
    description: Nullable(Type.String()),
    events: Type.Array(OneOf([...EVENT_CATALOGUE, ALL_EVENTS])),
    status: Type.Union([Type.Literal("active"), Type.Literal("paused"), Type.Literal("disabled")]),
    api_version: Type.Integer(),
    consecutive_failures: Type.Integer(),
    last_delivered_at: Nullable(Timestamp),
    last_failed_at: Nullable(Timestamp),
    disabled_at: Nullable(Timestamp),
    disabled_reason: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);

const WebhookWithSecret = Type.Intersect([WebhookSchema, Type.Object({ secret: Type.String() })]);

export const DeliverySchema = Named(
  "WebhookDelivery",
  Type.Object({
    id: Type.Integer(),
    webhook_id: Type.Integer(),
    event_id: Type.String(),
    event: OneOf(EVENT_CATALOGUE),
    attempt: Type.Integer(),
    status: Type.Union([Type.Literal("succeeded"), Type.Literal("failed")]),
    status_code: Nullable(Type.Integer()),
    duration_ms: Type.Integer(),
    error: Nullable(Type.String()),
    next_attempt_at: Nullable(Timestamp),
    created_at: Timestamp,
  }),
);

export const RedeliverResultSchema = DataOf(
  Type.Object({ queued: Type.Integer(), event_ids: Type.Array(Type.String()) }),
);

export const DeliveriesQuery = Type.Object(
  {
    ...PagingQuery,
    status: Type.Optional(Type.Union([Type.Literal("succeeded"), Type.Literal("failed")])),
    event_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);

/** Catalogue names or `*` alone; the domain refuses others as `unknown_event`, the document lists them. */
const Events = Type.Array(
  Type.String({
    minLength: 1,
    maxLength: 100,
    ...documentedRules({ enum: [...EVENT_CATALOGUE, ALL_EVENTS] }),
  }),
  { minItems: 1, maxItems: 50 },
);
const Description = Nullable(Type.String({ maxLength: 1000 }));
const Url = Type.String({ minLength: 1, maxLength: 4096 });

const CreateBody = Named(
  "WebhookInput",
  Type.Object(
    { url: Url, events: Events, description: Type.Optional(Description) },
    { additionalProperties: false },
  ),
);
const UpdateBody = Named(
  "WebhookUpdate",
  Type.Object(
    {
      url: Type.Optional(Url),
      events: Type.Optional(Events),
      description: Type.Optional(Description),
      status: Type.Optional(Type.Union([Type.Literal("active"), Type.Literal("paused")])),
    },
    { additionalProperties: false },
  ),
);
const RedeliverBody = Named(
  "WebhookRedeliverInput",
  Type.Object(
    {
      event_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
      since: Type.Optional(Timestamp),
    },
    { additionalProperties: false },
  ),
);

const WebhookParams = Type.Object({ id: Id });
const DeliveryParams = Type.Object({ id: Id, delivery_id: Id });
const tags = ["webhooks"];

/** /v2/webhooks: every route needs the `webhooks` scope, reads included. */
export function webhookRoutes(runtimeOf: (ctx: AppContext) => WebhookRuntime) {
  return async function routes(instance: FastifyInstance): Promise<void> {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const { ctx } = app;
    const runtime = () => runtimeOf(ctx);
    // Built now, so a WEBHOOK_RETRY_SCHEDULE the parser refuses stops the start with its message.
    runtime();

    app.get(
      "/webhooks",
      {
        config: { scope: "webhooks" },
        schema: {
          tags,
          summary: "List webhook endpoints (at most 10)",
          response: { 200: DataOf(Type.Array(WebhookSchema)), ...commonErrorResponses },
        },
      },
      async (request) => {
        const { store } = principalOf(request);
        return { data: (await listWebhooks(ctx.db, store.id)).map(presentWebhook) };
      },
    );

    app.post(
      "/webhooks",
      {
        config: { scope: "webhooks" },
        schema: {
          tags,
          summary: "Create a webhook endpoint; the signing secret is returned only here",
          body: CreateBody,
          response: { 201: DataOf(WebhookWithSecret), ...commonErrorResponses },
        },
      },
      async (request, reply) => {
        const { store } = principalOf(request);
        const url = await checkWebhookUrl(ctx, runtime(), request.body.url);
        return sendWrite(request, reply, async (trx) => {
          const { row, secret } = await createWebhook(ctx, runtime(), trx, store.id, {
            url,
            events: request.body.events,
            description: request.body.description,
          });
          return { status: 201, body: { data: { ...presentWebhook(row), secret } } };
        });
      },
    );

    app.get(
      "/webhooks/:id",
      {
        config: { scope: "webhooks" },
        schema: {
          tags,
          summary: "One webhook endpoint",
          params: WebhookParams,
          response: { 200: DataOf(WebhookSchema), ...commonErrorResponses },
        },
      },
      async (request) => {
        const { store } = principalOf(request);
        return { data: presentWebhook(await getWebhook(ctx.db, store.id, request.params.id)) };
      },
    );

    app.patch(
      "/webhooks/:id",
      {
        config: { scope: "webhooks" },
        schema: {
          tags,
          summary: "Change url, events, description, or pause / re-enable (status active or paused)",
          params: WebhookParams,
          body: UpdateBody,
          response: { 200: DataOf(WebhookSchema), ...commonErrorResponses },
        },
      },
      async (request, reply) => {
        const { store } = principalOf(request);
        // 404 before the URL check, so another store's id never costs a DNS lookup.
        await getWebhook(ctx.db, store.id, request.params.id);
        const body = { ...request.body };
        if (body.url !== undefined) body.url = await checkWebhookUrl(ctx, runtime(), body.url);
        return sendWrite(request, reply, async (trx) => ({
          status: 200,
          body: { data: presentWebhook(await updateWebhook(ctx, trx, store.id, request.params.id, body)) },
        }));
      },
    );

    app.delete(
      "/webhooks/:id",
      {
        config: { scope: "webhooks" },
        schema: {
          tags,
          summary: "Delete a webhook endpoint and its delivery log",
          params: WebhookParams,
          response: {
            200: DataOf(Type.Object({ id: Type.Integer(), deleted: Type.Boolean() })),
            ...commonErrorResponses,
          },
        },
      },
      async (request, reply) => {
        const { store } = principalOf(request);
        return sendWrite(request, reply, async (trx) => {
          await deleteWebhook(trx, store.id, request.params.id);
          return { status: 200, body: { data: { id: request.params.id, deleted: true } } };
        });
      },
    );

    app.get(
      "/webhooks/:id/deliveries",
      {
        config: { scope: "webhooks" },
        schema: {
          tags,
          summary: "Delivery log: one row per attempt, newest first, kept 30 days",
          params: WebhookParams,
          querystring: DeliveriesQuery,
          response: { 200: Page(DeliverySchema), ...commonErrorResponses },
        },
      },
      async (request) => {
        const { store } = principalOf(request);
        return listDeliveries(ctx, ctx.db, store.id, request.params.id, request.query);
      },
    );

    app.post(
      "/webhooks/:id/deliveries/:delivery_id/redeliver",
      {
        config: { scope: "webhooks" },
        schema: {
          tags,
          summary: "Send that delivery's event again, now",
          params: DeliveryParams,
          response: { 202: RedeliverResultSchema, ...commonErrorResponses },
        },
      },
      async (request, reply) => {
        const { store } = principalOf(request);
        return sendWrite(request, reply, async (trx) => ({
          status: 202,
          body: {
            data: await redeliverDelivery(ctx, trx, store.id, request.params.id, request.params.delivery_id),
          },
        }));
      },
    );

    app.post(
      "/webhooks/:id/redeliver",
      {
        config: { scope: "webhooks" },
        schema: {
          tags,
          summary: "Send one event again ({event_id}) or catch up ({since}: newest 500, fresh attempt 1)",
          params: WebhookParams,
          body: RedeliverBody,
          response: { 202: RedeliverResultSchema, ...commonErrorResponses },
        },
      },
      async (request, reply) => {
        const { store } = principalOf(request);
        return sendWrite(request, reply, async (trx) => ({
          status: 202,
          body: { data: await redeliver(ctx, trx, store.id, request.params.id, request.body ?? {}) },
        }));
      },
    );

    app.post(
      "/webhooks/:id/test",
      {
        config: { scope: "webhooks" },
        schema: {
          tags,
          summary: "Send one webhook.test event to this endpoint",
          params: WebhookParams,
          response: {
            202: DataOf(
              Type.Object({ event_id: Type.String(), event: Type.String(), queued: Type.Boolean() }),
            ),
            ...commonErrorResponses,
          },
        },
      },
      async (request, reply) => {
        const { store } = principalOf(request);
        return sendWrite(request, reply, async (trx) => ({
          status: 202,
          body: { data: await sendTestEvent(ctx, trx, store.id, request.params.id) },
        }));
      },
    );
  };
}
