/**
 * Named shapes (`Named` in src/http/schemas/common.ts) moved to `components.schemas` and referenced by
 * `$ref`, so a generated client gets one `Supplier` type instead of a copy per operation, and the error
 * envelope is printed once. Runs on a copy of the built document; the routes' schemas are not touched.
 */
import { isDeepStrictEqual } from "node:util";
import { COMPONENT_MARK } from "../schemas/common.ts";

// biome-ignore lint/suspicious/noExplicitAny: the document as @fastify/swagger builds it, plain JSON.
type Json = any;

export const SCHEMA_REF_PREFIX = "#/components/schemas/";

/** A field's own description beside a named shape stays beside the reference (OpenAPI 3.1 allows it). */
const WRAPPER_KEYWORDS = ["description"] as const;

/** `{type: ["object", "null"], ...}` (a nullable use, as @fastify/swagger prints 3.1) as the plain shape. */
function withoutNull(schema: Json): { shape: Json; nullable: boolean } {
  if (!Array.isArray(schema.type) || !schema.type.includes("null")) return { shape: schema, nullable: false };
  const types = schema.type.filter((type: string) => type !== "null");
  return { shape: { ...schema, type: types.length === 1 ? types[0] : types }, nullable: true };
}

function reference(name: string, nullable: boolean, wrapper: Record<string, unknown>): Json {
  const ref = { $ref: `${SCHEMA_REF_PREFIX}${name}` };
  return nullable ? { anyOf: [ref, { type: "null" }], ...wrapper } : { ...ref, ...wrapper };
}

/** Replaces every marked shape under `node` by a reference, collecting the shapes into `schemas`. */
function extract(node: Json, schemas: Record<string, Json>): Json {
  if (Array.isArray(node)) return node.map((item) => extract(item, schemas));
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = extract(value, schemas);
  const name = out[COMPONENT_MARK];
  if (typeof name !== "string") return out;
  delete out[COMPONENT_MARK];
  const { shape, nullable } = withoutNull(out);
  const known = schemas[name];
  const wrapper: Record<string, unknown> = {};
  if (known)
    for (const key of WRAPPER_KEYWORDS)
      if (key in shape && !isDeepStrictEqual(shape[key], known[key])) {
        wrapper[key] = shape[key];
        delete shape[key];
      }
  if (!known) schemas[name] = shape;
  else if (!isDeepStrictEqual(known, shape))
    // Two shapes under one name would make the document lie about one of them: refuse to build it.
    throw new Error(`components.schemas.${name}: two different shapes carry this name`);
  return reference(name, nullable, wrapper);
}

export function extractComponents(document: Json): Json {
  const schemas: Record<string, Json> = { ...document.components?.schemas };
  document.paths = extract(document.paths ?? {}, schemas);
  document.components = {
    ...document.components,
    schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
  };
  return document;
}
