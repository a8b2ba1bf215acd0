import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import {
  getProduct,
  getVariantJson,
  getVisibleLocation,
  listProducts,
  listVariantsJson,
  listVisibleLocations,
  presentLevel,
  presentLocation,
  presentProduct,
  presentVariant,
  variantReadAhead,
  variantsOfProducts,
} from "../../domain/catalog/index.ts";
import { listLevels } from "../../domain/stock/index.ts";
import { sendJsonText } from "../json-text-reply.ts";
import { principalOf, readAheadRows } from "../plugins/auth.ts";
import {
  commonErrorResponses,
  DataOf,
  Named,
  Nullable,
  Page,
  PagingQuery,
  PlatformId,
  PlatformIdParam,
  Timestamp,
} from "../schemas/common.ts";
import { InventoryItemIdList, itemIdsOf } from "../schemas/item-id-list.ts";
import { SkuList } from "../schemas/sku-list.ts";

// ---- Shapes (contract "Catalog mirror shapes") ----

export const VariantSchema = Named(
  "Variant",
  Type.Object({
    id: Type.Integer(),
    product_id: Type.Integer(),
    inventory_item_id: Type.Integer(),
    title: Type.String(),
    product_title: Type.String(),
    sku: Nullable(Type.String()),
    barcode: Nullable(Type.String()),
    position: Type.Integer(),
    price: Type.String(),
    compare_at_price: Nullable(Type.String()),
    unit_cost: Nullable(Type.String()),
    unit_cost_currency: Nullable(Type.String()),
    weight_grams: Type.Integer(),
    inventory_tracked: Type.Boolean(),
    inventory_policy: Type.String(),
    taxable: Type.Boolean(),
    image_url: Nullable(Type.String()),
    platform_updated_at: Nullable(Timestamp),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);

export const ProductOptionSchema = Named(
  "ProductOption",
  Type.Object({
    name: Type.String(),
    position: Type.Integer(),
    values: Type.Array(Type.String()),
  }),
);

export const ProductSchema = Named(
  "Product",
  Type.Object({
    id: Type.Integer(),
    title: Type.String(),
    handle: Nullable(Type.String()),
    vendor: Nullable(Type.String()),
    product_type: Nullable(Type.String()),
    status: Type.Union([Type.Literal("active"), Type.Literal("draft"), Type.Literal("archived")]),
    tags: Type.Array(Type.String()),
    options: Type.Array(ProductOptionSchema),
    image_url: Nullable(Type.String()),
    variants_count: Type.Integer(),
    variants: Nullable(Type.Array(VariantSchema)),
    platform_updated_at: Nullable(Timestamp),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);

export const LocationSchema = Named(
  "Location",
  Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    active: Type.Boolean(),
    fulfillment_service: Type.String(),
    address: Type.Object({
      line1: Nullable(Type.String()),
      line2: Nullable(Type.String()),
      city: Nullable(Type.String()),
      province_code: Nullable(Type.String()),
      zip: Nullable(Type.String()),
      country: Nullable(Type.String()),
      country_code: Nullable(Type.String()),
      phone: Nullable(Type.String()),
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);

export const InventoryLevelSchema = Named(
  "InventoryLevel",
  Type.Object({
    id: Type.Integer(),
    inventory_item_id: Type.Integer(),
    location_id: Type.Integer(),
    available: Type.Integer(),
    on_hand: Type.Integer(),
    committed: Type.Integer(),
    incoming: Type.Integer(),
    platform_updated_at: Nullable(Timestamp),
    updated_at: Timestamp,
  }),
);

const tags = ["catalog"];

/** The read-only catalog mirror (contract "Catalog"): no write route exists on these paths. */
export async function catalogRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    "/products",
    {
      config: { scope: "read" },
      schema: {
        tags,
        summary: "List products (oldest update first)",
        querystring: Type.Object(
          {
            ...PagingQuery,
            status: Type.Optional(
              Type.Union([Type.Literal("active"), Type.Literal("draft"), Type.Literal("archived")]),
            ),
            vendor: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
            include: Type.Optional(Type.Literal("variants")),
          },
          { additionalProperties: false },
        ),
        response: { 200: Page(ProductSchema), ...commonErrorResponses },
      },
    },
    async (request) => {
      const { store } = principalOf(request);
      const { status, vendor, include } = request.query;
      const page = await listProducts(ctx, ctx.db, store.id, { status, vendor, include }, request.query);
      const variants =
        include === "variants"
          ? await variantsOfProducts(
              ctx.db,
              store.id,
              page.data.map((p) => p.id),
            )
          : null;
      return {
        ...page,
        data: page.data.map((p) =>
          presentProduct(
            p,
            variants ? (variants.get(p.id) ?? []).map((v) => presentVariant(v, store.currency)) : null,
          ),
        ),
      };
    },
  );

  app.get(
    "/products/:id",
    {
      config: { scope: "read" },
      schema: {
        tags,
        summary: "One product, its variants embedded",
        params: PlatformIdParam,
        response: { 200: DataOf(ProductSchema), ...commonErrorResponses },
      },
    },
    async (request) => {
      const { store } = principalOf(request);
      const product = await getProduct(ctx.db, store.id, request.params.id);
      const variants = await variantsOfProducts(ctx.db, store.id, [product.id]);
      return {
        data: presentProduct(
          product,
          (variants.get(product.id) ?? []).map((v) => presentVariant(v, store.currency)),
        ),
      };
    },
  );

  app.get(
    "/variants",
    {
      config: { scope: "read" },
      schema: {
        tags,
        summary: "List variants (oldest update first)",
        querystring: Type.Object(
          {
            ...PagingQuery,
            product_id: Type.Optional(PlatformId),
            sku: Type.Optional(SkuList),
            barcode: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
            inventory_item_id: Type.Optional(InventoryItemIdList),
            q: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 200,
                description:
                  "Search: variants having every word typed as the start of a word of their product title, " +
                  "variant title, SKU or barcode, in any case (`blu shirt`, `abc-12`, `0123`); punctuation " +
                  "separates words, and a SKU or barcode also matches typed without it (`abc123`). The order " +
                  "and paging stay those of the list. No letter or digit: 400 `invalid_filter`.",
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Page(VariantSchema), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const { store } = principalOf(request);
      const { product_id, sku, barcode, q } = request.query;
      const inventory_item_ids = itemIdsOf(request.query.inventory_item_id);
      // The page comes from the database as the body's JSON text: nothing to present or serialize.
      const body = await listVariantsJson(
        ctx,
        ctx.db,
        store,
        { product_id, sku, barcode, q, inventory_item_ids },
        request.query,
      );
      return sendJsonText(reply, body);
    },
  );

  app.get(
    "/variants/:id",
    {
      // On PostgreSQL the variant's statement goes to the server with the key lookup.
      config: { scope: "read", readAhead: variantReadAhead },
      schema: {
        tags,
        summary: "One variant",
        params: PlatformIdParam,
        response: { 200: DataOf(VariantSchema), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const { store } = principalOf(request);
      const { id } = request.params;
      const variant = await getVariantJson(ctx.db, store.id, id, readAheadRows(request, id));
      return sendJsonText(reply, `{"data":${variant}}`);
    },
  );

  app.get(
    "/locations",
    {
      config: { scope: "read" },
      schema: {
        tags,
        summary: "Active locations the store has not hidden",
        querystring: Type.Object(PagingQuery, { additionalProperties: false }),
        response: { 200: Page(LocationSchema), ...commonErrorResponses },
      },
    },
    async (request) => {
      const { store } = principalOf(request);
      const page = await listVisibleLocations(ctx, ctx.db, store.id, request.query);
      return { ...page, data: page.data.map(presentLocation) };
    },
  );

  app.get(
    "/locations/:id",
    {
      config: { scope: "read" },
      schema: {
        tags,
        summary: "One location",
        params: PlatformIdParam,
        response: { 200: DataOf(LocationSchema), ...commonErrorResponses },
      },
    },
    async (request) => {
      const { store } = principalOf(request);
      return { data: presentLocation(await getVisibleLocation(ctx.db, store.id, request.params.id)) };
    },
  );

  app.get(
    "/inventory_levels",
    {
      config: { scope: "read" },
      schema: {
        tags,
        summary: "Inventory levels, one row per item per location (oldest update first)",
        querystring: Type.Object(
          {
            ...PagingQuery,
            inventory_item_id: Type.Optional(PlatformId),
            location_id: Type.Optional(PlatformId),
          },
          { additionalProperties: false },
        ),
        response: { 200: Page(InventoryLevelSchema), ...commonErrorResponses },
      },
    },
    async (request) => {
      const { store } = principalOf(request);
      const { inventory_item_id, location_id } = request.query;
      const page = await listLevels(ctx, ctx.db, store.id, { inventory_item_id, location_id }, request.query);
      return { ...page, data: page.data.map(presentLevel) };
    },
  );
}
