import {
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresQueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from "kysely";
import { CurrentSchemaIntrospector } from "./introspector.ts";
import type { PGliteThread } from "./pglite-thread.ts";
import { currentDatabaseWaits, type DatabaseWaits } from "./pglite-waits.ts";

/**
 * Kysely's own PGlite dialect needs Node 22, so this is ours. PGlite is one connection: a transaction
 * must own it exclusively, so connections are handed out one at a time by a ConnectionTurns shared by
 * every Kysely instance over the same PGlite. A caller that waits too long almost certainly queried
 * `db` while holding a transaction (a deadlock on PGlite, a second connection on PostgreSQL), so the
 * wait fails loudly instead of hanging.
 */
export class PGliteDialect implements Dialect {
  constructor(
    private readonly pglite: PGliteThread,
    private readonly turns: ConnectionTurns,
    private readonly lane: Lane,
  ) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.pglite, this.turns, this.lane);
  }
  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}

const ACQUIRE_TIMEOUT_MS = 60_000;

/**
 * Who asks for the connection: API requests, the worker (jobs and periodic tasks), or the hot
 * single-statement lookups every request starts with (db/prepared.ts: authentication), which go
 * ahead of the queue.
 */
export type Lane = "foreground" | "background" | "priority";

/**
 * Priority statements handed the connection in a row while others wait, before one of the others
 * goes: a flood of requests with made-up keys (each one lookup) cannot hold the queue back for good.
 */
const MAX_PRIORITY_RUN = 8;

/** How far one lane may get ahead of the other in connection time before the other is served. */
const MAX_LEAD_MS = 200;

/**
 * Turns on the one PGlite connection. Each lane waits in its own first-come queue; while both have
 * someone waiting, the lane that has held the connection for less time goes next (the lead is
 * bounded, so a lane that was idle for an hour does not then own the connection for an hour). A
 * burst of API requests therefore cannot hold back the worker's platform pushes for as long as the
 * burst lasts, nor the worker the API: under sustained load the background keeps up and the API
 * slows down instead, which is the rate the service can actually sustain.
 *
 * A priority statement (one indexed lookup that every request of every store starts with) goes
 * before every waiting foreground or background turn: one key's line-heavy request issues several
 * statements at once (an order's lines, charges, receipts, payments), and another store's
 * `GET /whoami` queued behind all of them waited for each (issue 18 item 2). It still waits for the
 * statement or transaction holding the connection: PGlite is one session and a transaction cannot be
 * interleaved. Priority time counts as foreground time.
 *
 * The connection is handed over on the next turn of the event loop (setImmediate), not inside the
 * releasing promise chain: PGlite answers without real I/O, so a chain of hand-overs would otherwise
 * run every waiting transaction before Node read another socket, and requests arriving meanwhile
 * waited seconds before they were even parsed.
 */
export class ConnectionTurns {
  private busy = false;
  private readonly waiting: Record<Lane, Array<() => void>> = {
    foreground: [],
    background: [],
    priority: [],
  };
  private holder: Lane = "foreground";
  /** Priority turns handed over in a row while the other lanes waited. */
  private priorityRun = 0;
  private heldSince = 0;
  /** Connection time of the foreground minus that of the background, within ±MAX_LEAD_MS. */
  private lead = 0;
  /** Turns handed out so far; the current holder's is the last. */
  private turnsGranted = 0;
  /** The holder's count of waits, when its work is counted (pglite-waits.ts). */
  private holderWaits: DatabaseWaits | undefined;

  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly timeoutMs = ACQUIRE_TIMEOUT_MS,
  ) {}

  /** API statements (foreground and priority) waiting for the connection now. */
  apiWaiting(): number {
    return this.waiting.foreground.length + this.waiting.priority.length;
  }

  async acquire(lane: Lane): Promise<void> {
    const waits = currentDatabaseWaits();
    if (!waits) return this.take(lane);
    const asked = this.now();
    await this.take(lane);
    // Nobody else is granted the connection before its holder resumes, so the last turn is ours.
    waits.waitedMs += this.now() - asked;
    waits.turns++;
    waits.firstTurn ??= this.turnsGranted;
    this.holderWaits = waits;
  }

  private async take(lane: Lane): Promise<void> {
    if (!this.busy) {
      this.grant(lane);
      return;
    }
    const queue = this.waiting[lane];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const index = queue.indexOf(grant);
        // Already handed the connection (the hand-over waits for the next turn of the loop): it is
        // this caller's now, and refusing it here would leave it held by nobody.
        if (index < 0) return;
        queue.splice(index, 1);
        reject(new Error("PGlite connection wait timed out (query outside its transaction?)"));
      }, this.timeoutMs);
      const grant = () => {
        clearTimeout(timer);
        resolve();
      };
      queue.push(grant);
    });
  }

  release(): void {
    const held = this.now() - this.heldSince;
    if (this.holderWaits) this.holderWaits.heldMs += held;
    this.holderWaits = undefined;
    const lead = this.lead + (this.holder === "background" ? -held : held);
    this.lead = Math.max(-MAX_LEAD_MS, Math.min(MAX_LEAD_MS, lead));
    const lane = this.nextLane();
    if (lane === null) {
      this.busy = false;
      return;
    }
    const next = this.waiting[lane].shift()!;
    this.grant(lane);
    setImmediate(next);
  }

  private nextLane(): Lane | null {
    const { foreground, background, priority } = this.waiting;
    const othersWait = foreground.length > 0 || background.length > 0;
    if (priority.length > 0 && (this.priorityRun < MAX_PRIORITY_RUN || !othersWait)) {
      this.priorityRun = othersWait ? this.priorityRun + 1 : 0;
      return "priority";
    }
    this.priorityRun = 0;
    return foreground.length > 0 && background.length > 0
      ? this.lead > 0
        ? "background"
        : "foreground"
      : foreground.length > 0
        ? "foreground"
        : background.length > 0
          ? "background"
          : null;
  }

  private grant(lane: Lane): void {
    this.turnsGranted++;
    this.busy = true;
    this.holder = lane;
    this.heldSince = this.now();
  }
}

/** The turns of each handle over the embedded database (database.ts registers them). */
const turnsOfHandle = new WeakMap<object, ConnectionTurns>();

export function registerTurns(handle: object, turns: ConnectionTurns): void {
  turnsOfHandle.set(handle, turns);
}

/** API statements waiting for the embedded database's connection now (0 for any other handle). */
export function apiWaitingOn(handle: object): number {
  return turnsOfHandle.get(handle)?.apiWaiting() ?? 0;
}

class PGliteDriver implements Driver {
  private readonly connection: PGliteConnection;

  constructor(
    pglite: PGliteThread,
    private readonly turns: ConnectionTurns,
    private readonly lane: Lane,
  ) {
    this.connection = new PGliteConnection(pglite);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.turns.acquire(this.lane);
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
    this.turns.release();
  }

  async destroy(): Promise<void> {}
}

class PGliteConnection implements DatabaseConnection {
  constructor(private readonly pglite: PGliteThread) {}

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
