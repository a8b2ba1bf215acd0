import { type RawBuilder, sql } from "kysely";
import { PLANNED_FROM_ARRAY_LENGTH } from "./planned-arrays.ts";
import type { Database } from "./schema.ts";

/** Element types an array parameter is cast to. */
export type ElementType =
  | "int"
  | "bigint"
  | "text"
  | "numeric"
  | "boolean"
  | "timestamptz"
  | "date"
  | "jsonb";

/** A table of the schema. */
export type TableName = keyof Database & string;

/** The columns of `T` (of any of them, when T is a union): a misspelt column fails typecheck. */
export type ColumnName<T extends TableName> = T extends TableName ? keyof Database[T] & string : never;

/**
 * One column of a bulk statement: its name, its type, and how to read it from a row. `N` is what the
 * name may be: a column of the target table for an insert; any label for an unnest read as `c(a, b)`.
 */
export type BulkColumn<R, N extends string = string> = readonly [
  name: N,
  type: ElementType,
  value: (row: R) => unknown,
];

/** Element types written bare in an array literal when given as numbers. */
const NUMBER_TYPES = new Set<ElementType>(["int", "bigint", "numeric"]);
/** What must be backslashed inside a quoted array element. */
const NEEDS_ESCAPE = /[\\"]/;
const ESCAPED = /[\\"]/g;

/**
 * An array parameter as PostgreSQL's array literal text (`{1,2,NULL}`, `{"a b","c\\"d"}`), made here
 * in one pass and sent as one text value. Given a JavaScript array, node-postgres builds the same
 * literal itself, but quotes every element and runs two regular expressions over each (a 50-line
 * receipt's ~700 elements, a 200-line apply's ~2,800); PGlite passes a text value through as it is.
 * The server parses the literal as the cast's element type, so what is stored is the same. Elements:
 * null and undefined are NULL; a Date its ISO text (each driver would format a Date its own way); a
 * JSON value not given as text its JSON; a boolean t or f; a number of a numeric type bare; anything
 * else its text, quoted.
 */
export function arrayLiteral(type: ElementType, values: readonly unknown[]): string {
  const n = values.length;
  if (n === 0) return "{}";
  // A column with one value in every row (a store id, a time, a reference: most of a receipt's and
  // an apply's columns) is that element repeated, written once.
  const first = values[0];
  let same = true;
  for (let i = 1; i < n && same; i++) same = values[i] === first;
  if (same) {
    const one = arrayElement(type, first);
    return `{${`${one},`.repeat(n - 1)}${one}}`;
  }
  let out = "{";
  for (let i = 0; i < n; i++) {
    if (i > 0) out += ",";
    out += arrayElement(type, values[i]);
  }
  return `${out}}`;
}

/** One element of an array literal (see arrayLiteral). */
function arrayElement(type: ElementType, value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number" && NUMBER_TYPES.has(type)) return String(value);
  if (typeof value === "boolean") return value ? "t" : "f";
  const text =
    value instanceof Date
      ? value.toISOString()
      : type === "jsonb" && typeof value !== "string"
        ? JSON.stringify(value)
        : String(value);
  return NEEDS_ESCAPE.test(text) ? `"${text.replace(ESCAPED, "\\$&")}"` : `"${text}"`;
}

/**
 * `$n::type[]` for an array of values: one text parameter (see arrayLiteral). An array longer than
 * PLANNED_FROM_ARRAY_LENGTH is passed as an array: the embedded database plans a statement with such
 * a parameter anew with its values (pglite-statements.ts), which it cannot tell from a text.
 */
export function arrayParam(type: ElementType, values: readonly unknown[]): RawBuilder<unknown> {
  return sql`${arrayValue(type, values)}::${sql.raw(type)}[]`;
}

/** The value of an array parameter as arrayParam passes it, for a statement written as text (`$n::type[]`). */
export function arrayValue(type: ElementType, values: readonly unknown[]): unknown {
  return values.length > PLANNED_FROM_ARRAY_LENGTH
    ? values.map((v) => element(type, v))
    : arrayLiteral(type, values);
}

/** An element of an array passed as an array: what arrayLiteral writes for it, unquoted. */
function element(type: ElementType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (type === "jsonb" && typeof value !== "string") return JSON.stringify(value);
  return value;
}

/**
 * `select * from unnest($1::int[], $2::text[], …)`: many rows as one array parameter per column.
 * Sending a few arrays costs a fraction of a VALUES list of rows × columns parameters (on PGlite a
 * 50-row insert takes half the time), and the statement text is the same whatever the row count.
 */
export function unnestRows<R>(
  rows: readonly R[],
  columns: ReadonlyArray<BulkColumn<R>>,
): RawBuilder<unknown> {
  const arrays = columns.map(([, type, value]) => arrayParam(type, rows.map(value)));
  return sql`select * from unnest(${sql.join(arrays)})`;
}

/** The column list of `columns`, for `insert into t (…) select * from unnest(…)`. */
export function columnList<R>(columns: ReadonlyArray<BulkColumn<R>>): RawBuilder<unknown> {
  return sql.join(columns.map(([name]) => sql.ref(name)));
}

/**
 * `insert into table (…) select * from unnest(…)`; add `returning` or `on conflict` with `tail`.
 * Rows are inserted (and returned) in the order given. `table` may name an alias ("t as x") for the
 * conflict clause to refer to the existing row. The column names are checked against the table's (with
 * explicit type arguments <R, O>, against every table's: leave them to inference, giving the returned
 * row type through `sql<O>` in `tail`, for the exact check).
 */
export function insertRows<R, O = unknown, T extends TableName = TableName>(
  table: T | `${T} as ${string}`,
  rows: readonly R[],
  columns: ReadonlyArray<BulkColumn<R, ColumnName<T>>>,
  tail: RawBuilder<O> = sql``,
): RawBuilder<O> {
  const [name, alias] = table.split(/\s+as\s+/i);
  const target = alias ? sql`${sql.table(name)} as ${sql.id(alias)}` : sql.table(name);
  return sql<O>`insert into ${target} (${columnList(columns)}) ${unnestRows(rows, columns)} ${tail}`;
}
