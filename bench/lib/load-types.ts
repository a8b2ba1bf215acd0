/** What the load generator child is asked to do, and what it answers (plain JSON over IPC). */

export interface LoadRequest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadSpec {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  connections: number;
  /** Bound of the measured run, seconds. */
  durationSec: number;
  /** An unmeasured run first, seconds (0 for none). */
  warmupSec: number;
  /** Headers on every request (authorization, content-type). */
  headers: Record<string, string>;
  /** Requests, taken in turn. */
  requests: LoadRequest[];
  /**
   * Each request is sent at most once (writes that consume prepared records: a draft to apply, a
   * unique idempotency key); the run ends when they run out or the duration is over.
   */
  once?: boolean;
  /** Total requests per second across connections (paced producers). */
  overallRate?: number;
  /** Per-request timeout, seconds. */
  timeoutSec?: number;
}

export interface LoadResult {
  connections: number;
  durationSec: number;
  requests: number;
  requestsPerSec: number;
  latencyMs: { p50: number; p90: number; p97_5: number; p99: number; max: number; mean: number };
  /**
   * From the service's Server-Timing headers when it runs with SERVER_TIMING=on (PGlite): each
   * request's wait for the one connection, its time holding it, its turns, and its wait for its store's turn.
   */
  databaseWaits?: {
    responses: number;
    waitMs: { p50: number; p99: number; max: number };
    holdMs: { p50: number; p99: number; max: number };
    turns: { p50: number; p99: number; max: number };
    /** Waits for the store's turn (line-heavy routes: order writes, lists of orders, PDFs). */
    storeTurnMs: { p50: number; p99: number; max: number };
  };
  /** The load generator's own CPU over the measured run, µs. */
  loadCpuUs: number;
  status2xx: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** The first few failing answers, for the log. */
  samples: string[];
}
