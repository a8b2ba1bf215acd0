/**
 * `node --import tsx bench/loop-stretches.ts`: the longest stretches the API's event loop spends on
 * each of the noisy-neighbour test's heavy requests (test/reliability/in-process/noisy-neighbour.test.ts),
 * and where they are. The service starts as the test starts it (PGlite in memory, or PostgreSQL with
 * TEST_DATABASE_URL), store B gets three 500-line orders, and a thread of its own sends one kind of
 * request at a time over HTTP, one after another (nothing else runs on the loop). The main thread is
 * profiled (V8's sampler, SAMPLE_US apart) while each kind runs; a stretch is a run of samples none of
 * which is idle. A sample is taken only while the thread runs, so a stretch's sample count times
 * the interval is its CPU time, whatever the machine's load (its wall time is printed beside it).
 * Per kind: the main thread's CPU per request (schedstat), its collections, and the longest stretches
 * with the frames most of their samples were in. KINDS=get,list,... picks kinds; N requests of each.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { constants, PerformanceObserver, performance } from "node:perf_hooks";
import { getHeapSpaceStatistics, getHeapStatistics } from "node:v8";
import { Worker } from "node:worker_threads";
import { startTestApp } from "../test/helpers/app.ts";
import { createHeavyOrders } from "../test/reliability/helpers/fixture.ts";
import { inspector } from "./lib/cpu-probes.ts";
import { bytesBySite, type SamplingNode } from "./lib/heap-sites.ts";
import { fullGc, minorGc, survivorSampler } from "./lib/survivors.ts";

const N = Number(process.env.N ?? 10);
const SAMPLE_US = Number(process.env.SAMPLE_US ?? 100);
const TOP = Number(process.env.TOP ?? 6);
/** PROFILE=0: no CPU profile (its sampling costs the thread CPU): the stretches' CPU alone. */
const PROFILE = process.env.PROFILE !== "0";
/**
 * ALLOC=1: V8's sampling heap profiler over each kind's requests, young garbage included: what the
 * main thread allocates per request, by site (bytes sampled every 16 KB; the young generation's fill
 * rate is what paces its scavenges).
 */
const ALLOC = process.env.ALLOC === "1" || process.env.ALLOC === "survived";
/**
 * ALLOC=survived: only what lived through a scavenge stays in that profile (what the scavenges copied,
 * and promoted; a full collection among the kind's requests would count its young garbage too, so
 * read it where `gc.major` is 0). Before the profile is read a scavenge frees what is garbage now.
 */
const SURVIVED = process.env.ALLOC === "survived";
/**
 * Bytes of Buffers made per request through Buffer.alloc, allocUnsafe and allocUnsafeSlow (the
 * PostgreSQL driver's read buffer, COPY's copies, answers joined): memory outside the heap the
 * sampling profiler (ALLOC=1) does not see, whose young ArrayBuffers start scavenges too. The
 * socket's own reads are made in C++ and are not counted.
 */
let bufferBytes = 0;
for (const name of ["alloc", "allocUnsafe", "allocUnsafeSlow"] as const) {
  const make = Buffer[name] as (size: number, ...rest: unknown[]) => Buffer;
  (Buffer as unknown as Record<string, unknown>)[name] = (size: number, ...rest: unknown[]) => {
    bufferBytes += size;
    return make.call(Buffer, size, ...rest);
  };
}
/**
 * READS=1: the socket reads the main thread handles per request, the database's (port 5432) apart
 * from the rest, and the answers' sockets' `drain`s (a write that waited for the client): what wakes
 * the loop during a request besides its timers.
 */
const socketEvents = { database: 0, other: 0, drain: 0 };
if (process.env.READS === "1") {
  const { Socket } = await import("node:net");
  const push = Socket.prototype.push;
  Socket.prototype.push = function (
    this: InstanceType<typeof Socket>,
    chunk: unknown,
    encoding?: BufferEncoding,
  ) {
    if (chunk !== null) {
      if (this.remotePort === 5432) socketEvents.database++;
      else socketEvents.other++;
    }
    return push.call(this, chunk, encoding);
  };
  const emit = Socket.prototype.emit;
  Socket.prototype.emit = function (
    this: InstanceType<typeof Socket>,
    event: string | symbol,
    ...args: unknown[]
  ) {
    if (event === "drain") socketEvents.drain++;
    return emit.apply(this, [event, ...args] as Parameters<typeof emit>);
  } as typeof emit;
}
/**
 * SURVIVORS=1: what lives through a scavenge while each kind's requests run, by allocation site
 * (bench/lib/survivors.ts: windows of WINDOW_MS between two forced scavenges; they add collections,
 * so the kind's CPU and gc figures are not comparable with a run without it).
 */
const SURVIVORS = process.env.SURVIVORS === "1";
/**
 * EXTERNAL=1: the Buffers' bytes (ArrayBuffers' backing stores, outside the heap: V8's external
 * memory, whose growth since the last full collection starts one) that each kind's requests leave
 * alive through the scavenges: a full collection before the kind, then after its N requests two
 * scavenges and then a full collection, `process.memoryUsage().arrayBuffers` read after each (the
 * sweeper frees backing stores after the collection, so each read waits for it). What the two
 * scavenges left and the full collection freed is garbage the young generation's collections did not
 * free: it adds to external memory until a full collection, and 64 MB of it starts one.
 */
const EXTERNAL = process.env.EXTERNAL === "1";
const KINDS = (process.env.KINDS ?? "get,list,patch,patch-pdf,patch-received,pdf-cached,whoami").split(",");

interface Step {
  method: string;
  path: string;
  body?: unknown;
}

function stepsOf(kind: string, id: number, i: number): Step[] {
  const patch = { method: "PATCH", path: `/v2/purchase_orders/${id}`, body: { notes: `n:${i}` } };
  switch (kind) {
    case "get":
      return [{ method: "GET", path: `/v2/purchase_orders/${id}` }];
    case "list":
      return [{ method: "GET", path: "/v2/purchase_orders?limit=250" }];
    case "patch":
      return [patch];
    case "patch-pdf":
      return [patch, { method: "GET", path: `/v2/purchase_orders/${id}/pdf` }];
    case "patch-received":
      return [patch, { method: "GET", path: `/v2/purchase_orders/${id}/pdf?received=true` }];
    case "pdf-cached":
      return [{ method: "GET", path: `/v2/purchase_orders/${id}/pdf` }];
    case "whoami":
      return [{ method: "GET", path: "/v2/whoami" }];
    default:
      throw new Error(`unknown kind ${kind}`);
  }
}

/** The client thread: runs the steps it is sent one after another, over HTTP, reading every answer. */
const CLIENT = `
const { parentPort } = require("node:worker_threads");
parentPort.on("message", async ({ origin, key, steps }) => {
  const statuses = {};
  for (const s of steps) {
    const res = await fetch(origin + s.path, {
      method: s.method,
      headers: { authorization: "Bearer " + key, ...(s.body !== undefined && { "content-type": "application/json" }) },
      body: s.body === undefined ? undefined : JSON.stringify(s.body),
    });
    await res.arrayBuffer();
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
  }
  parentPort.postMessage(statuses);
});`;

/**
 * The watch thread: reads the main thread's CPU time and voluntary context switches from the kernel
 * (/proc/<pid>/task/<pid>/sched) every WATCH_US. The loop sleeps (a voluntary switch) whenever it has
 * nothing to run, so CPU accrued between two switches is one stretch of work: its CPU time, however
 * often the thread was descheduled meanwhile (wall-clock stretches on a loaded machine are not).
 */
const WATCH = `
const { parentPort, workerData } = require("node:worker_threads");
const { openSync, readSync } = require("node:fs");
const fd = openSync("/proc/" + workerData.pid + "/task/" + workerData.pid + "/sched", "r");
const buf = Buffer.alloc(4096);
const nap = new Int32Array(new SharedArrayBuffer(4));
let on = false;
const rows = [];
const read = () => {
  const n = readSync(fd, buf, 0, 4096, 0);
  const text = buf.toString("latin1", 0, n);
  const cpu = Number(/sum_exec_runtime\\s*:\\s*([0-9.]+)/.exec(text)[1]);
  const vcs = Number(/nr_voluntary_switches\\s*:\\s*([0-9]+)/.exec(text)[1]);
  rows.push(Number(process.hrtime.bigint() / 1000n), cpu, vcs);
};
parentPort.on("message", (m) => {
  if (m === "start") { rows.length = 0; on = true; setImmediate(loop); }
  else if (m === "stop") { on = false; read(); parentPort.postMessage(rows.slice()); }
});
function loop() {
  for (let i = 0; i < 200 && on; i++) { read(); Atomics.wait(nap, 0, 0, workerData.everyMs); }
  if (on) setImmediate(loop);
}`;

interface CpuStretch {
  /** CPU of the stretch (ms): from the last read before it to the first read after it. */
  cpuMs: number;
  startUs: number;
  endUs: number;
  /** More than one sleep between two reads at an edge: stretches merged. */
  merged: boolean;
}

/** Stretches from the watch thread's reads: CPU accrued between two voluntary switches. */
function cpuStretchesOf(rows: number[]): CpuStretch[] {
  const out: CpuStretch[] = [];
  let start = -1;
  for (let i = 3; i < rows.length; i += 3) {
    const dCpu = rows[i + 1] - rows[i - 2];
    const dVcs = rows[i + 2] - rows[i - 1];
    if (start < 0 && dCpu > 0) start = i - 3; // work began after the previous read
    if (start >= 0 && dVcs > 0) {
      out.push({
        cpuMs: Number((rows[i + 1] - rows[start + 1]).toFixed(2)),
        startUs: rows[start],
        endUs: rows[i],
        merged: rows[i + 2] - rows[start + 2] > 1,
      });
      start = -1;
    }
  }
  return out.sort((a, b) => b.cpuMs - a.cpuMs);
}

/** Bytes in V8's large-object space (strings over ~128 KB go straight there: the old generation). */
const largeObjects = () =>
  getHeapSpaceStatistics().find((s) => s.space_name === "large_object_space")?.space_used_size ?? 0;

/** The main thread's user and system CPU so far (ms; the kernel's ticks, 10 ms each): /proc's stat. */
const threadUserSys = () => {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8").split(") ")[1].split(" ");
  return [Number(fields[11]) * 10, Number(fields[12]) * 10];
};

/**
 * The main thread's context switches so far: voluntary (it waited, in epoll or a lock, and was woken:
 * a wake-up) and involuntary (taken off its core while runnable), from the kernel's status file.
 */
const threadSwitches = () => {
  const status = readFileSync(`/proc/self/task/${process.pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0);
  return [field("voluntary_ctxt_switches"), field("nonvoluntary_ctxt_switches")];
};

/** CPU time of the main thread so far (ns), from the kernel's schedstat. */
const threadCpuNs = () =>
  Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const frameName = (n: ProfileNode) => {
  const { functionName, url, lineNumber } = n.callFrame;
  const file = url.replace(/^.*\/(node_modules\/)/, "$1").replace(/^.*\/(src|test|bench)\//, "$1/");
  return `${functionName || "(anon)"} ${file}:${lineNumber + 1}`;
};

interface Stretch {
  samples: number;
  cpuMs: number;
  wallMs: number;
  gcSamples: number;
  leaves: [string, number][];
  ours: [string, number][];
  entry: string;
}

/** Runs of non-idle samples, longest first, each with where its samples were. */
function stretchesOf(profile: Profile): Stretch[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stackOf = (id: number) => {
    const stack: ProfileNode[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at)!);
    return stack; // leaf first
  };
  const stretches: Stretch[] = [];
  let run: number[] = [];
  let wall = 0;
  const close = () => {
    if (run.length === 0) return;
    const leaves = new Map<string, number>();
    const ours = new Map<string, number>();
    let gc = 0;
    for (const id of run) {
      const stack = stackOf(id);
      const leaf = frameName(stack[0]);
      if (stack[0].callFrame.functionName === "(garbage collector)") gc++;
      leaves.set(leaf, (leaves.get(leaf) ?? 0) + 1);
      // Every project frame on the stack, once per sample: where the stretch's time went, by caller.
      const seen = new Set<string>();
      for (const f of stack)
        if (/\/(src|test|bench)\//.test(f.callFrame.url) && !seen.has(frameName(f))) {
          seen.add(frameName(f));
          ours.set(frameName(f), (ours.get(frameName(f)) ?? 0) + 1);
        }
    }
    const first = stackOf(run[Math.floor(run.length / 2)])
      .filter((f) => f.callFrame.url !== "")
      .slice(0, 8)
      .map(frameName)
      .join(" < ");
    const top = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, 6);
    stretches.push({
      samples: run.length,
      cpuMs: Number(((run.length * SAMPLE_US) / 1000).toFixed(2)),
      wallMs: Number((wall / 1000).toFixed(2)),
      gcSamples: gc,
      leaves: top(leaves),
      ours: top(ours),
      entry: first,
    });
    run = [];
    wall = 0;
  };
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i])!;
    if (node.callFrame.functionName === "(idle)") close();
    else {
      run.push(node.id);
      wall += profile.timeDeltas[i + 1] ?? 0;
    }
  }
  close();
  return stretches.sort((a, b) => b.samples - a.samples);
}

/** Where the profile's samples within [fromUs, toUs] were: their leaves and project frames. */
function framesWithin(profile: Profile & { startTime: number }, fromUs: number, toUs: number) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const leaves = new Map<string, number>();
  const ours = new Map<string, number>();
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i];
    if (at < fromUs || at > toUs) continue;
    const leaf = byId.get(profile.samples[i])!;
    if (leaf.callFrame.functionName === "(idle)") continue;
    leaves.set(frameName(leaf), (leaves.get(frameName(leaf)) ?? 0) + 1);
    const seen = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const f = byId.get(id)!;
      if (/\/(src|node_modules)\//.test(f.callFrame.url) && !seen.has(frameName(f))) {
        seen.add(frameName(f));
        ours.set(frameName(f), (ours.get(frameName(f)) ?? 0) + 1);
      }
    }
  }
  const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
  return { leaves: top(leaves, 5), frames: top(ours, 10) };
}

/** KB allocated per request in all, and the top sites (nearest frames) by KB per request. */
function allocationSites({ profile }: { profile: { head: SamplingNode } }, requests: number) {
  const { total, sites } = bytesBySite(profile.head, Number(process.env.ALLOC_DEPTH ?? 3));
  const kb = (bytes: number) => Number((bytes / 1024 / requests).toFixed(1));
  return {
    kb_per_request: kb(total),
    top: sites.slice(0, Number(process.env.ALLOC_TOP ?? 12)).map(([site, bytes]) => [kb(bytes), site]),
  };
}

const settle = () => new Promise((r) => setTimeout(r, 200));
/** `process.memoryUsage().arrayBuffers` once `collect` has run and the sweeper has freed what it found dead. */
async function arrayBufferBytesAfter(collect: () => void): Promise<number> {
  collect();
  await settle();
  return process.memoryUsage().arrayBuffers;
}
/**
 * KB a request: left through two scavenges and freed by the full collection after them; kept after it.
 * `heap_*`: the same for the heap's own objects (V8's used heap size): what the requests' scavenges
 * promoted or left, that only the full collection freed (garbage the young generation's collections
 * did not free: promoted, or held by something old that is itself garbage).
 */
async function externalLeft(before: { external: number; heap: number }, requests: number) {
  const now = process.memoryUsage().arrayBuffers;
  await arrayBufferBytesAfter(minorGc);
  const scavenged = await arrayBufferBytesAfter(minorGc);
  const heapScavenged = getHeapStatistics().used_heap_size;
  const full = await arrayBufferBytesAfter(fullGc);
  const heapFull = getHeapStatistics().used_heap_size;
  const kb = (bytes: number) => Number((bytes / 1024 / requests).toFixed(1));
  return {
    at_end_kb: kb(now - before.external),
    through_scavenges_kb: kb(scavenged - full),
    kept_kb: kb(full - before.external),
    heap_through_scavenges_kb: kb(heapScavenged - heapFull),
    heap_kept_kb: kb(heapFull - before.heap),
  };
}

const t = await startTestApp();
const b = await t.createStore({ seed: "demo" });
const orderIds = await createHeavyOrders(b, 3);
const origin = await t.runtime.app.listen({ port: 0, host: "127.0.0.1" });

const client = new Worker(CLIENT, { eval: true });
const send = (steps: Step[]) =>
  new Promise<Record<string, number>>((resolve) => {
    client.once("message", resolve);
    client.postMessage({ origin, key: b.key, steps });
  });

const watcher = new Worker(WATCH, {
  eval: true,
  workerData: { pid: process.pid, everyMs: Number(process.env.WATCH_MS ?? 0.2) },
});
const watch = {
  start: () => watcher.postMessage("start"),
  stop: () =>
    new Promise<number[]>((resolve) => {
      watcher.once("message", resolve);
      watcher.postMessage("stop");
    }),
};
const post = inspector();
await post("Profiler.enable");
await post("Profiler.setSamplingInterval", { interval: SAMPLE_US });

let gcNow = { minor: 0, major: 0, ms: 0, max: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = (e as unknown as { detail: { kind: number } }).detail.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MINOR) gcNow.minor++;
    else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) gcNow.major++;
    gcNow.ms += e.duration;
    gcNow.max = Math.max(gcNow.max, e.duration);
  }
}).observe({ entryTypes: ["gc"] });

const report: Record<string, unknown> = { db: process.env.TEST_DATABASE_URL ? "postgres" : "pglite" };
for (const kind of KINDS) {
  const steps = (n: number) => Array.from({ length: n }, (_, i) => stepsOf(kind, orderIds[i % 3], i)).flat();
  await send(steps(3)); // warm-up
  if (kind === "pdf-cached") await send(steps(3));
  gcNow = { minor: 0, major: 0, ms: 0, max: 0 };
  if (PROFILE) await post("Profiler.start");
  if (ALLOC)
    await post("HeapProfiler.startSampling", {
      samplingInterval: Number(process.env.ALLOC_BYTES ?? 16_384),
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: !SURVIVED,
    });
  if (process.env.READY_FILE) writeFileSync(process.env.READY_FILE, kind); // an outside profiler may start
  const external0 = EXTERNAL
    ? { external: await arrayBufferBytesAfter(fullGc), heap: getHeapStatistics().used_heap_size }
    : { external: 0, heap: 0 };
  watch.start();
  const lo0 = largeObjects();
  const buffers0 = bufferBytes;
  const cpu0 = threadCpuNs();
  const [user0, sys0] = threadUserSys();
  const [woken0, preempted0] = threadSwitches();
  const events0 = { ...socketEvents };
  const survivors = SURVIVORS
    ? survivorSampler(post, { windowMs: Number(process.env.WINDOW_MS ?? 200) })
    : null;
  // On the clock of V8's --trace-gc lines, for bench/gc-nvp-phases.ts.
  console.log(`@mark ${performance.now().toFixed(0)} ms: ${kind} start`);
  const statuses = await (survivors ? survivors.during(() => send(steps(N))) : send(steps(N)));
  const cpuMs = (threadCpuNs() - cpu0) / 1e6;
  console.log(`@mark ${performance.now().toFixed(0)} ms: ${kind} end`);
  const bufferKb = Number(((bufferBytes - buffers0) / 1024 / N).toFixed(1));
  const [user1, sys1] = threadUserSys();
  const [woken1, preempted1] = threadSwitches();
  const switches = {
    woken_per_request: Number(((woken1 - woken0) / N).toFixed(1)),
    preempted_per_request: Number(((preempted1 - preempted0) / N).toFixed(2)),
    ...(process.env.READS === "1"
      ? {
          database_reads_per_request: Number(((socketEvents.database - events0.database) / N).toFixed(1)),
          other_reads_per_request: Number(((socketEvents.other - events0.other) / N).toFixed(1)),
          drains_per_request: Number(((socketEvents.drain - events0.drain) / N).toFixed(1)),
        }
      : {}),
  };
  const rows = await watch.stop();
  const { profile } = PROFILE
    ? await post<{ profile: Profile & { startTime: number } }>("Profiler.stop")
    : { profile: { nodes: [], samples: [], timeDeltas: [], startTime: 0 } };
  if (SURVIVED) minorGc();
  const external = EXTERNAL ? await externalLeft(external0, N) : undefined;
  const allocated = ALLOC ? allocationSites(await post("HeapProfiler.getSamplingProfile"), N) : undefined;
  if (ALLOC) await post("HeapProfiler.stopSampling");
  const cpuStretches = cpuStretchesOf(rows);
  if (process.env.SAVE) writeFileSync(`${process.env.SAVE}-${kind}.cpuprofile`, JSON.stringify(profile));
  const stretches = stretchesOf(profile);
  const total = stretches.reduce((s, x) => s + x.samples, 0);
  report[kind] = {
    statuses,
    cpu_ms_per_request: Number((cpuMs / N).toFixed(2)),
    user_sys_ms_per_request: [(user1 - user0) / N, (sys1 - sys0) / N].map((ms) => Number(ms.toFixed(2))),
    buffer_kb_per_request: bufferKb,
    switches,
    external,
    large_object_mb_grown: Number(((largeObjects() - lo0) / 1e6).toFixed(2)),
    sampled_busy_ms_per_request: Number(((total * SAMPLE_US) / 1000 / N).toFixed(2)),
    stretches_over_1ms: stretches.filter((s) => s.cpuMs > 1).length,
    gc: { ...gcNow, ms: Number(gcNow.ms.toFixed(1)), max: Number(gcNow.max.toFixed(1)) },
    cpu_stretches_over_2ms: cpuStretches.filter((x) => x.cpuMs > 2).length,
    cpu_stretches_top: cpuStretches.slice(0, TOP).map((x) => ({
      ...x,
      wallMs: (x.endUs - x.startUs) / 1000,
      ...framesWithin(profile, x.startUs, x.endUs),
    })),
    watch_reads: rows.length / 3,
    allocated,
    survivors: survivors?.report(),
    longest: stretches.slice(0, TOP),
  };
  console.error(
    kind,
    JSON.stringify({
      cpu: Number((cpuMs / N).toFixed(2)),
      user_sys: [(user1 - user0) / N, (sys1 - sys0) / N],
      top: cpuStretches.slice(0, 5).map((s) => s.cpuMs),
      kb: allocated?.kb_per_request,
      buffer_kb: bufferKb,
      switches,
      external,
      survived_kb: survivors?.report().kb_per_window,
    }),
  );
}
report.load = (await import("node:os")).loadavg().map((n) => Number(n.toFixed(1)));
const out = process.env.OUT ?? "/tmp/nn18-stretches.json";
writeFileSync(out, JSON.stringify(report, null, 1));
console.error(`written ${out}`);
await client.terminate();
await watcher.terminate();
await t.close();
