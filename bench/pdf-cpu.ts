/**
 * `node --import tsx bench/pdf-cpu.ts`: what a cached 100-line PDF costs the API's own thread, in
 * process on PostgreSQL (DATABASE_URL or the local server; a fresh database, dropped at the end):
 * CPU per request (`process.cpuUsage`, the database's backends not included), young-generation
 * collections per thousand requests and, with HEAP=1, bytes allocated per request (V8's sampling heap
 * profiler, objects collected since counted). `GET /v2/whoami` is measured beside it as the yardstick.
 * Requests come over loopback from autocannon in a process of its own (a fixed number, 8 connections),
 * so the figures are the service's own: parsing, hooks, statements, the answer's write. ROUNDS=n alternates.
 * The database's side is printed beside it: the CPU of the run's PostgreSQL backends per request (their
 * `/proc/<pid>/schedstat`, the server on this machine), which is where work moved into SQL goes.
 */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { backendsCpuNs, backendsCpuSince, countScavenges, inspector } from "./lib/cpu-probes.ts";
import { injectCaller, serviceInProcess, storeWithBulkCatalog } from "./lib/in-process-store.ts";

const ADMIN = "bench-admin-token-0123456789abcdef";
const REQUESTS = Number(process.env.REQUESTS ?? 4000);
const CONCURRENCY = 8;
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const { runtime, close } = await serviceInProcess(ADMIN);
const { app } = runtime;
try {
  const call = injectCaller(app);
  const { key, variants } = await storeWithBulkCatalog(call, () => runtime.worker.drain(), {
    admin: ADMIN,
    name: "P",
    scopes: ["read", "write:purchase_orders", "write:suppliers"],
    products: 2,
  });
  const supplier = (await call("POST", "/v2/suppliers", key, { name: "S" })).data.id;
  const lines = variants.slice(0, 100).map((v) => ({ variant_id: v.id, quantity: 10 }));
  const order = (await call("POST", "/v2/purchase_orders", key, { supplier_id: supplier, lines })).data;
  const pdfUrl = `/v2/purchase_orders/${order.id}/pdf`;
  await call("GET", pdfUrl, key);

  const scavenges = countScavenges();
  const post = inspector();
  const heap = process.env.HEAP === "1";
  if (heap) await post("HeapProfiler.enable");

  const origin = await app.listen({ host: "127.0.0.1", port: 0 });
  const autocannon = createRequire(import.meta.url).resolve("autocannon/autocannon.js");
  const load = (url: string, n: number) =>
    new Promise<void>((resolve, reject) =>
      execFile(
        process.execPath,
        [
          autocannon,
          "-j",
          "-c",
          String(CONCURRENCY),
          "-a",
          String(n),
          "-H",
          `authorization=Bearer ${key}`,
          `${origin}${url}`,
        ],
        { maxBuffer: 1 << 24 },
        (error, stdout) => {
          if (error) return reject(error);
          const result = JSON.parse(stdout);
          if (result["2xx"] !== n) return reject(new Error(`${url}: ${result["2xx"]} of ${n} answered 2xx`));
          resolve();
        },
      ),
    );
  const measure = async (label: string, url: string) => {
    await load(url, 2000);
    if (heap)
      await post("HeapProfiler.startSampling", {
        samplingInterval: 1024,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    if (process.env.PROFILE) {
      await post("Profiler.enable");
      await post("Profiler.setSamplingInterval", { interval: 100 });
      await post("Profiler.start");
    }
    scavenges.reset();
    const backendsBefore = await backendsCpuNs(runtime.ctx.db);
    const cpu = process.cpuUsage();
    await load(url, REQUESTS);
    const used = process.cpuUsage(cpu);
    const backendNs = backendsCpuSince(backendsBefore, await backendsCpuNs(runtime.ctx.db));
    if (process.env.PROFILE) {
      const { profile } = await post("Profiler.stop");
      writeFileSync(`${process.env.PROFILE}-${label}.cpuprofile`, JSON.stringify(profile));
    }
    let bytes = 0;
    if (heap) {
      const { profile } = await post("HeapProfiler.stopSampling");
      for (const s of profile.samples) bytes += s.size;
    }
    await new Promise((r) => setTimeout(r, 50));
    console.log(
      `${label.padEnd(8)} CPU ${((used.user + used.system) / REQUESTS).toFixed(0).padStart(5)} µs/request` +
        ` (user ${(used.user / REQUESTS).toFixed(0)}, system ${(used.system / REQUESTS).toFixed(0)}),` +
        ` backends ${(backendNs / 1000 / REQUESTS).toFixed(0)} µs/request,` +
        ` scavenges ${((scavenges.count * 1000) / REQUESTS).toFixed(1)} per 1000` +
        (heap ? `, allocated ${(bytes / REQUESTS / 1024).toFixed(1)} KB/request` : ""),
    );
  };
  for (let round = 0; round < ROUNDS; round++) {
    await measure("whoami", "/v2/whoami");
    await measure("pdf", pdfUrl);
  }
} finally {
  await close();
}
