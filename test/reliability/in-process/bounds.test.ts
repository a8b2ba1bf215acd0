/**
 * Values at and beyond every bound the API declares, on every route of GET /v2/openapi.json: each
 * numeric field with a minimum or maximum, each date and timestamp (the 1900-9999 range of
 * docs/decisions.md), each money input (no declared bound: the columns' limits), in bodies and query
 * strings. fast-check builds a schema-valid request around the value (real ids of a populated store, so
 * it reaches the handlers' rules), and every answer must be below 500, in the error envelope when
 * refused, and a refusal must change nothing.
 *
 * Repeatable: a fixed seed (BOUNDS_SEED overrides it) and BOUNDS_RUNS requests per (field, value).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import { startTestApp, type TestApp } from "../../helpers/app.ts";
import { walkableDocument } from "../../helpers/openapi.ts";
import { changedTables, fingerprinter } from "../helpers/fingerprint.ts";
import { type Populated, populate } from "../helpers/fixture.ts";
import { idsFor, pathIds, stringsFor } from "../helpers/known-values.ts";
import type { JsonSchema } from "../helpers/schema-arbitrary.ts";

const SEED = Number(process.env.BOUNDS_SEED ?? 40417);
const RUNS = Number(process.env.BOUNDS_RUNS ?? 2);
const WRITE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

const DATES = [
  "0000-01-01",
  "0001-01-01",
  "1899-12-31",
  "1900-01-01",
  "2024-02-29",
  "9999-12-31",
  "10000-01-01",
];
const TIMES = [
  "0000-01-01T00:00:00Z",
  "1899-12-31T23:59:59.999Z",
  "1900-01-01T00:00:00Z",
  "1970-01-01T00:00:00Z",
  "9999-12-31T23:59:59.999Z",
  "9999-12-31T23:59:59-01:00",
  "+010000-01-01T00:00:00Z",
];
/** Money has no declared bound; these are beyond what numeric(20,x) columns and JavaScript hold. */
const MONEY: unknown[] = [1e12, 1e16, -1e16, "99999999999999999999.99", 1e308, "1e16", 0.000000001, 0];

type Part = "body" | "query";
interface Bound {
  part: Part;
  path: Array<string | number>;
  kind: "number" | "date" | "date-time" | "money";
  values: unknown[];
}

interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  query: JsonSchema;
  body: JsonSchema | null;
}

/** Values at and just beyond each declared limit of a number, plus the integer overflows. */
function numericValues(schema: JsonSchema): unknown[] {
  const integer = schema.type === "integer";
  const step = integer ? 1 : 0.01;
  const values: number[] = [];
  if (schema.minimum !== undefined) values.push(schema.minimum, schema.minimum - step);
  if (schema.maximum !== undefined) values.push(schema.maximum, schema.maximum + step);
  if (schema.exclusiveMinimum !== undefined)
    values.push(schema.exclusiveMinimum, schema.exclusiveMinimum + step);
  if (schema.exclusiveMaximum !== undefined)
    values.push(schema.exclusiveMaximum, schema.exclusiveMaximum - step);
  values.push(...(integer ? [2 ** 31, -(2 ** 31) - 1, 2 ** 53] : [1e15, -1e15, 1e308]));
  return [...new Set(values)];
}

/** MoneyInput as the OpenAPI document prints it: a number or a decimal string. */
function isMoney(schema: JsonSchema): boolean {
  const types = (schema.anyOf ?? []).map((branch) => branch.type);
  return types.includes("number") && types.includes("string");
}

/** Every bounded leaf of a schema, by its path (array items as index 0). */
function boundsOf(schema: JsonSchema | undefined, part: Part, path: Array<string | number> = []): Bound[] {
  if (!schema) return [];
  if (isMoney(schema)) return [{ part, path, kind: "money", values: MONEY }];
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return branches.flatMap((branch) => boundsOf(branch, part, path));
  switch (schema.type) {
    case "object":
      return Object.entries(schema.properties ?? {}).flatMap(([name, prop]) =>
        boundsOf(prop, part, [...path, name]),
      );
    case "array":
      // Query arrays are sent as repeated parameters: the leaf is the parameter itself.
      return boundsOf(schema.items, part, part === "query" ? path : [...path, 0]);
    case "integer":
    case "number": {
      const declared = [schema.minimum, schema.maximum, schema.exclusiveMinimum, schema.exclusiveMaximum];
      return declared.some((b) => b !== undefined)
        ? [{ part, path, kind: "number", values: numericValues(schema) }]
        : [];
    }
    case "string":
      if (schema.format === "date") return [{ part, path, kind: "date", values: DATES }];
      if (schema.format === "date-time") return [{ part, path, kind: "date-time", values: TIMES }];
      return [];
    default:
      return [];
  }
}

/** Fields the domain rules require although the schema leaves them optional (lines, tiers, charges). */
const USUALLY_NEEDED = new Set([
  "variant_id",
  "quantity",
  "unit_cost",
  "line_id",
  "min_qty",
  "price",
  "amount",
  "label",
  "kind",
  "delta",
]);

/**
 * A request body the domain rules accept as often as possible around the value under test: required
 * fields only, real ids, known codes, small amounts, plain words (the fuzz test sends the hostile ones).
 */
function tameArb(schema: JsonSchema, fx: Populated, field = ""): fc.Arbitrary<unknown> {
  if (isMoney(schema)) return fc.constantFrom(1, "2.50", 10, "0.99");
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return tameArb(branches.find((b) => b.type !== "null") ?? branches[0], fx, field);
  if (schema.enum) return fc.constantFrom(...schema.enum.filter((v) => v !== null));
  const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
  switch (schema.type) {
    case "integer": {
      // The fixture's first supplier stays active; the others are archived or get merged by the run.
      if (field === "supplier_id" || field === "target_id") return fc.constant(fx.ids.supplier[0]);
      const known = idsFor(fx, field);
      return known?.length
        ? fc.constantFrom(...known)
        : fc.integer({ min, max: Math.min(schema.maximum ?? min + 10, min + 10) });
    }
    case "number":
      return fc.integer({ min: Math.ceil(min), max: Math.ceil(min) + 10 });
    case "boolean":
      return fc.boolean();
    case "string": {
      if (schema.format === "date") return fc.constantFrom("2030-01-15", "2024-02-29");
      if (schema.format === "date-time") return fc.constantFrom("2030-01-15T10:00:00Z");
      if (schema.format === "email") return fc.constant("buyer@example.com");
      if (schema.format === "uri") return fc.constant("https://localhost:1/bounds");
      const known = stringsFor(fx, field)?.filter((v) => /^[A-Za-z*.]+$/.test(v) && v === v.trim());
      if (field === "currency") return fc.constant("USD");
      if (known?.length) return fc.constantFrom(...known);
      const length = Math.max(schema.minLength ?? 1, 1);
      return fc
        .stringMatching(/^[A-Za-z][A-Za-z0-9]{0,7}$/)
        .map((v) => v.padEnd(length, "x").slice(0, schema.maxLength ?? 8));
    }
    case "array": {
      const count = Math.min(Math.max(schema.minItems ?? 1, 1), schema.maxItems ?? 1);
      return schema.items
        ? fc.array(tameArb(schema.items, fx, field), { minLength: count, maxLength: count })
        : fc.constant([]);
    }
    case "object": {
      const required = new Set(schema.required ?? []);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, prop] of Object.entries(schema.properties ?? {}))
        if (required.has(name) || USUALLY_NEEDED.has(name)) model[name] = tameArb(prop, fx, name);
      return fc.record(model);
    }
    default:
      return fc.constant({});
  }
}

/** Puts `value` at `path` inside a copy of `base`, creating the containers on the way. */
function withValue(base: unknown, path: Array<string | number>, value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (typeof head === "number") {
    const array = Array.isArray(base) ? [...base] : [];
    array[head] = withValue(array[head], rest, value);
    return array;
  }
  const object = base !== null && typeof base === "object" && !Array.isArray(base) ? { ...base } : {};
  (object as Record<string, unknown>)[head] = withValue(
    (object as Record<string, unknown>)[head],
    rest,
    value,
  );
  return object;
}

describe("bounds: values at and beyond every declared bound, on every route", () => {
  let t: TestApp;
  let fx: Populated;
  let operations: Operation[];
  let fingerprint: () => Promise<Record<string, string>>;
  let last: Record<string, string>;
  let keyCounter = 0;

  before(async () => {
    t = await startTestApp();
    fx = await populate(t, "BOUNDS");
    // Named shapes are `$ref`s into components: read each route's schemas resolved, one type a node.
    const doc = walkableDocument((await fx.store.api.get("/v2/openapi.json")).body);
    operations = [];
    for (const [path, methods] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(methods)) {
        const parameters: Array<{ name: string; in: string; schema: JsonSchema }> = op.parameters ?? [];
        operations.push({
          method: method.toUpperCase(),
          path,
          pathParams: parameters.filter((p) => p.in === "path").map((p) => p.name),
          query: {
            type: "object",
            properties: Object.fromEntries(
              parameters.filter((p) => p.in === "query").map((p) => [p.name, p.schema]),
            ),
          },
          body: op.requestBody?.content?.["application/json"]?.schema ?? null,
        });
      }
    }
    // Merges and deletions last: the other routes need the fixture's records as they were.
    const destructive = (op: Operation) => op.method === "DELETE" || op.path.endsWith("/merge");
    operations.sort((a, b) => Number(destructive(a)) - Number(destructive(b)));
    fingerprint = await fingerprinter(t.runtime.ctx.db);
    last = await fingerprint();
  });
  after(() => t.close());

  test("no 5xx, refusals in the envelope and writing nothing", async (tt) => {
    const violations: string[] = [];
    const tally = { requests: 0, bounds: 0, byStatus: {} as Record<number, number> };
    for (const op of operations) {
      const bounds = [...boundsOf(op.query, "query"), ...boundsOf(op.body ?? undefined, "body")];
      if (bounds.length === 0) continue;
      const pathArb = fc.tuple(
        ...op.pathParams.map((name) => {
          const known = pathIds(fx, op.path, name);
          return known.length ? fc.constantFrom(...known) : fc.constant(1);
        }),
      );
      const bodyArb = op.body ? tameArb(op.body, fx) : fc.constant(undefined);
      for (const bound of bounds) {
        tally.bounds++;
        for (const value of bound.values) {
          await fc.assert(
            fc.asyncProperty(pathArb, bodyArb, async (pathValues, generated) => {
              let url = op.path;
              op.pathParams.forEach((name, i) => {
                url = url.replace(`{${name}}`, String(pathValues[i]));
              });
              let body = generated;
              if (bound.part === "query") {
                url += `?${new URLSearchParams({ [String(bound.path[0])]: String(value) })}`;
              } else {
                body = withValue(generated ?? {}, bound.path, value);
              }
              const headers: Record<string, string> = { authorization: `Bearer ${fx.store.key}` };
              if (body !== undefined) headers["content-type"] = "application/json";
              if (WRITE.has(op.method)) headers["idempotency-key"] = `bounds-${process.pid}-${++keyCounter}`;
              const res = await t.runtime.app.inject({
                method: op.method as "GET",
                url,
                headers,
                ...(body !== undefined && { payload: JSON.stringify(body) }),
              });
              tally.requests++;
              tally.byStatus[res.statusCode] = (tally.byStatus[res.statusCode] ?? 0) + 1;
              const now = await fingerprint();
              const where = `${op.method} ${url} ${bound.part}.${bound.path.join(".")}=${JSON.stringify(value)}`;
              if (res.statusCode >= 500)
                violations.push(`${where}: ${res.statusCode} ${res.body.slice(0, 200)}`);
              if (res.statusCode >= 400) {
                const error = (JSON.parse(res.body) as { error?: { code?: unknown; message?: unknown } })
                  .error;
                if (typeof error?.code !== "string" || typeof error.message !== "string")
                  violations.push(`${where}: not in the envelope: ${res.body.slice(0, 200)}`);
                const changed = changedTables(last, now);
                if (changed.length > 0) violations.push(`${where}: refused but wrote ${changed.join(", ")}`);
              }
              last = now;
              if (process.env.BOUNDS_DEBUG && res.statusCode === 422)
                console.log(where, res.body.slice(0, 300));
            }),
            { seed: SEED, numRuns: RUNS },
          );
        }
      }
    }
    tt.diagnostic(
      `${tally.bounds} bounded fields, ${tally.requests} requests; statuses ${JSON.stringify(tally.byStatus)}`,
    );
    assert.deepEqual(violations, []);
  });
});
