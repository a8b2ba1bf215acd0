import { sql } from "kysely";
import type { Db } from "../../db/database.ts";
import { hotQuery } from "../../db/prepared.ts";

/**
 * The key (by its hash) joined to its store, as one JSON text written by the database (`key_json`).
 * Every /v2 request starts with this lookup, and `pg` handles each column of each execution on the
 * event loop: the RowDescription's field, a parser per field, a value each (a Date for a timestamp, an
 * array parsed from its text). Read as 15 columns it cost every request that; one text column and one
 * `JSON.parse` cost less (docs/history/performance-journal.md, "The key lookup as one text"). The expiry is
 * epoch milliseconds (truncated as pg's Date parsing truncates), the revocation only whether there is one.
 */
const keyJson = sql<string>`concat(
  '{"key_id":', k.id, ',"key_name":', to_json(k.name), ',"prefix":', to_json(k.prefix),
  ',"scopes":', to_json(k.scopes),
  ',"expires_at":', coalesce(floor(extract(epoch from k.expires_at) * 1000)::text, 'null'),
  ',"revoked":', to_json(k.revoked_at is not null),
  ',"store_id":', s.id, ',"store_name":', to_json(s.name), ',"domain":', to_json(s.domain),
  ',"currency":', to_json(s.currency), ',"timezone":', to_json(s.timezone),
  ',"api_access":', to_json(s.api_access),
  ',"rate_per_key_per_minute":', s.rate_per_key_per_minute,
  ',"rate_per_store_per_minute":', s.rate_per_store_per_minute,
  ',"rate_writes_per_store_per_minute":', s.rate_writes_per_store_per_minute, '}')`;

/** What `key_json` holds. */
export interface KeyRecord {
  key_id: number;
  key_name: string;
  prefix: string;
  scopes: string[];
  /** Epoch milliseconds, or null when the key does not expire. */
  expires_at: number | null;
  revoked: boolean;
  store_id: number;
  store_name: string;
  domain: string;
  currency: string;
  timezone: string;
  api_access: boolean;
  rate_per_key_per_minute: number;
  rate_per_store_per_minute: number;
  rate_writes_per_store_per_minute: number;
}

const keyRow = (db: Db) =>
  db
    .selectFrom("api_keys as k")
    .innerJoin("stores as s", "s.id", "k.store_id")
    .select(keyJson.as("key_json"))
    .where("k.key_hash", "=", "");

/** The lookup: one indexed read, compiled once and prepared on each PostgreSQL connection. */
export const keyLookup = hotQuery("stockroom_auth_key", keyRow);

/**
 * The same with the store's id beside the text, for keyLookupBeside (db/prepared.ts), whose record
 * reads on the key's store; never run alone.
 */
export const keyLookupWithStore = hotQuery("stockroom_auth_key_store", (db: Db) =>
  keyRow(db).select("s.id as store_id"),
);

export function keyRecordOf(keyJsonText: string): KeyRecord {
  return JSON.parse(keyJsonText) as KeyRecord;
}
