import type { Worker } from "node:worker_threads";
import { keepHoldAfterThreadStart } from "../start-memory.ts";
import { startThread } from "../thread-entry.ts";

/**
 * The embedded database (PGlite) on a thread of its own (pglite-worker.ts). PGlite is PostgreSQL
 * compiled to WebAssembly: a query runs synchronously on the thread that holds it, so on the API's
 * thread every query of every store held the event loop, and one key reading 500-line orders made
 * another store's `GET /whoami` wait hundreds of milliseconds (issue 18 item 2). Here the API's
 * thread only sends the statement and receives the rows (a structured copy).
 */

export interface PGliteThreadOptions {
  /** The data directory; undefined for an in-memory database. */
  dataDir: string | undefined;
  /**
   * In memory only: the files to start from (a tar of a data directory, PGlite's `dumpDataDir`)
   * instead of running initdb. Tests start every app from one migrated copy (test/helpers).
   */
  loadDataDir?: Uint8Array<ArrayBuffer>;
}

/**
 * A statement with a name (a hot query's, db/prepared.ts) is sent by its name once its text has been
 * sent: the thread keeps the text, so neither side copies it across again, nor does the thread hash
 * and scan a fresh copy of it (some are several kilobytes) to find its prepared statement.
 */
export type PGliteRequest =
  | { id: number; sql: string; name?: string; parameters: unknown[]; begin?: string; close?: undefined }
  | { id: number; name: string; sql?: undefined; parameters: unknown[]; begin?: string; close?: undefined }
  | { id: number; close: true; sql?: undefined; name?: undefined; parameters?: undefined; begin?: undefined };

export type PGliteResponse =
  | { id: number; rows: unknown[]; affectedRows?: number }
  | { id: number; error: { message: string; fields?: Record<string, string> } };

type Message = PGliteResponse | { ready: true } | { failed: string };

export interface QueryResultRows<R> {
  rows: R[];
  affectedRows?: number;
}

/**
 * The thread's JavaScript does little (it passes statements and rows; PostgreSQL's own memory is the
 * WebAssembly heap, outside these limits), so a small young generation is enough: V8's default
 * (16 MB semi-spaces) kept ~25 MB more resident at idle for nothing.
 */
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 4 };

/** The database's thread (thread-entry.ts: the bundle, the test run's compiled entry, or tsx). */
function startWorker(options: PGliteThreadOptions): Worker {
  return startThread(import.meta.url, "pglite-worker", {
    workerData: options,
    resourceLimits: THREAD_LIMITS,
  });
}

/** A transaction's opening statement (the dialect's `begin`, with or without an isolation level). */
const BEGIN = /^\s*begin\b/i;

/** An Error as PostgreSQL's driver would throw it: the message, with `code` (SQLSTATE) and friends. */
function databaseError(error: { message: string; fields?: Record<string, string> }): Error {
  return Object.assign(new Error(error.message), error.fields ?? {});
}

export class PGliteThread {
  private readonly worker: Worker;
  private readonly pending = new Map<
    number,
    { resolve(r: QueryResultRows<unknown>): void; reject(e: Error): void }
  >();
  private nextId = 1;
  /** A BEGIN not sent yet: it goes with the transaction's first statement (see query()). */
  private deferredBegin: string | undefined;
  /** Names whose text the thread has (PGliteRequest). */
  private readonly named = new Set<string>();
  private dead: Error | null = null;
  readonly waitReady: Promise<void>;

  constructor(options: PGliteThreadOptions) {
    this.worker = startWorker(options);
    this.worker.once("online", keepHoldAfterThreadStart);
    // The thread keeps the process alive only while a statement is on its way (see track()).
    this.worker.unref();
    this.waitReady = new Promise<void>((resolve, reject) => {
      this.worker.on("message", (message: Message) => {
        if ("ready" in message) return resolve();
        if ("failed" in message)
          return this.fail(new Error(`the embedded database did not start: ${message.failed}`), reject);
        const waiter = this.pending.get(message.id);
        if (!waiter) return;
        this.pending.delete(message.id);
        this.track();
        if ("error" in message) waiter.reject(databaseError(message.error));
        else waiter.resolve({ rows: message.rows, affectedRows: message.affectedRows });
      });
      this.worker.on("error", (error) => this.fail(error, reject));
      this.worker.on("exit", (code) =>
        this.fail(new Error(`the embedded database's thread exited (${code})`), reject),
      );
    });
    this.worker.ref();
    this.waitReady.then(
      () => this.track(),
      () => {},
    );
  }

  /**
   * Runs one statement on the thread. A BEGIN is answered at once and sent ahead of the next
   * statement, in the same message: one crossing to the thread and back fewer for every transaction.
   * Nothing can run between the two, since the connection's holder sends the next statement (the
   * dialect's turns) and the thread runs its messages in order; PostgreSQL takes the transaction's
   * snapshot at its first statement, not at BEGIN. A BEGIN that fails (it does not: PostgreSQL only
   * warns about one inside a transaction) fails that next statement.
   */
  query<R>(sql: string, parameters: unknown[] = [], name?: string): Promise<QueryResultRows<R>> {
    if (parameters.length === 0 && BEGIN.test(sql) && this.deferredBegin === undefined && !this.dead) {
      this.deferredBegin = sql;
      return Promise.resolve({ rows: [] });
    }
    const begin = this.deferredBegin;
    this.deferredBegin = undefined;
    const id = this.nextId++;
    if (name === undefined) return this.send({ id, sql, parameters, begin }) as Promise<QueryResultRows<R>>;
    if (this.named.has(name))
      return this.send({ id, name, parameters, begin }) as Promise<QueryResultRows<R>>;
    this.named.add(name);
    return this.send({ id, sql, name, parameters, begin }) as Promise<QueryResultRows<R>>;
  }

  /** Closes the database (its files are left consistent) and stops the thread. */
  async close(): Promise<void> {
    if (!this.dead) await this.send({ id: this.nextId++, close: true }).catch(() => {});
    this.dead ??= new Error("the embedded database is closed");
    this.worker.removeAllListeners("exit");
    await this.worker.terminate();
  }

  private send(request: PGliteRequest): Promise<QueryResultRows<unknown>> {
    if (this.dead) return Promise.reject(this.dead);
    return new Promise((resolve, reject) => {
      this.pending.set(request.id, { resolve, reject });
      this.track();
      this.worker.postMessage(request);
    });
  }

  /** Referenced while statements are pending (an await on one must keep the process alive), else not. */
  private track(): void {
    if (this.pending.size > 0) this.worker.ref();
    else this.worker.unref();
  }

  private fail(error: Error, reject: (e: Error) => void): void {
    this.dead ??= error;
    reject(error);
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
    this.track();
  }
}
