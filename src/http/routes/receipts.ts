import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { type TSchema, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { actorOf } from "../../domain/purchase-orders/index.ts";
import {
  getReceipt,
  listReceipts,
  previewReceiptFor,
  type ReceiptBody,
  recordReceipt,
  voidReceipt,
} from "../../domain/receipts/index.ts";
import { JsonText } from "../json-text-reply.ts";
import { principalOf } from "../plugins/auth.ts";
import {
  commonErrorResponses,
  DataOf,
  DateString,
  documentedRules,
  Id,
  MoneyInput,
  Named,
  Nullable,
  OptionalBody,
  Page,
  PagingOnlyQuery,
  PlatformId,
  RecordSource,
} from "../schemas/common.ts";
import { sendPageInSlices } from "../sliced-page.ts";
import { sendWrite } from "../write.ts";
import {
  LocationRefSchema,
  PurchaseOrderSchema,
  ReceiptSchema,
  SyncStateSchema,
} from "./purchase-orders/schemas.ts";

const tags = ["receipts"];
const MAX_UNITS = 100_000_000;
const Text = (max = 1000) => Type.Optional(Nullable(Type.String({ maxLength: max })));

const RejectedSchema = Type.Object(
  {
    quantity: Type.Integer({ minimum: 1, maximum: MAX_UNITS }),
    reason: Text(500),
  },
  { additionalProperties: false },
);

const ReceiptLineInputSchema = Named(
  "ReceiptLineInput",
  Type.Object(
    {
      line_id: Type.Integer({ minimum: 1 }),
      quantity: Type.Integer({
        minimum: 0,
        maximum: MAX_UNITS,
        description: "Good units received now (surplus included).",
      }),
      rejected: Type.Optional(Type.Array(RejectedSchema, { maxItems: 50 })),
      unit_cost: Type.Optional(MoneyInput),
      bin_location: Text(200),
      lot_number: Text(200),
      lot_expiry: Type.Optional(Nullable(DateString)),
      lot_manufactured: Type.Optional(Nullable(DateString)),
      lot_id: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
    },
    { additionalProperties: false },
  ),
);

const UnorderedInputSchema = Named(
  "ReceiptUnorderedLineInput",
  Type.Object(
    {
      variant_id: Type.Optional(PlatformId),
      inventory_item_id: Type.Optional(PlatformId),
      product_title: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
      sku: Text(200),
      quantity: Type.Integer({ minimum: 1, maximum: MAX_UNITS }),
      unit_cost: Type.Optional(MoneyInput),
      location_id: Type.Optional(Nullable(PlatformId)),
    },
    { additionalProperties: false },
  ),
);

export const ReceiptInputSchema = Named(
  "ReceiptInput",
  Type.Object(
    {
      location_id: Type.Optional(PlatformId),
      received_at: Type.Optional(DateString),
      note: Text(5000),
      invoice_reference: Text(200),
      invoice_total: Type.Optional(Nullable(MoneyInput)),
      invoice_date: Type.Optional(Nullable(DateString)),
      exchange_rate: Type.Optional(
        Type.Number({
          minimum: 0,
          maximum: 1e9,
          description: "Greater than zero (0 is 422 `must_be_positive`).",
          ...documentedRules({ exclusiveMinimum: 0 }),
        }),
      ),
      route_to_destinations: Type.Optional(Type.Boolean()),
      rejected_disposition: Type.Optional(
        Type.Unsafe<"replace" | "remove">({ type: "string", enum: ["replace", "remove"] }),
      ),
      lines: Type.Optional(Type.Array(ReceiptLineInputSchema, { maxItems: 1000 })),
      unordered: Type.Optional(Type.Array(UnorderedInputSchema, { maxItems: 200 })),
    },
    { additionalProperties: false },
  ),
);

const ReceiptAndOrder = Type.Object({ data: ReceiptSchema, purchase_order: PurchaseOrderSchema });

/** Always null in a preview: nothing is written. */
const NullInPreview = <T extends TSchema>(schema: T) => Nullable(schema);

const PreviewLine = Type.Object({
  id: NullInPreview(Type.Integer()),
  line_id: Nullable(Type.Integer()),
  quantity: Type.Integer(),
  surplus_quantity: Type.Integer(),
  rejected_quantity: Type.Integer(),
  unit_cost: Type.String(),
  landed_unit_cost: Type.String(),
  allocated_charge_amount: Type.String(),
  unordered: Type.Boolean(),
  location_id: Type.Integer(),
  outstanding_before: Type.Integer(),
  cancelled_quantity_added: Type.Integer(),
});

const PreviewSchema = Type.Object({
  data: Type.Object({
    id: NullInPreview(Type.Integer()),
    purchase_order_id: Type.Integer(),
    received_at: Type.String(),
    voided_at: NullInPreview(Type.String()),
    source: RecordSource,
    location: LocationRefSchema,
    invoice: Type.Object({
      reference: Nullable(Type.String()),
      date: Nullable(Type.String()),
      total: Nullable(Type.String()),
    }),
    exchange_rate: Type.Number(),
    rejected_disposition: Type.String(),
    note: Nullable(Type.String()),
    lines: Type.Array(PreviewLine),
    platform_sync: Nullable(SyncStateSchema),
    created_at: NullInPreview(Type.String()),
    updated_at: NullInPreview(Type.String()),
  }),
  purchase_order_status_after: Type.String(),
  stock_movements: Type.Array(
    Type.Object({
      inventory_item_id: Type.Integer(),
      location_id: Type.Integer(),
      available_delta: Type.Integer(),
      on_hand_delta: Type.Integer(),
      incoming_delta: Type.Integer(),
      unit_cost: Nullable(Type.String()),
    }),
  ),
});

const OrderParams = Type.Object({ id: Id });
const ReceiptParams = Type.Object({ id: Id, receipt_id: Id });

export async function receiptRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    "/purchase_orders/:id/receipts",
    {
      config: { scope: "read", storeTurn: true },
      schema: {
        tags,
        summary: "The order's receipts, oldest first",
        params: OrderParams,
        querystring: PagingOnlyQuery,
        response: { 200: Page(ReceiptSchema), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const { store } = principalOf(request);
      const page = await listReceipts(ctx.db, ctx.cursorSecret, store.id, request.params.id, request.query);
      return sendPageInSlices(reply, page, ReceiptSchema);
    },
  );

  app.post(
    "/purchase_orders/:id/receipts",
    {
      config: { scope: "write:purchase_orders", idempotency: "required", receiving: true },
      schema: {
        tags,
        summary: "Record a receipt (moves stock; Idempotency-Key required)",
        params: OrderParams,
        body: ReceiptInputSchema,
        response: { 201: ReceiptAndOrder, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      return sendWrite(request, reply, async (trx) => {
        const { json } = await recordReceipt(
          { ctx, trx, store: principal.store, actor: actorOf(principal) },
          request.params.id,
          request.body as ReceiptBody,
        );
        // The texts the event was written from: the answer, sent and stored, is made of them.
        return {
          status: 201,
          body: new JsonText([`{"data":`, json.receipt, `,"purchase_order":`, json.order, "}"]),
        };
      });
    },
  );

  app.post(
    "/purchase_orders/:id/receipts/preview",
    {
      config: { scope: "read" },
      schema: {
        tags,
        summary:
          "What a receipt would book (status after, surplus, allocations, landed costs); writes nothing",
        params: OrderParams,
        body: ReceiptInputSchema,
        response: { 200: PreviewSchema, ...commonErrorResponses },
      },
    },
    async (request) => {
      const { store } = principalOf(request);
      return previewReceiptFor(ctx, store, request.params.id, request.body as ReceiptBody);
    },
  );

  app.get(
    "/purchase_orders/:id/receipts/:receipt_id",
    {
      config: { scope: "read" },
      schema: {
        tags,
        summary: "One receipt",
        params: ReceiptParams,
        response: { 200: DataOf(ReceiptSchema), ...commonErrorResponses },
      },
    },
    async (request) => {
      const { store } = principalOf(request);
      return { data: await getReceipt(ctx.db, store.id, request.params.id, request.params.receipt_id) };
    },
  );

  app.post(
    "/purchase_orders/:id/receipts/:receipt_id/void",
    {
      config: { scope: "write:purchase_orders", receiving: true },
      schema: {
        tags,
        summary: "Void a receipt: its stock is reversed by new movements and the order status re-derived",
        params: ReceiptParams,
        body: OptionalBody({ note: Text(5000) }),
        response: { 200: ReceiptAndOrder, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const body = (request.body ?? {}) as { note?: string | null };
      return sendWrite(request, reply, async (trx) => {
        const { receipt, order } = await voidReceipt(
          { ctx, trx, store: principal.store, actor: actorOf(principal) },
          request.params.id,
          request.params.receipt_id,
          body,
        );
        return { status: 200, body: { data: receipt, purchase_order: order } };
      });
    },
  );
}
