import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { allLocations, presentLocation, setLocationHidden } from "../domain/catalog/index.ts";
import { getStore } from "../domain/stores/index.ts";
import { LocationSchema } from "../http/routes/catalog.ts";
import { DataOf, ErrorBody, Id, PlatformId } from "../http/schemas/common.ts";

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 422: ErrorBody };
const adminTag = { tags: ["admin"] };
const StoreParams = Type.Object({ id: Id });

const AdminLocationSchema = Type.Intersect([LocationSchema, Type.Object({ hidden: Type.Boolean() })]);

/** The store's locations with their visibility, and hiding one from the API (the store's settings). */
export async function locationAdminRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    "/stores/:id/locations",
    {
      schema: {
        ...adminTag,
        params: StoreParams,
        response: { 200: DataOf(Type.Array(AdminLocationSchema)), ...errors },
      },
    },
    async (request) => {
      const store = await getStore(ctx.db, request.params.id);
      const rows = await allLocations(ctx.db, store.id);
      return { data: rows.map((r) => ({ ...presentLocation(r), hidden: r.hidden })) };
    },
  );

  app.patch(
    "/stores/:id/locations/:location_id",
    {
      schema: {
        ...adminTag,
        params: Type.Object({ id: Id, location_id: PlatformId }),
        body: Type.Object({ hidden: Type.Boolean() }, { additionalProperties: false }),
        response: { 200: DataOf(AdminLocationSchema), ...errors },
      },
    },
    async (request) => {
      const store = await getStore(ctx.db, request.params.id);
      const row = await setLocationHidden(
        ctx.db,
        store.id,
        request.params.location_id,
        request.body.hidden,
        ctx.clock.now(),
      );
      return { data: { ...presentLocation(row), hidden: row.hidden } };
    },
  );
}
