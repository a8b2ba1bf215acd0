import { type Compilable, CompiledQuery } from "kysely";
import type { Db } from "../../src/db/database.ts";

/** EXPLAIN ANALYZE of a Kysely query (the one a route runs), with its parameters shown. */
export async function explain(db: Db, query: Compilable): Promise<string> {
  const compiled = query.compile();
  const result = await db.executeQuery<Record<string, string>>(
    CompiledQuery.raw(`explain (analyze, costs off, timing off, summary off) ${compiled.sql}`, [
      ...compiled.parameters,
    ]),
  );
  const plan = result.rows.map((r) => Object.values(r)[0]).join("\n");
  const params = compiled.parameters.map((p, i) => `$${i + 1} = ${JSON.stringify(p)}`).join(", ");
  return `${compiled.sql}\n  -- ${params}\n${plan}`;
}
