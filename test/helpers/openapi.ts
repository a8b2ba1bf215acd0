/**
 * Reading /v2/openapi.json in tests: named shapes live in `components.schemas` and are used by `$ref`.
 * Tests that walk a route's schemas (fuzz, bounds) read them with every reference resolved.
 */

import { Ajv, type ValidateFunction } from "ajv";
import ajvFormatsModule from "ajv-formats";
import type { Client, HttpResult } from "./app.ts";

// ajv-formats is CommonJS: its plugin sits on `default` for TypeScript and is the module at run time.
const addFormats = ((ajvFormatsModule as unknown as { default?: unknown }).default ??
  ajvFormatsModule) as unknown as (a: Ajv) => void;

type Json = any;

export const SCHEMA_REF_PREFIX = "#/components/schemas/";

/** Every `$ref` in the document, with the JSON path it sits at. */
export function refsOf(node: Json, at = "#"): Array<{ at: string; ref: string }> {
  if (!node || typeof node !== "object") return [];
  const here = typeof node.$ref === "string" ? [{ at, ref: node.$ref as string }] : [];
  return [...here, ...Object.entries(node).flatMap(([key, value]) => refsOf(value, `${at}/${key}`))];
}

/** The value a local reference (`#/components/schemas/Supplier`) points at, or undefined. */
export function resolvePointer(document: Json, ref: string): Json {
  if (!ref.startsWith("#/")) return undefined;
  let node = document;
  for (const part of ref.slice(2).split("/")) {
    node = node?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
    if (node === undefined) return undefined;
  }
  return node;
}

/**
 * A copy of `schema` with every schema reference replaced by the shape it names. A use wrapped as
 * `{allOf: [ref], nullable}` (how OpenAPI 3.0 says "this shape, or null") becomes the shape with
 * `nullable` beside its keywords, as the routes' own schemas have it.
 */
export function inlineSchema(document: Json, schema: Json, seen: readonly string[] = []): Json {
  if (Array.isArray(schema)) return schema.map((item) => inlineSchema(document, item, seen));
  if (!schema || typeof schema !== "object") return schema;
  if (typeof schema.$ref === "string") {
    const ref: string = schema.$ref;
    if (seen.includes(ref)) throw new Error(`${ref} refers to itself through ${seen.join(" → ")}`);
    const target = resolvePointer(document, ref);
    if (target === undefined) throw new Error(`${ref} resolves to nothing`);
    return inlineSchema(document, target, [...seen, ref]);
  }
  const copy: Json = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = inlineSchema(document, value, seen);
  if (Array.isArray(copy.allOf) && copy.allOf.length === 1) {
    const { allOf, ...wrapper } = copy;
    return { ...allOf[0], ...wrapper };
  }
  return copy;
}

/** The document with every path's schemas inlined (components stay as they are). */
export function inlineDocument(document: Json): Json {
  return { ...document, paths: inlineSchema(document, document.paths) };
}

/** Keywords that constrain a string only, so they go to the string branch of a split type list. */
const STRING_KEYWORDS = ["pattern", "minLength", "maxLength", "format"];

/**
 * One schema in the form the request generators walk (test/reliability/helpers/schema-arbitrary.ts):
 * one `type` per node, `nullable: true` for "or null", alternatives as `anyOf`. OpenAPI 3.1's
 * `type: ["number", "string", "null"]` becomes `anyOf` of a number and a string branch, nullable.
 */
export function walkableSchema(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(walkableSchema);
  if (!schema || typeof schema !== "object") return schema;
  const copy: Json = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = walkableSchema(value);
  if (Array.isArray(copy.anyOf) && copy.anyOf.some((branch: Json) => branch.type === "null")) {
    copy.anyOf = copy.anyOf.filter((branch: Json) => branch.type !== "null");
    copy.nullable = true;
    if (copy.anyOf.length === 1) {
      const [only] = copy.anyOf;
      delete copy.anyOf;
      Object.assign(copy, only, { nullable: true });
    }
  }
  if (!Array.isArray(copy.type)) return copy;
  const types: string[] = copy.type.filter((type: string) => type !== "null");
  if (types.length < copy.type.length) copy.nullable = true;
  if (types.length === 1) {
    copy.type = types[0];
    return copy;
  }
  const { type: _type, nullable, enum: values, ...rest } = copy;
  const branches = types.map((type) =>
    type === "string"
      ? { ...rest, type }
      : { ...Object.fromEntries(Object.entries(rest).filter(([k]) => !STRING_KEYWORDS.includes(k))), type },
  );
  return { anyOf: branches, ...(nullable ? { nullable } : {}), ...(values ? { enum: values } : {}) };
}

/** The document with every path's schemas inlined and in the generators' form (walkableSchema). */
export function walkableDocument(document: Json): Json {
  return { ...document, paths: walkableSchema(inlineSchema(document, document.paths)) };
}

// ---------------------------------------------------------------------------------------------------
// Live responses against the document

/** Ajv 8 strict, as generators' validators run it, knowing the document's own annotation keywords. */
export function strictAjv(): Ajv {
  // A type list (`["number", "string", "null"]`) is how OpenAPI 3.1 says "or": allowed by name.
  const ajv = new Ajv({ strict: true, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  // The service's own extension (documented date bounds).
  ajv.addVocabulary(["x-date-bounds"]);
  return ajv;
}

interface Template {
  method: string;
  path: string;
  pattern: RegExp;
  params: number;
}

function templatesOf(document: Json): Template[] {
  const templates: Template[] = [];
  for (const [path, item] of Object.entries<Json>(document.paths))
    for (const method of Object.keys(item))
      templates.push({
        method,
        path,
        pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
        params: (path.match(/\{/g) ?? []).length,
      });
  // A literal segment wins over a parameter (`/suppliers/merge` before `/suppliers/{id}`).
  return templates.sort((a, b) => a.params - b.params);
}

/**
 * Checks answers against the document: the operation is found by method and path, the status must be
 * documented, and a JSON body must match the (referenced) schema under Ajv 8 strict.
 */
export class ResponseChecker {
  /** `method path status` of every answer checked, to show what a test covered. */
  readonly seen = new Set<string>();
  private readonly templates: Template[];
  private readonly ajv = strictAjv();
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: Json) {
    this.templates = templatesOf(document);
  }

  /** The problems of one answer: none when it matches the document. */
  problems(method: string, url: string, status: number, body: unknown): string[] {
    const path = url.split("?")[0];
    const lower = method.toLowerCase();
    const template = this.templates.find((t) => t.method === lower && t.pattern.test(path));
    if (!template) return [`${method} ${path} is not in the document`];
    const where = `${lower} ${template.path} ${status}`;
    this.seen.add(where);
    const response = this.document.paths[template.path][lower].responses?.[String(status)];
    if (!response) return [`${where} is not a documented status`];
    const schema = response.content?.["application/json"]?.schema;
    if (!schema) return [];
    let validate = this.compiled.get(where);
    if (!validate) {
      validate = this.ajv.compile(inlineSchema(this.document, schema));
      this.compiled.set(where, validate);
    }
    return validate(body)
      ? []
      : (validate.errors ?? []).map((e) => `${where}: ${e.instancePath || "/"} ${e.message}`);
  }

  /** A client whose every answer is checked (and a mismatch thrown) before the test sees it. */
  checking(client: Client): Client {
    const check = async (method: string, url: string, call: Promise<HttpResult>) => {
      const res = await call;
      const problems = this.problems(method, url, res.status, res.body);
      if (problems.length > 0) throw new Error(`answer not as documented:\n${problems.join("\n")}`);
      return res;
    };
    return {
      get: (url, headers) => check("GET", url, client.get(url, headers)),
      post: (url, body, headers) => check("POST", url, client.post(url, body, headers)),
      put: (url, body, headers) => check("PUT", url, client.put(url, body, headers)),
      patch: (url, body, headers) => check("PATCH", url, client.patch(url, body, headers)),
      delete: (url, headers) => check("DELETE", url, client.delete(url, headers)),
    };
  }
}
