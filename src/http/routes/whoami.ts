import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { SCOPES } from "../../domain/scopes.ts";
import { principalOf } from "../plugins/auth.ts";
import { commonErrorResponses, Nullable, OneOf, Timestamp } from "../schemas/common.ts";

const Whoami = Type.Object({
  shop: Type.Object({
    id: Type.Integer(),
    domain: Type.String(),
    name: Type.String(),
    currency: Type.String(),
    timezone: Type.String(),
  }),
  key: Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    prefix: Type.String(),
    scopes: Type.Array(OneOf(SCOPES)),
    expires_at: Nullable(Timestamp),
  }),
  api_version: Type.String(),
});

export async function whoamiRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    "/whoami",
    {
      config: { scope: "read" },
      schema: {
        tags: ["account"],
        summary: "The store and key behind this request",
        response: { 200: Whoami, ...commonErrorResponses },
      },
    },
    async (request) => {
      const { store, key } = principalOf(request);
      return {
        shop: {
          id: store.id,
          domain: store.domain,
          name: store.name,
          currency: store.currency,
          timezone: store.timezone,
        },
        key: {
          id: key.id,
          name: key.name,
          prefix: key.prefix,
          scopes: key.scopes,
          expires_at: key.expires_at?.toISOString() ?? null,
        },
        api_version: "2",
      };
    },
  );
}
