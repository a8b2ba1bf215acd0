import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance, FastifyRequest } from "fastify";
import {
  actorOf,
  addLines,
  archiveOrder,
  cancelRemaining,
  closeOrder,
  createPurchaseOrder,
  deletePurchaseOrder,
  duplicateOrder,
  linesPieces,
  listHistory,
  listPurchaseOrders,
  listPurchaseOrdersAs,
  markInTransit,
  markOrdered,
  ORDER_SORTS,
  type OrderSort,
  parseStatusFilter,
  presentSummariesWithLinesText,
  readAheadForPatch,
  readPurchaseOrderText,
  reopenOrder,
  smallOrderReadAhead,
  smallPurchaseOrderAnswer,
  unarchiveOrder,
  updatePurchaseOrder,
} from "../../../domain/purchase-orders/index.ts";
import { sendJsonText } from "../../json-text-reply.ts";
import { principalOf, readAheadRows } from "../../plugins/auth.ts";
import { takeStoreTurn } from "../../plugins/store-turns.ts";
import {
  commonErrorResponses,
  DataOf,
  DateString,
  Id,
  IdParam,
  OptionalBody,
  Page,
  PagingQuery,
  PlatformId,
  Timestamp,
} from "../../schemas/common.ts";
import { sendPageInSlices } from "../../sliced-page.ts";
import { sendWrite } from "../../write.ts";
import { orderAnswer, orderText } from "./order-answer.ts";
import {
  AddLinesSchema,
  HistoryRowSchema,
  OrderCreateSchema,
  OrderPatchSchema,
  PurchaseOrderSchema,
  PurchaseOrderSummarySchema,
} from "./schemas.ts";

const tags = ["purchase orders"];
const one = DataOf(PurchaseOrderSchema);
// An order's writes and reads present all its lines (up to 500): a store's run one at a time.
const write = { scope: "write:purchase_orders" as const, storeTurn: true };
const heavyRead = { scope: "read" as const, storeTurn: true };

export const PurchaseOrderListQuery = Type.Object(
  {
    ...PagingQuery,
    q: Type.Optional(
      Type.String({
        maxLength: 100,
        description:
          "Text found, in any case, in the order's number, its reference or the supplier's order number.",
      }),
    ),
    sort: Type.Optional(
      Type.Unsafe<OrderSort>({
        type: "string",
        enum: [...ORDER_SORTS],
        description:
          "updated_at (the default: oldest update first), -updated_at, created_at or -created_at (newest first); ties by id.",
      }),
    ),
    status: Type.Optional(
      Type.String({
        maxLength: 200,
        description: "Comma-separated: draft, ordered, in_transit, partial, received, closed.",
      }),
    ),
    supplier_id: Type.Optional(Id),
    location_id: Type.Optional(PlatformId),
    lines: Type.Optional(
      Type.Boolean({
        description:
          "false: each order's `lines` is empty, not read (a list that shows the orders, not their lines); the page then holds `limit` orders whatever their lines. Default true.",
      }),
    ),
    type: Type.Optional(Type.Unsafe<"purchase" | "return">({ type: "string", enum: ["purchase", "return"] })),
    archived: Type.Optional(
      Type.Unsafe<"true" | "false" | "all">({
        type: "string",
        enum: ["true", "false", "all"],
        description: "true: archived only; all: both; left out (or false): archived orders are left out.",
      }),
    ),
  },
  { additionalProperties: false },
);

function callerOf(request: FastifyRequest) {
  const principal = principalOf(request);
  return { store: principal.store, actor: actorOf(principal) };
}

export async function purchaseOrderRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    "/purchase_orders",
    {
      config: heavyRead,
      schema: {
        tags,
        summary: "List purchase orders, oldest update first unless sorted otherwise",
        querystring: PurchaseOrderListQuery,
        response: { 200: Page(PurchaseOrderSummarySchema), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const { store } = principalOf(request);
      const statuses = parseStatusFilter(request.query.status);
      const filters = { ...request.query, statuses };
      if (request.query.lines !== false) {
        // The database writes each order's lines as JSON text (line-text.ts): rows are spliced, not built.
        const page = await listPurchaseOrdersAs(ctx, ctx.db, store.id, filters, "purchase_orders", (orders) =>
          presentSummariesWithLinesText(ctx.db, store.id, orders),
        );
        return sendPageInSlices(reply, page, PurchaseOrderSummarySchema, (serialize, row) =>
          linesPieces(serialize(row.order), row.linesJson),
        );
      }
      const page = await listPurchaseOrders(ctx, ctx.db, store.id, filters);
      return sendPageInSlices(reply, page, PurchaseOrderSummarySchema);
    },
  );

  app.post(
    "/purchase_orders",
    {
      config: write,
      schema: {
        tags,
        summary: "Create a draft purchase order",
        body: OrderCreateSchema,
        response: { 201: one, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const { store, actor } = callerOf(request);
      return sendWrite(request, reply, async (trx) => ({
        status: 201,
        body: { data: await createPurchaseOrder(ctx, trx, store, actor, request.body) },
      }));
    },
  );

  app.get(
    "/purchase_orders/:id",
    {
      // A small order (most of them) is one statement and as light as a supplier's read; a big one
      // is read the full way in its store's turn.
      // On PostgreSQL the small order's JSON is written in the key lookup's own statement (readAhead).
      config: { scope: "read", storeTurn: "in-handler", readAhead: smallOrderReadAhead },
      schema: {
        tags,
        summary: "One purchase order with lines, charges, receipts and payments",
        params: IdParam,
        response: { 200: one, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const { store } = principalOf(request);
      const { id } = request.params;
      // A small order's answer is the JSON text the database wrote, as kept bytes (one-statement-read.ts).
      const small = await smallPurchaseOrderAnswer(ctx.db, store.id, id, readAheadRows(request, id));
      if (small !== null) return sendJsonText(reply, small);
      await takeStoreTurn(request);
      // The database writes a big order's lines as JSON text (line-text.ts): the loop only splices it in.
      return orderText(reply, await readPurchaseOrderText(ctx.db, store.id, id)).send(reply);
    },
  );

  app.patch(
    "/purchase_orders/:id",
    {
      config: write,
      schema: {
        tags,
        summary: "Change a purchase order (what may change depends on its status)",
        params: IdParam,
        body: OrderPatchSchema,
        response: { 200: one, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const { store, actor } = callerOf(request);
      const { id } = request.params;
      // A header-only PATCH reads the order before its transaction, not inside it (update.ts).
      const ahead = await readAheadForPatch(ctx.db, store.id, id, request.body);
      return sendWrite(request, reply, async (trx) => ({
        status: 200,
        body: orderAnswer(reply, await updatePurchaseOrder(ctx, trx, store, actor, id, request.body, ahead)),
      }));
    },
  );

  app.delete(
    "/purchase_orders/:id",
    {
      config: write,
      schema: {
        tags,
        summary: "Delete a draft",
        params: IdParam,
        response: { 204: Type.Null(), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const { store, actor } = callerOf(request);
      return sendWrite(request, reply, async (trx) => {
        await deletePurchaseOrder(ctx, trx, store, actor, request.params.id);
        return { status: 204, body: undefined };
      });
    },
  );

  app.get(
    "/purchase_orders/:id/history",
    {
      // A history row of a lines PATCH names every line added, removed or updated (up to 500 each).
      config: heavyRead,
      schema: {
        tags,
        summary: "The order's history, newest first",
        params: IdParam,
        querystring: Type.Object(PagingQuery, { additionalProperties: false }),
        response: { 200: Page(HistoryRowSchema), ...commonErrorResponses },
      },
    },
    async (request) => {
      const { store } = principalOf(request);
      return listHistory(ctx, ctx.db, store.id, request.params.id, request.query);
    },
  );

  const action = <B>(
    path: string,
    summary: string,
    body: unknown,
    run: (
      trx: Parameters<Parameters<typeof sendWrite>[2]>[0],
      request: FastifyRequest,
      b: B,
    ) => Promise<unknown>,
    status = 200,
  ) => {
    app.post(
      `/purchase_orders/:id/${path}`,
      {
        config: write,
        schema: {
          tags,
          summary,
          params: IdParam,
          body: body as never,
          response: { [status]: one, ...commonErrorResponses },
        },
      },
      async (request, reply) =>
        sendWrite(request, reply, async (trx) => ({
          status,
          body: { data: await run(trx, request, (request.body ?? {}) as B) },
        })),
    );
  };

  const ids = (request: FastifyRequest) => {
    const { store, actor } = callerOf(request);
    return { store, actor, id: (request.params as { id: number }).id };
  };

  action<{ ordered_at?: string }>(
    "mark_ordered",
    "Mark a draft ordered (pushes incoming stock)",
    OptionalBody({ ordered_at: Type.Optional(Timestamp) }),
    (trx, request, body) => {
      const { store, actor, id } = ids(request);
      return markOrdered(ctx, trx, store, actor, id, body);
    },
  );

  action<{ expected_at?: string; note?: string }>(
    "mark_in_transit",
    "Record that the order is on its way",
    OptionalBody({
      expected_at: Type.Optional(DateString),
      note: Type.Optional(Type.String({ maxLength: 5000 })),
    }),
    (trx, request, body) => {
      const { store, actor, id } = ids(request);
      return markInTransit(ctx, trx, store, actor, id, body);
    },
  );

  action(
    "close",
    "Close the order (retracts outstanding incoming stock)",
    OptionalBody({}),
    (trx, request) => {
      const { store, actor, id } = ids(request);
      return closeOrder(ctx, trx, store, actor, id);
    },
  );

  action("reopen", "Reopen a closed order", OptionalBody({}), (trx, request) => {
    const { store, actor, id } = ids(request);
    return reopenOrder(ctx, trx, store, actor, id);
  });

  action<{ close?: boolean }>(
    "archive",
    "Archive the order (close: true closes an open order first)",
    OptionalBody({ close: Type.Optional(Type.Boolean()) }),
    (trx, request, body) => {
      const { store, actor, id } = ids(request);
      return archiveOrder(ctx, trx, store, actor, id, body);
    },
  );

  action("unarchive", "Unarchive the order", OptionalBody({}), (trx, request) => {
    const { store, actor, id } = ids(request);
    return unarchiveOrder(ctx, trx, store, actor, id);
  });

  action(
    "duplicate",
    "Copy the order into a new draft",
    OptionalBody({}),
    (trx, request) => {
      const { store, actor, id } = ids(request);
      return duplicateOrder(ctx, trx, store, actor, id);
    },
    201,
  );

  app.post(
    "/purchase_orders/:id/lines",
    {
      config: write,
      schema: {
        tags,
        summary: "Add lines to an open order (pushes their incoming stock)",
        params: IdParam,
        body: AddLinesSchema,
        response: { 200: one, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const { store, actor } = callerOf(request);
      return sendWrite(request, reply, async (trx) => ({
        status: 200,
        body: { data: await addLines(ctx, trx, store, actor, request.params.id, request.body.lines) },
      }));
    },
  );

  app.post(
    "/purchase_orders/:id/lines/:line_id/cancel_remaining",
    {
      config: write,
      schema: {
        tags,
        summary: "Cancel a line's unreceived quantity (retracts its incoming stock)",
        params: Type.Object({ id: Id, line_id: Id }),
        body: OptionalBody({}),
        response: { 200: one, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const { store, actor } = callerOf(request);
      return sendWrite(request, reply, async (trx) => ({
        status: 200,
        body: {
          data: await cancelRemaining(ctx, trx, store, actor, request.params.id, request.params.line_id),
        },
      }));
    },
  );
}
