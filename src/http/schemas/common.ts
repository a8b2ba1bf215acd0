import { type Static, type TProperties, type TSchema, type TUnsafe, Type } from "@sinclair/typebox";
import { ERROR_CODES } from "../../domain/errors.ts";

/**
 * Building blocks shared by every route schema. One schema per shape gives validation, serialization,
 * the TypeScript type and the OpenAPI document at once.
 */

/** The mark a shape's name travels under to the document (src/http/openapi/components.ts). */
export const COMPONENT_MARK = "x-component";

/**
 * Names a shape for the API description: it is printed once in `components.schemas` under this name and
 * referenced by `$ref` wherever a route uses it. Validation and serialization ignore the mark.
 */
export function Named<T extends TSchema>(name: string, schema: T): T {
  return { ...schema, [COMPONENT_MARK]: name };
}

/** `T | null`, written the OpenAPI 3.0 way (`nullable: true`) so validation errors stay one per field. */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const copy: Record<string, unknown> = { ...schema, nullable: true };
  // Ajv appends "null" to a `type` array in place when it compiles a nullable schema: a shared array
  // (MoneyInput's) would make every later route accept null there, and the OpenAPI document say so.
  if (Array.isArray(copy.type)) copy.type = [...copy.type];
  return Type.Unsafe<Static<T> | null>(copy);
}

/**
 * An action body that may be absent or an object with these fields (no `type`, so an absent body
 * passes; a body sent must still be an object, src/http/validation.ts). The document prints it as an
 * optional object body (src/http/openapi/request-schemas.ts).
 */
export function OptionalBody<T extends TProperties>(properties: T) {
  const schema = Type.Object(properties, { additionalProperties: false });
  const { type: _type, ...rest } = schema as unknown as Record<string, unknown>;
  return Type.Unsafe<Partial<Static<typeof schema>> | undefined>(rest);
}

/** Stockroom's own ids (orders, receipts, suppliers, keys…): 32-bit identity columns. */
export const Id = Type.Integer({ minimum: 1, maximum: 2147483647 });
export const IdParam = Type.Object({ id: Id });
/**
 * The platform's ids (products, variants, inventory items, locations): a Shopify GID's numeric tail
 * reaches 10^14, so they are stored as bigint and travel as exact JSON numbers up to 2^53-1
 * (decisions §12).
 */
export const PlatformId = Type.Integer({
  minimum: 1,
  maximum: Number.MAX_SAFE_INTEGER,
  description: "A platform id (for Shopify, the numeric tail of the GID): an integer up to 2^53-1.",
});
export const PlatformIdParam = Type.Object({ id: PlatformId });
/** Input dates and times are bounded to years 1900-9999 (`x-date-bounds`, src/http/validation.ts). */
export const Timestamp = Type.String({ format: "date-time", "x-date-bounds": true });
export const DateString = Type.String({ format: "date", "x-date-bounds": true });
/** A decimal string as the service reads and writes it (src/domain/money.ts). */
export const DECIMAL_PATTERN = "^-?\\d+(\\.\\d+)?$";
export const CURRENCY_PATTERN = "^[A-Z]{3}$";

/**
 * Rules the domain checks with its own detail codes (`invalid_decimal`, `invalid_value`), told to the
 * document's readers as JSON Schema: the validator ignores `x-openapi`, the document merges it in
 * (src/http/openapi/request-schemas.ts), so what the server accepts and answers stays the domain's.
 */
export function documentedRules(rules: Record<string, unknown>): { "x-openapi": Record<string, unknown> } {
  return { "x-openapi": rules };
}

/** Money on input: a JSON number or a decimal string (the contract accepts both). */
export const MoneyInput = Type.Unsafe<number | string>({
  type: ["number", "string"],
  description: "A decimal amount, as a JSON number or a decimal string.",
  ...documentedRules({ pattern: DECIMAL_PATTERN }),
});
/** Money on output: always a decimal string. */
export const Money = Type.String({
  description: "Decimal amount",
  examples: ["12.50"],
  pattern: DECIMAL_PATTERN,
});

/**
 * A response string from a closed list: the document names the values a client can meet (typed as a
 * plain string, so presenters need no narrowing; serialization ignores `enum`).
 */
export function OneOf(values: readonly string[]) {
  return Type.Unsafe<string>({ type: "string", enum: [...values] });
}

/**
 * Where a record came from. Every record this service writes today says `api` (the console writes
 * through the API too); the list grows when another source writes records, as an additive change.
 */
export const RecordSource = Type.Unsafe<string>({
  type: "string",
  enum: ["api"],
  description: "Where the record came from: `api` for everything written through this API.",
});

export const ErrorBody = Named(
  "Error",
  Type.Object({
    error: Type.Object({
      code: OneOf(ERROR_CODES),
      message: Type.String(),
      details: Type.Optional(
        Type.Array(Type.Object({ field: Type.String(), code: Type.String(), message: Type.String() })),
      ),
    }),
  }),
);

export const PagingQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 250, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 2048 })),
  updated_at_min: Type.Optional(Timestamp),
  updated_at_max: Type.Optional(Timestamp),
  created_at_min: Type.Optional(Timestamp),
  created_at_max: Type.Optional(Timestamp),
};
export const PagingOnlyQuery = Type.Object(PagingQuery, { additionalProperties: false });
export type PagingParams = Static<typeof PagingOnlyQuery>;

/** A page of a list; a page of a named shape is named after it (`SupplierPage`). */
export function Page<T extends TSchema>(item: T) {
  const page = Type.Object({
    data: Type.Array(item),
    next_cursor: Nullable(Type.String()),
    has_more: Type.Boolean(),
  });
  const itemName = (item as Record<string, unknown>)[COMPONENT_MARK];
  return typeof itemName === "string" ? Named(`${itemName}Page`, page) : page;
}

export function DataOf<T extends TSchema>(item: T) {
  return Type.Object({ data: item });
}

/** Responses every authenticated route may give; merged into each route's `response` map. */
export const commonErrorResponses = {
  400: ErrorBody,
  401: ErrorBody,
  402: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  413: ErrorBody,
  415: ErrorBody,
  422: ErrorBody,
  429: ErrorBody,
  500: ErrorBody,
};
