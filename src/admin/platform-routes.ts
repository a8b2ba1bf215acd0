import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { sql } from "kysely";
import {
  type ProductRow,
  presentLocation,
  presentProduct,
  presentVariant,
  type VariantRow,
} from "../domain/catalog/index.ts";
import { AppError, DetailCollector, invalidTransition } from "../domain/errors.ts";
import { parseDecimalInput } from "../domain/money.ts";
import { getAlertRules, PUSH_JOB, putAlertRules } from "../domain/stock/index.ts";
import { getStore } from "../domain/stores/index.ts";
import { LocationSchema, ProductSchema } from "../http/routes/catalog.ts";
import { DataOf, ErrorBody, Id, MoneyInput, Nullable, Timestamp } from "../http/schemas/common.ts";
import {
  changeSimInventory,
  createSimProducts,
  getSimFaults,
  listSimLevels,
  type NewSimProduct,
  SimInputError,
  setSimFaults,
} from "../platform/simulated/platform.ts";
import { seedSimulatedCatalog } from "../platform/simulated/seed.ts";
import { requestCatalogSync } from "../platform/sync-jobs.ts";

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

const AlertRulesSchema = Type.Object({
  low_stock_threshold: Nullable(Type.Integer()),
  items: Type.Array(
    Type.Object({
      inventory_item_id: Type.Integer(),
      location_id: Nullable(Type.Integer()),
      reorder_point: Nullable(Type.Integer()),
      max_stock: Nullable(Type.Integer()),
    }),
  ),
});

const AlertRulesInput = Type.Object(
  {
    low_stock_threshold: Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000_000 })),
    items: Type.Array(
      Type.Object(
        {
          inventory_item_id: Id,
          location_id: Type.Optional(Nullable(Id)),
          reorder_point: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000_000 }))),
          max_stock: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000_000 }))),
        },
        { additionalProperties: false },
      ),
      { maxItems: 10_000 },
    ),
  },
  { additionalProperties: false },
);

const SyncStatusSchema = Type.Object({
  counts: Type.Object({ pending: Type.Integer(), synced: Type.Integer(), failed: Type.Integer() }),
  failed: Type.Array(
    Type.Object({
      job_id: Type.Integer(),
      subject_type: Type.String(),
      subject_id: Type.Integer(),
      attempts: Type.Integer(),
      error: Nullable(Type.String()),
      attempted_at: Nullable(Timestamp),
    }),
  ),
  mirror: Type.Object({
    watermark: Nullable(Type.String()),
    synced_at: Nullable(Timestamp),
    last_error: Nullable(Type.String()),
  }),
});

const AdminLocationSchema = Type.Intersect([LocationSchema, Type.Object({ hidden: Type.Boolean() })]);

function simInputToValidation(error: unknown): never {
  if (error instanceof SimInputError)
    throw new AppError("validation_failed", `${error.field}: ${error.message}`, [
      { field: error.field, code: error.code, message: error.message },
    ]);
  throw error;
}

/**
 * Admin controls of the platform loop: the simulated platform (decisions §9 and §11), the push queue
 * status and retry, item alert rules, and hiding a location from the API.
 */
export async function platformAdminRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  async function simulatedStore(id: number) {
    const store = await getStore(ctx.db, id);
    if (store.platform !== "simulated")
      throw invalidTransition(`store ${id} is on platform ${store.platform}, not the simulated one`);
    return store;
  }

  // ---- Simulated platform ----

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
      const ids = created.map((p) => p.id);
      const productRows = await ctx.db
        .selectFrom("sim_products")
        .selectAll()
        .where("id", "in", ids)
        .execute();
      const variantRows = await ctx.db
        .selectFrom("sim_variants")
        .selectAll()
        .where("product_id", "in", ids)
        .orderBy("product_id")
        .orderBy("position")
        .execute();
      const data = ids.map((id) => {
        const p = productRows.find((r) => r.id === id)!;
        const variants = variantRows.filter((v) => v.product_id === id);
        const productRow: ProductRow = {
          ...p,
          platform_updated_at: p.updated_at,
          variants_count: variants.length,
        };
        return presentProduct(
          productRow,
          variants.map((v) => {
            const row: VariantRow = {
              store_id: v.store_id,
              id: v.id,
              product_id: v.product_id,
              inventory_item_id: v.inventory_item_id,
              title: v.title,
              product_title: p.title,
              sku: v.sku,
              barcode: v.barcode,
              position: v.position,
              price: v.price,
              compare_at_price: v.compare_at_price,
              unit_cost: v.unit_cost,
              unit_cost_currency: v.unit_cost_currency,
              weight_grams: v.weight_grams,
              inventory_tracked: v.tracked,
              inventory_policy: v.inventory_policy,
              taxable: v.taxable,
              image_url: v.image_url,
              platform_updated_at: v.updated_at,
              created_at: v.created_at,
              updated_at: v.updated_at,
            };
            return presentVariant(row, store.currency);
          }),
        );
      });
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
                  inventory_item_id: Id,
                  location_id: Id,
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
          { inventory_item_id: Type.Optional(Id), location_id: Type.Optional(Id) },
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

  // ---- Push queue ----

  app.get(
    "/stores/:id/sync",
    { schema: { ...adminTag, params: StoreParams, response: { 200: DataOf(SyncStatusSchema), ...errors } } },
    async (request) => {
      const store = await getStore(ctx.db, request.params.id);
      const counts = { pending: 0, synced: 0, failed: 0 };
      const rows = await ctx.db
        .selectFrom("platform_sync_states")
        .select((eb) => ["state", eb.fn.countAll<number>().as("n")])
        .where("store_id", "=", store.id)
        .groupBy("state")
        .execute();
      for (const r of rows) counts[r.state] = Number(r.n);
      const failedJobs = await ctx.jobs.failedJobs(ctx.db, PUSH_JOB, store.id, 250);
      const mirror = await ctx.db
        .selectFrom("mirror_sync_states")
        .select(["watermark", "synced_at", "last_error"])
        .where("store_id", "=", store.id)
        .executeTakeFirst();
      return {
        data: {
          counts,
          failed: failedJobs.map((j) => {
            const payload = j.payload as { subject_type: string; subject_id: number };
            return {
              job_id: j.id,
              subject_type: payload.subject_type,
              subject_id: Number(payload.subject_id),
              attempts: j.attempts,
              error: j.last_error,
              attempted_at: j.updated_at.toISOString(),
            };
          }),
          mirror: {
            watermark: mirror?.watermark ?? null,
            synced_at: mirror?.synced_at?.toISOString() ?? null,
            last_error: mirror?.last_error ?? null,
          },
        },
      };
    },
  );

  app.post(
    "/stores/:id/sync/:job_id/retry",
    {
      schema: {
        ...adminTag,
        params: Type.Object({ id: Id, job_id: Id }),
        response: {
          200: DataOf(
            Type.Object({
              job_id: Type.Integer(),
              state: Type.String(),
              subject_type: Type.String(),
              subject_id: Type.Integer(),
            }),
          ),
          ...errors,
        },
      },
    },
    async (request) => {
      const store = await getStore(ctx.db, request.params.id);
      const jobId = request.params.job_id;
      return ctx.db.transaction().execute(async (trx) => {
        const job = await ctx.jobs.lockJob(trx, PUSH_JOB, store.id, jobId);
        if (!job) throw new AppError("not_found", "No such platform push in this store.");
        if (job.state !== "failed") throw invalidTransition(`the push is ${job.state}, not failed`);
        await ctx.jobs.retryFailed(trx, job.id, store.id);
        const payload = job.payload as { subject_type: string; subject_id: number };
        await trx
          .updateTable("platform_sync_states")
          .set({ state: "pending", updated_at: ctx.clock.now() })
          .where("store_id", "=", store.id)
          .where("subject_type", "=", payload.subject_type)
          .where("subject_id", "=", Number(payload.subject_id))
          .execute();
        return {
          data: {
            job_id: job.id,
            state: "queued",
            subject_type: payload.subject_type,
            subject_id: Number(payload.subject_id),
          },
        };
      });
    },
  );

  // ---- Alert rules ----

  app.get(
    "/stores/:id/alert_rules",
    { schema: { ...adminTag, params: StoreParams, response: { 200: DataOf(AlertRulesSchema), ...errors } } },
    async (request) => {
      const store = await getStore(ctx.db, request.params.id);
      return { data: await getAlertRules(ctx.db, store.id) };
    },
  );

  app.put(
    "/stores/:id/alert_rules",
    {
      schema: {
        ...adminTag,
        params: StoreParams,
        body: AlertRulesInput,
        response: { 200: DataOf(AlertRulesSchema), ...errors },
      },
    },
    async (request) => {
      const store = await getStore(ctx.db, request.params.id);
      const body = request.body;
      const data = await ctx.db.transaction().execute((trx) =>
        putAlertRules(trx, store.id, ctx.clock.now(), {
          low_stock_threshold: body.low_stock_threshold,
          items: body.items.map((i) => ({
            inventory_item_id: i.inventory_item_id,
            location_id: i.location_id ?? null,
            reorder_point: i.reorder_point ?? null,
            max_stock: i.max_stock ?? null,
          })),
        }),
      );
      return { data };
    },
  );

  // ---- Location visibility (the store's settings) ----

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
      const rows = await ctx.db
        .selectFrom("locations")
        .selectAll()
        .where("store_id", "=", store.id)
        .orderBy("id")
        .execute();
      return { data: rows.map((r) => ({ ...presentLocation(r), hidden: r.hidden })) };
    },
  );

  app.patch(
    "/stores/:id/locations/:location_id",
    {
      schema: {
        ...adminTag,
        params: Type.Object({ id: Id, location_id: Id }),
        body: Type.Object({ hidden: Type.Boolean() }, { additionalProperties: false }),
        response: { 200: DataOf(AdminLocationSchema), ...errors },
      },
    },
    async (request) => {
      const store = await getStore(ctx.db, request.params.id);
      const row = await ctx.db
        .updateTable("locations")
        .set({
          hidden: request.body.hidden,
          updated_at: sql<Date>`case when hidden = ${request.body.hidden} then updated_at else ${ctx.clock.now()}::timestamptz end`,
        })
        .where("store_id", "=", store.id)
        .where("id", "=", request.params.location_id)
        .returningAll()
        .executeTakeFirst();
      if (!row) throw new AppError("not_found", "No such location in this store.");
      return { data: { ...presentLocation(row), hidden: row.hidden } };
    },
  );
}
