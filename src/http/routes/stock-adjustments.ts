import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import {
  ADJUSTMENT_REASONS,
  ADJUSTMENT_STATUSES,
  type AdjustmentReason,
  applyAdjustment,
  cancelAdjustment,
  createAdjustment,
  getAdjustment,
  listAdjustments,
  type StockAdjustmentStatus,
  updateAdjustment,
} from "../../domain/stock-adjustments/index.ts";
import { JsonText } from "../json-text-reply.ts";
import { principalOf } from "../plugins/auth.ts";
import {
  commonErrorResponses,
  DataOf,
  IdParam,
  Money,
  Named,
  Nullable,
  Page,
  PagingQuery,
  PlatformId,
  RecordSource,
  Timestamp,
} from "../schemas/common.ts";
import { sendPageInSlices } from "../sliced-page.ts";
import { sendWrite } from "../write.ts";

const Quantity = Type.Integer({ minimum: -1_000_000_000, maximum: 1_000_000_000 });
const Text = (maxLength: number) => Type.String({ maxLength });

const Reason = Type.Unsafe<AdjustmentReason>({ type: "string", enum: [...ADJUSTMENT_REASONS] });
const Status = Type.Unsafe<StockAdjustmentStatus>({ type: "string", enum: [...ADJUSTMENT_STATUSES] });

const LineInput = Named(
  "StockAdjustmentLineInput",
  Type.Object(
    {
      variant_id: Type.Optional(Nullable(PlatformId)),
      inventory_item_id: Type.Optional(Nullable(PlatformId)),
      product_title: Type.Optional(Nullable(Text(500))),
      variant_title: Type.Optional(Nullable(Text(500))),
      sku: Type.Optional(Nullable(Text(255))),
      barcode: Type.Optional(Nullable(Text(255))),
      delta: Type.Integer({
        minimum: -1_000_000_000,
        maximum: 1_000_000_000,
        description: "Signed change of the level; never 0.",
      }),
      lot_id: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 2147483647 }))),
      lot_number: Type.Optional(Nullable(Text(255))),
      lot_units: Type.Optional(Nullable(Quantity)),
      expected_before: Type.Optional(
        Nullable(
          Type.Integer({
            minimum: -2147483648,
            maximum: 2147483647,
            description:
              "Beyond the contract: the level this line was counted against. Apply refuses (422 validation_failed, detail code stock_changed) when the level at the location is no longer this number.",
          }),
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

const Lines = Type.Array(LineInput, { minItems: 1, maxItems: 1000 });

const CreateBody = Named(
  "StockAdjustmentInput",
  Type.Object(
    {
      location_id: PlatformId,
      reason: Type.Optional(Reason),
      note: Type.Optional(Nullable(Text(5000))),
      lines: Lines,
    },
    { additionalProperties: false },
  ),
);

const PatchBody = Named(
  "StockAdjustmentUpdate",
  Type.Object(
    {
      location_id: Type.Optional(PlatformId),
      reason: Type.Optional(Reason),
      note: Type.Optional(Nullable(Text(5000))),
      lines: Type.Optional(Lines),
    },
    { additionalProperties: false },
  ),
);

/**
 * apply and cancel take no body: none at all, or `{}`; any field is refused as unknown. (No `type`, so
 * a request without a body passes: Fastify validates an absent body as undefined.)
 */
const NoBody = Type.Unsafe<Record<string, never> | undefined>({
  additionalProperties: false,
  description: "No body, or an empty object.",
});

const SyncStateSchema = Named(
  "PlatformSyncState",
  Type.Object({
    state: Type.Unsafe<"pending" | "synced" | "failed">({
      type: "string",
      enum: ["pending", "synced", "failed"],
    }),
    attempted_at: Nullable(Timestamp),
    error: Nullable(Type.String()),
  }),
);

const StockAdjustmentLine = Named(
  "StockAdjustmentLine",
  Type.Object({
    id: Type.Integer(),
    position: Type.Integer(),
    product_title: Nullable(Type.String()),
    variant_title: Nullable(Type.String()),
    sku: Nullable(Type.String()),
    barcode: Nullable(Type.String()),
    inventory_item_id: Type.Integer(),
    variant_id: Type.Integer(),
    delta: Type.Integer(),
    quantity_before: Nullable(Type.Integer()),
    quantity_after: Nullable(Type.Integer()),
    unit_cost: Money,
    lot_id: Nullable(Type.Integer()),
    lot_number: Nullable(Type.String()),
    lot_units: Nullable(Type.Integer()),
    expected_before: Nullable(Type.Integer()),
  }),
);

export const StockAdjustmentSchema = Named(
  "StockAdjustment",
  Type.Object({
    id: Type.Integer(),
    sequential_id: Type.Integer(),
    number: Type.String(),
    status: Status,
    source: RecordSource,
    reason: Type.String(),
    reason_label: Type.String(),
    note: Nullable(Type.String()),
    location: Type.Object({ id: Type.Integer(), name: Type.String() }),
    stocktake_id: Nullable(Type.Integer()),
    reversal_of_id: Nullable(Type.Integer()),
    lines: Type.Array(StockAdjustmentLine),
    platform_sync: SyncStateSchema,
    applied_at: Nullable(Timestamp),
    cancelled_at: Nullable(Timestamp),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);

const ListQuery = Type.Object(
  {
    ...PagingQuery,
    status: Type.Optional(
      Type.String({ maxLength: 200, description: "Comma-separated: draft, applied, cancelled." }),
    ),
    location_id: Type.Optional(PlatformId),
  },
  { additionalProperties: false },
);

export async function stockAdjustmentRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const one = DataOf(StockAdjustmentSchema);
  const tags = ["stock adjustments"];

  app.get(
    "/stock_adjustments",
    {
      config: { scope: "read", storeTurn: true },
      schema: {
        tags,
        summary: "List stock adjustments, oldest update first",
        querystring: ListQuery,
        response: { 200: Page(StockAdjustmentSchema), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const { store } = principalOf(request);
      const { ctx } = request.server;
      return sendPageInSlices(
        reply,
        await listAdjustments(ctx, ctx.db, store.id, request.query),
        StockAdjustmentSchema,
      );
    },
  );

  app.post(
    "/stock_adjustments",
    {
      config: { scope: "write:inventory" },
      schema: {
        tags,
        summary: "Create a draft stock adjustment",
        body: CreateBody,
        response: { 201: one, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const { store } = principalOf(request);
      const body: Static<typeof CreateBody> = request.body;
      return sendWrite(request, reply, async (trx) => ({
        status: 201,
        body: { data: await createAdjustment(request.server.ctx, trx, store, body) },
      }));
    },
  );

  app.get(
    "/stock_adjustments/:id",
    {
      config: { scope: "read" },
      schema: {
        tags,
        summary: "One stock adjustment",
        params: IdParam,
        response: { 200: one, ...commonErrorResponses },
      },
    },
    async (request) => {
      const { store } = principalOf(request);
      return { data: await getAdjustment(request.server.ctx.db, store.id, request.params.id) };
    },
  );

  app.patch(
    "/stock_adjustments/:id",
    {
      config: { scope: "write:inventory" },
      schema: {
        tags,
        summary: "Change a draft (lines replaces the whole set)",
        params: IdParam,
        body: PatchBody,
        response: { 200: one, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const { store } = principalOf(request);
      return sendWrite(request, reply, async (trx) => ({
        status: 200,
        body: {
          data: await updateAdjustment(request.server.ctx, trx, store, request.params.id, request.body),
        },
      }));
    },
  );

  app.post(
    "/stock_adjustments/:id/apply",
    {
      config: { scope: "write:inventory", idempotency: "required" },
      schema: {
        tags,
        summary: "Apply a draft: moves stock once (Idempotency-Key required)",
        params: IdParam,
        body: NoBody,
        response: { 200: one, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const { store } = principalOf(request);
      return sendWrite(request, reply, async (trx, answer) => {
        // The text the event was written from: the answer, sent and stored, is made of it, and stored
        // by the apply's own statement.
        let body: JsonText | undefined;
        await applyAdjustment(request.server.ctx, trx, store.id, request.params.id, (json) => {
          body = new JsonText(['{"data":', json, "}"]);
          return answer.inStatement(200, body);
        });
        return { status: 200, body: body as JsonText };
      });
    },
  );

  app.post(
    "/stock_adjustments/:id/cancel",
    {
      config: { scope: "write:inventory" },
      schema: {
        tags,
        summary: "Cancel a draft; nothing moves",
        params: IdParam,
        body: NoBody,
        response: { 200: one, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const { store } = principalOf(request);
      return sendWrite(request, reply, async (trx) => ({
        status: 200,
        body: { data: await cancelAdjustment(request.server.ctx, trx, store.id, request.params.id) },
      }));
    },
  );
}
