/**
 * `node --import tsx bench/pdf-beside.ts`: the pdf-whoami scenario (bench/scenarios/mixed.ts) in
 * process, on either database (PGlite in memory, or PostgreSQL with TEST_DATABASE_URL), so what the
 * main thread does beside the PDFs can be counted. Four 100-line orders rendered once; then three
 * phases of SECONDS each, over HTTP from autocannon children (bench/lib/load.ts): `whoami` (one
 * connection alone), `pdf` (32 connections of cached PDFs alone), `beside` (both at once, as the
 * scenario). ROUNDS=n repeats them.
 *
 * Per phase: requests, whoami's p99, the main thread's CPU per request and the process's (on PGlite
 * the database's thread is in the process: the difference), scavenges and their pauses. Counts and
 * CPU per request are what the machine's load does not move; the p99 it does.
 * - `node --trace-gc-nvp --import tsx bench/pdf-beside.ts > out; node --import tsx bench/gc-nvp-phases.ts < out`:
 *   per phase the bytes each scavenge copied and promoted (the `@mark` lines are on V8's clock).
 * - HEAP=1: what the main thread allocates per request in `pdf` and `whoami`, by site (V8's sampling
 *   heap profiler, young garbage included; it slows the thread, so no timing then).
 * - SURVIVORS=1: what lives through a scavenge while `pdf` runs, by site (bench/lib/survivors.ts);
 *   SURVIVORS=whoami or beside: while that phase runs.
 */
import { readdirSync, readFileSync } from "node:fs";
import { constants, PerformanceObserver, performance } from "node:perf_hooks";
import { systemClock } from "../src/clock.ts";
import { startTestApp } from "../test/helpers/app.ts";
import { inspector } from "./lib/cpu-probes.ts";
import { bytesBySite, type SamplingNode } from "./lib/heap-sites.ts";
import { runLoad } from "./lib/load.ts";
import type { LoadRequest, LoadResult } from "./lib/load-types.ts";
import { survivorSampler } from "./lib/survivors.ts";

const SECONDS = Number(process.env.SECONDS ?? 8);
const ROUNDS = Number(process.env.ROUNDS ?? 1);
const HEAP = process.env.HEAP === "1";
/** SURVIVORS=1 samples the `pdf` phase, SURVIVORS=<phase> that phase. */
const SURVIVORS = process.env.SURVIVORS === "1" ? "pdf" : process.env.SURVIVORS;
const PHASES = (process.env.PHASES ?? "whoami,pdf,beside").split(",");
const DEPTH = Number(process.env.DEPTH ?? 4);
const TOP = Number(process.env.TOP ?? 20);

const mark = (label: string) => console.log(`@mark ${performance.now().toFixed(0)} ms: ${label}`);

/** Nanoseconds a thread of this process has run (its schedstat), by thread id and name. */
function threadsCpuNs(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const name = readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim();
      out.set(
        `${tid} ${name}`,
        Number(readFileSync(`/proc/self/task/${tid}/schedstat`, "utf8").split(" ")[0]),
      );
    } catch {
      // the thread ended
    }
  }
  return out;
}

const scavenges: number[] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    if ((e as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR)
      scavenges.push(e.duration);
}).observe({ entryTypes: ["gc"] });

/**
 * STATEMENTS=1: the statements each phase sent to the database, by kind (test/helpers/statements.ts,
 * loaded before the app starts), so whoami's own beside the PDFs' are counted.
 */
const counter = process.env.STATEMENTS === "1" ? await import("../test/helpers/statements.ts") : null;

const t = await startTestApp({ clock: systemClock });
const store = await t.createStore();
await t.admin.patch(`/admin/stores/${store.id}`, {
  rate_limits: { per_key_per_minute: 1e7, per_store_per_minute: 1e7, writes_per_store_per_minute: 1e7 },
});
const ids: number[] = [];
for (let o = 0; o < 4; o++) {
  const supplier = await store.api.post("/v2/suppliers", {
    name: `Supplier ${o + 1}`,
    currency: "USD",
    email: `s${o}@example.com`,
  });
  const lines = Array.from({ length: 100 }, (_, i) => ({
    product_title: `Part ${o * 100 + i + 1} of the benchmark's big order`,
    sku: `BIG-${o}-${i + 1}`,
    quantity: 1 + (i % 7),
    unit_cost: `${(i % 90) + 1}.25`,
  }));
  const order = await store.api.post("/v2/purchase_orders", {
    supplier_id: supplier.body.data.id,
    reference: `BENCH-BIG-${o + 1}`,
    notes: "A 100-line order for the benchmark.",
    lines,
  });
  if (order.status !== 201) throw new Error(`order: ${JSON.stringify(order.body).slice(0, 300)}`);
  ids.push(order.body.data.id);
  const pdf = await store.api.get(`/v2/purchase_orders/${order.body.data.id}/pdf`);
  if (pdf.status !== 200) throw new Error(`pdf: ${pdf.status}`);
}
const origin = await t.runtime.app.listen({ host: "127.0.0.1", port: 0 });
const headers = { authorization: `Bearer ${store.key}` };
const WHOAMI: LoadRequest[] = [{ method: "GET", path: "/v2/whoami" }];
const PDFS: LoadRequest[] = ids.map((id) => ({ method: "GET", path: `/v2/purchase_orders/${id}/pdf` }));
const load = (connections: number, requests: LoadRequest[], durationSec = SECONDS) =>
  runLoad({ origin, connections, durationSec, warmupSec: 0, headers, requests });

const post = inspector();
if (HEAP || SURVIVORS) await post("HeapProfiler.enable");
const survivors = survivorSampler(post, { windowMs: Number(process.env.WINDOW_MS ?? 500) });

async function phase(name: string) {
  const work = async (): Promise<{ whoami?: LoadResult; pdf?: LoadResult }> => {
    if (name === "whoami") return { whoami: await load(1, WHOAMI) };
    if (name === "pdf") return { pdf: await load(32, PDFS) };
    const [pdf, whoami] = await Promise.all([load(32, PDFS), load(1, WHOAMI)]);
    return { pdf, whoami };
  };
  await load(name === "whoami" ? 1 : 32, name === "whoami" ? WHOAMI : PDFS, 1); // warm-up
  if (HEAP)
    await post("HeapProfiler.startSampling", {
      samplingInterval: 1024,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  scavenges.length = 0;
  const cpuBefore = threadsCpuNs();
  mark(`${name} start`);
  const started = performance.now();
  let sent: string[] = [];
  const counted = counter
    ? async () => {
        const { result, statements } = await counter.countStatements(work);
        sent = statements;
        return result;
      }
    : work;
  const result = SURVIVORS === name ? await survivors.during(counted) : await counted();
  const ms = performance.now() - started;
  mark(`${name} end`);
  const cpuAfter = threadsCpuNs();
  const requests = (result.pdf?.requests ?? 0) + (result.whoami?.requests ?? 0);
  let all = 0;
  let mainNs = 0;
  const threads: Record<string, number> = {};
  for (const [thread, ns] of cpuAfter) {
    const used = ns - (cpuBefore.get(thread) ?? 0);
    all += used;
    if (thread.startsWith(`${process.pid} `)) mainNs = used;
    // µs per request by thread where it is worth a line.
    if (used / 1000 / requests >= 1) threads[thread] = Math.round(used / 1000 / requests);
  }
  const pauses = [...scavenges].sort((a, b) => a - b);
  const row: Record<string, unknown> = {
    phase: name,
    seconds: Number((ms / 1000).toFixed(1)),
    pdfs: result.pdf?.requests,
    pdf_p99_ms: result.pdf?.latencyMs.p99,
    whoamis: result.whoami?.requests,
    whoami_p99_ms: result.whoami?.latencyMs.p99,
    non2xx: (result.pdf?.non2xx ?? 0) + (result.whoami?.non2xx ?? 0),
    main_cpu_us_per_request: Math.round(mainNs / 1000 / requests),
    process_cpu_us_per_request: Math.round(all / 1000 / requests),
    threads_us_per_request: threads,
    scavenges_per_s: Number((pauses.length / (ms / 1000)).toFixed(1)),
    scavenges_per_1000_requests: Number(((pauses.length * 1000) / requests).toFixed(2)),
    scavenge_ms: {
      mean: Number((pauses.reduce((a, b) => a + b, 0) / Math.max(1, pauses.length)).toFixed(2)),
      p90: Number((pauses[Math.floor(pauses.length * 0.9)] ?? 0).toFixed(2)),
      max: Number((pauses.at(-1) ?? 0).toFixed(2)),
    },
    load: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
  };
  if (counter) {
    const kinds = new Map<string, number>();
    for (const text of sent) kinds.set(text.slice(0, 70), (kinds.get(text.slice(0, 70)) ?? 0) + 1);
    row.statements = Object.fromEntries([...kinds].sort((a, b) => b[1] - a[1]));
  }
  if (HEAP) {
    const { profile } = await post<{ profile: { head: SamplingNode } }>("HeapProfiler.getSamplingProfile");
    await post("HeapProfiler.stopSampling");
    const { total, sites } = bytesBySite(profile.head, DEPTH);
    row.allocated_bytes_per_request = Math.round(total / requests);
    row.top = sites.slice(0, TOP).map(([site, bytes]) => [Math.round(bytes / requests), site]);
  }
  console.log(JSON.stringify(row, null, HEAP ? 1 : undefined));
}

try {
  for (let round = 0; round < ROUNDS; round++) for (const name of PHASES) await phase(name);
  if (SURVIVORS) console.log(JSON.stringify(survivors.report(), null, 1));
} finally {
  await t.close();
}
