/**
 * `npm run bench [-- --quick] [-- --only a,b] [-- --db postgres|pglite|both] [-- --out file]`
 *
 * Compiles the service as `npm start` does and starts it (`node --v8-pool-size=0 dist/server.mjs`) as a child process
 * on a fresh PostgreSQL database and on a fresh PGlite directory, seeds through its own API (admin and
 * /v2) and, where the API has no bulk path, through its own database layer; drives load over loopback
 * with autocannon in a separate process; measures a bare Fastify ceiling on the same database in the
 * same run; prints a table with each issue's targets and writes the same as JSON.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { makePki, type Pki } from "../test/helpers/pki.ts";
import { startShopifyStandin } from "../test/shopify-standin/index.ts";
import { Bench, FULL, meteredLoad, QUICK, rowOf } from "./lib/context.ts";
import { type CpuMeter, describeCpu } from "./lib/cpu-meter.ts";
import { createBenchDatabase, type DbKind, DEFAULT_DATABASE_URL, pgliteVersion } from "./lib/database.ts";
import { explain } from "./lib/explain.ts";
import { Api } from "./lib/http.ts";
import { describeIdleRss, idleRss } from "./lib/idle-rss.ts";
import type { LoadRequest } from "./lib/load-types.ts";
import { ChildServer, freePort } from "./lib/process.ts";
import { formatHeader, formatRun } from "./lib/report.ts";
import type { BenchReport, DbRun, Row, ScenarioResult } from "./lib/types.ts";
import { WRITE_CEILING_ORDERS } from "./lib/write-ceiling.ts";
import { scenarios } from "./scenarios/index.ts";
import { target } from "./scenarios/scenario.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RESULTS = path.join(ROOT, "bench", "results");
const ADMIN_TOKEN = "bench-admin-token-0123456789abcdef";
const ALL_SCOPES = ["read", "write:purchase_orders", "write:suppliers", "write:inventory", "webhooks"];

interface Args {
  quick: boolean;
  only: string[] | null;
  dbs: DbKind[];
  out: string;
}

function usage(message?: string): never {
  if (message) console.error(message);
  console.error(
    [
      "usage: npm run bench -- [--quick] [--only name,name] [--db postgres|pglite|both] [--out file] [--list]",
      `scenarios: ${scenarios.map((s) => s.name).join(", ")}`,
    ].join("\n"),
  );
  process.exit(2);
}

function parseArgs(argv: string[]): Args {
  const args: Args = {
    quick: false,
    only: null,
    dbs: ["postgres", "pglite"],
    out: path.join(RESULTS, "latest.json"),
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) usage(`${arg} needs a value`);
      return v;
    };
    if (arg === "--quick") args.quick = true;
    else if (arg === "--only") args.only = value().split(",").filter(Boolean);
    else if (arg.startsWith("--only=")) args.only = arg.slice(7).split(",").filter(Boolean);
    else if (arg === "--db") {
      const v = value();
      if (v === "both") args.dbs = ["postgres", "pglite"];
      else if (v === "postgres" || v === "pglite") args.dbs = [v];
      else usage(`--db must be postgres, pglite or both`);
    } else if (arg === "--out") args.out = path.resolve(value());
    else if (arg === "--list") {
      for (const s of scenarios) console.log(`${s.name.padEnd(20)} #${s.issue} ${s.title}`);
      process.exit(0);
    } else if (arg === "--help" || arg === "-h") usage();
    else usage(`unknown argument ${arg}`);
  }
  if (args.only) {
    const unknown = args.only.filter((n) => !scenarios.some((s) => s.name === n));
    if (unknown.length > 0) usage(`unknown scenario ${unknown.join(", ")}`);
  }
  return args;
}

const cleanups: Array<() => Promise<void>> = [];
let interrupted = false;

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

const READ_CEILING: LoadRequest[] = [{ method: "GET", path: "/v2/whoami" }];
/** The write ceiling's requests: round the prepared orders, as the receipt scenario goes round its own. */
const WRITE_CEILING: LoadRequest[] = Array.from({ length: WRITE_CEILING_ORDERS }, (_, i) => ({
  method: "POST",
  path: `/write/receipt/${i + 1}`,
}));
/** Scenarios whose rows carry a ratio to the write ceiling; it is measured only when one of them runs. */
const WRITE_SCENARIOS = ["receipt", "adjustment"];

async function measureCeiling(
  ceiling: ChildServer,
  timing: typeof FULL,
  meter: CpuMeter,
  requests = READ_CEILING,
  name = "ceiling",
): Promise<Row[]> {
  const rows: Row[] = [];
  for (const connections of [1, 32]) {
    ceiling.resetPeak();
    const { result, cpu } = await meteredLoad(
      {
        origin: ceiling.origin,
        connections,
        durationSec: connections === 1 ? timing.latencySec : timing.throughputSec,
        warmupSec: timing.warmupSec,
        headers: {},
        requests,
      },
      ceiling.pid,
      meter,
    );
    const row = { ...rowOf(`c=${connections}`, result, null, ceiling.peakRss()), cpu };
    log(
      `    ${name} c=${connections}: ${row.rps.toFixed(1)} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, ${row.errors} errors`,
    );
    if (cpu.serviceUs !== null) log(`      ${describeCpu(cpu)}`);
    rows.push(row);
  }
  return rows;
}

async function runDatabase(kind: DbKind, args: Args, pki: Pki): Promise<DbRun> {
  const timing = args.quick ? QUICK : FULL;
  const serverUrl = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  log(`\n== ${kind}: preparing a fresh database`);
  const database = await createBenchDatabase(kind, serverUrl);
  const run: DbRun = {
    db: kind,
    version: database.version,
    idleRssMb: null,
    ceiling: [],
    ceilingEnd: [],
    seedRetries: 0,
    unavailableRetries: 0,
    scenarios: [],
  };
  Api.retried500 = 0;
  Api.unavailable503 = 0;
  const started: Array<{ stop(): Promise<void> }> = [];
  let bench: Bench | null = null;
  let service: ChildServer | null = null;
  const cleanup = async () => {
    await bench?.receivers?.stop().catch(() => {});
    await bench?.cpuMeter.close();
    for (const s of started.reverse()) await s.stop().catch(() => {});
    // KEEP_DB=1 leaves the run's database (PostgreSQL) or directory (PGlite) to look into afterwards.
    if (process.env.KEEP_DB) console.log(`kept database ${database.databaseUrl || database.dataDir}`);
    else await database.drop();
  };
  cleanups.push(cleanup);
  try {
    mkdirSync(RESULTS, { recursive: true });
    // Shopify's Admin API for the issue 19 scenarios: the stand-in, in this process.
    const shopify = await startShopifyStandin();
    started.push({ stop: () => shopify.close() });
    const servicePort = await freePort();
    service = new ChildServer(
      "service",
      path.join(ROOT, "dist", "server.mjs"),
      {
        HOST: "127.0.0.1",
        PORT: String(servicePort),
        DATA_DIR: database.dataDir,
        DATABASE_URL: database.databaseUrl,
        BOOTSTRAP: "none",
        ADMIN_TOKEN,
        WORKERS: "on",
        LOG_LEVEL: "warn",
        // BENCH_SERVER_TIMING=1: each answer tells its waits for the embedded database's connection,
        // summed up under each load's figures (costs the service its async context tracking).
        SERVER_TIMING: process.env.BENCH_SERVER_TIMING ? "on" : "off",
        WEBHOOK_ALLOW_PRIVATE: "true",
        NODE_EXTRA_CA_CERTS: pki.caFile,
        REDIS_URL: "",
        SMTP_URL: "",
        OUTBOX_DIR: path.join(database.dataDir, "outbox"),
        SHOPIFY_ADMIN_ORIGIN: shopify.origin,
        SHOPIFY_API_SECRET: shopify.apiSecret,
        // The stand-in's webhooks go nowhere: the scenarios time the import and the pushes.
        SHOPIFY_APP_URL: "http://127.0.0.1:9",
      },
      servicePort,
      path.join(RESULTS, `service-${kind}.log`),
    );
    writeFileSync(service.logFile, "");
    log(`   starting the service (${kind})`);
    await service.start();
    started.push(service);
    // Idle: started, migrated, workers polling, nothing asked of it yet.
    const idle = await idleRss(service, args.quick);
    run.idleRssMb = idle.highest;
    run.idleRssSamplesMb = idle.samples;
    log(`   idle RSS ${describeIdleRss(run)}`);

    const b = new Bench(kind, database, service, ADMIN_TOKEN, args.quick, timing, log);
    bench = b;
    b.pki = pki;
    b.shopify = shopify;
    const store = await b.admin.post<{ data: { id: number } }>("/admin/stores", {
      name: "Bench Store",
      domain: `bench-${kind}.example`,
      currency: "USD",
      timezone: "UTC",
      owner_email: "owner@b.example",
      seed: "demo",
    });
    b.storeId = store.data.id;
    // Rate limits are a store setting; a benchmark measures the service, not the plan's limits.
    await b.admin.patch(`/admin/stores/${b.storeId}`, {
      rate_limits: {
        per_key_per_minute: 10_000_000,
        per_store_per_minute: 10_000_000,
        writes_per_store_per_minute: 10_000_000,
      },
    });
    const key = await b.admin.post<{ data: { key: string } }>(`/admin/stores/${b.storeId}/keys`, {
      name: "bench",
      scopes: ALL_SCOPES,
    });
    b.key = key.data.key;
    b.api = new Api(service.origin, b.key);
    await b.loadRoutes();

    const ceilingPort = await freePort();
    const writes = WRITE_SCENARIOS.some((name) => !args.only || args.only.includes(name));
    const ceiling = new ChildServer(
      "ceiling",
      path.join(ROOT, "bench", "ceiling.ts"),
      kind === "postgres"
        ? {
            PORT: String(ceilingPort),
            DATABASE_URL: database.databaseUrl,
            CEILING_STORE_ID: String(b.storeId),
            CEILING_WRITES: writes ? "1" : "",
          }
        : {
            PORT: String(ceilingPort),
            DATABASE_URL: "",
            CEILING_PGLITE_DIR: database.ceilingDir,
            CEILING_WRITES: writes ? "1" : "",
          },
      ceilingPort,
      path.join(RESULTS, `ceiling-${kind}.log`),
    );
    writeFileSync(ceiling.logFile, "");
    log("   starting the ceiling");
    await ceiling.start();
    started.push(ceiling);
    if (kind === "pglite") {
      const answer = (await (await fetch(`${ceiling.origin}/version`)).json()) as { version: string };
      run.version = pgliteVersion(answer.version);
    }
    run.ceiling = await measureCeiling(ceiling, timing, b.cpuMeter);
    for (const row of run.ceiling) b.ceiling.set(row.connections, row);
    if (writes) {
      log("   the write ceiling (a 50-line receipt's rows in one transaction)");
      run.writeCeiling = await measureCeiling(ceiling, timing, b.cpuMeter, WRITE_CEILING, "write ceiling");
      for (const row of run.writeCeiling) b.writeCeiling.set(row.connections, row);
    }

    const idleTarget: ScenarioResult = {
      name: "idle-memory",
      title: "RSS of an idle service",
      issue: 2,
      status: "ok",
      seconds: 0,
      rows: [],
      figures: {},
      notes: [],
      targets: [
        target(
          2,
          kind === "postgres"
            ? "idle RSS < 150 MB (PostgreSQL; highest of the samples)"
            : "idle RSS ≤ 300 MB (PGlite, issue 22; highest of the samples)",
          run.idleRssMb,
          "MB",
          kind === "postgres" ? (run.idleRssMb ?? Infinity) < 150 : (run.idleRssMb ?? Infinity) <= 300,
        ),
      ],
    };
    run.scenarios.push(idleTarget);

    for (const scenario of scenarios) {
      if (interrupted) break;
      if (args.only && !args.only.includes(scenario.name)) continue;
      const base = { name: scenario.name, title: scenario.title, issue: scenario.issue };
      const missing = scenario.requires.filter((r) => {
        const [method, route] = r.split(" ");
        return !b.has(method, route);
      });
      if (missing.length > 0) {
        log(`-- ${scenario.name}: skipped, feature not available (${missing.join(", ")})`);
        run.scenarios.push({
          ...base,
          status: "skipped",
          reason: `feature not available (no ${missing.join(", ")})`,
          seconds: 0,
          rows: [],
          figures: {},
          targets: [],
          notes: [],
        });
        continue;
      }
      log(`-- ${scenario.name}: ${scenario.title}`);
      const t0 = Date.now();
      try {
        const quiet = await b.quiesce();
        const waited = quiet.pending > 0 || quiet.seconds > 2;
        if (waited)
          log(
            `   waited ${quiet.seconds.toFixed(1)} s for earlier scenarios' background work (${quiet.pending} pending pushes at first)`,
          );
        const result = await scenario.run(b);
        if (waited)
          result.notes.push(
            `started after waiting ${quiet.seconds.toFixed(0)} s for earlier scenarios' background work (platform pushes, mirror sync) to finish`,
          );
        run.scenarios.push({ ...base, status: "ok", seconds: (Date.now() - t0) / 1000, ...result });
      } catch (error) {
        const gone = service.unexpectedExit();
        const message = `${error instanceof Error ? error.message : String(error)}${gone ? ` (${gone})` : ""}`;
        log(`   FAILED: ${error instanceof Error ? error.stack : message}`);
        run.scenarios.push({
          ...base,
          status: "failed",
          reason: message.slice(0, 500),
          seconds: (Date.now() - t0) / 1000,
          rows: [],
          figures: {},
          targets: [],
          notes: [],
        });
      }
    }
    if (!args.quick && !interrupted && run.scenarios.some((s) => s.rows.length > 0)) {
      log("-- ceiling again");
      run.ceilingEnd = await measureCeiling(ceiling, timing, b.cpuMeter);
    }
    run.seedRetries = Api.retried500;
    run.unavailableRetries = Api.unavailable503;
    if (b.plans.length > 0 && !interrupted) {
      log("-- query plans");
      // Last, since on PGlite this stops the service (one process at a time opens its directory).
      await b.direct(
        async (db) => {
          for (const p of b.plans) {
            const scenario = run.scenarios.find((s) => s.name === p.scenario);
            if (!scenario) continue;
            const plan = await explain(db, p.build(db));
            scenario.text = { ...scenario.text, [p.title]: plan };
            if (p.check) scenario.targets.push(p.check(plan));
          }
        },
        { restart: false },
      );
    }
  } catch (error) {
    run.error = error instanceof Error ? error.message : String(error);
    const gone = service?.unexpectedExit();
    if (gone) run.error = `${run.error} (${gone})`;
    log(`   RUN FAILED: ${error instanceof Error ? error.stack : run.error}`);
  } finally {
    await cleanup();
    cleanups.splice(cleanups.indexOf(cleanup), 1);
  }
  return run;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  // The service runs compiled, as `npm start` runs it (prestart builds dist/).
  execFileSync(process.execPath, [path.join(ROOT, "scripts", "build.mjs")], { stdio: "inherit" });
  const pkiDir = mkdtempSync(path.join(os.tmpdir(), "stockroom-bench-pki-"));
  cleanups.push(async () => rmSync(pkiDir, { recursive: true, force: true }));
  const pki = makePki({ dir: pkiDir, subjectAltNames: ["IP:127.0.0.2", "DNS:localhost"] });
  const cpus = os.cpus();
  const report: BenchReport = {
    generatedAt: new Date().toISOString(),
    mode: args.quick ? "quick" : "full",
    only: args.only,
    machine: {
      os: `${os.type()} ${os.release()}`,
      arch: os.arch(),
      cpus: cpus.length,
      cpuModel: cpus[0]?.model ?? "unknown",
      memoryGb: os.totalmem() / 1024 ** 3,
      loadAverageAtStart: os.loadavg(),
      loadAverageAtEnd: [],
    },
    node: process.version,
    settings: {
      service: "node --v8-pool-size=0 dist/server.mjs (npm start)",
      LOG_LEVEL: "warn",
      WORKERS: "on",
      pool: "10 (PostgreSQL)",
      loopback: "127.0.0.1",
    },
    runs: [],
  };
  log(formatHeader(report));
  for (const kind of args.dbs) {
    if (interrupted) break;
    const run = await runDatabase(kind, args, pki);
    report.runs.push(run);
    log(formatRun(run));
  }
  report.machine.loadAverageAtEnd = os.loadavg();
  mkdirSync(path.dirname(args.out), { recursive: true });
  writeFileSync(args.out, `${JSON.stringify(report, null, 2)}\n`);
  for (const c of cleanups.splice(0)) await c();
  console.log(formatHeader(report));
  for (const run of report.runs) console.log(formatRun(run));
  console.log(`\nJSON: ${path.relative(process.cwd(), args.out)}`);
  const failed = report.runs.some((r) => r.error || r.scenarios.some((s) => s.status === "failed"));
  process.exit(failed ? 1 : 0);
}

/**
 * A second signal within this long is the same interruption: `npm run bench` runs node under tsx,
 * which relays the terminal's Ctrl-C to it, so one Ctrl-C arrives twice. Only a later one (a second
 * Ctrl-C while cleaning up hangs) exits without cleaning up.
 */
const REPEATED_SIGNAL_MS = 2_000;
let interruptedAt = 0;

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (interrupted) {
      if (Date.now() - interruptedAt > REPEATED_SIGNAL_MS) process.exit(130);
      return;
    }
    interrupted = true;
    interruptedAt = Date.now();
    log(`\n${signal}: stopping children and dropping the benchmark databases`);
    void Promise.allSettled(cleanups.map((c) => c())).then(() => process.exit(130));
  });
}

main().catch((error) => {
  console.error(error);
  void Promise.allSettled(cleanups.map((c) => c())).then(() => process.exit(1));
});
