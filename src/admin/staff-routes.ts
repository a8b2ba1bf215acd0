import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { inviteStaff, listStaff, resendInvitation, STAFF_ROLES, updateStaff } from "../domain/staff/index.ts";
import { getStore } from "../domain/stores/index.ts";
import { DataOf, ErrorBody, Id, Nullable, Timestamp } from "../http/schemas/common.ts";

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ErrorBody };
const tags = ["admin"];

const Staff = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  name: Type.String(),
  role: Type.String({ enum: [...STAFF_ROLES] }),
  invited_at: Timestamp,
  joined_at: Nullable(Timestamp),
  last_sign_in_at: Nullable(Timestamp),
  disabled_at: Nullable(Timestamp),
});
const StoreParams = Type.Object({ id: Id });
const StaffParams = Type.Object({ id: Id, staff_id: Id });

/**
 * A store's staff (docs/decisions.md §13): list, add (the invitation goes out by mail), PATCH role or
 * disabled, send an invitation again. The console's staff page calls these as the store's owner.
 */
export async function staffAdminRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    "/stores/:id/staff",
    { schema: { tags, params: StoreParams, response: { 200: DataOf(Type.Array(Staff)), ...errors } } },
    async (request) => {
      await getStore(ctx.db, request.params.id);
      return { data: await listStaff(ctx.db, request.params.id) };
    },
  );

  app.post(
    "/stores/:id/staff",
    {
      schema: {
        tags,
        params: StoreParams,
        body: Type.Object(
          {
            email: Type.String({ maxLength: 254 }),
            name: Type.Optional(Type.String({ maxLength: 200 })),
            role: Type.String({ maxLength: 40 }),
          },
          { additionalProperties: false },
        ),
        response: { 201: DataOf(Staff), ...errors },
      },
    },
    async (request, reply) => {
      await getStore(ctx.db, request.params.id);
      const data = await ctx.db
        .transaction()
        .execute((trx) => inviteStaff(ctx, trx, request.params.id, request.body));
      return reply.code(201).send({ data });
    },
  );

  app.patch(
    "/stores/:id/staff/:staff_id",
    {
      schema: {
        tags,
        params: StaffParams,
        body: Type.Object(
          { role: Type.Optional(Type.String({ maxLength: 40 })), disabled: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
        response: { 200: DataOf(Staff), ...errors },
      },
    },
    async (request) => ({
      data: await ctx.db
        .transaction()
        .execute((trx) => updateStaff(ctx, trx, request.params.id, request.params.staff_id, request.body)),
    }),
  );

  app.post(
    "/stores/:id/staff/:staff_id/invitation",
    { schema: { tags, params: StaffParams, response: { 200: DataOf(Staff), ...errors } } },
    async (request) => ({
      data: await ctx.db
        .transaction()
        .execute((trx) => resendInvitation(ctx, trx, request.params.id, request.params.staff_id)),
    }),
  );
}
