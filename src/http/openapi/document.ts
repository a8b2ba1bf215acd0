import type { FastifyDynamicSwaggerOptions } from "@fastify/swagger";
import { extractComponents } from "./components.ts";
import { integratorGuide } from "./guide.ts";
import { idempotencyKeyHeaders, isWrite } from "./headers.ts";
import { nullableEnums } from "./nullable-enums.ts";
import { TAGS } from "./operation.ts";
import { OPERATIONS } from "./operations.ts";
import { describeRequests } from "./request-schemas.ts";
import { describeResponses } from "./responses.ts";
import { describeWebhookEvents } from "./webhook-events.ts";

interface RouteConfig {
  scope?: string;
  idempotency?: "required" | "optional";
}

/** `/v2/purchase_orders/:id/lines/:line_id` as the document prints it: `/v2/purchase_orders/{id}/lines/{line_id}`. */
function documentPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

/** The rules the server enforces from the route's own config, so the text cannot drift from them. */
function enforcedRules(config: RouteConfig): string {
  return config.scope ? `\n\n**Scope:** \`${config.scope}\`.` : "";
}

/**
 * The OpenAPI document's options for @fastify/swagger: the /v2 routes only, each operation named and
 * described from OPERATIONS (the route's schema carries its tag and summary). Only the document changes:
 * the route's own schema, which validates and serializes, is never touched.
 */
export function openapiOptions(publicHostnames: readonly string[]): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Stockroom purchasing and stock control API",
        version: "2",
        description: integratorGuide(),
      },
      servers: [
        ...publicHostnames.map((host) => ({ url: `https://${host}`, description: "This service" })),
        { url: "/", description: "The host serving this document" },
      ],
      tags: TAGS.map((tag) => ({ ...tag })),
      components: {
        securitySchemes: {
          apiKey: {
            type: "http",
            scheme: "bearer",
            bearerFormat: "sr2_ followed by 40 letters and digits",
            description:
              "An API key of the store, `Authorization: Bearer sr2_...`; its scopes decide the writes.",
          },
        },
      },
      security: [{ apiKey: [] }],
    },
    transform: ({ schema, url, route }) => {
      if (!url.startsWith("/v2/") || url === "/v2/openapi.json")
        return { schema: { ...schema, hide: true }, url };
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      const operation = OPERATIONS[`${methods[0]} ${documentPath(url)}`];
      if (!operation) return { schema, url };
      const config = (route.config ?? {}) as RouteConfig;
      return {
        schema: {
          ...schema,
          operationId: operation.operationId,
          description: operation.description + enforcedRules(config),
          // Documentation only: the idempotency plugin reads the header, the route never validates it.
          ...(isWrite(methods[0])
            ? { headers: idempotencyKeyHeaders(config.idempotency === "required") }
            : {}),
        },
        url,
      };
    },
    transformObject: (built) =>
      // A copy: the built document embeds the routes' own schemas, which validate and serialize.
      "openapiObject" in built
        ? describeResponses(
            describeWebhookEvents(
              extractComponents(nullableEnums(describeRequests(structuredClone(built.openapiObject)))),
            ),
          )
        : built.swaggerObject,
  };
}
