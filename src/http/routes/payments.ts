import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Db } from "../../db/database.ts";
import {
  addPayment,
  deletePayment,
  listPayments,
  markPaid,
  markUnpaid,
  type PaymentBody,
  type PaymentsCall,
} from "../../domain/payments/index.ts";
import { actorOf } from "../../domain/purchase-orders/index.ts";
import { principalOf } from "../plugins/auth.ts";
import {
  CURRENCY_PATTERN,
  commonErrorResponses,
  DataOf,
  DateString,
  documentedRules,
  Id,
  MoneyInput,
  Named,
  Nullable,
  OptionalBody,
} from "../schemas/common.ts";
import { sendWrite } from "../write.ts";
import { PaymentSchema, PurchaseOrderSchema } from "./purchase-orders/schemas.ts";

const tags = ["payments"];
const write = { scope: "write:purchase_orders" as const };
const OrderParams = Type.Object({ id: Id });
const PaymentParams = Type.Object({ id: Id, payment_id: Id });
const Method = Type.String({ minLength: 1, maxLength: 100 });
const Text = (max: number) => Type.Optional(Nullable(Type.String({ maxLength: max })));

const PaymentInputSchema = Named(
  "PaymentInput",
  Type.Object(
    {
      amount: MoneyInput,
      paid_on: Type.Optional(DateString),
      method: Type.Optional(Method),
      reference: Text(200),
      note: Text(5000),
      currency: Type.Optional(
        Type.String({
          maxLength: 3,
          ...documentedRules({ pattern: CURRENCY_PATTERN }),
          description: "The order's currency.",
        }),
      ),
    },
    { additionalProperties: false },
  ),
);

function callOf(request: FastifyRequest, trx: Db): PaymentsCall {
  const principal = principalOf(request);
  return { ctx: request.server.ctx, trx, store: principal.store, actor: actorOf(principal) };
}

export async function paymentRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    "/purchase_orders/:id/payments",
    {
      config: { scope: "read" },
      schema: {
        tags,
        summary: "The order's payments, oldest first",
        params: OrderParams,
        response: { 200: DataOf(Type.Array(PaymentSchema)), ...commonErrorResponses },
      },
    },
    async (request) => {
      const { store } = principalOf(request);
      return { data: await listPayments(ctx.db, store.id, request.params.id) };
    },
  );

  app.post(
    "/purchase_orders/:id/payments",
    {
      config: write,
      schema: {
        tags,
        summary: "Record a payment (part payments allowed; a draft takes deposits)",
        params: OrderParams,
        body: PaymentInputSchema,
        response: {
          201: Type.Object({ data: PaymentSchema, purchase_order: PurchaseOrderSchema }),
          ...commonErrorResponses,
        },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, async (trx) => {
        const { payment, order } = await addPayment(
          callOf(request, trx),
          request.params.id,
          request.body as PaymentBody,
        );
        return { status: 201, body: { data: payment, purchase_order: order } };
      }),
  );

  app.delete(
    "/purchase_orders/:id/payments/:payment_id",
    {
      config: write,
      schema: {
        tags,
        summary: "Delete a payment",
        params: PaymentParams,
        response: {
          200: Type.Object({
            data: Type.Object({ id: Type.Integer(), deleted: Type.Boolean() }),
            purchase_order: PurchaseOrderSchema,
          }),
          ...commonErrorResponses,
        },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, async (trx) => {
        const { order } = await deletePayment(
          callOf(request, trx),
          request.params.id,
          request.params.payment_id,
        );
        return {
          status: 200,
          body: { data: { id: request.params.payment_id, deleted: true }, purchase_order: order },
        };
      }),
  );

  app.post(
    "/purchase_orders/:id/mark_paid",
    {
      config: write,
      schema: {
        tags,
        summary: "Record one payment for the balance",
        params: OrderParams,
        body: OptionalBody({ paid_on: Type.Optional(DateString), method: Type.Optional(Method) }),
        response: { 200: DataOf(PurchaseOrderSchema), ...commonErrorResponses },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, async (trx) => ({
        status: 200,
        body: {
          data: await markPaid(
            callOf(request, trx),
            request.params.id,
            (request.body ?? {}) as { paid_on?: string; method?: string },
          ),
        },
      })),
  );

  app.post(
    "/purchase_orders/:id/mark_unpaid",
    {
      config: write,
      schema: {
        tags,
        summary: "Delete every payment of the order",
        params: OrderParams,
        body: OptionalBody({}),
        response: { 200: DataOf(PurchaseOrderSchema), ...commonErrorResponses },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, async (trx) => ({
        status: 200,
        body: { data: await markUnpaid(callOf(request, trx), request.params.id) },
      })),
  );
}
