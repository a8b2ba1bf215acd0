import { type RawBuilder, sql } from "kysely";
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

/**
 * An array element as the drivers serialise it the same way: instants as ISO text (a Date inside an
 * array would be formatted by each driver in its own way), JSON values as their text.
 */
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
  const arrays = columns.map(([, type, value]) => {
    const values = rows.map((row) => element(type, value(row)));
    return sql`${values}::${sql.raw(type)}[]`;
  });
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
