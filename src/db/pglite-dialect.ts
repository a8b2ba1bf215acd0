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
import { preparedNameOf } from "./prepared.ts";

/**
 * Kysely's own PGlite dialect needs Node 22, so this is ours. PGlite is one connection: a transaction
 * must own it exclusively, so connections are handed out one at a time by a ConnectionTurns shared by
 * every Kysely instance over the same PGlite. A caller that waits too long almost certainly queried
 * `db` while holding a transaction (a deadlock on PGlite, a second connection on PostgreSQL), so the
 * wait fails loudly instead of hanging.
 */
export class PGliteDialect implements Dialect {
  /**
   * `singleStatements`: the handle runs only statements of their own, never a transaction, so its
   * turns are shared (ConnectionTurns): the hot queries' handles (db/prepared.ts).
   */
  constructor(
    private readonly pglite: PGliteThread,
    private readonly turns: ConnectionTurns,
    private readonly lane: Lane,
    private readonly singleStatements = false,
  ) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.pglite, this.turns, this.lane, this.singleStatements);
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

/** A caller's place in a lane's queue: whether it runs one statement alone (shared) and its grant. */
interface Waiter {
  shared: boolean;
  grant: (turn: number) => void;
}

/** What a caller was handed: hand it back to `release` (the count of its waits gets its held time). */
export interface Turn {
  shared: boolean;
  waits: DatabaseWaits | undefined;
  since: number;
}

/**
 * Turns on the one PGlite connection. Each lane waits in its own first-come queue; while both have
 * someone waiting, the lane that has held the connection for less time goes next (the lead is
 * bounded, so a lane that was idle for an hour does not then own the connection for an hour). A
 * burst of API requests therefore cannot hold back the worker's platform pushes for as long as the
 * burst lasts, nor the worker the API: under sustained load the background keeps up and the API
 * slows down instead, which is the rate the service can actually sustain. The background's share of
 * that time is `backgroundShare` (the service's EMBEDDED_BACKGROUND_SHARE; an even split unless set):
 * below a half, the API's writes in a burst wait for fewer pushes and the pushes batch more records
 * each, at the cost of a backlog drained after the burst (docs/history/performance-journal.md, "The
 * background's share, fourteenth session").
 *
 * A priority statement (one indexed lookup that every request of every store starts with) goes
 * before every waiting foreground or background turn: one key's line-heavy request issues several
 * statements at once (an order's lines, charges, receipts, payments), and another store's
 * `GET /whoami` queued behind all of them waited for each (issue 18 item 2). It still waits for the
 * statement or transaction holding the connection: PGlite is one session and a transaction cannot be
 * interleaved. Priority time counts as foreground time.
 *
 * A turn taken for one statement outside any transaction is shared (`acquire(lane, true)`): several
 * such statements are sent to the database's thread at once, which runs them one after another, so
 * the thread goes from one to the next without waiting for the API's thread to take an answer and send
 * the next statement, a whole turn of its event loop (docs/history/performance-journal.md, "PGlite single
 * reads in flight together"). A shared statement joins those in flight only while nobody waits (a priority
 * one: at most MAX_PRIORITY_RUN while others wait); a transaction's turn (not shared) waits until
 * every shared statement is answered.
 *
 * The connection is handed over on the next turn of the event loop (setImmediate), not inside the
 * releasing promise chain: PGlite answers without real I/O, so a chain of hand-overs would otherwise
 * run every waiting transaction before Node read another socket, and requests arriving meanwhile
 * waited seconds before they were even parsed.
 */
export class ConnectionTurns {
  /** A turn that is not shared holds the connection. */
  private exclusive = false;
  /** Shared turns holding it (their statements sent to the thread, not yet answered). */
  private shared = 0;
  private readonly waiting: Record<Lane, Waiter[]> = {
    foreground: [],
    background: [],
    priority: [],
  };
  /** The lane whose time the connection's holders count as (priority counts as foreground). */
  private holder: Lane = "foreground";
  /** Priority turns handed over in a row while the other lanes waited. */
  private priorityRun = 0;
  private heldSince = 0;
  /**
   * Connection time of the foreground minus that of the background (weighted by the share, below),
   * within -MAX_LEAD_MS × the weight and +MAX_LEAD_MS.
   */
  private lead = 0;
  /** Turns handed out so far. */
  private turnsGranted = 0;

  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly timeoutMs = ACQUIRE_TIMEOUT_MS,
    /** The background's share of the connection while both lanes wait (0.5: an even split). */
    private readonly backgroundShare = 0.5,
  ) {}

  /** API statements (foreground and priority) waiting for the connection now, or sent together (shared). */
  apiWaiting(): number {
    return this.waiting.foreground.length + this.waiting.priority.length + this.shared;
  }

  /** Waits for a turn on `lane`; `shared` for one statement outside a transaction (see above). */
  async acquire(lane: Lane, shared = false): Promise<Turn> {
    const waits = currentDatabaseWaits();
    const asked = this.now();
    const turn = await this.take(lane, shared);
    const since = this.now();
    if (waits) {
      waits.waitedMs += since - asked;
      waits.turns++;
      waits.firstTurn ??= turn;
    }
    return { shared, waits, since };
  }

  private take(lane: Lane, shared: boolean): number | Promise<number> {
    if (!this.exclusive && this.shared === 0) return this.grant(lane, shared);
    if (shared && !this.exclusive && this.mayJoin(lane)) return this.grant(lane, true);
    const queue = this.waiting[lane];
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        const index = queue.indexOf(waiter);
        // Already handed the connection (the hand-over waits for the next turn of the loop): it is
        // this caller's now, and refusing it here would leave it held by nobody.
        if (index < 0) return;
        queue.splice(index, 1);
        reject(new Error("PGlite connection wait timed out (query outside its transaction?)"));
      }, this.timeoutMs);
      const waiter: Waiter = {
        shared,
        grant: (turn) => {
          clearTimeout(timer);
          resolve(turn);
        },
      };
      queue.push(waiter);
    });
  }

  /** Whether a shared statement may go beside the shared ones in flight now. */
  private mayJoin(lane: Lane): boolean {
    const { foreground, background, priority } = this.waiting;
    const othersWait = foreground.length > 0 || background.length > 0;
    if (lane === "priority") {
      if (priority.length > 0) return false;
      if (!othersWait) return true;
      if (this.priorityRun >= MAX_PRIORITY_RUN) return false;
      this.priorityRun++;
      return true;
    }
    // Nobody may be passed; the time is counted as the holders' lane.
    return !othersWait && priority.length === 0 && timeLane(lane) === timeLane(this.holder);
  }

  /** Hands the connection back; `turn` as acquire gave it (without it, as the holders are). */
  release(turn?: Turn): void {
    const now = this.now();
    if (turn?.waits) turn.waits.heldMs += now - turn.since;
    if (this.exclusive) this.exclusive = false;
    else if (--this.shared > 0) return;
    const held = now - this.heldSince;
    // A background millisecond counts as (1 - share) / share of the foreground's, and its bound is
    // weighted too (a push's long transaction would otherwise reach it and have the rest forgiven).
    const weight = (1 - this.backgroundShare) / this.backgroundShare;
    const lead = this.lead + (this.holder === "background" ? -held * weight : held);
    this.lead = Math.max(-MAX_LEAD_MS * weight, Math.min(MAX_LEAD_MS, lead));
    this.handOver();
  }

  /** The next lane's first waiter, and the shared ones right behind it when it is shared. */
  private handOver(): void {
    const lane = this.nextLane();
    if (lane === null) return;
    const queue = this.waiting[lane];
    const first = queue.shift()!;
    const granted: Array<[Waiter, number]> = [[first, this.grant(lane, first.shared)]];
    while (first.shared && queue.length > 0 && queue[0].shared && this.mayFollow(lane)) {
      const next = queue.shift()!;
      granted.push([next, this.grant(lane, true)]);
    }
    for (const [waiter, turn] of granted) setImmediate(waiter.grant, turn);
  }

  /** Whether another waiting shared statement of `lane` may go with those just handed the connection. */
  private mayFollow(lane: Lane): boolean {
    if (lane !== "priority") return this.shared < MAX_PRIORITY_RUN;
    const { foreground, background } = this.waiting;
    if (foreground.length === 0 && background.length === 0) return true;
    if (this.priorityRun >= MAX_PRIORITY_RUN) return false;
    this.priorityRun++;
    return true;
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

  /** Hands a turn to `lane` now (its holder resumes later); the turn's number. */
  private grant(lane: Lane, shared: boolean): number {
    if (!this.exclusive && this.shared === 0) {
      this.holder = lane;
      this.heldSince = this.now();
    }
    if (shared) this.shared++;
    else this.exclusive = true;
    return ++this.turnsGranted;
  }
}

/** The lane a turn's time counts as (priority as foreground). */
const timeLane = (lane: Lane): Lane => (lane === "priority" ? "foreground" : lane);

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
  constructor(
    private readonly pglite: PGliteThread,
    private readonly turns: ConnectionTurns,
    private readonly lane: Lane,
    private readonly singleStatements: boolean,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const turn = await this.turns.acquire(this.lane, this.singleStatements);
    return new PGliteConnection(this.pglite, this.turns, turn);
  }

  async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    // Its turn is shared with other statements in flight: a transaction here would take them in.
    if (this.singleStatements) throw new Error("a transaction on a handle for single statements");
    await (conn as PGliteConnection).beginAgain(this.turns, this.lane);
    const level = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : "";
    await conn.executeQuery({
      sql: `begin${level}`,
      parameters: [],
      query: undefined as never,
      queryId: undefined as never,
    });
  }

  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    await (conn as PGliteConnection).end("commit");
  }

  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    await (conn as PGliteConnection).end("rollback");
  }

  async releaseConnection(conn: DatabaseConnection): Promise<void> {
    (conn as PGliteConnection).release();
  }

  async destroy(): Promise<void> {}
}

/** The connection as one turn holds it (a new one per turn: a shared turn is one of several). */
class PGliteConnection implements DatabaseConnection {
  /** The transaction's COMMIT or ROLLBACK was sent. */
  private ended = false;
  private released = false;

  constructor(
    private readonly pglite: PGliteThread,
    private readonly turns: ConnectionTurns,
    public turn: Turn,
  ) {}

  /**
   * A held connection (`db.connection()`, the migration runner's) beginning a transaction after an
   * earlier one of it ended: that end handed the turn on and marked the connection ended, so this
   * transaction's COMMIT would never be sent (its statements were left uncommitted, and the next
   * statement on the database met an open transaction: a second statement migration after an index
   * build). It takes a turn again and ends on its own.
   */
  async beginAgain(turns: ConnectionTurns, lane: Lane): Promise<void> {
    if (!this.ended) return;
    this.ended = false;
    if (this.released) {
      this.turn = await turns.acquire(lane, false);
      this.released = false;
    }
  }

  /**
   * Sends the transaction's last statement and hands the connection on before its answer: the thread
   * runs its messages in order, so the next holder's statements, sent meanwhile, run after it, and
   * the thread goes from this COMMIT to them without waiting for the API's thread to take the answer,
   * release the turn and grant the next one (a turn of its event loop, or several when it is busy).
   * The caller still waits for the answer (a failed COMMIT fails its transaction). After a COMMIT
   * nothing more is sent: one that fails has already ended the transaction (PostgreSQL rolls it back),
   * and a ROLLBACK sent now would reach whoever holds the connection next.
   */
  async end(sql: "commit" | "rollback"): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    const answer = this.pglite.query(sql, []);
    this.release();
    await answer;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.turns.release(this.turn);
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const { sql, parameters } = compiled;
    const result = await this.pglite.query<R>(sql, parameters as unknown[], preparedNameOf(sql));
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
