/**
 * fast-check arbitraries from the OpenAPI document's JSON schemas (the TypeBox route schemas as
 * @fastify/swagger prints them, read through test/helpers/openapi.ts walkableDocument: inline, one type
 * per node, `nullable` for "or null"). Two flavours: values that satisfy the
 * schema (they reach the handlers and their domain rules), and mutated ones, where any node may be
 * replaced by a wrong type, an out-of-range or boundary value, a huge or hostile string, or an object
 * with a missing or unknown field.
 */
import fc from "fast-check";

export interface JsonSchema {
  type?: string;
  nullable?: boolean;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  maxProperties?: number;
  format?: string;
}

export interface SchemaArbOptions {
  mutate: boolean;
  /** Real ids for integer fields of this name (so valid requests reach deeper rules). */
  idsFor?: (field: string) => number[] | undefined;
  /** Real strings for string fields of this name (event ids). */
  stringsFor?: (field: string) => string[] | undefined;
}

const INT32_MAX = 2 ** 31 - 1;

/** Strings that have broken services before: NUL, lone surrogates, SQL and LIKE metacharacters, RTL. */
export const HOSTILE_STRINGS = [
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff\ud800",
  "' OR '1'='1' --",
  "%_\\",
  "\\u0000",
  "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ✓ ﷽ \u202e",
  " ",
  "\n\t\r",
  "<script>alert(1)</script>",
  "$" + "{jndi:x}",
  "NaN",
  "-0",
  "1e309",
  "0x10",
];

/** Values of every JSON type, some nested deeply. */
export function wrongTypeArb(): fc.Arbitrary<unknown> {
  let deep: unknown = 1;
  for (let i = 0; i < 200; i++) deep = { a: deep };
  let deepArray: unknown = [];
  for (let i = 0; i < 200; i++) deepArray = [deepArray];
  return fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ maxLength: 10 }),
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.constant([]),
    fc.constant({}),
    fc.constant([1, "a", null]),
    fc.constant({ __proto__x: 1, constructor: "x" }),
    fc.constant(deep),
    fc.constant(deepArray),
  );
}

function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

const validDate = fc
  .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true })
  .map(isoDate);
const validDateTime = fc
  .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true })
  .map((d) => d.toISOString());
const badDates = [
  "2024-02-30",
  "2023-02-29",
  "2024-13-01",
  "0000-00-00",
  "99999-01-01",
  "2024-1-1",
  "20240101",
  "2024-01-01T00:00:00Z",
];
const badDateTimes = [
  "2024-02-30T00:00:00Z",
  "2024-01-01T25:00:00Z",
  "2024-01-01",
  "yesterday",
  "+275760-09-13T00:00:00.000Z",
  "-000001-01-01T00:00:00Z",
  "2024-01-01T00:00:00+99:00",
  "9999-12-31T23:59:60Z",
];

function integerArb(schema: JsonSchema, field: string, options: SchemaArbOptions): fc.Arbitrary<unknown> {
  const min =
    schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -INT32_MAX);
  const max =
    schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : INT32_MAX);
  const ids = options.idsFor?.(field) ?? [];
  const valid = fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min, max: Math.min(max, Math.max(min, 0) + 1000) }) },
    { weight: 1, arbitrary: fc.integer({ min, max }) },
    { weight: 1, arbitrary: fc.constantFrom(min, max) },
    ...(ids.length ? [{ weight: 4, arbitrary: fc.constantFrom(...ids) }] : []),
  );
  if (!options.mutate) return valid;
  return fc.oneof(
    { weight: 4, arbitrary: valid },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        min - 1,
        max + 1,
        0,
        -1,
        2 ** 31,
        2 ** 53,
        -(2 ** 53),
        1.5,
        1e308,
        -0,
        1.2345678901234567e19,
      ),
    },
  );
}

function numberArb(schema: JsonSchema, options: SchemaArbOptions): fc.Arbitrary<unknown> {
  const min = schema.minimum ?? schema.exclusiveMinimum ?? -1e9;
  const max = schema.maximum ?? 1e9;
  const low = Math.ceil(Math.max(min, -1000));
  const high = Math.floor(Math.min(max, 1000));
  const valid = fc.oneof(
    { weight: 1, arbitrary: fc.double({ min, max, noNaN: true, noDefaultInfinity: true }) },
    { weight: 3, arbitrary: fc.integer({ min: low, max: Math.max(low, high) }) },
    // Amounts with cents, as money usually is.
    {
      weight: 3,
      arbitrary: fc.integer({ min: low * 100, max: Math.max(low, high) * 100 }).map((c) => c / 100),
    },
    { weight: 1, arbitrary: fc.constantFrom(0.1, 0.01, 12.345, 1e-8, 99.99999999) },
  );
  if (!options.mutate) return valid;
  return fc.oneof(
    { weight: 4, arbitrary: valid },
    { weight: 1, arbitrary: fc.constantFrom(min - 1, max + 1, 1e308, -1e308, 5e-324, 0.1 + 0.2, 1e21, -1) },
  );
}

function stringArb(schema: JsonSchema, field: string, options: SchemaArbOptions): fc.Arbitrary<unknown> {
  const minLength = schema.minLength ?? 0;
  const maxLength = schema.maxLength ?? 2000;
  const known = options.stringsFor?.(field) ?? [];
  let valid: fc.Arbitrary<string>;
  let invalid: fc.Arbitrary<string> | null = null;
  switch (schema.format) {
    case "date":
      valid = validDate;
      invalid = fc.constantFrom(...badDates);
      break;
    case "date-time":
      valid = validDateTime;
      invalid = fc.constantFrom(...badDateTimes);
      break;
    case "email":
      valid = fc.constantFrom("buyer@example.com", "a.b+c@sub.example.org", "x@example.co.uk");
      invalid = fc.constantFrom("no-at-sign", "a@", "@b.com", "a b@example.com", "a@b@c");
      break;
    case "uri":
      valid = fc.constantFrom(
        "https://localhost:1/hook",
        "https://127.0.0.1:1/h",
        "https://nonexistent.invalid/h",
      );
      invalid = fc.constantFrom(
        "http://localhost/h",
        "ftp://x",
        "not a url",
        "https://user:pw@localhost/h",
        "https://",
      );
      break;
    default:
      valid = fc.oneof(
        {
          weight: 6,
          arbitrary: fc
            .stringMatching(/^[A-Za-z0-9][A-Za-z0-9 .-]{0,15}$/)
            .filter((v) => v.length >= minLength && v.length <= maxLength),
        },
        { weight: 2, arbitrary: fc.string({ minLength, maxLength: Math.min(maxLength, 24) }) },
        {
          weight: 1,
          arbitrary: fc.string({ minLength, maxLength: Math.min(maxLength, 24), unit: "binary" }),
        },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            ...HOSTILE_STRINGS.filter((s) => s.length >= minLength && s.length <= maxLength),
          ),
        },
        { weight: 1, arbitrary: fc.constant("x".repeat(Math.min(maxLength, 100_000))) },
        ...(known.length ? [{ weight: 4, arbitrary: fc.constantFrom(...known) }] : []),
      );
      invalid = fc.constantFrom(
        "x".repeat(maxLength + 1),
        "é".repeat(Math.min(maxLength + 1, 300_000)),
        ...(minLength > 0 ? [""] : []),
      );
  }
  if (!options.mutate) return valid;
  return fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: invalid });
}

/** An arbitrary for one schema node; `field` is the property name it sits under (for ids). */
export function schemaArb(
  schema: JsonSchema,
  options: SchemaArbOptions,
  field = "",
  depth = 0,
): fc.Arbitrary<unknown> {
  const base = typedArb(schema, options, field, depth);
  const withNull = schema.nullable
    ? fc.oneof({ weight: 4, arbitrary: base }, { weight: 1, arbitrary: fc.constant(null) })
    : base;
  if (!options.mutate) return withNull;
  return fc.oneof({ weight: 8, arbitrary: withNull }, { weight: 1, arbitrary: wrongTypeArb() });
}

function typedArb(
  schema: JsonSchema,
  options: SchemaArbOptions,
  field: string,
  depth: number,
): fc.Arbitrary<unknown> {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((s) => schemaArb(s, options, field, depth)));
  if (schema.enum) {
    const values = schema.enum.filter((v) => v !== null);
    if (values.length === 0) return fc.constant(null);
    const valid = fc.constantFrom(...values);
    if (!options.mutate) return valid;
    return fc.oneof(
      { weight: 5, arbitrary: valid },
      {
        weight: 1,
        arbitrary: fc.constantFrom("not-a-value", String(values[0]).toUpperCase(), `${String(values[0])} `),
      },
    );
  }
  switch (schema.type) {
    case "integer":
      return integerArb(schema, field, options);
    case "number":
      return numberArb(schema, options);
    case "string":
      return stringArb(schema, field, options);
    case "boolean":
      return options.mutate
        ? fc.oneof(
            { weight: 4, arbitrary: fc.boolean() },
            { weight: 1, arbitrary: fc.constantFrom("true", 1, 0) },
          )
        : fc.boolean();
    case "array": {
      const items = schema.items ? schemaArb(schema.items, options, field, depth + 1) : wrongTypeArb();
      const minLength = schema.minItems ?? 0;
      const valid = fc.array(items, {
        minLength,
        maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 4, depth > 1 ? 2 : 4)),
      });
      if (!options.mutate || schema.maxItems === undefined) return valid;
      const tooMany = schema.maxItems + 1;
      return fc.oneof(
        { weight: 6, arbitrary: valid },
        { weight: 1, arbitrary: items.map((one) => Array.from({ length: tooMany }, () => one)) },
      );
    }
    case "object":
      return objectArb(schema, options, depth);
    default:
      return wrongTypeArb();
  }
}

function objectArb(schema: JsonSchema, options: SchemaArbOptions, depth: number): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  const required = schema.required ?? [];
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, prop] of Object.entries(properties))
    model[name] = schemaArb(prop, options, name, depth + 1);
  let record: fc.Arbitrary<Record<string, unknown>> =
    Object.keys(model).length > 0
      ? fc.record(model, { requiredKeys: required.filter((r) => r in model) })
      : fc.constant({});
  if (typeof schema.additionalProperties === "object") {
    const extra = fc.dictionary(
      fc.string({ minLength: 1, maxLength: 12 }),
      schemaArb(schema.additionalProperties, options, "", depth + 1),
      { maxKeys: Math.min(schema.maxProperties ?? 4, 4) },
    );
    record = fc.tuple(record, extra).map(([a, b]) => ({ ...b, ...a }));
  }
  if (!options.mutate) return record;
  return fc.oneof(
    { weight: 6, arbitrary: record },
    // An unknown field, or one sent twice under a near name.
    { weight: 1, arbitrary: record.map((r) => ({ ...r, unexpected_field: 1 })) },
    // A required field left out.
    ...(required.length
      ? [
          {
            weight: 1,
            arbitrary: record.map((r) =>
              Object.fromEntries(Object.entries(r).filter(([k]) => k !== required[0])),
            ),
          },
        ]
      : []),
  );
}
