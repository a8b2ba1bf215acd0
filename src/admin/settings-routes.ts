import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { DetailCollector } from "../domain/errors.ts";
import { isKnownCurrency, parseDecimalInput } from "../domain/money.ts";
import { getStore } from "../domain/stores/index.ts";
import { localDate } from "../domain/suppliers/pricing.ts";
import { DataOf, DateString, ErrorBody, Id, MoneyInput } from "../http/schemas/common.ts";

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 422: ErrorBody };
const tags = ["admin"];
const StoreParams = Type.Object({ id: Id });

const TaxRate = Type.Object({ id: Type.Integer(), name: Type.String(), rate_percent: Type.Number() });
const ExchangeRate = Type.Object({
  currency: Type.String(),
  rate_to_base: Type.Number({ description: "1 unit of currency = rate_to_base units of the store currency" }),
  date: DateString,
});

/** Store tax rates and exchange rates (decisions §2 and §11): PUT replaces the whole set. */
export async function settingsAdminRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  const taxRates = async (storeId: number) =>
    (
      await ctx.db
        .selectFrom("tax_rates")
        .select(["id", "name", "rate_percent"])
        .where("store_id", "=", storeId)
        .orderBy("id")
        .execute()
    ).map((r) => ({ id: r.id, name: r.name, rate_percent: Number(r.rate_percent) }));

  const exchangeRates = async (storeId: number) =>
    (
      await ctx.db
        .selectFrom("exchange_rates")
        .select(["currency", "rate_to_base", "date"])
        .where("store_id", "=", storeId)
        .orderBy("currency")
        .execute()
    ).map((r) => ({ currency: r.currency, rate_to_base: Number(r.rate_to_base), date: r.date }));

  app.get(
    "/stores/:id/tax_rates",
    { schema: { tags, params: StoreParams, response: { 200: DataOf(Type.Array(TaxRate)), ...errors } } },
    async (request) => {
      await getStore(ctx.db, request.params.id);
      return { data: await taxRates(request.params.id) };
    },
  );

  app.put(
    "/stores/:id/tax_rates",
    {
      schema: {
        tags,
        params: StoreParams,
        body: Type.Object(
          {
            rates: Type.Array(
              Type.Object(
                {
                  id: Type.Optional(Id),
                  name: Type.String({ minLength: 1, maxLength: 100 }),
                  rate_percent: MoneyInput,
                },
                { additionalProperties: false },
              ),
              { maxItems: 100 },
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: DataOf(Type.Array(TaxRate)), ...errors },
      },
    },
    async (request) => {
      const storeId = request.params.id;
      await getStore(ctx.db, storeId);
      const now = ctx.clock.now();
      await ctx.db.transaction().execute(async (trx) => {
        const existing = new Set(
          (
            await trx
              .selectFrom("tax_rates")
              .select("id")
              .where("store_id", "=", storeId)
              .forUpdate()
              .execute()
          ).map((r) => r.id),
        );
        const problems = new DetailCollector();
        const seen = new Set<number>();
        const rows = request.body.rates.map((rate, i) => {
          if (rate.id !== undefined) {
            if (!existing.has(rate.id))
              problems.add(`rates.${i}.id`, "not_found", "is not a tax rate of this store");
            else if (seen.has(rate.id)) problems.add(`rates.${i}.id`, "duplicate", "is named twice");
            seen.add(rate.id);
          }
          const parsed = parseDecimalInput(rate.rate_percent, { maxPlaces: 4 });
          if (!parsed.ok) problems.add(`rates.${i}.rate_percent`, parsed.code, parsed.message);
          else if (parsed.value.gt(100))
            problems.add(`rates.${i}.rate_percent`, "out_of_range", "must be at most 100");
          return { id: rate.id, name: rate.name, rate_percent: parsed.ok ? parsed.value.toString() : "0" };
        });
        problems.throwIfAny();
        const removed = [...existing].filter((id) => !seen.has(id));
        if (removed.length > 0)
          await trx
            .deleteFrom("tax_rates")
            .where("store_id", "=", storeId)
            .where("id", "in", removed)
            .execute();
        for (const row of rows.filter((r) => r.id !== undefined)) {
          await trx
            .updateTable("tax_rates")
            .set({ name: row.name, rate_percent: row.rate_percent, updated_at: now })
            .where("store_id", "=", storeId)
            .where("id", "=", row.id as number)
            .execute();
        }
        const fresh = rows.filter((r) => r.id === undefined);
        if (fresh.length > 0)
          await trx
            .insertInto("tax_rates")
            .values(
              fresh.map((r) => ({
                store_id: storeId,
                name: r.name,
                rate_percent: r.rate_percent,
                created_at: now,
                updated_at: now,
              })),
            )
            .execute();
      });
      return { data: await taxRates(storeId) };
    },
  );

  app.get(
    "/stores/:id/exchange_rates",
    { schema: { tags, params: StoreParams, response: { 200: DataOf(Type.Array(ExchangeRate)), ...errors } } },
    async (request) => {
      await getStore(ctx.db, request.params.id);
      return { data: await exchangeRates(request.params.id) };
    },
  );

  app.put(
    "/stores/:id/exchange_rates",
    {
      schema: {
        tags,
        params: StoreParams,
        body: Type.Object(
          {
            rates: Type.Array(
              Type.Object(
                {
                  currency: Type.String({ minLength: 3, maxLength: 3 }),
                  rate_to_base: MoneyInput,
                  date: Type.Optional(DateString),
                },
                { additionalProperties: false },
              ),
              { maxItems: 300 },
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: DataOf(Type.Array(ExchangeRate)), ...errors },
      },
    },
    async (request) => {
      const storeId = request.params.id;
      const store = await getStore(ctx.db, storeId);
      const today = localDate(ctx.clock.now(), store.timezone);
      const problems = new DetailCollector();
      const seen = new Set<string>();
      const rows = request.body.rates.map((rate, i) => {
        if (!isKnownCurrency(rate.currency))
          problems.add(`rates.${i}.currency`, "invalid_value", "is not a known ISO 4217 currency code");
        else if (rate.currency === store.currency)
          problems.add(
            `rates.${i}.currency`,
            "invalid_value",
            "is the store currency (its rate is always 1)",
          );
        else if (seen.has(rate.currency)) problems.add(`rates.${i}.currency`, "duplicate", "is listed twice");
        seen.add(rate.currency);
        const parsed = parseDecimalInput(rate.rate_to_base, { maxPlaces: 12, allowZero: false });
        if (!parsed.ok) problems.add(`rates.${i}.rate_to_base`, parsed.code, parsed.message);
        return {
          store_id: storeId,
          currency: rate.currency,
          rate_to_base: parsed.ok ? parsed.value.toString() : "1",
          date: rate.date ?? today,
        };
      });
      problems.throwIfAny();
      await ctx.db.transaction().execute(async (trx) => {
        await trx.deleteFrom("exchange_rates").where("store_id", "=", storeId).execute();
        if (rows.length > 0) await trx.insertInto("exchange_rates").values(rows).execute();
      });
      return { data: await exchangeRates(storeId) };
    },
  );
}
