/**
 * `node --import tsx bench/key-lookup-cpu.ts`: what the key lookup every /v2 request starts with costs,
 * on PostgreSQL (DATABASE_URL or the local server; a fresh database, dropped at the end), as it runs
 * now (src/http/plugins/key-lookup.ts: one JSON text, parsed by `JSON.parse`) against the same row
 * read as 15 columns (as before 27 Nov: `pg` describes, and parses into values, every column of every
 * execution). Both run as named statements straight on the API's pool, 8 at a time, alternated over
 * ROUNDS rounds of REQUESTS executions in one process; per execution: the process's CPU
 * (`process.cpuUsage`), the database backends' (their `/proc/<pid>/schedstat`), young-generation
 * collections and, with HEAP=1, bytes allocated (V8's sampling heap profiler).
 */
import { readFileSync } from "node:fs";
import type { Db } from "../src/db/database.ts";
import { hotQuery } from "../src/db/prepared.ts";
import { hashSecret } from "../src/domain/secrets.ts";
import { keyLookup, keyRecordOf } from "../src/http/plugins/key-lookup.ts";
import { backendsCpuNs, backendsCpuSince, countScavenges, inspector } from "./lib/cpu-probes.ts";
import { injectCaller, serviceInProcess, storeWithBulkCatalog } from "./lib/in-process-store.ts";

const ADMIN = "bench-admin-token-0123456789abcdef";
const REQUESTS = Number(process.env.REQUESTS ?? 5000);
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const CONCURRENCY = 8;

/** The lookup as 15 columns, for comparison. */
const keyColumns = hotQuery("bench_auth_key_columns", (db: Db) =>
  db
    .selectFrom("api_keys as k")
    .innerJoin("stores as s", "s.id", "k.store_id")
    .select([
      "k.id as key_id",
      "k.name as key_name",
      "k.prefix",
      "k.scopes",
      "k.expires_at",
      "k.revoked_at",
      "s.id as store_id",
      "s.name as store_name",
      "s.domain",
      "s.currency",
      "s.timezone",
      "s.api_access",
      "s.rate_per_key_per_minute",
      "s.rate_per_store_per_minute",
      "s.rate_writes_per_store_per_minute",
    ])
    .where("k.key_hash", "=", ""),
);

const { runtime, close } = await serviceInProcess(ADMIN);
try {
  const db = runtime.ctx.db;
  const call = injectCaller(runtime.app);
  const { key } = await storeWithBulkCatalog(call, () => runtime.worker.drain(), {
    admin: ADMIN,
    name: "K",
    scopes: ["read", "write:purchase_orders", "write:suppliers"],
    products: 1,
  });
  const hash = hashSecret(key);
  const variants: Record<string, () => Promise<unknown>> = {
    "15 columns": async () => (await keyColumns.run(db, hash))[0],
    "one text": async () => {
      const [row] = await keyLookup.run(db, hash);
      return row && keyRecordOf(row.key_json);
    },
  };

  const scavenges = countScavenges();
  const post = inspector();
  const heap = process.env.HEAP === "1";
  if (heap) await post("HeapProfiler.enable");

  const runMany = async (one: () => Promise<unknown>, n: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next++ < n) if (!(await one())) throw new Error("the key was not found");
      }),
    );
  };
  const measure = async (label: string, one: () => Promise<unknown>) => {
    await runMany(one, 500);
    if (heap)
      await post("HeapProfiler.startSampling", {
        samplingInterval: 512,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    scavenges.reset();
    const backendsBefore = await backendsCpuNs(db);
    const cpu = process.cpuUsage();
    await runMany(one, REQUESTS);
    const used = process.cpuUsage(cpu);
    const backendNs = backendsCpuSince(backendsBefore, await backendsCpuNs(db));
    let bytes = 0;
    if (heap) {
      const { profile } = await post("HeapProfiler.stopSampling");
      for (const s of profile.samples) bytes += s.size;
    }
    console.log(
      `${label.padEnd(11)} API ${((used.user + used.system) / REQUESTS).toFixed(1).padStart(6)} µs` +
        ` (user ${(used.user / REQUESTS).toFixed(1)}, system ${(used.system / REQUESTS).toFixed(1)}),` +
        ` backends ${(backendNs / 1000 / REQUESTS).toFixed(1)} µs,` +
        ` scavenges ${((scavenges.count * 1000) / REQUESTS).toFixed(2)} per 1000` +
        (heap ? `, allocated ${(bytes / REQUESTS).toFixed(0)} B` : "") +
        ` (load ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]})`,
    );
  };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? Object.keys(variants) : Object.keys(variants).reverse();
    for (const label of order) await measure(label, variants[label]);
  }
} finally {
  await close();
}
