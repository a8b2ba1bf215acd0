import { type RawBuilder, sql } from "kysely";

/**
 * `(a, b) in (select * from unnest($1::bigint[], $2::bigint[]))`: matches many (item, location) pairs
 * with two array parameters. A literal list of row tuples becomes a deep OR tree that exhausts the
 * planner's stack on PGlite beyond a few hundred pairs; this stays flat at any size.
 */
export function pairIn(
  first: string,
  second: string,
  pairs: ReadonlyArray<readonly [number, number]>,
): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(first)}, ${sql.ref(second)}) in (select * from unnest(${pairs.map((p) => p[0])}::bigint[], ${pairs.map((p) => p[1])}::bigint[]))`;
}
