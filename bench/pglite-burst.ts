/**
 * `node --import tsx bench/pglite-burst.ts`: where the embedded database's one connection goes during
 * a burst of writes, as the bench's 32-connection runs make them. The service runs in process on a
 * file-backed PGlite with its worker started (pushes, syncs, periodic tasks), `KIND` (apply: 200-line
 * stock adjustments; receipt: 50-line receipts) requests `N` (default 96) are sent 32 at a time, then
 * the worker's pushes are waited for (`EMBEDDED_BACKGROUND_SHARE` is passed on to the service).
 * Printed, per request: the connection's hold time by lane (foreground: the API; background: the
 * worker), the CPU of each thread of the process (the PGlite thread's is the connection's), and the
 * statements by total round-trip time and lane. CPU comes from `/proc/self/task/<tid>/stat` (clock
 * ticks), fine over a whole phase, not per statement. `PUSHES_ONLY=1`: the writes run first with the
 * worker stopped, unmeasured, and only their pushes are measured (the worker started then, its
 * batches as large as the backlog makes them): the push's own cost per record, without the API's.
 * `WRITES_ONLY=1`: the other half, the worker never started: the requests' own transactions alone
 * (the database thread's CPU is then theirs), their pushes left queued.
 * `EXPLAIN=<text>`: the first `EXPLAIN_N` (default 2) measured statements whose text (whitespace
 * collapsed) contains it are run once more before they run, under EXPLAIN (ANALYZE, BUFFERS), and the
 * plan printed. Reads only (a write would be done twice); the plan is planned with the values, which a
 * statement kept prepared may not be (a generic plan): compare its execution time with the round trip.
 * `EXPLAIN_WRITE=1`: the statement is explained under a savepoint rolled back after it, so a write
 * inside a transaction is explained too (and done once).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { loadConfig } from "../src/config.ts";
import { ConnectionTurns } from "../src/db/pglite-dialect.ts";
import { PGliteThread } from "../src/db/pglite-thread.ts";
import { createRuntime } from "../src/runtime.ts";
import { injectCaller, storeWithBulkCatalog } from "./lib/in-process-store.ts";

const KIND = process.env.KIND ?? "apply";
const N = Number(process.env.N ?? "96");
const CONNECTIONS = Number(process.env.C ?? "32");
const ADMIN = "bench-admin-token-0123456789abcdef";

// Who holds the connection: the lane of the last grant (one connection, so one holder at a time).
let lane = "none";
const held: Record<string, number> = {};
const turnsOf: Record<string, number> = {};
let measuring = false;
const proto = ConnectionTurns.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
const grant = proto.grant;
// Every argument passed on: grant(lane, shared) without `shared` made every shared turn exclusive,
// several holders at once, and the count of shared turns went negative (the runs that never drained).
proto.grant = function (this: { now(): number }, l: unknown, ...rest: unknown[]) {
  lane = String(l);
  return grant.call(this, l, ...rest);
};
const release = proto.release;
proto.release = function (
  this: { now(): number; heldSince: number; holder: string; exclusive: boolean; shared: number },
  turn: unknown,
) {
  // Shared turns (single statements sent together) hold the connection as one: the hold ends with
  // the last of them, or with the exclusive turn.
  if (measuring && (this.exclusive || this.shared === 1)) {
    held[this.holder] = (held[this.holder] ?? 0) + (this.now() - this.heldSince);
    turnsOf[this.holder] = (turnsOf[this.holder] ?? 0) + 1;
  }
  return release.call(this, turn);
};
const choices: Record<string, number> = {};
const nextLane = proto.nextLane;
proto.nextLane = function (this: { waiting: Record<string, unknown[]> }) {
  const f = this.waiting.foreground.length > 0;
  const b = this.waiting.background.length > 0;
  const chosen = nextLane.call(this);
  if (measuring) {
    const k = `${chosen} (fg ${f ? "waiting" : "none"}, bg ${b ? "waiting" : "none"})`;
    choices[k] = (choices[k] ?? 0) + 1;
  }
  return chosen;
};
/** Every distinct text sent: each is a statement the thread prepares (and keeps, 256 at most). */
const texts = new Set<string>();
let explained = 0;
const EXPLAIN_N = Number(process.env.EXPLAIN_N ?? "2");
const statements = new Map<string, { lane: string; count: number; ms: number }>();
const query = PGliteThread.prototype.query;
PGliteThread.prototype.query = async function (this: PGliteThread, sql: string, params?: unknown[]) {
  if (!measuring) return query.call(this, sql, params);
  texts.add(sql);
  const explain = process.env.EXPLAIN;
  if (explain && explained < EXPLAIN_N && sql.replace(/\s+/g, " ").includes(explain)) {
    explained++;
    // A write is explained under a savepoint rolled back after (EXPLAIN_WRITE=1; the statement must
    // run inside a transaction), so it is done once.
    const write = process.env.EXPLAIN_WRITE === "1";
    if (write) await query.call(this, "savepoint explained");
    const plan = (await query.call(this, `explain (analyze, buffers) ${sql}`, params)) as {
      rows: Array<Record<string, string>>;
    };
    if (write) await query.call(this, "rollback to savepoint explained");
    console.log(plan.rows.map((r) => r["QUERY PLAN"]).join("\n"));
  }
  const key = `${lane.slice(0, 2)} ${sql.replace(/\s+/g, " ").trim().slice(0, 110)}`;
  const started = performance.now();
  try {
    return await query.call(this, sql, params);
  } finally {
    const s = statements.get(key) ?? { lane, count: 0, ms: 0 };
    s.count++;
    s.ms += performance.now() - started;
    statements.set(key, s);
  }
} as typeof PGliteThread.prototype.query;

function threadTicks(): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const name = stat.slice(stat.indexOf("(") + 1, close);
      const fields = stat.slice(close + 2).split(" ");
      ticks.set(`${tid} ${name}`, Number(fields[11]) + Number(fields[12]));
    } catch {}
  }
  return ticks;
}

const dir = mkdtempSync(path.join(tmpdir(), "pglite-burst-"));
const config = loadConfig({
  DATA_DIR: dir,
  // BENCH_DATABASE_URL: the same run on that PostgreSQL database (its backends' CPU is printed; the
  // statements' list is the embedded database's only). Give it a database of its own: migrated here.
  DATABASE_URL: process.env.BENCH_DATABASE_URL ?? "",
  ADMIN_TOKEN: ADMIN,
  BOOTSTRAP: "none",
  WORKERS: "on",
  LOG_LEVEL: "silent",
  // The worker's share of the connection while the API waits too (per cent; 50 unless given).
  EMBEDDED_BACKGROUND_SHARE: process.env.EMBEDDED_BACKGROUND_SHARE ?? "",
});
const runtime = await createRuntime(config, { logger: false });
if (process.env.ONE_PUSH === "1") {
  // Experiment: the worker runs one platform push at a time (a slot of its 8).
  const handlers = (runtime.worker as unknown as { handlers: Map<string, { maxShare?: number }> }).handlers;
  handlers.get("platform.push")!.maxShare = 1 / 8;
}
const { app } = runtime;
const call = injectCaller(app);
const { key, variants } = await storeWithBulkCatalog(call, () => runtime.worker.drain(), {
  admin: ADMIN,
  name: "Burst",
  scopes: ["read", "write:purchase_orders", "write:suppliers", "write:inventory"],
  products: 100,
});
const locations = (await call("GET", "/v2/locations", key)).data as Array<{ id: number }>;
const location = locations[0].id;

type Req = () => Promise<unknown>;
const requests: Req[] = [];
if (KIND === "apply") {
  const sets = Math.floor(variants.length / 200);
  for (let i = 0; i < N; i++) {
    const items = variants.slice((i % sets) * 200, (i % sets) * 200 + 200);
    const id = (
      await call("POST", "/v2/stock_adjustments", key, {
        location_id: location,
        reason: "correction",
        lines: items.map((v, j) => ({ variant_id: v.id, delta: j % 4 === 3 ? -1 : (j % 5) + 1 })),
      })
    ).data.id;
    requests.push(() =>
      call("POST", `/v2/stock_adjustments/${id}/apply`, key, undefined, { "idempotency-key": randomUUID() }),
    );
  }
} else {
  const supplier = (await call("POST", "/v2/suppliers", key, { name: "S" })).data.id;
  const orders = Math.ceil(N / 4);
  const bodies: Array<{ id: number; body: unknown }> = [];
  for (let i = 0; i < orders; i++) {
    const made = (
      await call("POST", "/v2/purchase_orders", key, {
        supplier_id: supplier,
        location_id: location,
        lines: variants.slice(i * 50, i * 50 + 50).map((v) => ({ variant_id: v.id, quantity: 1000 })),
      })
    ).data;
    const ordered = (await call("POST", `/v2/purchase_orders/${made.id}/mark_ordered`, key, {})).data;
    bodies.push({
      id: ordered.id,
      body: { lines: ordered.lines.map((l: { id: number }) => ({ line_id: l.id, quantity: 1 })) },
    });
  }
  for (let r = 0; r < N; r++) {
    const { id, body } = bodies[r % orders];
    requests.push(() =>
      call("POST", `/v2/purchase_orders/${id}/receipts`, key, body, { "idempotency-key": randomUUID() }),
    );
  }
}
await runtime.worker.drain();
const PUSHES_ONLY = process.env.PUSHES_ONLY === "1";
if (PUSHES_ONLY) {
  let i = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (i < requests.length) await requests[i++]();
    }),
  );
  requests.length = 0;
} else if (process.env.WRITES_ONLY !== "1") {
  runtime.worker.start();
  await new Promise((r) => setTimeout(r, 2000));
}

async function pendingPushes(): Promise<number> {
  const { rows } = await runtime.ctx.db
    .selectFrom("jobs")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("type", "=", "platform.push")
    .where("state", "in", ["queued", "running"] as never)
    .execute()
    .then((r) => ({ rows: r }));
  return Number(rows[0].n);
}

/** Documents the simulated platform took (each push document leaves its idempotency key). */
async function platformDocuments(): Promise<number> {
  const row = await runtime.ctx.db
    .selectFrom("sim_push_keys")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * CPU ticks of this database's PostgreSQL backends by pid (none on the embedded database): the server
 * must run on this host. A backend that starts during the run counts from zero (its start included).
 */
async function backendTicks(): Promise<Map<number, number>> {
  const ticks = new Map<number, number>();
  if (!process.env.BENCH_DATABASE_URL) return ticks;
  const { rows } = await sql<{ pid: number }>`select pid from pg_stat_activity
    where datname = current_database()`.execute(runtime.ctx.db);
  for (const { pid } of rows) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {}
  }
  return ticks;
}

const documentsBefore = await platformDocuments();
const backendsBefore = await backendTicks();
const before = threadTicks();
const cpu0 = process.cpuUsage();
measuring = true;
const started = performance.now();
if (PUSHES_ONLY) runtime.worker.start();
const latencies: number[] = PUSHES_ONLY ? [0] : [];
let next = 0;
await Promise.all(
  Array.from({ length: CONNECTIONS }, async () => {
    while (next < requests.length) {
      const r = requests[next++];
      const t = performance.now();
      await r();
      latencies.push(performance.now() - t);
    }
  }),
);
const burstMs = performance.now() - started;
const heldBurst = { ...held };
const pendingAfter = await pendingPushes().catch(() => -1);
const documentsAfterBurst = await platformDocuments();
for (let i = 0; process.env.WRITES_ONLY !== "1" && i < 600 && (await pendingPushes().catch(() => 0)) > 0; i++)
  await new Promise((r) => setTimeout(r, 100));
const totalMs = performance.now() - started;
measuring = false;
const cpu = process.cpuUsage(cpu0);
const after = threadTicks();
const backendsAfter = await backendTicks();
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
const per = (x: number) => (x / N).toFixed(1);
console.log(
  `${KIND} x${N} c=${CONNECTIONS}: burst ${(burstMs / 1000).toFixed(2)} s, drain after ${((totalMs - burstMs) / 1000).toFixed(2)} s, pushes pending after burst ${pendingAfter}; p50 ${pct(0.5).toFixed(0)} p99 ${pct(0.99).toFixed(0)} ms; load ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`,
);
console.log(
  `per request: process CPU ${per((cpu.user + cpu.system) / 1000)} ms; held during burst fg ${per(heldBurst.foreground ?? 0)} bg ${per(heldBurst.background ?? 0)} pr ${per(heldBurst.priority ?? 0)} ms; whole fg ${per(held.foreground ?? 0)} bg ${per(held.background ?? 0)} ms; turns fg ${per(turnsOf.foreground ?? 0)} bg ${per(turnsOf.background ?? 0)}`,
);
console.log(`hand-overs: ${JSON.stringify(choices)}`);
const byLane: Record<string, number> = {};
let claims = 0;
for (const [text, s] of statements) {
  byLane[s.lane] = (byLane[s.lane] ?? 0) + s.count;
  if (text.includes("with picked as")) claims += s.count;
}
const documents = (await platformDocuments()) - documentsBefore;
console.log(
  `statements per request by lane: ${Object.entries(byLane)
    .map(([l, n]) => `${l} ${per(n)}`)
    .join(
      ", ",
    )}; job claims ${claims}; platform documents ${documents} (${documentsAfterBurst - documentsBefore} during the burst)`,
);
const lists = new Map<string, number>();
for (const text of texts) {
  const head = text
    .replace(/\s+/g, " ")
    .replace(/\$\d+/g, "$")
    .replace(/(\$, )+\$/g, "…")
    .slice(0, 100);
  lists.set(head, (lists.get(head) ?? 0) + 1);
}
console.log(`distinct statement texts: ${texts.size}`);
for (const [head, n] of lists) if (n > 1) console.log(`  ${n} texts: ${head}`);
const tick = 1000 / 100;
for (const [name, t] of after) {
  const d = t - (before.get(name) ?? 0);
  if (d > 0) console.log(`  thread ${name}: ${per(d * tick)} ms/request`);
}
if (backendsAfter.size > 0) {
  let backends = 0;
  for (const [pid, t] of backendsAfter) backends += t - (backendsBefore.get(pid) ?? 0);
  console.log(`  PostgreSQL backends (${backendsAfter.size}): ${per(backends * tick)} ms/request`);
}
const top = [...statements.entries()]
  .sort((a, b) => b[1].ms - a[1].ms)
  .slice(0, Number(process.env.TOP ?? 30));
for (const [text, s] of top)
  console.log(
    `  ${per(s.ms).padStart(7)} ms/req ${String(s.count).padStart(6)}x ${(s.ms / s.count).toFixed(2).padStart(7)} ms  ${text}`,
  );
await runtime.close();
rmSync(dir, { recursive: true, force: true });
