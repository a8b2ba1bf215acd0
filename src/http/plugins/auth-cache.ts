/**
 * Authenticated keys kept in process: a key's row joined to its store's, as authentication reads it,
 * by the key's hash, so a key in use is authenticated without a statement.
 *
 * On the embedded database every statement waits for the one connection, and a running statement
 * cannot be interrupted: another store's 500-line read or PATCH transaction held it for tens of
 * milliseconds, and every other store's request waited that long just to be authenticated (issue 18
 * item 2). On PostgreSQL the lookup is a round trip on every request, and beside heavy requests its
 * wait for the server is what a light one like GET /whoami mostly waits for (issue 22 item 4).
 *
 * Exact for this process's writes: a row is kept only while the stores module's count of writes to
 * keys and stores (domain/stores/auth-rows.ts) has not moved since it was read, and the count moves
 * after each such write and before its caller answers, so the request after a revocation, API access
 * turned off, new rate limits or a store erased reads the database again. On PGlite that is every
 * write (the database is this process's alone). On PostgreSQL other processes (other API processes,
 * a separate worker) write the same rows without this count seeing it, so there a row is also kept
 * for at most `maxAgeMs` after its read began (auth.ts: one second), the bound docs/decisions.md
 * gives for a change made through another process.
 *
 * A key whose hash is not found is not kept: a new key works at once, and made-up keys fill nothing.
 *
 * With a bound, a key in use is read again in the background once its row is half the bound old (one
 * read at a time per key): the request that finds it so is answered from the kept row, which is still
 * within the bound, and the fresh row replaces it when it arrives. A key used more often than every
 * half bound is then never read inside a request; at the bound's one read a second per key, that read
 * fell on one request in a hundred of a key sending every 10 ms, i.e. at its p99 (issue 18 item 2).
 */

/** Keys kept at most; past it, the one kept longest goes. A store rarely has more than a few keys. */
const MAX_KEYS = 10_000;

export interface AuthKeyCacheOptions {
  maxKeys?: number;
  /** How long after its read began a row may answer; no bound when absent (PGlite). */
  maxAgeMs?: number;
  /** The clock the age is read from, in milliseconds (the service's clock). */
  now?: () => number;
}

interface Kept<Row> {
  row: Readonly<Row>;
  /** When its read began (`now()`): the row is at least as new as that. */
  readAt: number;
}

export class AuthKeyCache<Row extends object> {
  private readonly rows = new Map<string, Kept<Row>>();
  private version: number;
  private readonly maxKeys: number;
  private readonly maxAgeMs: number | undefined;
  private readonly now: () => number;
  /** Keys whose row is being read again in the background. */
  private readonly refreshing = new Set<string>();

  constructor(
    /** The stores module's write count (authRowsVersion). */
    private readonly writes: () => number,
    options: AuthKeyCacheOptions = {},
  ) {
    this.version = writes();
    this.maxKeys = options.maxKeys ?? MAX_KEYS;
    this.maxAgeMs = options.maxAgeMs;
    this.now = options.now ?? Date.now;
  }

  /** The key's row: kept if nothing was written since (and it is young enough), else `read` and kept. */
  async lookup(hash: string, read: () => Promise<Row | undefined>): Promise<Readonly<Row> | undefined> {
    const before = this.writes();
    if (before !== this.version) {
      this.rows.clear();
      this.version = before;
    }
    const kept = this.rows.get(hash);
    const readAt = this.maxAgeMs === undefined ? 0 : this.now();
    if (kept && this.young(kept, readAt)) {
      if (this.maxAgeMs !== undefined && readAt - kept.readAt >= this.maxAgeMs / 2)
        this.refresh(hash, read, before, readAt);
      return kept.row;
    }
    const row = await read();
    this.keep(hash, row, before, readAt);
    return row;
  }

  /** Reads `hash`'s row again without anyone waiting for it, unless such a read is under way. */
  private refresh(hash: string, read: () => Promise<Row | undefined>, before: number, readAt: number): void {
    if (this.refreshing.has(hash)) return;
    this.refreshing.add(hash);
    read()
      .then((row) => {
        // Gone meanwhile (the key deleted): the next request reads it and is refused.
        if (!row && this.version === before) this.rows.delete(hash);
        this.keep(hash, row, before, readAt);
      })
      // A failed read changes nothing: the kept row answers until its bound, then a request reads.
      .catch(() => {})
      .finally(() => this.refreshing.delete(hash));
  }

  /**
   * Keeps a row read from `readAt` on. A write between the read and now may have changed what was
   * read (a revocation committing right after it): such a row serves the request it was read for,
   * which was under way before the write answered, but is not kept for the next.
   */
  private keep(hash: string, row: Row | undefined, before: number, readAt: number): void {
    if (!row || this.writes() !== before || this.version !== before) return;
    this.rows.delete(hash);
    if (this.rows.size >= this.maxKeys) this.rows.delete(this.rows.keys().next().value as string);
    this.rows.set(hash, { row: Object.freeze(row), readAt });
  }

  /** Whether a kept row may still answer at `now` (a clock set back counts as too old). */
  private young(kept: Kept<Row>, now: number): boolean {
    if (this.maxAgeMs === undefined) return true;
    const age = now - kept.readAt;
    return age >= 0 && age < this.maxAgeMs;
  }

  /** How many keys are kept (for tests). */
  get size(): number {
    return this.rows.size;
  }
}
