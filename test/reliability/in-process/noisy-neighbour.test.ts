/**
 * One key cannot slow everyone down (issue 18 item 2): store B's read-write key spends its whole
 * rate limit (the contract's 120 requests a minute, 60 writes a store) on the heaviest things it may
 * ask for (PDFs and receiving copies of orders at the 500-line cap, each made new by a PATCH before
 * it, full pages of such orders, one such order) while store A's `GET /whoami` is timed; A's p99 must
 * stay under 10× its p99 measured idle in the same run (issue 18 asks 3×: see RATIO).
 *
 * B's clients run on a thread of their own over real HTTP (helpers/heavy-client.ts), so reading
 * B's answers costs the service's event loop nothing; A is timed through inject on the service's own
 * loop, which is what a stall holds up. The bound is calibrated in the same run: a stand-in for the
 * stalls this test exists to catch (the event loop held 2 × RATIO × the idle p99 half the time, as B's
 * 500-line orders held it before their reading and presenting were sliced) must show as more than
 * the bound, so this run's sampling could see a regression: a test that cannot fail proves nothing.
 */
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { after, before, describe, test } from "node:test";
import { MAX_LINES_PER_ORDER } from "../../../src/domain/purchase-orders/line-cap.ts";
import { startTestApp, type TestApp, type TestStore } from "../../helpers/app.ts";
import { createDraftOrder, createSupplier } from "../../helpers/factories.ts";
import { type HeavyCounts, startHeavyClient } from "../helpers/heavy-client.ts";

const ORDERS = 3;
const CLIENTS = 4;
const SAMPLE_MS = 12_000;
const SAMPLE_EVERY_MS = 10;
/**
 * The bound on A's loaded p99, as a multiple of its idle p99: 10×, on both databases. Issue 18 asks 3×,
 * which is not met yet (the issue stays open): an idle CI machine measured 5.8× on PostgreSQL (26.6 ms
 * against 4.6 ms idle: a quiet machine's idle p99 is small) and 6.3× on PGlite, whose one connection
 * makes A's queries wait for B's statement or transaction. The bound guards what the PGlite thread and
 * the store turns won (11× on PostgreSQL and 37× to 63× on PGlite before, on a busy machine;
 * docs/reliability.md, section 5b) without failing on the spread between machines.
 */
const RATIO = 10;
/** The calibration's stall: twice the bound (at least 40 ms), the loop held half the time. */
const STALL_TIMES_IDLE = 2 * RATIO;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * Times store A's GET /whoami every SAMPLE_EVERY_MS for `ms`; every answer must be 200. A request is
 * timed from when it was due, not from when a late timer sent it: a client arriving while the loop is
 * held waits for it too, and a stall between two requests would otherwise go unseen.
 */
async function sampleWhoami(store: TestStore, ms = SAMPLE_MS): Promise<number[]> {
  const times: number[] = [];
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const due = performance.now() + SAMPLE_EVERY_MS;
    await sleep(SAMPLE_EVERY_MS);
    const res = await store.api.get("/v2/whoami");
    times.push(performance.now() - due);
    assert.equal(res.status, 200);
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

/** Holds the event loop `ms` every 2 × `ms` until stopped: a stall the test must see. */
function stallLoop(ms: number): () => void {
  const timer = setInterval(() => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  }, 2 * ms);
  return () => clearInterval(timer);
}

const answered = (counts: HeavyCounts, status: number) =>
  Object.entries(counts)
    .filter(([label]) => label.endsWith(` ${status}`))
    .reduce((sum, [, n]) => sum + n, 0);

describe("a key at its full rate limit on the heaviest reads and writes", () => {
  let t: TestApp;
  let a: TestStore;
  let b: TestStore;
  let origin: string;
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
    origin = await t.runtime.app.listen({ port: 0, host: "127.0.0.1" });
  });
  after(() => t.close());

  test(`store A's GET /whoami p99 stays under ${RATIO}× its idle p99`, async () => {
    await sampleWhoami(a, 3_000); // warm-up
    const idle = figures(await sampleWhoami(a));

    const stallMs = Math.round(Math.max(40, STALL_TIMES_IDLE * idle.p99));
    const stop = stallLoop(stallMs);
    const stalled = figures(await sampleWhoami(a));
    stop();

    const heavy = startHeavyClient({ origin, key: b.key, orderIds, clients: CLIENTS });
    await sleep(2_000); // B at its limit before A is timed
    const before = await heavy.counts();
    const loaded = figures(await sampleWhoami(a));
    const during = await heavy.counts();
    const total = await heavy.stop();

    const servedDuring = answered(during, 200) - answered(before, 200);
    console.log(JSON.stringify({ idle, stalled, loaded, b: total, b_served_while_timed: servedDuring }));
    // The calibration: this run's sampling sees a stall of the size the fixes removed.
    assert.ok(
      stalled.p99 > RATIO * idle.p99,
      `a ${stallMs} ms stall every ${2 * stallMs} ms gave p99 ${stalled.p99} ms vs idle ${idle.p99} ms: this run cannot tell`,
    );
    // B really was at work while A was timed, and only its own limits refused it.
    assert.ok(servedDuring >= 8, `B was served ${servedDuring} times while A was timed`);
    assert.deepEqual(
      Object.keys(total).filter((label) => !/ (200|429)$/.test(label)),
      [],
      JSON.stringify(total),
    );
    assert.ok(
      loaded.p99 < RATIO * idle.p99,
      `loaded p99 ${loaded.p99} ms vs idle p99 ${idle.p99} ms (loaded ${JSON.stringify(loaded)})`,
    );
  });
});
