/**
 * A count of the writes to what authentication reads (a key's row, its store's row), kept by this
 * process. The embedded database's authentication cache (src/http/plugins/auth-cache.ts) keeps a
 * looked-up key only while this count is unchanged, so every change made here (a key created or
 * revoked, a store created, changed by the admin API or the console, or erased) empties it before the
 * change's caller answers. Only this module writes `stores` and `api_keys` (`npm run lint` checks), so
 * counting here sees every write of this process.
 *
 * One count for the process, not per database: tests run many services in one process, and a write to
 * one database emptying another's cache costs a lookup, never a wrong answer.
 *
 * Not counted, because authentication reads neither: a key's `last_used_at` (the request log's flush,
 * several times a second under load) and a store's document numbering.
 */
let writes = 0;

/** Called after each write of a key's or a store's row that authentication may read. */
export function authRowsWritten(): void {
  writes++;
}

/** The writes so far: a lookup read at one count may be kept only while the count is the same. */
export function authRowsVersion(): number {
  return writes;
}
