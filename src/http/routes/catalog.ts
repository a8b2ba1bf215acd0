import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { keysetPage } from "../../db/keyset-paging.ts";
import {
  getProduct,
  getVariant,
  getVisibleLocation,
  presentLevel,
  presentLocation,
  presentProduct,
  presentVariant,
  productsQuery,
  variantsOfProducts,
} from "../../domain/catalog/index.ts";
import { principalOf } from "../plugins/auth.ts";
import {
  commonErrorResponses,
  DataOf,
  Id,
  IdParam,
  Nullable,
  Page,
  PagingQuery,
  Timestamp,
} from "../schemas/common.ts";

// ---- Shapes (contract "Catalog mirror shapes") ----

export const VariantSchema = Type.Object({
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
});

export const ProductOptionSchema = Type.Object({
  name: Type.String(),
  position: Type.Integer(),
  values: Type.Array(Type.String()),
});

export const ProductSchema = Type.Object({
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
});

export const LocationSchema = Type.Object({
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
});

export const InventoryLevelSchema = Type.Object({
  id: Type.Integer(),
  inventory_item_id: Type.Integer(),
  location_id: Type.Integer(),
  available: Type.Integer(),
  on_hand: Type.Integer(),
  committed: Type.Integer(),
  incoming: Type.Integer(),
  platform_updated_at: Nullable(Timestamp),
  updated_at: Timestamp,
});

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
      let query = productsQuery(ctx.db, store.id);
      if (status !== undefined) query = query.where("p.status", "=", status);
      if (vendor !== undefined) query = query.where("p.vendor", "=", vendor);
      const page = await keysetPage(
        query,
        request.query,
        {
          timeColumn: "p.updated_at",
          idColumn: "p.id",
          direction: "asc",
          binding: { list: "products", store: store.id, status, vendor, include },
        },
        ctx.cursorSecret,
        (row) => ({ time: row.updated_at, id: row.id }),
      );
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
            { ...p, variants_count: Number(p.variants_count ?? 0) },
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
        params: IdParam,
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
            product_id: Type.Optional(Id),
            sku: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
            barcode: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Page(VariantSchema), ...commonErrorResponses },
      },
    },
    async (request) => {
      const { store } = principalOf(request);
      const { product_id, sku, barcode } = request.query;
      let query = ctx.db.selectFrom("variants as v").selectAll("v").where("v.store_id", "=", store.id);
      if (product_id !== undefined) query = query.where("v.product_id", "=", product_id);
      if (sku !== undefined) query = query.where("v.sku", "=", sku);
      if (barcode !== undefined) query = query.where("v.barcode", "=", barcode);
      const page = await keysetPage(
        query,
        request.query,
        {
          timeColumn: "v.updated_at",
          idColumn: "v.id",
          direction: "asc",
          binding: { list: "variants", store: store.id, product_id, sku, barcode },
        },
        ctx.cursorSecret,
        (row) => ({ time: row.updated_at, id: row.id }),
      );
      return { ...page, data: page.data.map((v) => presentVariant(v, store.currency)) };
    },
  );

  app.get(
    "/variants/:id",
    {
      config: { scope: "read" },
      schema: {
        tags,
        summary: "One variant",
        params: IdParam,
        response: { 200: DataOf(VariantSchema), ...commonErrorResponses },
      },
    },
    async (request) => {
      const { store } = principalOf(request);
      return { data: presentVariant(await getVariant(ctx.db, store.id, request.params.id), store.currency) };
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
      const query = ctx.db
        .selectFrom("locations as l")
        .selectAll("l")
        .where("l.store_id", "=", store.id)
        .where("l.active", "=", true)
        .where("l.hidden", "=", false);
      const page = await keysetPage(
        query,
        request.query,
        {
          timeColumn: "l.updated_at",
          idColumn: "l.id",
          direction: "asc",
          binding: { list: "locations", store: store.id },
        },
        ctx.cursorSecret,
        (row) => ({ time: row.updated_at, id: row.id }),
      );
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
        params: IdParam,
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
            inventory_item_id: Type.Optional(Id),
            location_id: Type.Optional(Id),
          },
          { additionalProperties: false },
        ),
        response: { 200: Page(InventoryLevelSchema), ...commonErrorResponses },
      },
    },
    async (request) => {
      const { store } = principalOf(request);
      const { inventory_item_id, location_id } = request.query;
      let query = ctx.db
        .selectFrom("inventory_levels as il")
        .selectAll("il")
        .where("il.store_id", "=", store.id)
        // Levels at a location the store hides are not offered either.
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom("locations as hl")
                .select("hl.id")
                .whereRef("hl.store_id", "=", "il.store_id")
                .whereRef("hl.id", "=", "il.location_id")
                .where("hl.hidden", "=", true),
            ),
          ),
        );
      if (inventory_item_id !== undefined)
        query = query.where("il.inventory_item_id", "=", inventory_item_id);
      if (location_id !== undefined) query = query.where("il.location_id", "=", location_id);
      const page = await keysetPage(
        query,
        request.query,
        {
          timeColumn: "il.updated_at",
          idColumn: "il.id",
          direction: "asc",
          binding: { list: "inventory_levels", store: store.id, inventory_item_id, location_id },
        },
        ctx.cursorSecret,
        (row) => ({ time: row.updated_at, id: row.id }),
      );
      return { ...page, data: page.data.map(presentLevel) };
    },
  );
}
