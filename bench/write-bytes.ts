/**
 * `node --import tsx bench/write-bytes.ts`: what one write costs PostgreSQL in measures a shared,
 * loaded machine does not blur: WAL bytes (read back with pg_waldump and kept to this run's own
 * relations and transactions, so other databases' traffic on the same server does not count),
 * statements, and CPU time of the service's process and of the PostgreSQL backends serving it.
 *
 * The service runs in process (workers off) on a database of its own (`WRITE_BYTES_DATABASE`,
 * default `write_bytes`, dropped and made again) of the server `WRITE_BYTES_SERVER` (default
 * postgres://postgres@127.0.0.1:5432); pg_waldump must read the server's `pg_wal` (run as root or
 * the server's user on the same machine). Measured, one request at a time, after a warm-up:
 * 50-line receipts going round ordered orders as the bench's receipt scenario does (several per
 * order, so the order's event grows with its receipts), 200-line applies, and the write ceiling's
 * transaction (bench/lib/write-ceiling.ts) on the same database. `N` (default 60) requests each.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { Session } from "node:inspector/promises";
import pg from "pg";
import { loadConfig } from "../src/config.ts";
import { createRuntime } from "../src/runtime.ts";
import { injectCaller, storeWithBulkCatalog } from "./lib/in-process-store.ts";
import { loadCeilingOrders, prepareWriteCeiling, type Run, writeReceiptRows } from "./lib/write-ceiling.ts";

const SERVER = process.env.WRITE_BYTES_SERVER ?? "postgres://postgres@127.0.0.1:5432";
const DATABASE = process.env.WRITE_BYTES_DATABASE ?? "write_bytes";
const N = Number(process.env.N ?? "60");
// CONCURRENCY=k: the measured requests k at a time (the bench's 32 connections: contention on shared
// rows and locks that one at a time never shows); the warm-up stays one at a time.
const CONCURRENCY = Math.max(1, Number(process.env.CONCURRENCY ?? "1"));
const WALDUMP =
  [process.env.PG_WALDUMP, "/usr/lib/postgresql/15/bin/pg_waldump"].find((p) => p && existsSync(p)) ??
  "pg_waldump";
const WARM = 10;
const RECEIPTS_PER_ORDER = 3;
const ADMIN = "bench-admin-token-0123456789abcdef";

const admin = new pg.Client({ connectionString: `${SERVER}/postgres` });
await admin.connect();
await admin.query(`drop database if exists ${DATABASE} with (force)`);
await admin.query(`create database ${DATABASE}`);
await admin.end();
const own = new pg.Client({ connectionString: `${SERVER}/${DATABASE}` });

// Statements counted at the driver: every pg Client's query but this harness's own connection.
let statements = 0;
let counting = false;
// VERBOSE=1: each measured statement's first words and how often it ran.
const texts = new Map<string, number>();
const dumped = new Set<string>();
const originalQuery = pg.Client.prototype.query;
// PG_STATS=1: the backends log each measured statement's parse, plan and execution CPU (the server's
// log_*_stats, for this harness's sessions only), summed by statement after each run (server log read).
const PG_STATS = process.env.PG_STATS === "1";
const statsOn = new WeakSet<pg.Client>();
// AUTO_EXPLAIN=<ms>: the measured sessions log the plan (with actual rows and times) of every statement
// slower than that to the server log (auto_explain, loaded per session; superuser).
const AUTO_EXPLAIN = process.env.AUTO_EXPLAIN;
const explainOn = new WeakSet<pg.Client>();
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  if (PG_STATS && counting && this !== own && !statsOn.has(this)) {
    statsOn.add(this);
    (originalQuery as (...a: unknown[]) => unknown).call(
      this,
      "set log_parser_stats = on; set log_planner_stats = on; set log_executor_stats = on",
    );
  }
  if (AUTO_EXPLAIN && counting && this !== own && !explainOn.has(this)) {
    explainOn.add(this);
    (originalQuery as (...a: unknown[]) => unknown).call(
      this,
      `load 'auto_explain'; set auto_explain.log_min_duration = ${Number(AUTO_EXPLAIN)}; set auto_explain.log_analyze = on; set auto_explain.log_nested_statements = on`,
    );
  }
  if (counting && this !== own) {
    const text = typeof args[0] === "string" ? args[0] : (args[0] as { text?: string })?.text;
    if (text && !/^\s*(begin|commit|rollback)\b/i.test(text)) {
      statements++;
      if (process.env.DUMP && !dumped.has(text.slice(0, 40))) {
        dumped.add(text.slice(0, 40));
        const values = typeof args[0] === "string" ? args[1] : (args[0] as { values?: unknown[] }).values;
        writeFileSync(`${process.env.DUMP}-${dumped.size}.json`, JSON.stringify({ text, values }));
      }
      if (process.env.VERBOSE) {
        const head = text.slice(0, 200).replace(/\s+/g, " ").trim().slice(0, 90);
        texts.set(head, (texts.get(head) ?? 0) + 1);
      }
    }
  }
  return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
} as typeof pg.Client.prototype.query;

const config = loadConfig({
  DATA_DIR: ":memory:",
  DATABASE_URL: `${SERVER}/${DATABASE}`,
  ADMIN_TOKEN: ADMIN,
  BOOTSTRAP: "none",
  WORKERS: "off",
  LOG_LEVEL: "silent",
  SECRETS_KEY: Buffer.alloc(32, 7).toString("base64"),
});
const runtime = await createRuntime(config, { logger: false });
const { app } = runtime;
await own.connect();
// PRE_SQL: statements run on the fresh database before anything is made (an experiment's settings).
if (process.env.PRE_SQL) await own.query(process.env.PRE_SQL);
const ownPid = Number((await own.query("select pg_backend_pid() as pid")).rows[0].pid);

const call = injectCaller(app);

// ---- the store, its catalog, orders and drafts (not measured) ----
const { key, variants } = await storeWithBulkCatalog(call, () => runtime.worker.drain(), {
  admin: ADMIN,
  name: "W",
  scopes: ["read", "write:purchase_orders", "write:suppliers", "write:inventory"],
  products: 40,
});
const location = (await call("GET", "/v2/locations", key)).data[0].id as number;
const supplier = (await call("POST", "/v2/suppliers", key, { name: "Bytes" })).data.id as number;

const receiptsNeeded = WARM + N;
const orderCount = Math.ceil(receiptsNeeded / RECEIPTS_PER_ORDER);
const orders: Array<{ id: number; body: string }> = [];
for (let i = 0; i < orderCount; i++) {
  const items = variants.slice((i * 50) % (variants.length - 50), ((i * 50) % (variants.length - 50)) + 50);
  const made = await call("POST", "/v2/purchase_orders", key, {
    supplier_id: supplier,
    location_id: location,
    reference: `BYTES-${i + 1}`,
    lines: items.map((v) => ({ variant_id: v.id, quantity: 1000 })),
  });
  const ordered = await call("POST", `/v2/purchase_orders/${made.data.id}/mark_ordered`, key, {});
  orders.push({
    id: ordered.data.id,
    body: JSON.stringify({
      note: "bench",
      lines: ordered.data.lines.map((l: { id: number }) => ({ line_id: l.id, quantity: 1 })),
    }),
  });
}
const drafts: number[] = [];
for (let i = 0; i < WARM + N; i++) {
  const start = (i * 200) % (variants.length - 200);
  const made = await call("POST", "/v2/stock_adjustments", key, {
    location_id: location,
    reason: "correction",
    note: "bench",
    lines: variants.slice(start, start + 200).map((v, j) => ({ variant_id: v.id, delta: (j % 5) + 1 })),
  });
  drafts.push(made.data.id);
}
await runtime.worker.drain();

// Receipts in the bench's order: every order's first receipt, then every order's second, …
const receiptCalls = Array.from({ length: RECEIPTS_PER_ORDER }, () => orders)
  .flat()
  .map(
    (o) => () =>
      call("POST", `/v2/purchase_orders/${o.id}/receipts`, key, o.body, { "idempotency-key": randomUUID() }),
  );
const applyCalls = drafts.map(
  (id) => () =>
    call("POST", `/v2/stock_adjustments/${id}/apply`, key, undefined, { "idempotency-key": randomUUID() }),
);

// The ceiling's tables beside the service's, and one transaction per receipt on a connection of its
// own (one connection per request in flight).
const ceilingClients = await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    const client = new pg.Client({ connectionString: `${SERVER}/${DATABASE}` });
    await client.connect();
    return client;
  }),
);
const runOn =
  (client: pg.Client): Run =>
  async (sql, params) =>
    (await client.query(sql, params)).rows;
await prepareWriteCeiling(runOn(ceilingClients[0]));
// Round the ceiling's first orders as the receipts go round theirs, so its event grows alike.
const ceilingOrders = [...(await loadCeilingOrders(runOn(ceilingClients[0]))).entries()].slice(0, orderCount);
let ceilingNext = 0;
const ceilingCall = async () => {
  const [orderId, order] = ceilingOrders[ceilingNext++ % ceilingOrders.length];
  const client = ceilingClients.pop()!;
  try {
    await client.query("begin");
    await writeReceiptRows(runOn(client), orderId, order);
    await client.query("commit");
  } finally {
    ceilingClients.push(client);
  }
};

/** Runs `calls` with at most `limit` in flight, in their order. */
async function inFlight(calls: ReadonlyArray<() => Promise<unknown>>, limit: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < calls.length) await calls[next++]();
  };
  await Promise.all(Array.from({ length: Math.min(limit, calls.length) }, lane));
}

// ---- measuring ----
const TICK_MS = 1000 / Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim());

/** CPU time so far of each backend serving this database (but this harness's own), by pid. */
async function backendCpuMs(): Promise<Map<number, number>> {
  const { rows } = await own.query<{ pid: number }>(
    "select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend' and pid <> $1",
    [ownPid],
  );
  const byPid = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      // Time on CPU in ns (the scheduler's count, not 10 ms ticks).
      byPid.set(pid, Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6);
    } catch {
      // the backend ended between the two reads
    }
  }
  return byPid;
}

/** CPU the backends spent between two readings (a backend started between them counts whole). */
function cpuSince(before: Map<number, number>, after: Map<number, number>): number {
  let ms = 0;
  for (const [pid, now] of after) ms += now - (before.get(pid) ?? 0);
  return ms;
}

const lsn = async () => String((await own.query("select pg_current_wal_insert_lsn() as l")).rows[0].l);
/**
 * The end of the run's WAL: the insert position once the log is flushed up to it. Read at once, the
 * insert position could hold another session's record not yet flushed, which pg_waldump cannot read
 * ("invalid record length"), and the run failed.
 */
async function flushedLsn(): Promise<string> {
  const end = await lsn();
  for (;;) {
    const { rows } = await own.query("select pg_current_wal_flush_lsn() >= $1::pg_lsn as flushed", [end]);
    if (rows[0].flushed) return end;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** relfilenode -> what it stores, for this database's tables, their indexes and TOAST. */
async function relationNames(): Promise<Map<string, string>> {
  const { rows } = await own.query<{ node: string; name: string }>(`
    select c.relfilenode::text as node,
      case
        when c.relkind = 'i' and ti.relname is not null then tp.relname || ' (toast index)'
        when c.relkind = 'i' then coalesce(it.relname, '?') || ' (index)'
        when c.relkind = 't' then coalesce(tp2.relname, '?') || ' (toast)'
        else c.relname end as name
    from pg_class c
    left join pg_index ix on ix.indexrelid = c.oid
    left join pg_class it on it.oid = ix.indrelid and it.relkind <> 't'
    left join pg_class ti on ti.oid = ix.indrelid and ti.relkind = 't'
    left join pg_class tp on tp.reltoastrelid = ti.oid
    left join pg_class tp2 on tp2.reltoastrelid = c.oid
    where c.relfilenode <> 0`);
  return new Map(rows.map((r) => [r.node, r.name]));
}

interface Wal {
  bytes: number;
  withoutFullPages: number;
  byRelation: Map<string, number>;
}

/** WAL between two positions that this database's relations, or transactions writing them, made. */
function walBetween(start: string, end: string, dbOid: string, names: Map<string, string>): Wal {
  const dataDir = String(process.env.PGDATA ?? "/var/lib/postgresql/15/main");
  const out = execFileSync(WALDUMP, ["-p", `${dataDir}/pg_wal`, "-s", start, "-e", end], {
    maxBuffer: 1 << 30,
  }).toString();
  const records = out.split("\n").filter((l) => l.startsWith("rmgr:"));
  const ours = new Set<string>();
  const parsed = records.map((line) => {
    const [, rec, tot] = /len \(rec\/tot\):\s*(\d+)\/\s*(\d+)/.exec(line) ?? [];
    const tx = /tx:\s*(\d+)/.exec(line)?.[1] ?? "0";
    const rel = /rel \d+\/(\d+)\/(\d+)/.exec(line);
    const mine = rel !== null && rel[1] === dbOid;
    if (mine && tx !== "0") ours.add(tx);
    return { rec: Number(rec), tot: Number(tot), tx, node: mine ? rel[2] : null, line };
  });
  const wal: Wal = { bytes: 0, withoutFullPages: 0, byRelation: new Map() };
  for (const r of parsed) {
    if (r.node === null && !(r.tx !== "0" && ours.has(r.tx))) continue;
    wal.bytes += r.tot;
    wal.withoutFullPages += r.rec;
    const what = r.node ? (names.get(r.node) ?? `relfilenode ${r.node}`) : r.line.slice(6, 18).trim();
    wal.byRelation.set(what, (wal.byRelation.get(what) ?? 0) + r.tot);
  }
  return wal;
}

const dbOid = String(
  (await own.query("select oid from pg_database where datname = current_database()")).rows[0].oid,
);

const SERVER_LOG = process.env.PG_LOG ?? "/var/log/postgresql/postgresql-15-main.log";

/**
 * The backends' CPU by phase and statement from the server log written since `from` (PG_STATS): each
 * `… STATISTICS` entry's user + system seconds, attributed to the STATEMENT line after it.
 */
function printBackendStats(from: number, n: number): void {
  const size = statSync(SERVER_LOG).size;
  const fd = openSync(SERVER_LOG, "r");
  const buffer = Buffer.alloc(size - from);
  readSync(fd, buffer, 0, buffer.length, from);
  closeSync(fd);
  const sums = new Map<string, number>();
  let phase: string | null = null;
  let cpu = 0;
  const lines = buffer.toString("utf8").split("\n");
  for (const [i, line] of lines.entries()) {
    const stats = /LOG:\s+(PARSER|PARSE ANALYSIS|REWRITER|PLANNER|EXECUTOR) STATISTICS/.exec(line);
    if (stats) {
      phase = stats[1];
      cpu = 0;
      continue;
    }
    const usage = /!\s+([\d.]+) s user, ([\d.]+) s system/.exec(line);
    if (usage && phase && cpu === 0) {
      cpu = (Number(usage[1]) + Number(usage[2])) * 1000;
      continue;
    }
    const statement = /STATEMENT:\s+(.*)/.exec(line);
    if (statement && phase) {
      // A statement whose text starts on a new line goes on in the log's tab-indented lines.
      let text = statement[1];
      for (let j = i + 1; text.trim().length < 70 && lines[j]?.startsWith("\t"); j++) text += ` ${lines[j]}`;
      const key = `${phase.padEnd(14)} ${text.replace(/\s+/g, " ").trim().slice(0, 70)}`;
      sums.set(key, (sums.get(key) ?? 0) + cpu);
      phase = null;
    }
  }
  let total = 0;
  for (const ms of sums.values()) total += ms;
  console.log(`backends' CPU by phase and statement (server log): ${(total / n).toFixed(2)} ms a request`);
  for (const [key, ms] of [...sums].sort((a, b) => b[1] - a[1]).slice(0, 24))
    console.log(`  ${(ms / n).toFixed(3).padStart(7)} ms ${key}`);
}

/**
 * PROFILE=<prefix>: a CPU profile of the service's process during each measured run (not the set-up),
 * written to <prefix>-<label>.cpuprofile (Chrome DevTools, or speedscope).
 */
async function profiled<T>(label: string, run: () => Promise<T>): Promise<T> {
  const prefix = process.env.PROFILE;
  if (!prefix) return run();
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 100 });
  await session.post("Profiler.start");
  const result = await run();
  const { profile } = await session.post("Profiler.stop");
  writeFileSync(`${prefix}-${label.split(" ")[0]}.cpuprofile`, JSON.stringify(profile));
  session.disconnect();
  return result;
}

/**
 * PERF=<prefix>: on-CPU samples (`perf record -e cpu-clock -g`) of this process and, apart, of the
 * backends serving it, during each measured run, written to <prefix>-<label>-service.data and,
 * the whole machine's, <prefix>-<label>-all.data with the backends' pids in <prefix>-<label>-backends.pids
 * (`perf report -i …-all.data --pid $(cat …pids)`). Unlike the inspector's profile (PROFILE), time
 * the thread spent preempted (by the backend a socket write woke, on a two-core machine) is not
 * counted. Run node with --perf-basic-prof for the JavaScript functions' names.
 */
async function perfRecorded<T>(label: string, run: () => Promise<T>): Promise<T> {
  const prefix = process.env.PERF;
  if (!prefix) return run();
  const file = (what: string) => `${prefix}-${label.split(" ")[0]}-${what}`;
  const record = (what: string, target: string[]) =>
    spawn(
      "perf",
      ["record", "-q", "-e", "cpu-clock", "-F", "2999", "-g", "-o", `${file(what)}.data`, ...target],
      {
        stdio: "ignore",
      },
    );
  // The backends by the whole machine's samples (the pool opens connections during the run), kept
  // to this database's backends when read: their pids are written beside (`perf report --pid`).
  const recorders: ChildProcess[] = [record("service", ["-p", String(process.pid)]), record("all", ["-a"])];
  // perf needs a moment to attach before the first sample.
  await new Promise((resolve) => setTimeout(resolve, 500));
  try {
    return await run();
  } finally {
    const { rows } = await own.query<{ pid: number }>(
      "select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend' and pid <> $1",
      [ownPid],
    );
    writeFileSync(`${file("backends")}.pids`, rows.map((r) => r.pid).join(","));
    for (const r of recorders) {
      const done = new Promise((resolve) => r.once("exit", resolve));
      r.kill("SIGINT");
      await done;
    }
  }
}

/** CPU so far of each of this process's threads, by thread name (the main thread as "main"). */
function threadCpuMs(): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const fields = readFileSync(`/proc/self/task/${tid}/stat`, "utf8").split(") ")[1].split(" ");
      const name =
        Number(tid) === process.pid ? "main" : readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim();
      byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) * TICK_MS);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return byName;
}

/**
 * ALLOC=<prefix>: a sampling heap profile of the measured run (every sampled allocation, kept or
 * collected), written to <prefix>-<label>.heapprofile, and the functions that allocated most printed
 * by bytes a request.
 */
async function allocationProfiled<T>(label: string, n: number, run: () => Promise<T>): Promise<T> {
  const prefix = process.env.ALLOC;
  if (!prefix) return run();
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.enable");
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  } as never);
  const result = await run();
  const { profile } = (await session.post("HeapProfiler.stopSampling")) as {
    profile: { head: AllocationNode };
  };
  writeFileSync(`${prefix}-${label.split(" ")[0]}.heapprofile`, JSON.stringify(profile));
  session.disconnect();
  const bySite = new Map<string, number>();
  let total = 0;
  const walk = (node: AllocationNode) => {
    const f = node.callFrame;
    const site = `${f.functionName || "(anonymous)"} ${f.url.split("/").slice(-2).join("/")}:${f.lineNumber + 1}`;
    bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  console.log(`allocated (sampled): ${(total / n / 1024).toFixed(0)} KB a request; by function:`);
  for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 30))
    console.log(`  ${(bytes / n / 1024).toFixed(1).padStart(7)} KB ${site}`);
  return result;
}

interface AllocationNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: AllocationNode[];
}

/**
 * Measures `calls` after the first WARM of them (N at most, CONCURRENCY in flight), or, given `phase`,
 * that run counted as `phase.n` requests (the pushes the measured writes left).
 */
async function measure(
  label: string,
  calls: Array<() => Promise<unknown>>,
  phase?: { n: number; run: () => Promise<unknown> },
): Promise<void> {
  if (!phase) {
    for (const c of calls.slice(0, WARM)) await c();
    // The background work left so far (workers off: the warm-up's platform pushes), not measured, so
    // a PUSHES phase after the receipts runs theirs alone.
    await runtime.worker.drain();
  }
  const measured = calls.slice(WARM, WARM + N);
  const n = phase?.n ?? measured.length;
  const runMeasured = phase?.run ?? (() => inFlight(measured, CONCURRENCY));
  const start = await lsn();
  const cpu0 = process.cpuUsage();
  const threads0 = threadCpuMs();
  const backend0 = await backendCpuMs();
  const logAt = PG_STATS ? statSync(SERVER_LOG).size : 0;
  statements = 0;
  texts.clear();
  counting = true;
  await allocationProfiled(label, n, () => profiled(label, () => perfRecorded(label, runMeasured)));
  counting = false;
  const cpu = process.cpuUsage(cpu0);
  const threads = threadCpuMs();
  const backend = cpuSince(backend0, await backendCpuMs());
  const end = await flushedLsn();
  const wal = walBetween(start, end, dbOid, await relationNames());
  const kb = (b: number) => (b / n / 1024).toFixed(1);
  console.log(
    `\n## ${label}: ${n} requests, ${CONCURRENCY === 1 ? "one at a time" : `${CONCURRENCY} in flight`} (load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")})`,
  );
  console.log(`statements a request: ${(statements / n).toFixed(1)} (BEGIN/COMMIT not counted)`);
  console.log(`WAL a request: ${kb(wal.bytes)} KB (${kb(wal.withoutFullPages)} KB without full-page images)`);
  console.log(
    `CPU a request: service ${((cpu.user + cpu.system) / 1000 / n).toFixed(2)} ms, PostgreSQL backends ${(backend / n).toFixed(2)} ms`,
  );
  const byThread = [...threads]
    .map(([name, ms]) => [name, ms - (threads0.get(name) ?? 0)] as const)
    .filter(([, ms]) => ms > 0)
    .sort((a, b) => b[1] - a[1]);
  console.log(
    `service CPU by thread (10 ms ticks): ${byThread.map(([name, ms]) => `${name} ${(ms / n).toFixed(2)}`).join(", ")} ms a request`,
  );
  if (PG_STATS) printBackendStats(logAt, n);
  for (const [head, count] of texts) console.log(`  ${(count / n).toFixed(1).padStart(5)} × ${head}`);
  for (const [what, bytes] of [...wal.byRelation].sort((a, b) => b[1] - a[1]).slice(0, 14))
    console.log(`  ${what.padEnd(48)} ${kb(bytes).padStart(8)} KB`);
}

/** The sizes of what the measured requests stored: text bytes and as stored (after TOAST compression). */
async function storedSizes(schema: string, eventName: string): Promise<void> {
  const sizes = async (sql: string) => (await own.query(sql)).rows[0];
  const events = await sizes(
    `select round(avg(octet_length(data::text) + coalesce(octet_length(extra::text), 0))) as text,
       round(avg(pg_column_size(data) + coalesce(pg_column_size(extra), 0))) as stored, count(*)::int as n
     from ${schema}.events where name = '${eventName}'`,
  );
  const responses = await sizes(
    `select round(avg(octet_length(response_body))) as text, round(avg(pg_column_size(response_body))) as stored, count(*)::int as n
     from ${schema}.idempotency_keys where response_body is not null`,
  );
  console.log(
    `  ${schema}: event ${events.text} B (stored ${events.stored}, ${events.n} rows); stored response ${responses.text} B (stored ${responses.stored}, ${responses.n} rows)`,
  );
}

// ONLY=receipt,apply,ceiling (any of them) measures those alone.
const only = new Set((process.env.ONLY ?? "receipt,apply,ceiling").split(","));
// EVENTS_COMPRESSION=lz4 (or pglz): the events' columns compressed so (an experiment).
if (process.env.EVENTS_COMPRESSION) {
  for (const column of ["data", "extra"])
    await own.query(
      `alter table events alter column ${column} set compression ${process.env.EVENTS_COMPRESSION}`,
    );
}
if (only.has("receipt")) {
  await measure("50-line receipt", receiptCalls);
  await storedSizes("public", "purchase_order.receipt_recorded");
}
// PUSHES=1: the measured receipts' platform pushes, run by the worker after them (as many at a time as
// its slots; the backlog makes batches, as the bench's 32 connections do), counted a receipt.
if (only.has("receipt") && process.env.PUSHES === "1")
  await measure("pushes of those receipts (worker drain)", [], {
    n: Math.min(N, receiptCalls.length - WARM),
    run: () => runtime.worker.drain(),
  });
if (only.has("apply")) await measure("200-line apply", applyCalls);
if (only.has("ceiling")) {
  await measure(
    "write ceiling (bench/lib/write-ceiling.ts)",
    Array.from({ length: WARM + N }, () => ceilingCall),
  );
  await storedSizes("ceiling", "purchase_order.receipt_recorded");
}

for (const client of ceilingClients) await client.end();
await own.end();
await runtime.close();
