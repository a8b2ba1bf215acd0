/**
 * CPU time per request over a load's measured window: the server process's (all its threads, and its
 * main thread alone), and on PostgreSQL the benchmark database's backends'. Throughput on a shared
 * two-core machine moves with whatever else runs; CPU a request does not, so it is what compares a
 * route with another (or a build with another) when the ratios cannot (docs/performance.md).
 * Linux only (`/proc`); elsewhere every figure is null.
 */
import { readFileSync } from "node:fs";
import pg from "pg";
import { BACKGROUND_APPLICATION_NAME } from "../../src/db/database.ts";

/** Microseconds of CPU per answered request over one measured load. */
export interface CpuPerRequest {
  /** The server's process, every thread (on PGlite the embedded database's thread included). */
  serviceUs: number | null;
  /** The server's main thread (its event loop) alone. */
  mainThreadUs: number | null;
  /** The database's backends (PostgreSQL; null on PGlite, whose database is a thread of the server). */
  databaseUs: number | null;
  /**
   * Of `databaseUs`, the worker pool's backends (platform pushes, syncs, deliveries: the background a
   * write leaves behind, run during the load); the rest is the requests' own and the database's upkeep.
   */
  backgroundUs?: number | null;
  /** Of `databaseUs`, autovacuum's workers on the database (its upkeep, not the requests' own). */
  autovacuumUs?: number | null;
  /** The load generator's process (autocannon), which takes its share of the same cores. */
  loadUs: number | null;
}

interface Reading {
  processNs: number | null;
  mainNs: number | null;
  backendsNs: Map<number, number> | null;
  /** The worker pool's backends among them. */
  background: Set<number>;
  /** And autovacuum's workers. */
  autovacuum: Set<number>;
}

const TICK_NS = 1e9 / 100;

/** utime + stime of the whole process, exited threads included (clock ticks of 10 ms). */
function processCpuNs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which may hold spaces: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * TICK_NS;
  } catch {
    return null;
  }
}

/** A thread's time on CPU, ns (its schedstat: exact, where stat counts ticks). */
function threadCpuNs(pid: number, tid: number): number | null {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
  } catch {
    return null;
  }
}

function schedstatNs(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);
  } catch {
    return 0;
  }
}

export class CpuMeter {
  private client: pg.Client | null = null;

  /** `databaseUrl`: the benchmark database on PostgreSQL (its backends are counted); null on PGlite. */
  constructor(private readonly databaseUrl: string | null) {}

  private async backends(): Promise<{
    ns: Map<number, number>;
    background: Set<number>;
    autovacuum: Set<number>;
  } | null> {
    if (!this.databaseUrl) return null;
    if (!this.client) {
      this.client = new pg.Client({ connectionString: this.databaseUrl });
      await this.client.connect();
    }
    const { rows } = await this.client.query<{ pid: number; application_name: string; backend_type: string }>(
      "select pid, application_name, backend_type from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()",
    );
    return {
      ns: new Map(rows.map(({ pid }) => [pid, schedstatNs(pid)])),
      background: new Set(
        rows.filter((r) => r.application_name === BACKGROUND_APPLICATION_NAME).map((r) => r.pid),
      ),
      autovacuum: new Set(rows.filter((r) => r.backend_type === "autovacuum worker").map((r) => r.pid)),
    };
  }

  async read(pid: number): Promise<Reading> {
    // The database first: its query is this process's, and the server's reading stays closest to the load.
    const backends = await this.backends().catch(() => null);
    return {
      processNs: processCpuNs(pid),
      mainNs: threadCpuNs(pid, pid),
      backendsNs: backends?.ns ?? null,
      background: backends?.background ?? new Set(),
      autovacuum: backends?.autovacuum ?? new Set(),
    };
  }

  /**
   * Per request since `before`. A backend that started during the window counts from zero (the pool
   * opened it for the load); one that ended during it is lost (rare: pools keep theirs).
   */
  async perRequest(
    pid: number,
    before: Reading,
    requests: number,
    loadUs: number | null,
  ): Promise<CpuPerRequest> {
    const after = await this.read(pid);
    const per = (ns: number | null) =>
      ns === null || requests === 0 ? null : Math.round(ns / 1000 / requests);
    const delta = (a: number | null, b: number | null) => (a === null || b === null ? null : a - b);
    let backendsNs: number | null = null;
    let backgroundNs: number | null = null;
    let autovacuumNs: number | null = null;
    if (after.backendsNs && before.backendsNs) {
      backendsNs = 0;
      backgroundNs = 0;
      autovacuumNs = 0;
      for (const [backend, ns] of after.backendsNs) {
        const spent = ns - (before.backendsNs.get(backend) ?? 0);
        backendsNs += spent;
        if (after.background.has(backend)) backgroundNs += spent;
        // A worker that ended within the window is lost, one that started counts whole (as any backend).
        if (after.autovacuum.has(backend)) autovacuumNs += spent;
      }
    }
    return {
      serviceUs: per(delta(after.processNs, before.processNs)),
      mainThreadUs: per(delta(after.mainNs, before.mainNs)),
      databaseUs: per(backendsNs),
      backgroundUs: per(backgroundNs),
      autovacuumUs: per(autovacuumNs),
      loadUs: loadUs === null || requests === 0 ? null : Math.round(loadUs / requests),
    };
  }

  async close(): Promise<void> {
    await this.client?.end().catch(() => {});
    this.client = null;
  }
}

/** "service 152 µs (main thread 120), database 60 µs, load generator 90 µs" for the log. */
export function describeCpu(cpu: CpuPerRequest | undefined): string {
  if (!cpu || cpu.serviceUs === null) return "";
  const parts = [`service ${cpu.serviceUs} µs (main thread ${cpu.mainThreadUs ?? "?"})`];
  if (cpu.databaseUs !== null)
    parts.push(
      `database ${cpu.databaseUs} µs (of which the worker pool's ${cpu.backgroundUs ?? "?"}, autovacuum's ${cpu.autovacuumUs ?? "?"})`,
    );
  if (cpu.loadUs !== null) parts.push(`load generator ${cpu.loadUs} µs`);
  return `CPU a request: ${parts.join(", ")}`;
}
