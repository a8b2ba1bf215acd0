/**
 * Two pushes of one level acknowledged out of the platform's order (docs/decisions.md, "A report
 * adopted only when no push of its level is in flight"). The mirror shows a level as the platform's
 * last report plus the movements not acknowledged; a report that already holds a push not yet
 * acknowledged would count that push twice. Here push A (−8) and push B (−4) of one level go through
 * the real push path (pushMovements on the simulated platform, each job claimed and fenced on its
 * lease as the worker runs it): the platform applies A, then B, and
 * A's acknowledgement is held (the push's afterPush hook) while B's commits, or the other way round;
 * a platform sale lands between the two, and a mirror sync reads the level while A is held. Between
 * any two steps the level shown (GET /v2/inventory_levels) is what the ledger says or, once the
 * platform's sale has been read, that less the sale; no item event fires; the final level is the
 * platform's.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import type { ManualClock } from "../../src/clock.ts";
import { PUSH_JOB } from "../../src/domain/stock/index.ts";
import type { ClaimedJob } from "../../src/jobs/queue.ts";
import { syncCatalog } from "../../src/platform/catalog-sync.ts";
import { parsePushPayload } from "../../src/platform/job-payloads.ts";
import { type PushHooks, type PushRun, pushMovements } from "../../src/platform/push.ts";
import { changeSimInventory } from "../../src/platform/simulated/index.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import type { Variant } from "../helpers/factories.ts";
import {
  alertingDemoStore,
  itemEventsSince,
  mirrorLevelRow,
  platformLevelRow,
  recordTestMovements,
} from "../helpers/stock.ts";

/** A push held after the platform applied its document, before its acknowledgement. */
function heldPush() {
  let applied!: () => void;
  let release!: () => void;
  const appliedP = new Promise<void>((resolve) => {
    applied = resolve;
  });
  const releaseP = new Promise<void>((resolve) => {
    release = resolve;
  });
  const hooks: PushHooks = {
    afterPush: async () => {
      applied();
      await releaseP;
    },
  };
  return { hooks, applied: appliedP, release };
}

describe("two pushes of one level acknowledged out of the platform's order", () => {
  let t: TestApp;
  let store: TestStore;
  let clock: ManualClock;
  let pool: { next(): Variant };
  let location: number;
  let subject = 5000;

  before(async () => {
    t = await startTestApp();
    clock = t.clock as ManualClock;
    ({ store, pool, location } = await alertingDemoStore(t));
  });
  after(() => t.close());

  const newEvents = itemEventsSince(
    () => t,
    () => store.id,
  );

  /** A level at `available` on the platform and in the mirror, its events read. */
  async function levelAt(available: number, item = pool.next().inventory_item_id): Promise<number> {
    const v = { inventory_item_id: item };
    const res = await t.admin.post(`/admin/stores/${store.id}/platform/inventory`, {
      changes: [{ inventory_item_id: v.inventory_item_id, location_id: location, set: available }],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await t.drain();
    await syncCatalog(t.runtime.ctx, store.id);
    assert.equal((await mirrorLevelRow(store.api, v.inventory_item_id, location)).available, available);
    await newEvents();
    return v.inventory_item_id;
  }

  /** A stock adjustment of `delta` at the item (its push job queued); answers the record's id. */
  async function recorded(item: number, delta: number): Promise<number> {
    const id = ++subject;
    await recordTestMovements(t, store.id, id, [
      { inventoryItemId: item, locationId: location, availableDelta: delta, reason: "correction" },
    ]);
    return id;
  }

  const WORKER = "acknowledgement-order-worker";
  /**
   * A stock adjustment of `delta` at the item, its push job claimed as the worker claims one: its
   * run is fenced on that lease, and no other push takes it along (it is not waiting).
   */
  async function moved(item: number, delta: number) {
    const id = await recorded(item, delta);
    const { ctx } = t.runtime;
    const [job] = await ctx.jobs.claim(ctx.db, WORKER, 1, [PUSH_JOB]);
    assert.ok(job, "the push job claimed");
    const payload = parsePushPayload(job.payload);
    assert.equal(payload.subject_id, id);
    const run: PushRun = { jobId: job.id, attempts: job.attempts, holder: job.locked_by };
    return { payload, run, job };
  }

  /** Runs a claimed push as the worker does, its job done after it. */
  async function push(
    claimed: { payload: ReturnType<typeof parsePushPayload>; run: PushRun; job: ClaimedJob },
    hooks: PushHooks = {},
  ): Promise<void> {
    const { ctx } = t.runtime;
    await pushMovements(ctx, claimed.payload, claimed.run, hooks);
    await ctx.jobs.complete(ctx.db, claimed.job, WORKER);
  }

  const shown = async (item: number) => (await mirrorLevelRow(store.api, item, location)).available;
  const onPlatform = async (item: number) => (await platformLevelRow(t, store.id, item, location)).available;
  const sale = (item: number, adjust: number) =>
    changeSimInventory(t.runtime.ctx.db, clock, store.id, [
      { inventory_item_id: item, location_id: location, adjust },
    ]);

  for (const withSale of [false, true]) {
    const saleNote = withSale ? ", a platform sale between them" : "";
    test(`applied A then B, acknowledged B then A${saleNote}: never counted twice, no spurious event`, async () => {
      const item = await levelAt(20);
      const a = await moved(item, -8);
      const b = await moved(item, -4); // 20 → 12 → 8: below the low-stock threshold
      assert.deepEqual(await newEvents(), [["item.low_stock", 8]]);
      assert.equal(await shown(item), 8);

      const heldA = heldPush();
      const pushA = push(a, heldA.hooks);
      await heldA.applied; // the platform has A (12), its acknowledgement waits
      assert.equal(await onPlatform(item), 12);
      // A sync reading the level now sees A's −8 on the platform while A is not acknowledged.
      await syncCatalog(t.runtime.ctx, store.id);
      assert.equal(await shown(item), 8);
      if (withSale) {
        await sale(item, -2);
        assert.equal(await shown(item), 8, "the sale is not read yet");
      }
      const truth = withSale ? 6 : 8;
      await push(b); // applied after A and acknowledged first
      assert.equal(await onPlatform(item), truth);
      assert.equal(await shown(item), 8, "B's report holds A, which is not acknowledged yet");
      assert.deepEqual(await newEvents(), []);

      heldA.release();
      await pushA;
      assert.equal(await shown(item), truth);
      assert.equal(await onPlatform(item), truth);
      await syncCatalog(t.runtime.ctx, store.id);
      await t.drain();
      assert.equal(await shown(item), truth);
      assert.deepEqual(await newEvents(), []);
    });

    test(`applied A then B, acknowledged A then B${saleNote}: the level ends at the platform's`, async () => {
      const item = await levelAt(20);
      const a = await moved(item, -8);
      const b = await moved(item, -4);
      assert.deepEqual(await newEvents(), [["item.low_stock", 8]]);

      const heldA = heldPush();
      const pushA = push(a, heldA.hooks);
      await heldA.applied;
      if (withSale) await sale(item, -2);
      const truth = withSale ? 6 : 8;
      const heldB = heldPush();
      const pushB = push(b, heldB.hooks);
      await heldB.applied;
      assert.equal(await onPlatform(item), truth);
      heldA.release();
      await pushA; // A's report (12) does not hold B, which is in flight
      assert.equal(await shown(item), 8);
      heldB.release();
      await pushB;
      assert.equal(await shown(item), truth);
      await syncCatalog(t.runtime.ctx, store.id);
      await t.drain();
      assert.equal(await shown(item), truth);
      assert.equal(await onPlatform(item), truth);
      assert.deepEqual(await newEvents(), []);
    });
  }

  test("a report read while a push is in flight is kept, and adopted once none is", async () => {
    const item = await levelAt(20);
    const a = await moved(item, -8);
    assert.equal(await shown(item), 12);
    const heldA = heldPush();
    const pushA = push(a, heldA.hooks);
    await heldA.applied;
    await sale(item, -5); // the platform: 20 − 8 − 5 = 7
    await syncCatalog(t.runtime.ctx, store.id);
    // Adopting 7 with A's −8 still pending would show −1.
    assert.equal(await shown(item), 12);
    assert.deepEqual(await newEvents(), []);
    heldA.release();
    await pushA;
    assert.equal(await shown(item), 7);
    assert.deepEqual(await newEvents(), [["item.low_stock", 7]]);
    await t.drain();
  });

  test("a movement waiting for its push does not hold a report back", async () => {
    const item = await levelAt(20);
    await recorded(item, 7); // queued, not sent
    await sale(item, -2);
    await syncCatalog(t.runtime.ctx, store.id);
    assert.equal(await shown(item), 25);
    await t.drain();
    assert.equal(await shown(item), 25);
    assert.equal(await onPlatform(item), 25);
  });
  test("any order of platform applies, acknowledgements, platform sales and syncs: no double count", async () => {
    const item = pool.next().inventory_item_id;
    // Tokens: 0..3 a push (its first occurrence: the platform applies it; its second: its acknowledgement
    // commits), 4 a platform sale, 5 a mirror sync. Applies and acknowledgements left out go last.
    const plan = fc.record({
      deltas: fc.array(
        fc.integer({ min: -9, max: 9 }).filter((d) => d !== 0),
        { minLength: 2, maxLength: 4 },
      ),
      tokens: fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 4, maxLength: 14 }),
      sales: fc.array(fc.integer({ min: -3, max: -1 }), { minLength: 3, maxLength: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(plan, async ({ deltas, tokens, sales }) => {
        await levelAt(100, item);
        const payloads: Array<Awaited<ReturnType<typeof moved>>> = [];
        for (const d of deltas) payloads.push(await moved(item, d));
        await newEvents();
        const ledger = 100 + deltas.reduce((x, y) => x + y, 0);
        const steps = tokens.filter((k) => k < deltas.length || k >= 4);
        for (let i = 0; i < deltas.length; i++) steps.push(i, i);
        const held = payloads.map(() => heldPush());
        const running: Array<Promise<void> | null> = payloads.map(() => null);
        const acked = payloads.map(() => false);
        let sold = 0;
        // What the mirror may show: the ledger's level less the sales the platform had when it was
        // read, i.e. less a prefix of the sales made so far.
        const allowed = () => {
          const values = [ledger];
          let sum = 0;
          for (const s of sales.slice(0, sold)) {
            sum += s;
            values.push(ledger + sum);
          }
          return values;
        };
        const check = async (step: string) => {
          const value = await shown(item);
          assert.ok(allowed().includes(value), `${step}: shows ${value}, expected one of ${allowed()}`);
        };
        for (const k of steps) {
          if (k === 4) {
            if (sold < sales.length) await sale(item, sales[sold++]);
          } else if (k === 5) {
            await syncCatalog(t.runtime.ctx, store.id);
            await check("sync");
          } else if (running[k] === null) {
            running[k] = push(payloads[k], held[k].hooks);
            await held[k].applied;
          } else if (!acked[k]) {
            acked[k] = true;
            held[k].release();
            await running[k];
            await check(`acknowledgement of push ${k}`);
          }
        }
        const truth = ledger + sales.slice(0, sold).reduce((x, y) => x + y, 0);
        assert.equal(await onPlatform(item), truth);
        await syncCatalog(t.runtime.ctx, store.id);
        await t.drain();
        assert.equal(await shown(item), truth);
        assert.deepEqual(await newEvents(), [], "no item event: the level never nears a threshold");
      }),
      { numRuns: 25 },
    );
  });
});
