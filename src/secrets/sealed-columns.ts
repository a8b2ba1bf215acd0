/**
 * A column holding sealed values, as its owning module offers it to the start-up pass (secrets/startup.ts),
 * which re-seals and checks every one. The owner alone reads and writes its table; a new kind of sealed
 * value (platform access tokens) offers one more of these, listed in src/runtime.ts.
 */
import type { Db } from "../db/database.ts";

/** One sealed value, the context it is sealed with, and whatever the owner needs to write it back. */
export interface SealedRow {
  sealed: string;
  context: string;
  ref: unknown;
}

export interface SealedColumn {
  /** What the rows are, for the refusal message ("webhook signing secrets"). */
  label: string;
  /** `like` patterns of the values sealed before the key left the database (secrets/legacy.ts). */
  legacyPatterns: readonly string[];
  /** Up to `limit` rows whose value matches the `like` pattern, locked for update in `trx`. */
  lockMatching(trx: Db, pattern: string, limit: number): Promise<SealedRow[]>;
  /** Writes re-sealed values back (`sealed` replaced), in one statement. */
  write(trx: Db, rows: readonly SealedRow[]): Promise<void>;
  /** Whether a value is deflated before it is sealed (as its owner seals it when writing); default no. */
  compress?(plain: string): boolean;
  /** How many values do not match the `like` pattern, by their first two dot-separated parts. */
  countNotMatching(db: Db, pattern: string): Promise<Array<{ prefix: string; count: number }>>;
}
