import { AsyncLocalStorage } from "node:async_hooks";

/**
 * How long one piece of work (an HTTP request) waited for the embedded database's one connection, in
 * how many turns, and the number of its first turn among all turns handed out: enough to see whether
 * requests get the connection in the order they came and where their time goes (issue 22 item 3).
 * Counted only inside `countDatabaseWaits` (the API turns it on with SERVER_TIMING=on), so the service
 * pays for no async context tracking otherwise.
 */
export interface DatabaseWaits {
  /** Time between asking for the connection and getting it, summed over the turns. */
  waitedMs: number;
  /** Time holding it, summed (statements and transactions). */
  heldMs: number;
  turns: number;
  /** The first turn's number in the order turns were handed out (1, 2, ...), null before any. */
  firstTurn: number | null;
}

const current = new AsyncLocalStorage<DatabaseWaits>();

/** Runs `work` with a fresh count; the turns it takes (and those of what it starts) are added to it. */
export function countDatabaseWaits<T>(work: () => T): { waits: DatabaseWaits; result: T } {
  const waits: DatabaseWaits = { waitedMs: 0, heldMs: 0, turns: 0, firstTurn: null };
  return { waits, result: current.run(waits, work) };
}

/** The count of the work running now, if it is counted. */
export function currentDatabaseWaits(): DatabaseWaits | undefined {
  return current.getStore();
}
