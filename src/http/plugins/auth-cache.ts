/**
 * The embedded database's cache of authenticated keys: a key's row joined to its store's, as
 * authentication reads it, by the key's hash. On PGlite every statement waits for the one connection,
 * and a running statement cannot be interrupted: another store's 500-line read or PATCH transaction
 * held it for tens of milliseconds, and every other store's request waited that long just to be
 * authenticated (issue 18 item 2). A cached key is authenticated without the database.
 *
 * Exact, not a time-to-live: a row is kept only while the stores module's count of writes to keys and
 * stores (domain/stores/auth-rows.ts) has not moved since it was read, and the count moves after each
 * such write and before its caller answers, so the request after a revocation, API access turned off,
 * new rate limits or a store erased reads the database again. That holds because PGlite is this
 * process's alone: nothing else writes its rows. On PostgreSQL other processes (API and workers) write
 * the same rows, so there is no cache (auth.ts).
 *
 * A key whose hash is not found is not kept: a new key works at once, and made-up keys fill nothing.
 */

/** Keys kept at most; past it, the one kept longest goes. A store rarely has more than a few keys. */
const MAX_KEYS = 10_000;

export class AuthKeyCache<Row extends object> {
  private readonly rows = new Map<string, Readonly<Row>>();
  private version: number;

  constructor(
    /** The stores module's write count (authRowsVersion). */
    private readonly writes: () => number,
    private readonly maxKeys = MAX_KEYS,
  ) {
    this.version = writes();
  }

  /** The key's row: kept if nothing was written since, else `read` from the database (and kept). */
  async lookup(hash: string, read: () => Promise<Row | undefined>): Promise<Readonly<Row> | undefined> {
    const before = this.writes();
    if (before !== this.version) {
      this.rows.clear();
      this.version = before;
    }
    const kept = this.rows.get(hash);
    if (kept) return kept;
    const row = await read();
    // A write between the read and now may have changed what was read (a revocation committing right
    // after it): such a row serves this request, which was under way before the write answered, but
    // is not kept for the next.
    if (row && this.writes() === before && this.version === before) {
      if (this.rows.size >= this.maxKeys) this.rows.delete(this.rows.keys().next().value as string);
      this.rows.set(hash, Object.freeze(row));
    }
    return row;
  }

  /** How many keys are kept (for tests). */
  get size(): number {
    return this.rows.size;
  }
}
