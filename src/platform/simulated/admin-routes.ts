import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { presentProduct, presentVariant } from "../../domain/catalog/index.ts";
import { AppError, DetailCollector, invalidTransition } from "../../domain/errors.ts";
import { parseDecimalInput } from "../../domain/money.ts";
import { getStore } from "../../domain/stores/index.ts";
import { ProductSchema } from "../../http/routes/catalog.ts";
import { DataOf, ErrorBody, Id, MoneyInput, Nullable, PlatformId } from "../../http/schemas/common.ts";
import { requestCatalogSync } from "../sync-request.ts";
import { asMirrorProduct, asMirrorVariant } from "./as-mirror.ts";
import { createSimProducts, type NewSimProduct, readSimProducts } from "./catalog.ts";
import { getSimFaults, setSimFaults } from "./faults.ts";
import { changeSimInventory, listSimLevels, SimInputError } from "./inventory.ts";
import { seedSimulatedCatalog } from "./seed.ts";

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 422: ErrorBody };
const adminTag = { tags: ["admin"] };
const StoreParams = Type.Object({ id: Id });

const SimLevelSchema = Type.Object({
  inventory_item_id: Type.Integer(),
  location_id: Type.Integer(),
  available: Type.Integer(),
  on_hand: Type.Integer(),
  committed: Type.Integer(),
  incoming: Type.Integer(),
  unit_cost: Nullable(Type.String()),
});

const FaultsSchema = Type.Object({
  mode: Type.Union([Type.Literal("ok"), Type.Literal("down"), Type.Literal("reject")]),
  remaining: Nullable(Type.Integer()),
});

function simInputToValidation(error: unknown): never {
  if (error instanceof SimInputError)
    throw new AppError("validation_failed", `${error.field}: ${error.message}`, [
      { field: error.field, code: error.code, message: error.message },
    ]);
  throw error;
}

/**
 * The simulated platform's admin controls: create products, generate a large
 * catalog, change and read its inventory (as sales and recounts would), arm faults. Every change asks
 * for a mirror sync, as a real platform's change notification would.
 */
export async function simulatorAdminRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  async function simulatedStore(id: number) {
    const store = await getStore(ctx.db, id);
    if (store.platform !== "simulated")
      throw invalidTransition(`store ${id} is on platform ${store.platform}, not the simulated one`);
    return store;
  }

  app.post(
    "/stores/:id/platform/products",
    {
      schema: {
        ...adminTag,
        params: StoreParams,
        body: Type.Object(
          {
            products: Type.Array(
              Type.Object(
                {
                  title: Type.String({ minLength: 1, maxLength: 255 }),
                  vendor: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
                  product_type: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
                  status: Type.Optional(
                    Type.Union([Type.Literal("active"), Type.Literal("draft"), Type.Literal("archived")]),
                  ),
                  tags: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 250 })),
                  variants: Type.Array(
                    Type.Object(
                      {
                        title: Type.String({ minLength: 1, maxLength: 255 }),
                        sku: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
                        barcode: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
                        price: MoneyInput,
                        unit_cost: Type.Optional(Nullable(MoneyInput)),
                        weight_grams: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000 })),
                        inventory_tracked: Type.Optional(Type.Boolean()),
                      },
                      { additionalProperties: false },
                    ),
                    { minItems: 1, maxItems: 100 },
                  ),
                },
                { additionalProperties: false },
              ),
              { minItems: 1, maxItems: 250 },
            ),
          },
          { additionalProperties: false },
        ),
        response: { 201: DataOf(Type.Array(ProductSchema)), ...errors },
      },
    },
    async (request, reply) => {
      const store = await simulatedStore(request.params.id);
      const problems = new DetailCollector();
      const products: NewSimProduct[] = request.body.products.map((p, pi) => ({
        title: p.title,
        vendor: p.vendor ?? null,
        productType: p.product_type ?? null,
        status: p.status ?? "active",
        tags: p.tags ?? [],
        options: [{ name: "Title", position: 1, values: p.variants.map((v) => v.title) }],
        variants: p.variants.map((v, vi) => {
          const price = parseDecimalInput(v.price);
          if (!price.ok) problems.add(`products.${pi}.variants.${vi}.price`, price.code, price.message);
          let unitCost: string | null = null;
          if (v.unit_cost !== undefined && v.unit_cost !== null) {
            const cost = parseDecimalInput(v.unit_cost);
            if (!cost.ok) problems.add(`products.${pi}.variants.${vi}.unit_cost`, cost.code, cost.message);
            else unitCost = cost.value.toString();
          }
          return {
            title: v.title,
            sku: v.sku ?? null,
            barcode: v.barcode ?? null,
            price: price.ok ? price.value.toString() : "0",
            unitCost,
            weightGrams: v.weight_grams ?? 0,
            tracked: v.inventory_tracked ?? true,
          };
        }),
      }));
      problems.throwIfAny();
      const created = await ctx.db.transaction().execute(async (trx) => {
        const made = await createSimProducts(trx, ctx.clock, store.id, store.currency, products);
        await requestCatalogSync(ctx, trx, store.id);
        return made;
      });
      const data = (
        await readSimProducts(
          ctx.db,
          created.map((p) => p.id),
        )
      ).map(({ product, variants }) =>
        presentProduct(
          asMirrorProduct(product, variants.length),
          variants.map((v) => presentVariant(asMirrorVariant(v, product.title), store.currency)),
        ),
      );
      return reply.code(201).send({ data });
    },
  );

  // A large synthetic catalog (CLI, benchmarks); the mirror imports it through the sync.
  app.post(
    "/stores/:id/platform/catalog/generate",
    {
      schema: {
        ...adminTag,
        params: StoreParams,
        body: Type.Object(
          {
            products: Type.Integer({ minimum: 1, maximum: 20_000 }),
            variants_per_product: Type.Integer({ minimum: 1, maximum: 50 }),
          },
          { additionalProperties: false },
        ),
        response: {
          201: DataOf(Type.Object({ products: Type.Integer(), variants: Type.Integer() })),
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const store = await simulatedStore(request.params.id);
      const made = await seedSimulatedCatalog(ctx, store.id, {
        products: request.body.products,
        variantsPerProduct: request.body.variants_per_product,
      });
      await requestCatalogSync(ctx, ctx.db, store.id);
      return reply.code(201).send({ data: made });
    },
  );

  app.post(
    "/stores/:id/platform/inventory",
    {
      schema: {
        ...adminTag,
        params: StoreParams,
        body: Type.Object(
          {
            changes: Type.Array(
              Type.Object(
                {
                  inventory_item_id: PlatformId,
                  location_id: PlatformId,
                  name: Type.Optional(
                    Type.Union([
                      Type.Literal("available"),
                      Type.Literal("on_hand"),
                      Type.Literal("incoming"),
                    ]),
                  ),
                  set: Type.Optional(Type.Integer({ minimum: -1_000_000_000, maximum: 1_000_000_000 })),
                  adjust: Type.Optional(Type.Integer({ minimum: -1_000_000_000, maximum: 1_000_000_000 })),
                },
                { additionalProperties: false },
              ),
              { minItems: 1, maxItems: 1000 },
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: DataOf(Type.Array(SimLevelSchema)), ...errors },
      },
    },
    async (request) => {
      const store = await simulatedStore(request.params.id);
      const data = await ctx.db
        .transaction()
        .execute(async (trx) => {
          const levels = await changeSimInventory(trx, ctx.clock, store.id, request.body.changes);
          // The platform's change notification: the mirror pulls the change right away.
          await requestCatalogSync(ctx, trx, store.id);
          return levels;
        })
        .catch(simInputToValidation);
      return { data };
    },
  );

  app.get(
    "/stores/:id/platform/inventory",
    {
      schema: {
        ...adminTag,
        params: StoreParams,
        querystring: Type.Object(
          { inventory_item_id: Type.Optional(PlatformId), location_id: Type.Optional(PlatformId) },
          { additionalProperties: false },
        ),
        response: { 200: DataOf(Type.Array(SimLevelSchema)), ...errors },
      },
    },
    async (request) => {
      const store = await simulatedStore(request.params.id);
      return { data: await listSimLevels(ctx.db, store.id, request.query) };
    },
  );

  app.post(
    "/stores/:id/platform/faults",
    {
      schema: {
        ...adminTag,
        params: StoreParams,
        body: Type.Object(
          {
            mode: Type.Union([Type.Literal("ok"), Type.Literal("down"), Type.Literal("reject")]),
            count: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1_000_000 }))),
          },
          { additionalProperties: false },
        ),
        response: { 200: DataOf(FaultsSchema), ...errors },
      },
    },
    async (request) => {
      const store = await simulatedStore(request.params.id);
      return {
        data: await setSimFaults(ctx.db, store.id, request.body.mode, request.body.count ?? null),
      };
    },
  );

  app.get(
    "/stores/:id/platform/faults",
    { schema: { ...adminTag, params: StoreParams, response: { 200: DataOf(FaultsSchema), ...errors } } },
    async (request) => {
      const store = await simulatedStore(request.params.id);
      return { data: await getSimFaults(ctx.db, store.id) };
    },
  );
}
