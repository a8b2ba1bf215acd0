import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { presentSupplier, setNetworkLink } from "../domain/suppliers/index.ts";
import { SupplierSchema } from "../http/routes/supplier-schemas.ts";
import { DataOf, ErrorBody, Id } from "../http/schemas/common.ts";

/**
 * Admin: supplier network links (docs/decisions.md, "Suppliers and their catalogs"). A linked supplier cannot
 * be merged away (`merge_network_blocked`). The link is not part of the v2 Supplier shape, so it changes
 * neither `updated_at` nor emits an event; the admin answer adds `network_linked` to the Supplier.
 */
export async function supplierAdminRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.post(
    "/stores/:id/suppliers/:supplier_id/network_link",
    {
      schema: {
        tags: ["admin"],
        params: Type.Object({ id: Id, supplier_id: Id }),
        body: Type.Object({ linked: Type.Boolean() }, { additionalProperties: false }),
        response: {
          200: DataOf(Type.Composite([SupplierSchema, Type.Object({ network_linked: Type.Boolean() })])),
          400: ErrorBody,
          401: ErrorBody,
          404: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (request) => {
      const { id, supplier_id } = request.params;
      const row = await setNetworkLink(ctx, id, supplier_id, request.body.linked);
      return { data: { ...presentSupplier(row), network_linked: row.network_linked } };
    },
  );
}
