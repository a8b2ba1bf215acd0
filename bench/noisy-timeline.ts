/**
 * `node --import tsx [--trace-gc] bench/noisy-timeline.ts`: the noisy-neighbour test's run
 * (test/reliability/in-process/noisy-neighbour.test.ts: store B's four heavy clients over HTTP, store
 * A's `GET /whoami` every 10 ms on the loop, four rounds of 3 s loaded and 3 s idle), without its
 * calibration, with what the main thread's collections did in each phase beside A's figures: from
 * V8's before-and-after figures of each collection (v8.GCProfiler), the scavenges and the bytes they
 * promoted into the old generation, the full collections and what they freed; plus each space's used
 * size and the external memory every SPACE_MS and every collection's start, pause, kind and flags
 * (in OUT, JSON; a summary per phase kind on stderr). With `--trace-gc` V8 prints each collection's
 * reason on stdout, on the same clock (ms since start) as the phase markers printed here.
 * PROBE=inject: A through Fastify's inject, as the test did until 27 November (else loop-probe.ts).
 * PROBE=timer: no request, only how late the loop runs A's timer: what any request would wait first.
 * B_ALONE=1: A is not probed in the loaded phases, so their collections are B's alone.
 * SAMPLE=1: a heap-sampling profile of what the scavenges did not free, its top allocation sites by
 * bytes (a sample every SAMPLE_BYTES, 16 KB unless set; SAMPLE_DEPTH frames a site, 3 unless set). Biased: V8 counts young garbage a full collection frees as surviving the scavenges, so its
 * sites are leads, its bytes not a measure (docs/history/reliability-journal.md 5b, tenth session).
 * SURVIVORS=1: what lives through a scavenge, by allocation site, in each phase kind (bench/lib/survivors.ts:
 * windows of WINDOW_MS between two forced scavenges; the forced ones add pauses, so not for timing).
 * LOOP_PRIORITY=0: the main thread left at niceness 0 (else raised as src/server.ts raises it).
 * MAIN_SLICE_US=n: the main thread's EEVDF slice set to n µs (an experiment; perl makes the call).
 * PROFILE=1: a CPU profile of the main thread (V8's sampler, PROFILE_US apart) over the phases; for
 * each of A's slowest 1 % in each phase kind, what the thread did while that request waited: its
 * samples by kind (idle, collector, program) and by the nearest project or package frame, the
 * macrotask they ran under, and the time the sampler saw nothing (the thread off its core). What a
 * slow sample of A waited behind, named.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { constants, PerformanceObserver, performance } from "node:perf_hooks";
import { GCProfiler, getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { raiseLoopPriority } from "../src/loop-priority.ts";
import { settleMemoryAfterStart } from "../src/start-memory.ts";
import { startTestApp } from "../test/helpers/app.ts";
import { threadCoreTimes } from "../test/reliability/helpers/core-waits.ts";
import { createHeavyOrders } from "../test/reliability/helpers/fixture.ts";
import { startHeavyClient } from "../test/reliability/helpers/heavy-client.ts";
import { loopGet } from "../test/reliability/helpers/loop-probe.ts";
import { inspector } from "./lib/cpu-probes.ts";
import { survivorSampler } from "./lib/survivors.ts";

const ROUNDS = Number(process.env.ROUNDS ?? 4);
const PHASE_MS = 3_000;
const SPACE_MS = Number(process.env.SPACE_MS ?? 50);
const SAMPLE = process.env.SAMPLE === "1";
const OUT = process.env.OUT ?? "/tmp/nn18-timeline.json";
const B_ALONE = process.env.B_ALONE === "1";
const INJECT = process.env.PROBE === "inject";
const TIMER_ONLY = process.env.PROBE === "timer";
const PROFILE = process.env.PROFILE === "1";
const PROFILE_US = Number(process.env.PROFILE_US ?? 250);
const SURVIVORS = process.env.SURVIVORS === "1";
/**
 * The main thread's EEVDF slice (kernel >= 6.12: sched_setattr's sched_runtime for SCHED_OTHER), for
 * experiments only: Node has no call for it, so perl's syscall() makes it (x86_64's number 314).
 */
function setMainSlice(us: number): void {
  const nice = Number(
    readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8").split(") ")[1].split(" ")[16],
  );
  const attr = `pack("LLQlLQQQ", 48, 0, 0, ${nice}, 0, ${us * 1000}, 0, 0)`;
  execFileSync("perl", ["-e", `my $a = ${attr}; syscall(314, ${process.pid}, $a, 0) == 0 or die "$!"`]);
  const sched = readFileSync(`/proc/self/task/${process.pid}/sched`, "utf8");
  console.error(`main thread: ${/se\.slice\s*:\s*(\d+)/.exec(sched)?.[1]} ns slice, niceness ${nice}`);
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mark = (label: string) => console.log(`@mark ${performance.now().toFixed(0)} ms: ${label}`);

const t = await startTestApp();
const a = await t.createStore();
const b = await t.createStore({ seed: "demo" });
const orderIds = await createHeavyOrders(b, 3);
await t.admin.patch(`/admin/stores/${b.id}`, {
  rate_limits: { per_key_per_minute: 120, per_store_per_minute: 300, writes_per_store_per_minute: 60 },
});
const origin = await t.runtime.app.listen({ port: 0, host: "127.0.0.1" });
// As src/server.ts does once the database's thread runs (LOOP_PRIORITY=0: the loop left at niceness 0).
if (process.env.LOOP_PRIORITY !== "0") raiseLoopPriority((m) => console.error(m));
// As src/server.ts and the test do once start-up is over (SETTLE=0: not, as the test did until 28 Nov).
if (process.env.SETTLE !== "0") settleMemoryAfterStart();
if (process.env.MAIN_SLICE_US) setMainSlice(Number(process.env.MAIN_SLICE_US));

const spaces: Array<[number, ...number[]]> = [];
const SPACE_NAMES = ["new_space", "old_space", "large_object_space", "code_space"];
const sampleSpaces = () => {
  const byName = new Map(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]));
  const { external, arrayBuffers } = process.memoryUsage();
  spaces.push([
    Math.round(performance.now()),
    ...SPACE_NAMES.map((n) => byName.get(n) ?? 0),
    external,
    arrayBuffers,
  ]);
};
const spaceTimer = setInterval(sampleSpaces, SPACE_MS);

const gcs: Array<{ at: number; ms: number; kind: number; flags: number }> = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const { kind, flags } = (e as unknown as { detail: { kind: number; flags: number } }).detail;
    gcs.push({ at: Math.round(e.startTime), ms: Number(e.duration.toFixed(2)), kind, flags });
  }
}).observe({ entryTypes: ["gc"] });

/** The main thread's ms on a core and ms waiting for one (helpers/core-waits.ts). */
const coreTimes = threadCoreTimes() ?? (() => ({ onCore: 0, waiting: 0 }));
/** Every thread's [ms on a core, ms waiting for one, niceness], by thread id. */
function threadTimes(): Map<string, [number, number, number]> {
  const out = new Map<string, [number, number, number]>();
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const [run, queue] = readFileSync(`/proc/self/task/${tid}/schedstat`, "utf8").split(" ").map(Number);
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      const nice = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
      out.set(tid, [run / 1e6, queue / 1e6, nice]);
    } catch {
      // the thread ended
    }
  }
  return out;
}
/** Each thread's time on a core and waiting for one, summed by phase kind. */
const threadsByKind: Record<string, Map<string, [number, number, number]>> = {
  loaded: new Map(),
  idle: new Map(),
};
async function threadTimed<T>(kind: string, work: () => Promise<T>): Promise<T> {
  const before = threadTimes();
  const result = await work();
  for (const [tid, [run, queue, nice]] of threadTimes()) {
    const [run0, queue0] = before.get(tid) ?? [0, 0];
    const sum = threadsByKind[kind].get(tid) ?? [0, 0, nice];
    threadsByKind[kind].set(tid, [sum[0] + run - run0, sum[1] + queue - queue0, nice]);
  }
  return result;
}

/** Per sample: due, wait, then the main thread's ms on a core and ms waiting for one meanwhile. */
const sched: Record<string, Array<[number, number, number, number]>> = { loaded: [], idle: [] };
let schedInto: Array<[number, number, number, number]> = sched.idle;

async function sampleWhoami(ms: number, probe = true): Promise<Array<[number, number]>> {
  const out: Array<[number, number]> = [];
  if (!probe) {
    await sleep(ms);
    return [[0, 0]];
  }
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const due = performance.now() + 10;
    const core0 = coreTimes();
    await sleep(10);
    const status = TIMER_ONLY
      ? 200
      : INJECT
        ? (await a.api.get("/v2/whoami")).status
        : await loopGet(t.runtime.app, "/v2/whoami", { authorization: `Bearer ${a.key}` });
    out.push([Math.round(due), Number((performance.now() - due).toFixed(2))]);
    const core1 = coreTimes();
    schedInto.push([
      Math.round(due),
      out.at(-1)![1],
      core1.onCore - core0.onCore,
      core1.waiting - core0.waiting,
    ]);
    if (status !== 200) throw new Error(`whoami ${status}`);
  }
  return out;
}

const post = inspector();
interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}
/** A scavenge now (`--expose-gc` is set only while the function is fetched, as src/start-memory.ts does). */
const minorGc = (() => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as (options: { type: string }) => void;
  setFlagsFromString("--no-expose-gc");
  return () => gc({ type: "minor" });
})();
const rowSizes = new Map<string, number>();
/**
 * What the main thread's collections did in a phase, from V8's own before/after figures (v8.GCProfiler):
 * bytes a scavenge moved into the old generation (old space and large objects grown across it), and
 * bytes full collections freed there. Counts and bytes, which the machine's load does not change.
 */
interface GcWork {
  scavenges: number;
  promotedMb: number;
  full: number;
  freedMb: number;
  oldAtEndMb: number;
}
const gcWork: Record<string, GcWork> = {
  loaded: { scavenges: 0, promotedMb: 0, full: 0, freedMb: 0, oldAtEndMb: 0 },
  idle: { scavenges: 0, promotedMb: 0, full: 0, freedMb: 0, oldAtEndMb: 0 },
};
type SpaceStat = { spaceName: string; spaceUsedSize: number };
const oldOf = (spaces: SpaceStat[]) =>
  spaces
    .filter((x) => x.spaceName === "old_space" || x.spaceName === "large_object_space")
    .reduce((sum, x) => sum + x.spaceUsedSize, 0);
async function profiled<T>(into: GcWork, work: () => Promise<T>): Promise<T> {
  const profiler = new GCProfiler();
  profiler.start();
  try {
    return await work();
  } finally {
    const { statistics } = profiler.stop() as unknown as {
      statistics: Array<{
        gcType: string;
        beforeGC: { heapSpaceStatistics: SpaceStat[] };
        afterGC: { heapSpaceStatistics: SpaceStat[] };
      }>;
    };
    for (const gc of statistics) {
      const grown = oldOf(gc.afterGC.heapSpaceStatistics) - oldOf(gc.beforeGC.heapSpaceStatistics);
      if (gc.gcType === "Scavenge") {
        into.scavenges++;
        into.promotedMb += grown / 1e6;
      } else if (gc.gcType === "MarkSweepCompact") {
        into.full++;
        into.freedMb -= grown / 1e6;
      }
    }
    into.oldAtEndMb = oldOf(
      getHeapSpaceStatistics().map((x) => ({ spaceName: x.space_name, spaceUsedSize: x.space_used_size })),
    );
    into.oldAtEndMb /= 1e6;
  }
}
const promoted: Record<string, Map<string, number>> = { loaded: new Map(), idle: new Map() };
let savedProfiles = 0;
const survivors = {
  loaded: survivorSampler(post, { windowMs: Number(process.env.WINDOW_MS ?? 500) }),
  idle: survivorSampler(post, { windowMs: Number(process.env.WINDOW_MS ?? 500) }),
};
const surviving = <T>(kind: "loaded" | "idle", work: () => Promise<T>) =>
  SURVIVORS ? survivors[kind].during(work) : work();
async function sampled<T>(into: Map<string, number>, work: () => Promise<T>): Promise<T> {
  if (!SAMPLE) return work();
  await post("HeapProfiler.startSampling", {
    samplingInterval: Number(process.env.SAMPLE_BYTES ?? 16_384),
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: false,
  });
  try {
    return await work();
  } finally {
    // Young objects the next scavenge would free are still in the profile: one scavenge now frees them.
    minorGc();
    const { profile } = await post<{
      profile: { head: SamplingNode; samples: Array<{ size: number; nodeId: number }> };
    }>("HeapProfiler.getSamplingProfile");
    // The sizes of what the driver's row decoding allocated and survived (which values: lines' pieces or others).
    const rowNodes = new Set<number>();
    const markRows = (node: SamplingNode & { id?: number }, inRow: boolean) => {
      const here = inRow || node.callFrame.functionName === "parseDataRowMessage";
      if (here && node.id !== undefined) rowNodes.add(node.id);
      for (const c of node.children) markRows(c, here);
    };
    markRows(profile.head, false);
    for (const x of profile.samples)
      if (rowNodes.has(x.nodeId)) {
        const bucket = x.size >= 1024 ? `${Math.round(x.size / 1024)} KB` : `${x.size} B`;
        rowSizes.set(bucket, (rowSizes.get(bucket) ?? 0) + 1);
      }
    await post("HeapProfiler.stopSampling");
    // SAMPLE_SAVE=prefix: each phase's profile as it is (prefix-<n>.heapprofile), for a closer look.
    if (process.env.SAMPLE_SAVE)
      writeFileSync(`${process.env.SAMPLE_SAVE}-${savedProfiles++}.heapprofile`, JSON.stringify(profile));
    // Bytes by the stack's nearest project or package frame (the allocation's site), and its caller.
    const walk = (node: SamplingNode, stack: string[]) => {
      const { functionName, url, lineNumber } = node.callFrame;
      const file = url.replace(/^.*\/(node_modules\/)/, "$1").replace(/^.*\/(src|test|bench)\//, "$1/");
      const here = url ? [...stack, `${functionName || "(anon)"} ${file}:${lineNumber + 1}`] : stack;
      if (node.selfSize > 0) {
        const key = here.slice(-Number(process.env.SAMPLE_DEPTH ?? 3)).join(" < ") || functionName;
        into.set(key, (into.get(key) ?? 0) + node.selfSize);
      }
      for (const c of node.children) walk(c, here);
    };
    walk(profile.head, []);
  }
}

await sampleWhoami(3_000); // warm-up
/** The CPU profile's clock (µs, the monotonic clock process.hrtime reads) minus performance.now()'s, µs. */
const profileClockOffsetUs = Number(process.hrtime.bigint() / 1000n) - performance.now() * 1000;
if (PROFILE) {
  await post("Profiler.enable");
  await post("Profiler.setSamplingInterval", { interval: PROFILE_US });
  await post("Profiler.start");
}
const heavy = startHeavyClient({ origin, key: b.key, orderIds, clients: 4 });
const samples: Record<string, Array<[number, number]>> = { loaded: [], idle: [] };
const phases: Array<{ kind: string; from: number; to: number }> = [];
for (let round = 0; round < ROUNDS; round++) {
  heavy.resume();
  await sleep(1_000);
  let from = performance.now();
  mark(`loaded ${round} start`);
  schedInto = sched.loaded;
  samples.loaded.push(
    ...(await threadTimed("loaded", () =>
      profiled(gcWork.loaded, () =>
        sampled(promoted.loaded, () => surviving("loaded", () => sampleWhoami(PHASE_MS, !B_ALONE))),
      ),
    )),
  );
  mark(`loaded ${round} end`);
  phases.push({ kind: "loaded", from: Math.round(from), to: Math.round(performance.now()) });
  await heavy.pause();
  from = performance.now();
  mark(`idle ${round} start`);
  schedInto = sched.idle;
  samples.idle.push(
    ...(await threadTimed("idle", () =>
      profiled(gcWork.idle, () =>
        sampled(promoted.idle, () => surviving("idle", () => sampleWhoami(PHASE_MS))),
      ),
    )),
  );
  mark(`idle ${round} end`);
  phases.push({ kind: "idle", from: Math.round(from), to: Math.round(performance.now()) });
}
const cpuProfile = PROFILE ? (await post<{ profile: CpuProfile }>("Profiler.stop")).profile : null;
const counts = await heavy.stop();
clearInterval(spaceTimer);

const p = (xs: number[], q: number) => {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.ceil((q / 100) * s.length) - 1)];
};
const kindName = (k: number) =>
  k === constants.NODE_PERFORMANCE_GC_MINOR
    ? "minor"
    : k === constants.NODE_PERFORMANCE_GC_MAJOR
      ? "major"
      : k === constants.NODE_PERFORMANCE_GC_INCREMENTAL
        ? "incremental"
        : String(k);
interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }>;
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Per profile, each node's parent and each sample's time (µs, the profile's clock). */
const profileIndex = new WeakMap<CpuProfile, { parent: Map<number, number>; times: number[] }>();

/**
 * What the main thread did from `due` for `waitMs` (performance.now() ms): its samples by kind, the
 * nearest project or package frames, the macrotasks (outermost JavaScript frame), and the time with
 * no sample at all beyond one interval (the thread off its core, or in a long stretch of native work).
 */
function waitedBehind(profile: CpuProfile, due: number, waitMs: number) {
  let index = profileIndex.get(profile);
  if (!index) {
    const parent = new Map<number, number>();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const times: number[] = [];
    let at = profile.startTime;
    for (const d of profile.timeDeltas) {
      at += d;
      times.push(at);
    }
    index = { parent, times };
    profileIndex.set(profile, index);
  }
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const from = due * 1000 + profileClockOffsetUs;
  const to = from + waitMs * 1000;
  const kinds: Record<string, number> = {};
  const frames = new Map<string, number>();
  const tasks = new Map<string, number>();
  let unsampledUs = 0;
  let previous = from;
  const label = (f: CpuProfile["nodes"][number]["callFrame"]) =>
    `${f.functionName || "(anon)"} ${f.url.replace(/^.*\/(node_modules\/)/, "$1").replace(/^.*\/(src|test|bench)\//, "$1/")}:${f.lineNumber + 1}`;
  for (let i = 0; i < profile.samples.length; i++) {
    const at = index.times[i];
    if (at < from || at > to) continue;
    if (at - previous > 2 * PROFILE_US) unsampledUs += at - previous - PROFILE_US;
    previous = at;
    const leaf = byId.get(profile.samples[i])!;
    const name = leaf.callFrame.functionName;
    const kind = ["(idle)", "(garbage collector)", "(program)"].includes(name) ? name : "js";
    kinds[kind] = (kinds[kind] ?? 0) + 1;
    if (kind !== "js") continue;
    let nearest: string | null = null;
    let outer: string | null = null;
    for (let id: number | undefined = leaf.id; id !== undefined; id = index.parent.get(id)) {
      const f = byId.get(id)!.callFrame;
      if (!f.url) continue;
      if (!nearest && /\/(src|node_modules)\//.test(f.url)) nearest = label(f);
      outer = label(f);
    }
    if (nearest) frames.set(nearest, (frames.get(nearest) ?? 0) + 1);
    if (outer) tasks.set(outer, (tasks.get(outer) ?? 0) + 1);
  }
  if (to - previous > 2 * PROFILE_US) unsampledUs += to - previous - PROFILE_US;
  const top = (m: Map<string, number>, n: number) => [...m].sort((x, y) => y[1] - x[1]).slice(0, n);
  return {
    samples: kinds,
    unsampled_ms: Number((unsampledUs / 1000).toFixed(2)),
    frames: top(frames, 6),
    tasks: top(tasks, 3),
  };
}

/**
 * The slowest 1 % of a phase's samples with the main thread's ms on a core and ms runnable but waiting
 * for one while each waited, and their sums: which of the two A's tail is made of.
 */
function slowestSched(kind: string) {
  const rows = [...sched[kind]].sort((x, y) => y[1] - x[1]).slice(0, Math.ceil(sched[kind].length / 100));
  const sum = (i: number) => Number(rows.reduce((s, r) => s + r[i], 0).toFixed(1));
  return {
    wait: sum(1),
    on_core: sum(2),
    waiting_for_core: sum(3),
    rows: rows.map((r) => r.slice(1).map((x) => Number(x.toFixed(2)))),
  };
}

const summary: Record<string, unknown> = {
  db: process.env.TEST_DATABASE_URL ? "postgres" : "pglite",
  counts,
};
for (const kind of ["loaded", "idle"]) {
  const within = (at: number) => phases.some((ph) => ph.kind === kind && at >= ph.from && at <= ph.to);
  const g = gcs.filter((x) => within(x.at));
  const byKind: Record<string, number> = {};
  for (const x of g) byKind[kindName(x.kind)] = (byKind[kindName(x.kind)] ?? 0) + 1;
  const waits = samples[kind].map(([, w]) => w);
  // A's slowest 1 %: how many began while a collection of the main thread was running or within 2 ms.
  const slow = samples[kind].filter(([, w]) => w >= p(waits, 99));
  const withGc = slow.filter(([due, w]) => g.some((x) => x.at + x.ms >= due - 2 && x.at <= due + w)).length;
  summary[kind] = {
    n: waits.length,
    p50: p(waits, 50),
    p99: p(waits, 99),
    max: Math.max(...waits),
    gc: byKind,
    gc_ms: Number(g.reduce((s, x) => s + x.ms, 0).toFixed(1)),
    // Each kind's pauses, longest first (ms): the scavenges' distribution beside their count.
    gc_pauses_ms: Object.fromEntries(
      Object.keys(byKind).map((k) => [
        k,
        g
          .filter((x) => kindName(x.kind) === k)
          .map((x) => x.ms)
          .sort((x, y) => y - x),
      ]),
    ),
    slowest_1pct_with_gc: `${withGc}/${slow.length}`,
    slowest_1pct_on_core_ms_waiting_ms: slowestSched(kind),
    threads_on_core_waiting_nice: Object.fromEntries(
      [...threadsByKind[kind]]
        .filter(([, [run]]) => run > 20)
        .sort((x, y) => y[1][0] - x[1][0])
        .map(([tid, times]) => [
          tid === String(process.pid) ? "main" : `+${Number(tid) - process.pid}`,
          times.map((x) => Math.round(x)),
        ]),
    ),
    flags: [...new Set(g.map((x) => x.flags))],
    scavenges: gcWork[kind].scavenges,
    promoted_mb: Number(gcWork[kind].promotedMb.toFixed(2)),
    full: gcWork[kind].full,
    freed_mb: Number(gcWork[kind].freedMb.toFixed(2)),
    old_at_end_mb: Number(gcWork[kind].oldAtEndMb.toFixed(1)),
    promoted_top: SAMPLE
      ? [...promoted[kind]]
          .sort((x, y) => y[1] - x[1])
          .slice(0, Number(process.env.SAMPLE_TOP ?? 15))
          .map(([site, bytes]) => [Number((bytes / 1e6).toFixed(2)), site])
      : undefined,
    slowest_1pct_waited_behind: cpuProfile
      ? slow
          .sort((x, y) => y[1] - x[1])
          .map(([due, w]) => ({ due, wait: w, ...waitedBehind(cpuProfile, due, w) }))
      : undefined,
    survivors: SURVIVORS ? survivors[kind as "loaded" | "idle"].report() : undefined,
    survived_sampled_mb: SAMPLE
      ? Number(([...promoted[kind].values()].reduce((s, x) => s + x, 0) / 1e6).toFixed(2))
      : undefined,
  };
}
// The young generation's size at the end (both semi-spaces, MB): what V8 grew it to under the run.
summary.new_space_mb = Number(
  ((getHeapSpaceStatistics().find((x) => x.space_name === "new_space")?.space_size ?? 0) / 1e6).toFixed(1),
);
summary.load = (await import("node:os")).loadavg().map((n) => Number(n.toFixed(1)));
summary.row_value_sizes = Object.fromEntries([...rowSizes].sort((x, y) => y[1] - x[1]).slice(0, 20));
console.error(JSON.stringify(summary, null, 1));
writeFileSync(OUT, JSON.stringify({ summary, phases, gcs, spaces, spaceNames: SPACE_NAMES, samples }));
console.error(`written ${OUT}`);
await t.close();
process.exit(0);
