import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { actorOf } from "../../domain/purchase-orders/index.ts";
import {
  archiveSupplier,
  createSupplier,
  deleteCatalogItem,
  getSupplierJson,
  listCatalogRows,
  listSuppliersJson,
  presentCatalogRow,
  presentSupplier,
  putCatalog,
  supplierReadAhead,
  unarchiveSupplier,
  updateSupplier,
} from "../../domain/suppliers/index.ts";
import { mergeSuppliers, previewMergeSuppliers } from "../../use-cases/merge-suppliers.ts";
import { sendJsonText } from "../json-text-reply.ts";
import { principalOf, readAheadRows } from "../plugins/auth.ts";
import {
  commonErrorResponses,
  DataOf,
  Id,
  IdParam,
  OptionalBody,
  Page,
  PagingQuery,
  PlatformId,
} from "../schemas/common.ts";
import { InventoryItemIdList, itemIdsOf } from "../schemas/item-id-list.ts";
import { sendWrite } from "../write.ts";
import {
  CatalogRowInput,
  SupplierCatalogRowSchema,
  SupplierCreateInput,
  SupplierPatchInput,
  SupplierSchema,
} from "./supplier-schemas.ts";

const tags = ["suppliers"];

const MergeBody = Type.Object(
  { target_id: Id, source_ids: Type.Array(Id, { minItems: 1, maxItems: 50 }) },
  { additionalProperties: false },
);

export async function supplierRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    "/suppliers",
    {
      config: { scope: "read" },
      schema: {
        tags,
        summary: "List suppliers, oldest update first",
        querystring: Type.Object(
          {
            ...PagingQuery,
            archived: Type.Optional(
              Type.Unsafe<"true" | "all">({
                type: "string",
                enum: ["true", "all"],
                description: "`true`: archived suppliers only; `all`: both; absent: active only.",
              }),
            ),
            q: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 200,
                description:
                  "Search: suppliers having every word typed as the start of a word of their name, company " +
                  "name, contact name, email or account number, in any case (`acme`, `orders@acme`); an " +
                  "account number also matches typed without its punctuation. The order and paging stay " +
                  "those of the list. No letter or digit: 400 `invalid_filter`.",
              }),
            ),
            name: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 255,
                description:
                  "The suppliers named exactly this, ignoring case and the spaces around it (`acme ltd` " +
                  "finds `Acme Ltd` and not `Acme Ltd North`). Added by this service.",
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Page(SupplierSchema), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const { store } = principalOf(request);
      const { archived } = request.query;
      const filter = archived === "true" ? "archived" : archived === "all" ? "all" : "active";
      // The page comes from the database as the body's JSON text: nothing to present or serialize.
      const body = await listSuppliersJson(ctx, ctx.db, store.id, filter, request.query);
      return sendJsonText(reply, body);
    },
  );

  app.post(
    "/suppliers",
    {
      config: { scope: "write:suppliers" },
      schema: {
        tags,
        summary: "Create a supplier",
        body: SupplierCreateInput,
        response: { 201: DataOf(SupplierSchema), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const { store } = principalOf(request);
      return sendWrite(request, reply, async (trx) => ({
        status: 201,
        body: { data: presentSupplier(await createSupplier(ctx, trx, store.id, request.body)) },
      }));
    },
  );

  app.post(
    "/suppliers/merge",
    {
      config: { scope: "write:suppliers" },
      schema: {
        tags,
        summary: "Merge suppliers into one survivor",
        body: MergeBody,
        response: {
          200: Type.Object({
            data: SupplierSchema,
            moved: Type.Object({
              purchase_orders: Type.Integer(),
              items: Type.Integer(),
              suppliers: Type.Integer(),
            }),
          }),
          ...commonErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const { store } = principalOf(request);
      return sendWrite(request, reply, async (trx) => {
        const result = await mergeSuppliers(ctx, trx, store.id, request.body, actorOf(principalOf(request)));
        const { price_lists: _, ...moved } = result.moved;
        return { status: 200, body: { data: presentSupplier(result.survivor), moved } };
      });
    },
  );

  app.post(
    "/suppliers/merge/preview",
    {
      config: { scope: "read" },
      schema: {
        tags,
        summary: "What a merge would do (the survivor and what moves to it); writes nothing",
        description:
          "Takes the merge's body and answers as the merge would at this moment, with the same refusals; nothing is written and no event is sent. `moved.price_lists` counts the moved catalog items that carry price tiers (in force or upcoming).",
        body: MergeBody,
        response: {
          200: Type.Object({
            data: SupplierSchema,
            moved: Type.Object({
              purchase_orders: Type.Integer(),
              items: Type.Integer(),
              price_lists: Type.Integer(),
              suppliers: Type.Integer(),
            }),
          }),
          ...commonErrorResponses,
        },
      },
    },
    async (request) => {
      const { store } = principalOf(request);
      const result = await previewMergeSuppliers(ctx, store.id, request.body, actorOf(principalOf(request)));
      return { data: presentSupplier(result.survivor), moved: result.moved };
    },
  );

  app.get(
    "/suppliers/:id",
    {
      // On PostgreSQL the supplier's statement goes to the server with the key lookup.
      config: { scope: "read", readAhead: supplierReadAhead },
      schema: {
        tags,
        summary: "One supplier",
        params: IdParam,
        response: { 200: DataOf(SupplierSchema), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const { store } = principalOf(request);
      const { id } = request.params;
      const supplier = await getSupplierJson(ctx.db, store.id, id, readAheadRows(request, id));
      return sendJsonText(reply, `{"data":${supplier}}`);
    },
  );

  app.patch(
    "/suppliers/:id",
    {
      config: { scope: "write:suppliers" },
      schema: {
        tags,
        summary: "Change a supplier (only the fields sent change)",
        params: IdParam,
        body: SupplierPatchInput,
        response: { 200: DataOf(SupplierSchema), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const { store } = principalOf(request);
      return sendWrite(request, reply, async (trx) => ({
        status: 200,
        body: {
          data: presentSupplier(await updateSupplier(ctx, trx, store.id, request.params.id, request.body)),
        },
      }));
    },
  );

  for (const [action, run] of [
    ["archive", archiveSupplier],
    ["unarchive", unarchiveSupplier],
  ] as const) {
    app.post(
      `/suppliers/:id/${action}`,
      {
        config: { scope: "write:suppliers" },
        schema: {
          tags,
          summary: action === "archive" ? "Archive a supplier" : "Unarchive a supplier",
          params: IdParam,
          body: OptionalBody({}),
          response: { 200: DataOf(SupplierSchema), ...commonErrorResponses },
        },
      },
      async (request, reply) => {
        const { store } = principalOf(request);
        return sendWrite(request, reply, async (trx) => ({
          status: 200,
          body: { data: presentSupplier(await run(ctx, trx, store.id, request.params.id)) },
        }));
      },
    );
  }

  app.get(
    "/suppliers/:id/catalog",
    {
      config: { scope: "read" },
      schema: {
        tags,
        summary: "A supplier's catalog rows, oldest update first",
        params: IdParam,
        querystring: Type.Object(
          { ...PagingQuery, inventory_item_id: Type.Optional(InventoryItemIdList) },
          { additionalProperties: false },
        ),
        response: { 200: Page(SupplierCatalogRowSchema), ...commonErrorResponses },
      },
    },
    async (request) => {
      const { store } = principalOf(request);
      const { inventory_item_id, ...paging } = request.query;
      return listCatalogRows(ctx, ctx.db, store, request.params.id, paging, itemIdsOf(inventory_item_id));
    },
  );

  app.put(
    "/suppliers/:id/catalog",
    {
      config: { scope: "write:suppliers" },
      schema: {
        tags,
        summary: "Write catalog rows (fields left out are left alone)",
        params: IdParam,
        body: Type.Object(
          { rows: Type.Array(CatalogRowInput, { maxItems: 250 }) },
          { additionalProperties: false },
        ),
        response: { 200: DataOf(Type.Array(SupplierCatalogRowSchema)), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const { store } = principalOf(request);
      return sendWrite(request, reply, async (trx) => {
        const { rows, today } = await putCatalog(ctx, trx, store, request.params.id, request.body.rows);
        return { status: 200, body: { data: rows.map((row) => presentCatalogRow(row, today)) } };
      });
    },
  );

  app.delete(
    "/suppliers/:id/catalog/:inventory_item_id",
    {
      config: { scope: "write:suppliers" },
      schema: {
        tags,
        summary: "Remove an item from a supplier's catalog, with its prices",
        params: Type.Object({ id: Id, inventory_item_id: PlatformId }),
        response: {
          200: DataOf(Type.Object({ inventory_item_id: Type.Integer(), deleted: Type.Boolean() })),
          ...commonErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const { store } = principalOf(request);
      const { id, inventory_item_id } = request.params;
      return sendWrite(request, reply, async (trx) => {
        await deleteCatalogItem(trx, store.id, id, inventory_item_id);
        return { status: 200, body: { data: { inventory_item_id, deleted: true } } };
      });
    },
  );
}
