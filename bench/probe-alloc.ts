/**
 * `node --import tsx bench/probe-alloc.ts`: what one `GET /v2/whoami` of the noisy-neighbour test's
 * probe (test/reliability/helpers/loop-probe.ts: the service's own handler on its loop, no socket)
 * allocates on the main thread, in all and by site. The service starts as the test starts it (PGlite
 * in memory, or PostgreSQL with TEST_DATABASE_URL); N requests one after another, V8's sampling heap
 * profiler every SAMPLE_BYTES, young garbage included. Bytes, so the machine's load does not move
 * them. The probe's own objects (IncomingMessage, ServerResponse, the sink) are counted too: they are
 * what any request over a socket also makes, in Node's HTTP layer.
 */
import { startTestApp } from "../test/helpers/app.ts";
import { loopGet } from "../test/reliability/helpers/loop-probe.ts";
import { inspector } from "./lib/cpu-probes.ts";
import { bytesBySite, type SamplingNode } from "./lib/heap-sites.ts";

const N = Number(process.env.N ?? 3000);
const SAMPLE_BYTES = Number(process.env.SAMPLE_BYTES ?? 256);
const TOP = Number(process.env.TOP ?? 25);
const PATH = process.env.PROBE_PATH ?? "/v2/whoami";

const t = await startTestApp();
const a = await t.createStore();
const headers = { authorization: `Bearer ${a.key}` };
for (let i = 0; i < 500; i++) await loopGet(t.runtime.app, PATH, headers); // warm-up

const post = inspector();
await post("HeapProfiler.enable");
await post("HeapProfiler.startSampling", {
  samplingInterval: SAMPLE_BYTES,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
const statuses: Record<number, number> = {};
for (let i = 0; i < N; i++) {
  const status = await loopGet(t.runtime.app, PATH, headers);
  statuses[status] = (statuses[status] ?? 0) + 1;
}
const { profile } = await post<{ profile: { head: SamplingNode } }>("HeapProfiler.getSamplingProfile");
await post("HeapProfiler.stopSampling");

const DEPTH = Number(process.env.DEPTH ?? 4);
const { total, sites } = bytesBySite(profile.head, DEPTH);
const perRequest = (bytes: number) => Math.round(bytes / N);
console.log(
  JSON.stringify(
    {
      db: process.env.TEST_DATABASE_URL ? "postgres" : "pglite",
      path: PATH,
      statuses,
      bytes_per_request: perRequest(total),
      top: sites.slice(0, TOP).map(([site, bytes]) => [perRequest(bytes), site]),
    },
    null,
    1,
  ),
);
await t.close();
