/**
 * What lives through a scavenge, by allocation site: the bytes a scavenge copies (its pause, almost
 * all of it: docs/history/reliability-journal.md 5b, fifteenth session) are what is still alive in the
 * young generation when it runs. Sampled in windows: a scavenge empties the young generation of
 * garbage, V8's sampling heap profiler starts (keeping only objects still alive: a sample is dropped
 * when a collection, minor or major, frees its object), WINDOW_MS later a second scavenge runs and the
 * profile's samples are what was allocated in the window and lived through it: the survivors a
 * natural scavenge at that moment would have copied (a few may have been promoted by one between).
 * The forced scavenges add collections of their own: for attribution, not for timing.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { SamplingNode } from "./heap-sites.ts";

/** Objects this large go to the large-object space, which a scavenge promotes without copying. */
const LARGE_OBJECT_BYTES = 128 * 1024;

type Post = <T = unknown>(method: string, params?: object) => Promise<T>;

/** A scavenge now (`--expose-gc` is set only while the function is fetched, as src/start-memory.ts does). */
export const minorGc = (() => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as (options: { type: string }) => void;
  setFlagsFromString("--no-expose-gc");
  return () => gc({ type: "minor" });
})();

/** A full collection now. */
export const fullGc = (() => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  setFlagsFromString("--no-expose-gc");
  return () => gc();
})();

export interface SurvivorReport {
  windows: number;
  window_ms: number;
  /** Bytes that lived through the window's closing scavenge, per window (KB). */
  kb_per_window: number;
  /** The largest sites, KB per window, nearest frames first (large objects not counted). */
  top: Array<[number, string]>;
  /** Large objects alive at a window's end, KB per window, by site: not copied, only promoted. */
  large: Array<[number, string]>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Windows one after another while `during`'s work runs (over as many calls as made); `report` gives
 * the survivors by site so far, per window. `depth` frames name a site; a sample every
 * `intervalBytes` (V8 scales each sample to the bytes it stands for).
 */
export function survivorSampler(post: Post, { windowMs = 500, intervalBytes = 4096, depth = 4 } = {}) {
  let windows = 0;
  let total = 0;
  const sites = new Map<string, number>();
  const large = new Map<string, number>();
  const window = async () => {
    minorGc();
    await post("HeapProfiler.startSampling", {
      samplingInterval: intervalBytes,
      includeObjectsCollectedByMajorGC: false,
      includeObjectsCollectedByMinorGC: false,
    });
    await sleep(windowMs);
    minorGc();
    const { profile } = await post<{ profile: Profile }>("HeapProfiler.getSamplingProfile");
    await post("HeapProfiler.stopSampling");
    total += addSites(profile, depth, sites, large);
    windows++;
  };
  return {
    async during<T>(work: () => Promise<T>): Promise<T> {
      let running = true;
      const loop = (async () => {
        while (running) await window();
      })();
      try {
        return await work();
      } finally {
        running = false;
        await loop;
      }
    },
    report(): SurvivorReport {
      const kb = (bytes: number) => Number((bytes / 1024 / Math.max(1, windows)).toFixed(1));
      const top = (m: Map<string, number>, n: number) =>
        [...m]
          .sort((a, b) => b[1] - a[1])
          .slice(0, n)
          .map(([site, bytes]) => [kb(bytes), site] as [number, string]);
      return {
        windows,
        window_ms: windowMs,
        kb_per_window: kb(total),
        top: top(sites, 25),
        large: top(large, 10),
      };
    },
  };
}

interface Profile {
  head: SamplingNode & { id: number };
  samples: Array<{ size: number; nodeId: number }>;
}

/**
 * Adds a profile's bytes by site (the nearest `depth` frames) into `sites`, its large objects into
 * `large` instead; returns the bytes added to `sites`.
 */
function addSites(profile: Profile, depth: number, sites: Map<string, number>, large: Map<string, number>) {
  const siteOf = new Map<number, string>();
  const selfOf = new Map<number, number>();
  const walk = (node: SamplingNode & { id: number }, stack: string[]) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url.replace(/^.*\/(node_modules\/)/, "$1").replace(/^.*\/(src|test|bench)\//, "$1/");
    const here = url ? [...stack, `${functionName || "(anon)"} ${file}:${lineNumber + 1}`] : stack;
    siteOf.set(node.id, here.slice(-depth).reverse().join(" < ") || functionName);
    selfOf.set(node.id, node.selfSize);
    for (const child of node.children) walk(child as SamplingNode & { id: number }, here);
  };
  walk(profile.head, []);
  // A large object is sampled whole (its size is many intervals), so its sample is its bytes.
  for (const { size, nodeId } of profile.samples)
    if (size >= LARGE_OBJECT_BYTES) {
      const site = siteOf.get(nodeId) ?? "?";
      large.set(site, (large.get(site) ?? 0) + size);
      selfOf.set(nodeId, (selfOf.get(nodeId) ?? 0) - size);
    }
  let total = 0;
  for (const [id, bytes] of selfOf)
    if (bytes > 0) {
      const site = siteOf.get(id)!;
      sites.set(site, (sites.get(site) ?? 0) + bytes);
      total += bytes;
    }
  return total;
}
