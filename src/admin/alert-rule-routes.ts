import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { getAlertRules, putAlertRules } from "../domain/stock/index.ts";
import { getStore } from "../domain/stores/index.ts";
import { DataOf, ErrorBody, Id, Nullable, PlatformId } from "../http/schemas/common.ts";

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 422: ErrorBody };
const adminTag = { tags: ["admin"] };
const StoreParams = Type.Object({ id: Id });

const AlertRulesSchema = Type.Object({
  low_stock_threshold: Nullable(Type.Integer()),
  items: Type.Array(
    Type.Object({
      inventory_item_id: Type.Integer(),
      location_id: Nullable(Type.Integer()),
      reorder_point: Nullable(Type.Integer()),
      max_stock: Nullable(Type.Integer()),
    }),
  ),
});

const AlertRulesInput = Type.Object(
  {
    low_stock_threshold: Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000_000 })),
    items: Type.Array(
      Type.Object(
        {
          inventory_item_id: PlatformId,
          location_id: Type.Optional(Nullable(PlatformId)),
          reorder_point: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000_000 }))),
          max_stock: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000_000 }))),
        },
        { additionalProperties: false },
      ),
      { maxItems: 10_000 },
    ),
  },
  { additionalProperties: false },
);

/** The store's item alert rules: a low-stock threshold and per-item reorder points and maximums. */
export async function alertRuleAdminRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    "/stores/:id/alert_rules",
    { schema: { ...adminTag, params: StoreParams, response: { 200: DataOf(AlertRulesSchema), ...errors } } },
    async (request) => {
      const store = await getStore(ctx.db, request.params.id);
      return { data: await getAlertRules(ctx.db, store.id) };
    },
  );

  app.put(
    "/stores/:id/alert_rules",
    {
      schema: {
        ...adminTag,
        params: StoreParams,
        body: AlertRulesInput,
        response: { 200: DataOf(AlertRulesSchema), ...errors },
      },
    },
    async (request) => {
      const store = await getStore(ctx.db, request.params.id);
      const body = request.body;
      const data = await ctx.db.transaction().execute((trx) =>
        putAlertRules(trx, store.id, ctx.clock.now(), {
          low_stock_threshold: body.low_stock_threshold,
          items: body.items.map((i) => ({
            inventory_item_id: i.inventory_item_id,
            location_id: i.location_id ?? null,
            reorder_point: i.reorder_point ?? null,
            max_stock: i.max_stock ?? null,
          })),
        }),
      );
      return { data };
    },
  );
}
