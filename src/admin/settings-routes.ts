import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import {
  listExchangeRates,
  listTaxRates,
  replaceExchangeRates,
  replaceTaxRates,
} from "../domain/rates/index.ts";
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

/**
 * Store tax rates and exchange rates (docs/decisions.md, "Stores and the admin API"): PUT replaces the whole
 * set.
 */
export async function settingsAdminRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    "/stores/:id/tax_rates",
    { schema: { tags, params: StoreParams, response: { 200: DataOf(Type.Array(TaxRate)), ...errors } } },
    async (request) => ({ data: await listTaxRates(ctx.db, request.params.id) }),
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
    async (request) => ({ data: await replaceTaxRates(ctx, request.params.id, request.body.rates) }),
  );

  app.get(
    "/stores/:id/exchange_rates",
    { schema: { tags, params: StoreParams, response: { 200: DataOf(Type.Array(ExchangeRate)), ...errors } } },
    async (request) => ({ data: await listExchangeRates(ctx.db, request.params.id) }),
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
    async (request) => ({ data: await replaceExchangeRates(ctx, request.params.id, request.body.rates) }),
  );
}
