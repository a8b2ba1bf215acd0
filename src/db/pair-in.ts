import { type RawBuilder, sql } from "kysely";

/**
 * Matches many (a, b) pairs with array parameters:
 *
 *   a = any($distinct_a) and b = any($distinct_b)
 *   and (a, b) in (select * from unnest($a::bigint[], $b::bigint[]))
 *
 * The `= any` conditions let the planner walk an index on (…, a, b) for exactly the values asked for,
 * whatever its statistics say (PGlite never gathers any: without them it hash-joined the pairs against
 * every level row of the store); the unnest keeps the match exact when the two lists cross. A literal
 * list of row tuples would become a deep OR tree that exhausts the planner's stack on PGlite beyond a
 * few hundred pairs; this stays flat at any size.
 */
export function pairIn(
  first: string,
  second: string,
  pairs: ReadonlyArray<readonly [number, number]>,
): RawBuilder<boolean> {
  const firsts = pairs.map((p) => p[0]);
  const seconds = pairs.map((p) => p[1]);
  const a = sql.ref(first);
  const b = sql.ref(second);
  return sql<boolean>`(${a} = any(${[...new Set(firsts)]}::bigint[]) and ${b} = any(${[...new Set(seconds)]}::bigint[])
    and (${a}, ${b}) in (select * from unnest(${firsts}::bigint[], ${seconds}::bigint[])))`;
}
