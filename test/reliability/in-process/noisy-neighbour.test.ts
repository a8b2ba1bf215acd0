/**
 * One key cannot slow everyone down (issue 18 item 2): store B's read-write key spends its whole
 * rate limit (the contract's 120 requests a minute, 60 writes a store) on the heaviest things it may
 * ask for (PDFs and receiving copies of orders at the 500-line cap, made new by a PATCH between
 * them, full pages of orders) while store A's `GET /whoami` is timed; its median must stay under 3×
 * the median measured idle in the same run. Before the PDFs left the event loop, three loops of a
 * 5,000-line order's PDF took A's median from 3 ms to 667 ms. The p99 is printed, not held to 3×:
 * reading and serializing a 500-line order still runs on the event loop (on PGlite the query too), and
 * those stalls of 10 to 190 ms show in it (docs/reliability.md, "Limits and known behaviour").
 */
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { after, before, describe, test } from "node:test";
import { MAX_LINES_PER_ORDER } from "../../../src/domain/purchase-orders/line-cap.ts";
import { startTestApp, type TestApp, type TestStore } from "../../helpers/app.ts";
import { createDraftOrder, createSupplier } from "../../helpers/factories.ts";

const ORDERS = 3;
const CLIENTS = 4;
const SAMPLE_MS = 15_000;
const SAMPLE_EVERY_MS = 10;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Times store A's GET /whoami every SAMPLE_EVERY_MS for SAMPLE_MS; every answer must be 200. */
async function sampleWhoami(store: TestStore): Promise<number[]> {
  const times: number[] = [];
  const end = performance.now() + SAMPLE_MS;
  while (performance.now() < end) {
    const start = performance.now();
    const res = await store.api.get("/v2/whoami");
    times.push(performance.now() - start);
    assert.equal(res.status, 200);
    await sleep(SAMPLE_EVERY_MS);
  }
  return times;
}

const figures = (times: number[]) => ({
  n: times.length,
  p50: Number(percentile(times, 50).toFixed(2)),
  p90: Number(percentile(times, 90).toFixed(2)),
  p99: Number(percentile(times, 99).toFixed(2)),
  max: Number(Math.max(...times).toFixed(2)),
});

describe("a key at its full rate limit on the heaviest reads and writes", () => {
  let t: TestApp;
  let a: TestStore;
  let b: TestStore;
  const orderIds: number[] = [];
  before(async () => {
    t = await startTestApp();
    a = await t.createStore();
    b = await t.createStore({ seed: "demo" });
    const supplier = await createSupplier(b.api, { address_line1: "1 Quay", city: "Brest" });
    const lines = Array.from({ length: MAX_LINES_PER_ORDER }, (_, i) => ({
      product_title: `Part ${i + 1} with a long enough title to wrap in its column`,
      sku: `PART-${i + 1}`,
      quantity: 1 + (i % 7),
      unit_cost: `${(i % 90) + 1}.25`,
    }));
    for (let i = 0; i < ORDERS; i++)
      orderIds.push((await createDraftOrder(b.api, { supplier_id: supplier.id, lines, notes: "n" })).id);
    // Back to the contract's limits: B spends them, it does not exceed them.
    const limits = await t.admin.patch(`/admin/stores/${b.id}`, {
      rate_limits: { per_key_per_minute: 120, per_store_per_minute: 300, writes_per_store_per_minute: 60 },
    });
    assert.equal(limits.status, 200, JSON.stringify(limits.body));
  });
  after(() => t.close());

  test("store A's GET /whoami median stays under 3× its idle median", async () => {
    await sampleWhoami(a); // warm-up
    const idle = await sampleWhoami(a);

    let running = true;
    const counts: Record<string, number> = {};
    const count = (what: string) => {
      counts[what] = (counts[what] ?? 0) + 1;
    };
    const client = async (n: number) => {
      for (let step = n; running; step++) {
        const id = orderIds[step % ORDERS];
        const requests = [
          () => b.api.get(`/v2/purchase_orders/${id}/pdf`),
          () => b.api.get(`/v2/purchase_orders/${id}/pdf?received=true`),
          () => b.api.get("/v2/purchase_orders?limit=250"),
          () => b.api.patch(`/v2/purchase_orders/${id}`, { notes: `step ${step}` }),
          () => b.api.get(`/v2/purchase_orders/${id}`),
        ];
        const res = await requests[step % requests.length]();
        count(String(res.status));
        if (res.status === 429) await sleep(Number(res.headers["retry-after"]) * 1000);
        else assert.ok(res.status === 200, `${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, n) => client(n));
    await sleep(2_000); // B at its limit before A is timed
    const loaded = await sampleWhoami(a);
    running = false;
    await Promise.all(clients);

    const result = { idle: figures(idle), loaded: figures(loaded), b: counts };
    console.log(JSON.stringify(result));
    assert.ok((counts["200"] ?? 0) > 0);
    assert.ok(
      result.loaded.p50 < 3 * result.idle.p50,
      `loaded median ${result.loaded.p50} ms vs idle ${result.idle.p50} ms`,
    );
  });
});
