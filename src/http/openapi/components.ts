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

/**
 * The keywords a use may add around a named shape (`Nullable(Supplier)`, a field's own description):
 * they stay beside the reference, everything else must be the shape itself.
 */
const WRAPPER_KEYWORDS = new Set(["nullable", "description"]);

function reference(name: string, wrapper: Record<string, unknown>): Json {
  const ref = { $ref: `${SCHEMA_REF_PREFIX}${name}` };
  // OpenAPI 3.0 ignores siblings of `$ref`: a nullable or described use wraps the reference.
  return Object.keys(wrapper).length === 0 ? ref : { allOf: [ref], ...wrapper };
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
  const known = schemas[name];
  const wrapper: Record<string, unknown> = {};
  if (known)
    for (const key of WRAPPER_KEYWORDS)
      if (key in out && !isDeepStrictEqual(out[key], known[key])) {
        wrapper[key] = out[key];
        delete out[key];
      }
  if (!known) {
    // The first use is the shape; a nullable first use still names the plain shape.
    for (const key of ["nullable"] as const)
      if (key in out) {
        wrapper[key] = out[key];
        delete out[key];
      }
    schemas[name] = out;
  } else if (!isDeepStrictEqual(known, out)) {
    // Two shapes under one name would make the document lie about one of them: refuse to build it.
    throw new Error(`components.schemas.${name}: two different shapes carry this name`);
  }
  return reference(name, wrapper);
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
