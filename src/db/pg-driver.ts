import { createRequire } from "node:module";
import type Pg from "pg";

/**
 * The PostgreSQL driver, required on first use rather than imported at the top: a process on the
 * embedded database (the default, every PGlite test file, the CLI) never opens a PostgreSQL
 * connection, and loading pg cost each of them ~0.1 s of CPU (docs/developing.md).
 */
let driver: typeof Pg | undefined;

// Ids are `integer`, counts come back as int8: read int8 as a JS number (never above 2^53 here),
// dates as plain `YYYY-MM-DD` strings (a Date would shift them by the host's timezone), numerics as
// strings so money never passes through a float. The parsers are the driver's, process-wide.
const INT8 = 20;
const DATE = 1082;
const NUMERIC = 1700;

export function pgDriver(): typeof Pg {
  if (driver) return driver;
  const pg = createRequire(import.meta.url)("pg") as typeof Pg;
  pg.types.setTypeParser(INT8, (v) => Number(v));
  pg.types.setTypeParser(DATE, (v) => v);
  pg.types.setTypeParser(NUMERIC, (v) => v);
  driver = pg;
  return pg;
}

/**
 * Whether `error` is a statement's own error from the server (the connection stays usable), as
 * opposed to a lost connection. False when the driver was never loaded: then nothing of it ran.
 */
export function isServerError(error: unknown): boolean {
  return driver !== undefined && error instanceof driver.DatabaseError;
}
