import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { validationFailed } from "../../domain/errors.ts";
import { actorOf } from "../../domain/purchase-orders/index.ts";
import {
  archiveSupplier,
  createSupplier,
  deleteCatalogItem,
  getSupplier,
  listCatalogRows,
  listSuppliers,
  mergeSuppliers,
  presentCatalogRow,
  presentSupplier,
  putCatalog,
  unarchiveSupplier,
  updateSupplier,
} from "../../domain/suppliers/index.ts";
import { principalOf } from "../plugins/auth.ts";
import {
  commonErrorResponses,
  DataOf,
  DateString,
  Id,
  IdParam,
  Money,
  Nullable,
  Page,
  PagingQuery,
  Timestamp,
} from "../schemas/common.ts";
import { sendWrite } from "../write.ts";

/** Platform ids (items, variants) are 64-bit on the platform: any positive safe integer. */
const PlatformId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const NullableMoneyInput = Type.Unsafe<number | string | null>({
  type: ["number", "string"],
  nullable: true,
  description: "A decimal amount, as a JSON number or a decimal string, or null.",
});
const Text = (maxLength = 255) => Type.Optional(Nullable(Type.String({ maxLength })));
const StringList = Type.Optional(Nullable(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 250 })));
const Email = Type.String({ format: "email", maxLength: 254 });

export const SupplierSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  company_name: Nullable(Type.String()),
  type: Nullable(Type.String()),
  contact_name: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  account_number: Nullable(Type.String()),
  payment_terms: Nullable(Type.String()),
  notes: Nullable(Type.String()),
  bill_to_address: Nullable(Type.String()),
  email: Nullable(Type.String()),
  email_cc: Type.Array(Type.String()),
  currency: Nullable(Type.String()),
  location_account_numbers: Type.Object({}, { additionalProperties: Type.String() }),
  lead_time_days: Nullable(Type.Integer()),
  min_order_value: Nullable(Money),
  free_freight_threshold: Nullable(Money),
  taxable: Type.Boolean(),
  ships_direct: Type.Boolean(),
  auto_restock: Type.Boolean(),
  exclude_from_reorder: Type.Boolean(),
  default_updates_stock: Nullable(Type.Boolean()),
  address: Type.Object({
    line1: Nullable(Type.String()),
    line2: Nullable(Type.String()),
    city: Nullable(Type.String()),
    province: Nullable(Type.String()),
    zip: Nullable(Type.String()),
    country: Nullable(Type.String()),
  }),
  match_vendors: Type.Array(Type.String()),
  match_tags: Type.Array(Type.String()),
  match_exclude_tags: Type.Array(Type.String()),
  dropship_tags: Type.Array(Type.String()),
  archived: Type.Boolean(),
  archived_at: Nullable(Timestamp),
  merged_into_id: Nullable(Type.Integer()),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const supplierInputFields = {
  company_name: Text(),
  type: Text(),
  contact_name: Text(),
  phone: Text(64),
  account_number: Text(),
  payment_terms: Text(),
  notes: Text(10_000),
  bill_to_address: Text(2_000),
  email: Type.Optional(Nullable(Email)),
  email_cc: Type.Optional(Nullable(Type.Array(Email, { maxItems: 50 }))),
  currency: Type.Optional(Nullable(Type.String({ maxLength: 3, description: "ISO 4217 code, e.g. USD" }))),
  location_account_numbers: Type.Optional(
    Nullable(Type.Object({}, { additionalProperties: Type.String({ maxLength: 255 }), maxProperties: 1000 })),
  ),
  lead_time_days: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 3650 }))),
  min_order_value: Type.Optional(NullableMoneyInput),
  free_freight_threshold: Type.Optional(NullableMoneyInput),
  taxable: Type.Optional(Type.Boolean()),
  ships_direct: Type.Optional(Type.Boolean()),
  auto_restock: Type.Optional(Type.Boolean()),
  exclude_from_reorder: Type.Optional(Type.Boolean()),
  default_updates_stock: Type.Optional(Nullable(Type.Boolean())),
  address_line1: Text(),
  address_line2: Text(),
  city: Text(),
  province: Text(),
  zip: Text(32),
  country: Text(),
  match_vendors: StringList,
  match_tags: StringList,
  match_exclude_tags: StringList,
  dropship_tags: StringList,
};

const SupplierCreateInput = Type.Object(
  { name: Type.String({ maxLength: 255 }), ...supplierInputFields },
  { additionalProperties: false },
);
const SupplierPatchInput = Type.Object(
  { name: Type.Optional(Type.String({ maxLength: 255 })), ...supplierInputFields },
  { additionalProperties: false },
);

/**
 * Action routes take no fields. A JSON schema can't accept "no body" (undefined) and refuse fields at
 * once, so the body is checked here: nothing, or an empty object.
 */
function refuseAnyField(body: unknown): void {
  if (body === undefined || body === null) return;
  if (typeof body !== "object" || Array.isArray(body))
    throw validationFailed([{ field: "body", code: "invalid_type", message: "must be an object" }]);
  const fields = Object.keys(body);
  if (fields.length > 0)
    throw validationFailed(
      fields.map((field) => ({ field, code: "unknown_field", message: "is not a known field" })),
    );
}

const PriceTierSet = Type.Object({
  currency: Type.String(),
  effective_from: Nullable(DateString),
  source: Type.String(),
  tiers: Type.Array(Type.Object({ min_qty: Type.Integer(), price: Money })),
});

export const SupplierCatalogRowSchema = Type.Object({
  inventory_item_id: Type.Integer(),
  supplier_sku: Nullable(Type.String()),
  pack_size: Type.Integer(),
  pack_unit: Type.String(),
  min_order_qty: Type.Integer(),
  is_primary: Type.Boolean(),
  source: Type.String(),
  price: Nullable(Money),
  price_currency: Nullable(Type.String()),
  price_list: Type.Object({ effective: Nullable(PriceTierSet), upcoming: Nullable(PriceTierSet) }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const CatalogRowInput = Type.Object(
  {
    inventory_item_id: Type.Optional(PlatformId),
    variant_id: Type.Optional(PlatformId),
    supplier_sku: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
    pack_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    pack_unit: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
    min_order_qty: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000 })),
    is_primary: Type.Optional(Type.Boolean()),
    tiers: Type.Optional(
      Type.Array(
        Type.Object(
          {
            min_qty: Type.Integer({ minimum: 1, maximum: 1_000_000_000 }),
            price: Type.Unsafe<number | string>({
              type: ["number", "string"],
              description: "A decimal price (up to 8 places), as a JSON number or a decimal string.",
            }),
          },
          { additionalProperties: false },
        ),
        { maxItems: 100 },
      ),
    ),
    effective_from: Type.Optional(DateString),
  },
  { additionalProperties: false },
);

const tags = ["suppliers"];

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
          },
          { additionalProperties: false },
        ),
        response: { 200: Page(SupplierSchema), ...commonErrorResponses },
      },
    },
    async (request) => {
      const { store } = principalOf(request);
      const { archived } = request.query;
      const filter = archived === "true" ? "archived" : archived === "all" ? "all" : "active";
      const page = await listSuppliers(ctx, ctx.db, store.id, filter, request.query);
      return { ...page, data: page.data.map(presentSupplier) };
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
        body: Type.Object(
          { target_id: Id, source_ids: Type.Array(Id, { minItems: 1, maxItems: 50 }) },
          { additionalProperties: false },
        ),
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
        return { status: 200, body: { data: presentSupplier(result.survivor), moved: result.moved } };
      });
    },
  );

  app.get(
    "/suppliers/:id",
    {
      config: { scope: "read" },
      schema: {
        tags,
        summary: "One supplier",
        params: IdParam,
        response: { 200: DataOf(SupplierSchema), ...commonErrorResponses },
      },
    },
    async (request) => {
      const { store } = principalOf(request);
      return { data: presentSupplier(await getSupplier(ctx.db, store.id, request.params.id)) };
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
          response: { 200: DataOf(SupplierSchema), ...commonErrorResponses },
        },
      },
      async (request, reply) => {
        const { store } = principalOf(request);
        refuseAnyField(request.body);
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
        querystring: Type.Object(PagingQuery, { additionalProperties: false }),
        response: { 200: Page(SupplierCatalogRowSchema), ...commonErrorResponses },
      },
    },
    async (request) => {
      const { store } = principalOf(request);
      return listCatalogRows(ctx, ctx.db, store, request.params.id, request.query);
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
