/**
 * What the in-process harnesses (key-lookup-cpu, pdf-cpu, loop-stretches) measure beside a load:
 * young-generation collections, the inspector's protocol, and the CPU of the database's backends.
 * Counts and CPU time, not wall time, so a shared, loaded machine blurs them less.
 */
import { readFileSync } from "node:fs";
import { Session } from "node:inspector";
import { constants, PerformanceObserver } from "node:perf_hooks";
import { sql } from "kysely";
import type { Db } from "../../src/db/database.ts";

/** Counts the main thread's scavenges from now on; `reset` starts the count again. */
export function countScavenges(): { readonly count: number; reset(): void } {
  let count = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if (
        (e as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR
      )
        count++;
  }).observe({ entryTypes: ["gc"] });
  return {
    get count() {
      return count;
    },
    reset() {
      count = 0;
    },
  };
}

/** The inspector of this process, its commands as promises (profilers, heap sampling). */
export function inspector(): <T = any>(method: string, params?: object) => Promise<T> {
  const session = new Session();
  session.connect();
  return <T>(method: string, params?: object) =>
    new Promise<T>((resolve, reject) =>
      session.post(method, params, (error, result) => (error ? reject(error) : resolve(result as T))),
    );
}

/**
 * Nanoseconds on CPU so far of every other backend of this database (from the kernel's schedstat,
 * the server on this machine; 0 for a backend that went away), by process id.
 */
export async function backendsCpuNs(db: Db): Promise<Map<number, number>> {
  const { rows } = await sql<{ pid: number }>`select pid from pg_stat_activity
    where datname = current_database() and pid <> pg_backend_pid()`.execute(db);
  const ns = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      ns.set(pid, Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]));
    } catch {
      ns.set(pid, 0);
    }
  }
  return ns;
}

/** Backend CPU spent between two readings of backendsCpuNs, ns. */
export function backendsCpuSince(before: Map<number, number>, after: Map<number, number>): number {
  let ns = 0;
  for (const [pid, now] of after) ns += now - (before.get(pid) ?? 0);
  return ns;
}
