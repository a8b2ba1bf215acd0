/**
 * A fingerprint of everything a request could write: per table of the service's schema, the row count
 * and the newest row version (`xmin`), in one query. Two equal fingerprints mean no row was inserted,
 * updated or deleted in between. Left out: the request log and the idempotency records (every request
 * writes them by design, refusals included) and api_keys (last use).
 */
import { sql } from "kysely";
import type { Db } from "../../../src/db/database.ts";

const NOT_DATA = new Set([
  "request_log",
  "idempotency_keys",
  "api_keys",
  "kysely_migration",
  "kysely_migration_lock",
]);

export async function fingerprinter(db: Db): Promise<() => Promise<Record<string, string>>> {
  const tables = (
    await sql<{ name: string }>`
      select table_name as name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(db)
  ).rows
    .map((r) => r.name)
    .filter((name) => !NOT_DATA.has(name));
  const query = sql.raw(
    `select ${tables
      .map(
        (t) =>
          `(select count(*)::text || '/' || coalesce(max(xmin::text::bigint), 0)::text from "${t}") as "${t}"`,
      )
      .join(", ")}`,
  );
  return async () => (await query.execute(db)).rows[0] as Record<string, string>;
}

/** Names of the tables whose fingerprint differs. */
export function changedTables(before: Record<string, string>, after: Record<string, string>): string[] {
  return Object.keys(after).filter((k) => before[k] !== after[k]);
}
