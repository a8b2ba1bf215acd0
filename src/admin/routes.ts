import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError, DetailCollector, validationFailed } from "../domain/errors.ts";
import { SCOPES } from "../domain/scopes.ts";
import { hashSecret, safeEqualHex } from "../domain/secrets.ts";
import {
  createKey,
  createStore,
  getStore,
  listKeys,
  listStores,
  presentKey,
  revokeKey,
  updateStore,
} from "../domain/stores/index.ts";
import { consoleAdminAllowed, consoleAdminFieldsRefused } from "../http/console-actors.ts";
import { listRequestLog } from "../http/request-log-list.ts";
import { DataOf, ErrorBody, Id, Nullable, Page, Timestamp } from "../http/schemas/common.ts";
import { attachStoreByToken, replaceShopToken } from "../platform/shopify/index.ts";
import type { AdminAuthThrottle } from "./auth-throttle.ts";
import { ShopifyStateSchema, storeView, storeViews } from "./store-views.ts";

const StoreSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  domain: Type.String(),
  currency: Type.String(),
  timezone: Type.String(),
  owner_email: Nullable(Type.String()),
  platform: Type.String(),
  shopify: Type.Optional(ShopifyStateSchema),
  api_access: Type.Boolean(),
  numbering: Type.Object({
    purchase_order_prefix: Type.String(),
    stock_adjustment_prefix: Type.String(),
    next_purchase_order_number: Type.Integer(),
    next_stock_adjustment_number: Type.Integer(),
  }),
  rate_limits: Type.Object({
    per_key_per_minute: Type.Integer(),
    per_store_per_minute: Type.Integer(),
    writes_per_store_per_minute: Type.Integer(),
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const KeySchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  prefix: Type.String(),
  scopes: Type.Array(Type.String()),
  expires_at: Nullable(Timestamp),
  last_used_at: Nullable(Timestamp),
  revoked_at: Nullable(Timestamp),
  created_at: Timestamp,
});

const StoreParams = Type.Object({ id: Id });
const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 422: ErrorBody };
const adminTag = { tags: ["admin"] };

/**
 * `Authorization: Bearer <ADMIN_TOKEN>`, compared by hash in constant time; wrong tokens are counted
 * per client address and an address over its allowance is refused (src/admin/auth-throttle.ts).
 */
export function adminAuthHook(tokenHash: string, throttle: AdminAuthThrottle) {
  return async (request: FastifyRequest) => {
    const header = request.headers.authorization ?? "";
    // A console page calling in process as a staff member (console-actors.ts): no token involved.
    const actor = request.server.consoleActors.resolve(header);
    if (actor) {
      if (!consoleAdminAllowed(actor, request.method, request.routeOptions.url ?? "", request.params))
        throw new AppError("insufficient_scope", "Your role does not allow this.");
      return;
    }
    await throttle.checkAllowed(request.ip);
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match)
      throw new AppError("unauthorized", "Send the admin token as `Authorization: Bearer <ADMIN_TOKEN>`.");
    if (!safeEqualHex(hashSecret(match[1]), tokenHash)) {
      await throttle.recordFailure(request.ip);
      // Sent, but not the one: say so, rather than how to send one (issue 20 item 9).
      throw new AppError("unauthorized", "The admin token is wrong.");
    }
  };
}

/**
 * A console actor's admin write, once its body is parsed: an owner's PATCH of the store may change the
 * numbering and API access, not what the operator alone sets (403, nothing changed).
 */
export async function adminConsoleBodyHook(request: FastifyRequest): Promise<void> {
  const actor = request.server.consoleActors.resolve(request.headers.authorization);
  if (!actor) return;
  const refused = consoleAdminFieldsRefused(
    actor,
    request.method,
    request.routeOptions.url ?? "",
    request.body,
  );
  if (refused.length > 0)
    throw new AppError("insufficient_scope", `Only the operator sets ${refused.join(", ")}.`);
}

/**
 * Stores, keys, request log: the merchant's settings page, as an API (docs/decisions.md, "Stores and the
 * admin API").
 */
export async function foundationAdminRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.post(
    "/stores",
    {
      schema: {
        ...adminTag,
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            domain: Type.Optional(Type.String({ minLength: 3, maxLength: 255, pattern: "^[A-Za-z0-9.-]+$" })),
            // Name, currency and time zone are required unless the store is attached to Shopify (its shop's, then): checked below.
            currency: Type.Optional(Type.String({ minLength: 3, maxLength: 3 })),
            timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            owner_email: Type.Optional(Nullable(Type.String({ format: "email" }))),
            platform: Type.Optional(Type.Union([Type.Literal("simulated"), Type.Literal("shopify")])),
            seed: Type.Optional(Type.Union([Type.Literal("demo"), Type.Literal("empty")])),
            shopify: Type.Optional(
              Type.Object(
                {
                  shop: Type.String({ minLength: 1, maxLength: 255 }),
                  access_token: Type.String({ minLength: 1, maxLength: 1000 }),
                  webhook_secret: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
                },
                { additionalProperties: false },
              ),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 201: DataOf(StoreSchema), ...errors },
      },
    },
    async (request, reply) => {
      const { shopify, ...body } = request.body;
      if (body.platform === "shopify") {
        if (!shopify)
          throw validationFailed([{ field: "shopify", code: "required", message: "is required" }]);
        const store = await attachStoreByToken(ctx, { ...body, shopify });
        return reply.code(201).send({ data: await storeView(ctx.db, store) });
      }
      const problems = new DetailCollector();
      if (body.name === undefined) problems.add("name", "required", "is required");
      if (body.currency === undefined) problems.add("currency", "required", "is required");
      if (body.timezone === undefined) problems.add("timezone", "required", "is required");
      if (shopify !== undefined)
        problems.add("shopify", "not_allowed", 'is only taken with platform "shopify"');
      problems.throwIfAny();
      const store = await createStore(ctx, {
        ...body,
        name: body.name as string,
        currency: body.currency as string,
        timezone: body.timezone as string,
        platform: "simulated",
      });
      return reply.code(201).send({ data: await storeView(ctx.db, store) });
    },
  );

  app.get(
    "/stores",
    { schema: { ...adminTag, response: { 200: DataOf(Type.Array(StoreSchema)), ...errors } } },
    async () => ({ data: await storeViews(ctx.db, await listStores(ctx.db)) }),
  );

  app.get(
    "/stores/:id",
    { schema: { ...adminTag, params: StoreParams, response: { 200: DataOf(StoreSchema), ...errors } } },
    async (request) => ({ data: await storeView(ctx.db, await getStore(ctx.db, request.params.id)) }),
  );

  app.patch(
    "/stores/:id",
    {
      schema: {
        ...adminTag,
        params: StoreParams,
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            api_access: Type.Optional(Type.Boolean()),
            owner_email: Type.Optional(Nullable(Type.String({ format: "email" }))),
            numbering: Type.Optional(
              Type.Object(
                {
                  purchase_order_prefix: Type.Optional(Type.String({ maxLength: 20 })),
                  stock_adjustment_prefix: Type.Optional(Type.String({ maxLength: 20 })),
                  next_purchase_order_number: Type.Optional(Type.Integer({ minimum: 1, maximum: 99999999 })),
                  next_stock_adjustment_number: Type.Optional(
                    Type.Integer({ minimum: 1, maximum: 99999999 }),
                  ),
                },
                { additionalProperties: false },
              ),
            ),
            rate_limits: Type.Optional(
              Type.Object(
                {
                  per_key_per_minute: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000_000 })),
                  per_store_per_minute: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000_000 })),
                  writes_per_store_per_minute: Type.Optional(
                    Type.Integer({ minimum: 1, maximum: 10_000_000 }),
                  ),
                },
                { additionalProperties: false },
              ),
            ),
            shopify: Type.Optional(
              Type.Object(
                { access_token: Type.String({ minLength: 1, maxLength: 1000 }) },
                { additionalProperties: false },
              ),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: DataOf(StoreSchema), ...errors },
      },
    },
    async (request) => {
      const { shopify, ...changes } = request.body;
      await getStore(ctx.db, request.params.id);
      // The new token is checked before anything changes; a refused one changes nothing.
      if (shopify) await replaceShopToken(ctx, request.params.id, shopify.access_token);
      const store = await updateStore(ctx, request.params.id, changes);
      return { data: await storeView(ctx.db, store) };
    },
  );

  app.post(
    "/stores/:id/keys",
    {
      schema: {
        ...adminTag,
        params: StoreParams,
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 200 }),
            scopes: Type.Array(Type.Union(SCOPES.map((s) => Type.Literal(s))), { maxItems: 10 }),
            expires_at: Type.Optional(Nullable(Timestamp)),
          },
          { additionalProperties: false },
        ),
        response: {
          201: DataOf(
            Type.Object({
              id: Type.Integer(),
              name: Type.String(),
              prefix: Type.String(),
              scopes: Type.Array(Type.String()),
              expires_at: Nullable(Timestamp),
              key: Type.String(),
            }),
          ),
          ...errors,
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await createKey(ctx, request.params.id, request.body) }),
  );

  app.get(
    "/stores/:id/keys",
    {
      schema: {
        ...adminTag,
        params: StoreParams,
        response: { 200: DataOf(Type.Array(KeySchema)), ...errors },
      },
    },
    async (request) => {
      // A key's last_used_at is written with the buffered request log.
      await ctx.requestLog.flush();
      return { data: (await listKeys(ctx.db, request.params.id)).map(presentKey) };
    },
  );

  app.post(
    "/stores/:id/keys/:key_id/revoke",
    {
      schema: {
        ...adminTag,
        params: Type.Object({ id: Id, key_id: Id }),
        response: { 200: DataOf(KeySchema), ...errors },
      },
    },
    async (request) => ({
      data: presentKey(await revokeKey(ctx, request.params.id, request.params.key_id)),
    }),
  );

  app.get(
    "/stores/:id/request_log",
    {
      schema: {
        ...adminTag,
        params: StoreParams,
        querystring: Type.Object(
          {
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 250, default: 50 })),
            cursor: Type.Optional(Type.String({ maxLength: 2048 })),
            key_id: Type.Optional(Id),
            status: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
            created_at_min: Type.Optional(Timestamp),
            created_at_max: Type.Optional(Timestamp),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Page(
            Type.Object({
              id: Type.Integer(),
              key_id: Nullable(Type.Integer()),
              method: Type.String(),
              path: Type.String(),
              status: Type.Integer(),
              duration_ms: Type.Integer(),
              idempotency_key: Nullable(Type.String()),
              request_id: Type.String(),
              created_at: Timestamp,
            }),
          ),
          ...errors,
        },
      },
    },
    async (request) => listRequestLog(ctx, request.params.id, request.query),
  );
}
