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

/**
 * `T | null` for a union type (money: number or decimal string) prints as `nullable` beside `anyOf`
 * without `type`, which Ajv 8 refuses to compile; OpenAPI 3.0 says the same as `nullable` on the
 * first branch, and the printed `{type: object, nullable, enum: [null]}` branch goes.
 */
function nullableUnions(schema: Json): void {
  if (!schema || typeof schema !== "object") return;
  if (Array.isArray(schema)) {
    for (const item of schema) nullableUnions(item);
    return;
  }
  if (schema.nullable === true && schema.type === undefined && Array.isArray(schema.anyOf)) {
    const branches = schema.anyOf.filter(
      (branch: Json) => !(branch.nullable === true && branch.enum?.[0] === null),
    );
    branches[0] = { ...branches[0], nullable: true };
    schema.anyOf = branches;
    delete schema.nullable;
  }
  for (const value of Object.values(schema)) nullableUnions(value);
}

/** Rules the domain checks, given to the document (`documentedRules` in src/http/schemas/common.ts). */
function documentedRules(schema: Json): void {
  if (!schema || typeof schema !== "object") return;
  if (Array.isArray(schema)) {
    for (const item of schema) documentedRules(item);
    return;
  }
  if (schema["x-openapi"]) {
    // Money is a number or a string: a string rule goes on the string branch (Ajv strict wants a type).
    const stringBranch = Array.isArray(schema.anyOf)
      ? schema.anyOf.find((b: Json) => b.type === "string")
      : null;
    Object.assign(stringBranch ?? schema, schema["x-openapi"]);
    delete schema["x-openapi"];
  }
  for (const value of Object.values(schema)) documentedRules(value);
}

export function describeRequests(document: Json): Json {
  for (const [path, item] of Object.entries<Json>(document.paths ?? {})) {
    if (!path.startsWith("/v2/")) continue;
    for (const operation of Object.values<Json>(item)) {
      optionalActionBody(operation);
      nullableUnions(operation.requestBody);
      nullableUnions(operation.parameters);
      documentedRules(operation.requestBody);
    }
  }
  return document;
}
