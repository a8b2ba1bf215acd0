import type { PGlite } from "@electric-sql/pglite";
import {
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from "kysely";

/**
 * Kysely's own PGlite dialect needs Node 22, so this is ours. PGlite is one connection: a transaction
 * must own it exclusively, so connections are handed out one at a time through a FIFO lock. A caller
 * that waits too long almost certainly queried `db` while holding a transaction (a deadlock on PGlite,
 * a second connection on PostgreSQL), so the wait fails loudly instead of hanging.
 */
export class PGliteDialect implements Dialect {
  constructor(private readonly pglite: PGlite) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.pglite);
  }
  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}

const ACQUIRE_TIMEOUT_MS = 60_000;

class PGliteDriver implements Driver {
  private readonly connection: PGliteConnection;
  private locked = false;
  private readonly waiters: Array<() => void> = [];

  constructor(pglite: PGlite) {
    this.connection = new PGliteConnection(pglite);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    if (!this.locked) {
      this.locked = true;
      return this.connection;
    }
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const index = this.waiters.indexOf(grant);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(new Error("PGlite connection wait timed out (query outside its transaction?)"));
      }, ACQUIRE_TIMEOUT_MS);
      const grant = () => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push(grant);
    });
    return this.connection;
  }

  async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const level = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : "";
    await conn.executeQuery({
      sql: `begin${level}`,
      parameters: [],
      query: undefined as never,
      queryId: undefined as never,
    });
  }

  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery({
      sql: "commit",
      parameters: [],
      query: undefined as never,
      queryId: undefined as never,
    });
  }

  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery({
      sql: "rollback",
      parameters: [],
      query: undefined as never,
      queryId: undefined as never,
    });
  }

  async releaseConnection(): Promise<void> {
    const next = this.waiters.shift();
    if (next) next();
    else this.locked = false;
  }

  async destroy(): Promise<void> {}
}

class PGliteConnection implements DatabaseConnection {
  constructor(private readonly pglite: PGlite) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.pglite.query<R>(compiled.sql, compiled.parameters as unknown[]);
    const affected = result.affectedRows;
    return {
      rows: result.rows,
      numAffectedRows: affected === undefined ? undefined : BigInt(affected),
    };
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered on PGlite
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("streaming queries are not supported on PGlite");
  }
}
