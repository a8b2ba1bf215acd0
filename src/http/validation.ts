import { Ajv, type AnySchemaObject, type ErrorObject } from "ajv";
import type { DataValidateFunction } from "ajv/dist/types/index.js";
import ajvFormatsModule from "ajv-formats";

// ajv-formats is CommonJS: its plugin sits on `default` for TypeScript and is the module at run time.
const addFormats = ((ajvFormatsModule as unknown as { default?: unknown }).default ??
  ajvFormatsModule) as unknown as (a: Ajv) => void;

import type { FastifySchemaCompiler } from "fastify";
import type { ErrorDetail } from "../domain/errors.ts";

/**
 * Bodies are validated strictly: unknown fields are refused and nothing is coerced (a string where an
 * integer is due is an error). Query strings and path params are strings by nature, so they are
 * coerced to the declared types. Two Ajv instances keep the two policies apart.
 */
function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: coerce ? "array" : false,
    useDefaults: true,
    removeAdditional: false,
    allowUnionTypes: true,
    strict: false,
  });
  addFormats(ajv);
  // RFC 3339 allows a leap second (`23:59:60`) that a JavaScript Date cannot hold: a timestamp must also
  // be one `new Date()` reads, or it would reach the database as an Invalid Date.
  const dateTime = ajv.formats["date-time"] as { validate: (s: string) => boolean } | undefined;
  if (dateTime && typeof dateTime.validate === "function") {
    const base = dateTime.validate;
    ajv.addFormat("date-time", {
      ...dateTime,
      validate: (s: string) => base(s) && Number.isFinite(Date.parse(s)),
    });
  }
  ajv.addKeyword({ keyword: "example" });
  ajv.addKeyword({
    keyword: DATE_BOUNDS_KEYWORD,
    type: "string",
    schemaType: "boolean",
    errors: true,
    compile: (enabled: boolean, parentSchema: AnySchemaObject) => {
      const dateOnly = parentSchema.format === "date";
      const check: DataValidateFunction = (data: string): boolean => {
        check.errors = [];
        if (!enabled) return true;
        // An unreadable value is the format's error, not a range error.
        const time = Date.parse(dateOnly ? `${data}T00:00:00Z` : data);
        if (!Number.isFinite(time) || (time >= DATE_BOUNDS.min && time <= DATE_BOUNDS.max)) return true;
        check.errors = [
          {
            keyword: DATE_BOUNDS_KEYWORD,
            params: {},
            message: dateOnly
              ? `must be a date from ${DATE_BOUNDS.minDate} to ${DATE_BOUNDS.maxDate}`
              : `must be a time from ${DATE_BOUNDS.minDate}T00:00:00Z to ${DATE_BOUNDS.maxDate}T23:59:59.999Z`,
          },
        ];
        return false;
      };
      return check;
    },
  });
  return ajv;
}

/**
 * Dates and times the service stores (docs/decisions.md): both databases hold far more, but year 0000
 * does not exist in PostgreSQL and JavaScript dates beyond year 9999 print as `+010000-…`, so input is
 * held to years 1900 to 9999. Applied to every `date` and `date-time` schema (src/http/schemas/common.ts).
 */
export const DATE_BOUNDS_KEYWORD = "x-date-bounds";
export const DATE_BOUNDS = {
  minDate: "1900-01-01",
  maxDate: "9999-12-31",
  min: Date.parse("1900-01-01T00:00:00Z"),
  max: Date.parse("9999-12-31T23:59:59.999Z"),
};

/**
 * Characters PostgreSQL cannot store: NUL (text and jsonb refuse it) and unpaired UTF-16 surrogates
 * (jsonb refuses them; text would silently turn them into U+FFFD).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching NUL is the point
const UNSTORABLE = /\u0000|\p{Cs}/u;

/**
 * Whether any string (value or key) holds an unstorable character. Nearly no body does: this walk
 * makes no paths (findUnstorable makes one for every value it visits, a 50-line receipt's ~150).
 */
function holdsUnstorable(data: unknown): boolean {
  const stack: unknown[] = [data];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === "string") {
      if (UNSTORABLE.test(value)) return true;
    } else if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
    } else if (value !== null && typeof value === "object") {
      for (const key of Object.keys(value)) {
        if (UNSTORABLE.test(key)) return true;
        stack.push((value as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

/** JSON pointer of the first string (value or key) holding an unstorable character, or null. */
function findUnstorable(data: unknown): string | null {
  const stack: Array<[unknown, string]> = [[data, ""]];
  while (stack.length > 0) {
    const [value, path] = stack.pop() as [unknown, string];
    if (typeof value === "string") {
      if (UNSTORABLE.test(value)) return path;
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => {
        stack.push([item, `${path}/${i}`]);
      });
    } else if (value !== null && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        const child = `${path}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
        if (UNSTORABLE.test(key)) return child;
        stack.push([item, child]);
      }
    }
  }
  return null;
}

function isJsonObject(data: unknown): boolean {
  return data !== null && typeof data === "object" && !Array.isArray(data);
}

/**
 * Ajv coerces a path or query string to a number with `+value`, which reads `0x10` as 16, ` 1` as 1 and
 * `1e3` as 1000, so `/suppliers/0x10` would find supplier 16. Before coercion, every string given for a
 * numeric parameter must be written in plain decimal.
 */
const PLAIN_INTEGER = /^-?\d+$/;
const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

function numericPattern(schema: unknown): RegExp | null {
  const type = (schema as { type?: unknown } | undefined)?.type;
  const types = Array.isArray(type) ? type : [type];
  if (types.includes("number")) return PLAIN_DECIMAL;
  if (types.includes("integer")) return PLAIN_INTEGER;
  return null;
}

function nonDecimalErrors(schema: unknown, data: unknown): ErrorObject[] {
  const properties = (schema as { properties?: Record<string, unknown> }).properties;
  if (!properties || !isJsonObject(data)) return [];
  const errors: ErrorObject[] = [];
  for (const [name, value] of Object.entries(data as Record<string, unknown>)) {
    const property = properties[name] as { type?: unknown; items?: unknown } | undefined;
    if (property === undefined) continue;
    const pattern =
      numericPattern(property) ?? (property.type === "array" ? numericPattern(property.items) : null);
    if (pattern === null) continue;
    const values = Array.isArray(value) ? value : [value];
    if (values.every((v) => typeof v !== "string" || pattern.test(v))) continue;
    errors.push({
      keyword: "type",
      instancePath: `/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`,
      schemaPath: `#/properties/${name}/type`,
      params: { type: pattern === PLAIN_INTEGER ? "integer" : "number" },
      message: pattern === PLAIN_INTEGER ? "must be integer" : "must be number",
    });
  }
  return errors;
}

const bodyAjv = makeAjv(false);
const paramAjv = makeAjv(true);

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === "body" ? bodyAjv : paramAjv;
  const validate = ajv.compile(schema as object);
  // Body schemas without `type` let an absent body through (action calls; Fastify passes it as null or
  // undefined): when a body is sent, it must still be a JSON object, never an array, a string or a number.
  const shape = schema as { type?: unknown; properties?: unknown; additionalProperties?: unknown };
  const objectOrAbsent =
    httpPart === "body" &&
    shape.type === undefined &&
    (shape.properties !== undefined || shape.additionalProperties !== undefined);
  const check = (data: unknown): boolean => {
    if (httpPart !== "body") {
      const nonDecimal = nonDecimalErrors(schema, data);
      if (nonDecimal.length > 0) {
        check.errors = nonDecimal;
        return false;
      }
    }
    if (objectOrAbsent && data !== undefined && data !== null && !isJsonObject(data)) {
      check.errors = [
        {
          keyword: "type",
          instancePath: "",
          schemaPath: "#/type",
          params: { type: "object" },
          message: "must be object",
        },
      ];
      return false;
    }
    if (!validate(data)) {
      check.errors = validate.errors ?? null;
      return false;
    }
    const unstorable = holdsUnstorable(data) ? findUnstorable(data) : null;
    if (unstorable !== null) {
      check.errors = [
        {
          keyword: "unstorableCharacter",
          instancePath: unstorable,
          schemaPath: "#",
          params: {},
          message: "must not contain NUL characters or unpaired surrogates",
        },
      ];
      return false;
    }
    check.errors = null;
    return true;
  };
  check.errors = null as ErrorObject[] | null;
  return check as unknown as ReturnType<FastifySchemaCompiler<unknown>>;
};

function joinPath(instancePath: string, extra?: string): string {
  const parts = instancePath.split("/").filter((p) => p !== "");
  if (extra !== undefined) parts.push(extra);
  return parts.map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~")).join(".");
}

/** Ajv errors to the contract's `details`: one entry per problem, field paths like `lines.2.quantity`. */
export function ajvErrorsToDetails(errors: ErrorObject[], part: string): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  const prefix = part === "querystring" || part === "params" ? "" : "";
  for (const error of errors) {
    let detail: ErrorDetail;
    const params = error.params as Record<string, unknown>;
    switch (error.keyword) {
      case "additionalProperties":
        detail = {
          field: joinPath(error.instancePath, String(params.additionalProperty)),
          code: "unknown_field",
          message: "is not a known field",
        };
        break;
      case "required":
        detail = {
          field: joinPath(error.instancePath, String(params.missingProperty)),
          code: "required",
          message: "is required",
        };
        break;
      case "type":
        detail = {
          field: joinPath(error.instancePath),
          code: "invalid_type",
          message: `must be ${humanType(params.type)}`,
        };
        break;
      case "format":
        detail = {
          field: joinPath(error.instancePath),
          code: "invalid_format",
          message: `must be a valid ${params.format}`,
        };
        break;
      case "enum":
        detail = {
          field: joinPath(error.instancePath),
          code: "invalid_value",
          message: `must be one of ${(params.allowedValues as unknown[]).join(", ")}`,
        };
        break;
      case "minimum":
      case "maximum":
      case "exclusiveMinimum":
      case "exclusiveMaximum":
        detail = {
          field: joinPath(error.instancePath),
          code: "out_of_range",
          message: error.message ?? "is out of range",
        };
        break;
      case "minLength":
      case "maxLength":
        detail = {
          field: joinPath(error.instancePath),
          code: "invalid_length",
          message: error.message ?? "has a bad length",
        };
        break;
      case "minItems":
      case "maxItems":
        detail = {
          field: joinPath(error.instancePath),
          code: "invalid_length",
          message: error.message ?? "has a bad length",
        };
        break;
      case "pattern":
        detail = {
          field: joinPath(error.instancePath),
          code: "invalid_format",
          message: "has an invalid format",
        };
        break;
      case DATE_BOUNDS_KEYWORD:
        detail = {
          field: joinPath(error.instancePath),
          code: "out_of_range",
          message: error.message ?? "is out of range",
        };
        break;
      case "unstorableCharacter":
        detail = {
          field: joinPath(error.instancePath),
          code: "invalid_characters",
          message: "must not contain NUL (\\u0000) characters or unpaired surrogates",
        };
        break;
      case "anyOf":
      case "oneOf":
        detail = {
          field: joinPath(error.instancePath),
          code: "invalid_value",
          message: "does not match any allowed form",
        };
        break;
      default:
        detail = {
          field: joinPath(error.instancePath),
          code: "invalid",
          message: error.message ?? "is invalid",
        };
    }
    if (detail.field === "") detail.field = prefix || "body";
    const key = `${detail.field}|${detail.code}`;
    if (seen.has(key)) continue;
    seen.add(key);
    details.push(detail);
  }
  // A union's branches each report their own failure; keep the union's single summary instead.
  const unionFields = new Set(
    details
      .filter((d) => d.code === "invalid_value" && d.message.startsWith("does not match"))
      .map((d) => d.field),
  );
  return details.filter((d) => !(unionFields.has(d.field) && d.code === "invalid_type"));
}

function humanType(type: unknown): string {
  const t = Array.isArray(type) ? type.join(" or ") : String(type);
  return t === "integer"
    ? "an integer"
    : t === "object"
      ? "an object"
      : t === "array"
        ? "an array"
        : `a ${t}`;
}
