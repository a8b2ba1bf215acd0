/**
 * Request shapes as the server reads them, where @fastify/swagger's printing of a route schema says
 * otherwise. Runs on a copy of the built document; the routes' schemas are not touched.
 */

// biome-ignore lint/suspicious/noExplicitAny: the document as @fastify/swagger builds it, plain JSON.
type Json = any;

const OPTIONAL_BODY =
  "Optional: send no body, or a JSON object with only these fields (any other field is 422 `validation_failed` with detail `unknown_field`).";

/**
 * An action body without `type` (OptionalBody, NoBody) lets a request without a body through, but
 * @fastify/swagger marks every declared body required: generated clients then force `body: {}`.
 */
function optionalActionBody(operation: Json): void {
  const media = operation.requestBody?.content?.["application/json"];
  if (!media?.schema || media.schema.type !== undefined) return;
  operation.requestBody.required = false;
  operation.requestBody.description = OPTIONAL_BODY;
  const { description: _description, ...schema } = media.schema;
  media.schema = { type: "object", ...schema };
}

/** Rules the domain checks, given to the document (`documentedRules` in src/http/schemas/common.ts). */
function documentedRules(schema: Json): void {
  if (!schema || typeof schema !== "object") return;
  if (Array.isArray(schema)) {
    for (const item of schema) documentedRules(item);
    return;
  }
  const rules = schema["x-openapi"];
  if (rules) {
    // A `pattern` beside `type: ["number", "string"]` applies to the string form only (JSON Schema).
    Object.assign(schema, rules);
    // An exclusive bound replaces the inclusive one the validator keeps (zero refused by the domain).
    if (rules.exclusiveMinimum !== undefined) delete schema.minimum;
    delete schema["x-openapi"];
  }
  for (const value of Object.values(schema)) documentedRules(value);
}

export function describeRequests(document: Json): Json {
  for (const [path, item] of Object.entries<Json>(document.paths ?? {})) {
    if (!path.startsWith("/v2/")) continue;
    for (const operation of Object.values<Json>(item)) {
      optionalActionBody(operation);
      documentedRules(operation.requestBody);
    }
  }
  return document;
}
