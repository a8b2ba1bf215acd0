import type { Compilable } from "kysely";
import type { Db } from "../../src/db/database.ts";
import { openDatabase } from "../../src/db/database.ts";
import type { Pki } from "../../test/helpers/pki.ts";
import type { ShopifyStandin } from "../../test/shopify-standin/index.ts";
import { CpuMeter, type CpuPerRequest, describeCpu } from "./cpu-meter.ts";
import type { BenchDatabase, DbKind } from "./database.ts";
import { Api } from "./http.ts";
import { runLoad } from "./load.ts";
import type { LoadRequest, LoadResult, LoadSpec } from "./load-types.ts";
import type { ChildServer } from "./process.ts";
import { throughputRatio } from "./ratios.ts";
import type { Receivers } from "./receivers.ts";
import type { Row, Target } from "./types.ts";

export interface Timing {
  warmupSec: number;
  latencySec: number;
  throughputSec: number;
}

export const FULL: Timing = { warmupSec: 2, latencySec: 8, throughputSec: 10 };
/**
 * Quick runs check that everything runs (bench-quick.test.ts runs one in the suite), not what it
 * achieves: a second a load gives hundreds of requests even on a loaded machine, and each second less
 * is two cores' worth of CPU less at 32 connections.
 */
export const QUICK: Timing = { warmupSec: 0.25, latencySec: 1, throughputSec: 1 };

/**
 * One load, with the CPU a request took over its measured window: the server `pid`'s and, through
 * `meter`, its database's and the load generator's (bench/lib/cpu-meter.ts).
 */
export async function meteredLoad(
  spec: LoadSpec,
  pid: number,
  meter: CpuMeter,
): Promise<{ result: LoadResult; cpu: CpuPerRequest }> {
  let before: Awaited<ReturnType<CpuMeter["read"]>> | null = null;
  const result = await runLoad(spec, async () => {
    before = await meter.read(pid);
  });
  const cpu = before
    ? await meter.perRequest(pid, before, result.requests, result.loadCpuUs)
    : { serviceUs: null, mainThreadUs: null, databaseUs: null, loadUs: null };
  return { result, cpu };
}

export function rowOf(label: string, result: LoadResult, ratio: number | null, peakRss: number | null): Row {
  const errors = result.non2xx + result.errors + result.timeouts;
  return {
    label,
    connections: result.connections,
    requests: result.requests,
    durationSec: result.durationSec,
    rps: result.requestsPerSec,
    p50: result.latencyMs.p50,
    p97_5: result.latencyMs.p97_5,
    p99: result.latencyMs.p99,
    errors,
    ratio,
    peakRssMb: peakRss === null ? null : peakRss / (1024 * 1024),
    ...(errors > 0 ? { errorSamples: result.samples } : {}),
  };
}

/** Everything a scenario needs on one database: the service, its API, the ceiling, the fixtures. */
export class Bench {
  readonly admin: Api;
  api!: Api;
  storeId = 0;
  key = "";
  readonly ceiling = new Map<number, Row>();
  /** The write ceiling by connection count (bench/lib/write-ceiling.ts); empty when not measured. */
  readonly writeCeiling = new Map<number, Row>();
  readonly fixtures = new Map<string, Promise<unknown>>();
  routes = new Set<string>();
  receivers: Receivers | null = null;
  /** Query plans to show, EXPLAINed together at the end of the run (one stop of a PGlite service). */
  readonly plans: Array<{
    scenario: string;
    title: string;
    build: (db: Db) => Compilable;
    check?: (plan: string) => Target;
  }> = [];
  /** The Shopify stand-in the service's SHOPIFY_ADMIN_ORIGIN points at (issue 19 scenarios). */
  shopify: ShopifyStandin | null = null;
  /** The test CA the service trusts (NODE_EXTRA_CA_CERTS) and a certificate for the receivers. */
  pki!: Pki;
  /** CPU a request of each load (the service's, its database's, the load generator's). */
  readonly cpuMeter: CpuMeter;

  constructor(
    readonly kind: DbKind,
    readonly database: BenchDatabase,
    readonly service: ChildServer,
    readonly adminToken: string,
    readonly quick: boolean,
    readonly timing: Timing,
    readonly log: (message: string) => void,
  ) {
    this.admin = new Api(service.origin, adminToken);
    this.cpuMeter = new CpuMeter(kind === "postgres" ? database.databaseUrl : null);
  }

  get origin(): string {
    return this.service.origin;
  }

  /** Whether the running service has the route (from its OpenAPI document). */
  has(method: string, path: string): boolean {
    return this.routes.has(`${method.toUpperCase()} ${path}`);
  }

  async loadRoutes(): Promise<void> {
    const doc = await new Api(this.origin, this.key).get<{ paths: Record<string, Record<string, unknown>> }>(
      "/v2/openapi.json",
    );
    this.routes = new Set();
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const method of Object.keys(methods)) this.routes.add(`${method.toUpperCase()} ${path}`);
    }
  }

  /** Memoised per database run: fixtures several scenarios share (the catalog, suppliers, orders). */
  fixture<T>(name: string, make: () => Promise<T>): Promise<T> {
    let existing = this.fixtures.get(name) as Promise<T> | undefined;
    if (!existing) {
      existing = make();
      this.fixtures.set(name, existing);
    }
    return existing;
  }

  /**
   * Drives load at the service with the store's key and returns a table row: throughput as a ratio to
   * the ceiling at the same connection count, and the server's peak RSS during the run.
   */
  async load(
    label: string,
    options: {
      connections: number;
      requests: LoadRequest[];
      once?: boolean;
      durationSec?: number;
      warmupSec?: number;
      overallRate?: number;
      headers?: Record<string, string>;
    },
  ): Promise<Row> {
    const durationSec =
      options.durationSec ?? (options.connections === 1 ? this.timing.latencySec : this.timing.throughputSec);
    const spec: LoadSpec = {
      origin: this.origin,
      connections: options.connections,
      durationSec,
      warmupSec: options.warmupSec ?? this.timing.warmupSec,
      headers: { authorization: `Bearer ${this.key}`, ...(options.headers ?? {}) },
      requests: options.requests,
      once: options.once,
      overallRate: options.overallRate,
    };
    this.service.resetPeak();
    const { result, cpu } = await meteredLoad(spec, this.service.pid, this.cpuMeter);
    const ratio = throughputRatio(result.requestsPerSec, this.ceiling.get(options.connections));
    const row = { ...rowOf(label, result, ratio, this.service.peakRss()), cpu };
    this.log(
      `    ${label}: ${row.rps.toFixed(1)} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, ${row.errors} errors (${row.requests} requests)`,
    );
    if (cpu.serviceUs !== null) this.log(`      ${describeCpu(cpu)}`);
    if (row.errorSamples?.length) this.log(`      e.g. ${row.errorSamples[0]}`);
    const waits = result.databaseWaits;
    if (waits)
      this.log(
        `      connection wait p50 ${waits.waitMs.p50} / p99 ${waits.waitMs.p99} / max ${waits.waitMs.max} ms, held p50 ${waits.holdMs.p50} / p99 ${waits.holdMs.p99} ms, turns p50 ${waits.turns.p50} / p99 ${waits.turns.p99}, store turn wait p50 ${waits.storeTurnMs.p50} / p99 ${waits.storeTurnMs.p99} ms`,
      );
    return row;
  }

  /** The row with its throughput as a fraction of the write ceiling's (writes that move stock). */
  withWriteRatio(row: Row): Row {
    const writeRatio = throughputRatio(row.rps, this.writeCeiling.get(row.connections));
    if (writeRatio !== null) this.log(`      ${(writeRatio * 100).toFixed(0)}% of the write ceiling`);
    return { ...row, writeRatio };
  }

  /** Registers a query whose plan the report shows under `scenario` (see `plans`). */
  plan(
    scenario: string,
    title: string,
    build: (db: Db) => Compilable,
    check?: (plan: string) => Target,
  ): void {
    this.plans.push({ scenario, title, build, check });
  }

  /**
   * Waits until the background work of earlier scenarios is done, so it is not measured in the next:
   * first until the store's platform sync shows no push pending (admin sync status), then until the
   * service answers `GET /v2/whoami` promptly (under 50 ms three times running), which also covers work
   * no status shows, such as the mirror pulling back what the pushes changed on the platform.
   * Returns the seconds waited and how many pushes were pending at first.
   */
  async quiesce(
    boundMs = this.quick ? 180_000 : 900_000,
  ): Promise<{ seconds: number; pending: number; drainSeconds: number }> {
    const t0 = Date.now();
    const pendingNow = async () =>
      (await this.admin.get<{ data: { counts: { pending: number } } }>(`/admin/stores/${this.storeId}/sync`))
        .data.counts.pending;
    const first = await pendingNow();
    let pending = first;
    while (pending > 0 && Date.now() - t0 < boundMs) {
      await new Promise((r) => setTimeout(r, 100));
      pending = await pendingNow();
    }
    // Until the last platform push was acknowledged (0.1 s resolution).
    const drainSeconds = (Date.now() - t0) / 1000;
    if (pending > 0)
      this.log(`   ${pending} platform pushes still pending after ${boundMs / 1000} s; going on`);
    let prompt = 0;
    while (prompt < 3 && Date.now() - t0 < boundMs) {
      const start = performance.now();
      await this.api.get("/v2/whoami");
      prompt = performance.now() - start < 50 ? prompt + 1 : 0;
      await new Promise((r) => setTimeout(r, prompt === 0 ? 500 : 100));
    }
    return { seconds: (Date.now() - t0) / 1000, pending: first, drainSeconds };
  }

  /**
   * Direct access to the service's database for bulk seeding and query plans, through the service's
   * own `openDatabase`. PostgreSQL: a second pool beside the running service. PGlite: one process
   * at a time can open the directory, so the service is stopped, the work done, and the service
   * started again on the same data (same port, same keys).
   */
  async direct<T>(fn: (db: Db) => Promise<T>, options: { restart?: boolean } = {}): Promise<T> {
    if (this.kind === "postgres") {
      const handle = await openDatabase({
        databaseUrl: this.database.databaseUrl,
        dataDir: ":memory:",
        poolSize: 4,
      });
      try {
        return await fn(handle.db);
      } finally {
        await handle.close();
      }
    }
    await this.service.stop();
    const handle = await openDatabase({ databaseUrl: null, dataDir: this.database.dataDir });
    try {
      return await fn(handle.db);
    } finally {
      await handle.close();
      if (options.restart !== false) await this.service.start();
    }
  }
}
