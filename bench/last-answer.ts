/**
 * `node --v8-pool-size=0 --import tsx bench/last-answer.ts` (TEST_DATABASE_URL for PostgreSQL): what
 * is still held after a run of big GETs (test/integration/answers-die-young.test.ts). A round: three
 * warm-up GETs of a 500-line order through the service's own handler (loop-probe.ts), a full
 * collection, REQUESTS more (MODE=copy: a COPY of ROWS rows of 1 KB alone), a variant's step, then
 * SCAVENGES scavenges and a full collection. Printed per round: the ArrayBuffers' and the heap's bytes
 * the scavenges left and the full collection freed, each collection's ArrayBuffer reading (KB), the
 * collections V8 ran by itself, and (HOOKS=1) the async resources made meanwhile. SETTLE_FIRST=1 waits
 * 200 ms before the first full collection; INSTEAD=full makes the scavenges full collections;
 * FIRST_SMALL=n sends n GETs of a 60-line order first. Twentieth session: the ~300 KB "held" was the
 * warm-up's last answer, still referenced when the first full collection ran (docs/reliability.md 5b).
 */
import { createHook } from "node:async_hooks";
import { constants, PerformanceObserver } from "node:perf_hooks";
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { copyRowsBinary } from "../src/db/copy-binary.ts";
import { startTestApp } from "../test/helpers/app.ts";
import { createDraftOrder, createSupplier } from "../test/helpers/factories.ts";
import { createHeavyOrders } from "../test/reliability/helpers/fixture.ts";
import { loopGet } from "../test/reliability/helpers/loop-probe.ts";

const gc = (() => {
  setFlagsFromString("--expose-gc");
  const collect = runInNewContext("gc") as (options?: { type: string }) => void;
  setFlagsFromString("--no-expose-gc");
  return collect;
})();
const REQUESTS = Number(process.env.REQUESTS ?? 20);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
/** Forced scavenges before the full collection. */
const SCAVENGES = Number(process.env.SCAVENGES ?? 2);
const settle = (ms = 200) => new Promise<void>((r) => setTimeout(r, ms));
/** Every reading of the round, in KB: what each collection left. */
let readings: number[] = [];
async function after(collect: () => void) {
  collect();
  await settle();
  const ab = process.memoryUsage().arrayBuffers;
  readings.push(Math.round(ab / 1024));
  return { ab, heap: getHeapStatistics().used_heap_size };
}

/** Scavenges and full collections V8 ran on its own (the forced ones are counted out). */
const natural = { minor: 0, major: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const { kind, flags } = (e as unknown as { detail: { kind: number; flags: number } }).detail;
    if (flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) continue;
    if (kind === constants.NODE_PERFORMANCE_GC_MINOR) natural.minor++;
    else natural.major++;
  }
}).observe({ entryTypes: ["gc"] });

const t = await startTestApp();
const b = await t.createStore({ seed: "demo" });
const [orderId] = await createHeavyOrders(b, 3);
await t.runtime.app.listen({ port: 0, host: "127.0.0.1" });
const headers = { authorization: `Bearer ${b.key}` };
const order = `/v2/purchase_orders/${orderId}`;
const supplier = await createSupplier(b.api, { address_line1: "1 Quay", city: "Brest" });
const smallLines = Array.from({ length: 60 }, (_, i) => ({
  product_title: `Small ${i + 1}`,
  sku: `SMALL-${i + 1}`,
  quantity: 1,
  unit_cost: "1.25",
}));
const small = await createDraftOrder(b.api, { supplier_id: supplier.id, lines: smallLines, notes: "s" });
const smallOrder = `/v2/purchase_orders/${small.id}`;

/** MODE=copy: the statement's COPY alone (280 rows of 1,000 bytes), no HTTP, no presenting. */
const request =
  process.env.MODE === "copy"
    ? async () => {
        await copyRowsBinary(
          t.runtime.database.db,
          `select repeat('x', 1000) from generate_series(1, ${Number(process.env.ROWS ?? 280)})`,
        );
      }
    : async () => {
        await loopGet(t.runtime.app, order, headers);
      };

const variants: Record<string, () => Promise<void>> = {
  nothing: async () => {},
  "one whoami": async () => {
    await loopGet(t.runtime.app, "/v2/whoami", headers);
  },
  "wait 2 s": () => settle(2000),
  "one small order": async () => {
    await loopGet(t.runtime.app, smallOrder, headers);
  },
  "one small order x12": async () => {
    for (let i = 0; i < 12; i++) await loopGet(t.runtime.app, smallOrder, headers);
  },
  "setImmediate x3": async () => {
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
  },
};
const only = process.env.VARIANTS?.split(",");
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, then] of Object.entries(variants)) {
    if (only && !only.includes(name)) continue;
    for (let i = 0; i < 3; i++) await loopGet(t.runtime.app, order, headers);
    readings = [];
    // SETTLE_FIRST=1: the warm-up's last request let go before the first full collection.
    if (process.env.SETTLE_FIRST === "1") await settle();
    await after(() => gc());
    await settle();
    const created: Record<string, number> = {};
    const hook = createHook({
      init(_id, type) {
        created[type] = (created[type] ?? 0) + 1;
      },
    });
    if (process.env.HOOKS === "1") hook.enable();
    natural.minor = 0;
    natural.major = 0;
    // FIRST_SMALL=n: the first n requests after the full collection are of the small order.
    for (let i = 0; i < Number(process.env.FIRST_SMALL ?? 0); i++)
      await loopGet(t.runtime.app, smallOrder, headers);
    for (let i = 0; i < REQUESTS; i++) await request();
    await then();
    const during = { ...natural };
    // INSTEAD=full: full collections where the scavenges were (what a second full collection frees).
    const first = () => (process.env.INSTEAD === "full" ? gc() : gc({ type: "minor" }));
    for (let i = 1; i < SCAVENGES; i++) await after(first);
    const scavenged = await after(first);
    const full = await after(() => gc());
    hook.disable();
    console.log(
      JSON.stringify({
        round,
        variant: name,
        requests: REQUESTS,
        natural: during,
        created,
        readings_kb: readings,
        arraybuffers_kb: Math.round((scavenged.ab - full.ab) / 1024),
        heap_kb: Math.round((scavenged.heap - full.heap) / 1024),
      }),
    );
  }
}
await t.close();
