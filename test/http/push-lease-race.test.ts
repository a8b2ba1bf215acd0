/**
 * A push job held by two workers at once (docs/decisions.md, "Push batches"): worker W1 runs a push's
 * first attempt and stalls past the job's 30 s lease (a GC pause, a paused process: its heartbeat stops
 * with it); W2 claims the job (attempt 2, which makes no batch) and sends its movements in the record's
 * own document, while W1, resuming, puts the same movements in a batch under the batch's key. Two
 * keys, so the platform would apply the movements twice. Every commit that decides what is sent (the
 * batch, the in-flight mark of the record's own documents, taking a refused batch apart) is fenced on
 * the job's lease: only the run that holds it now decides. Through the job worker's path (two Worker
 * instances, each with its own push handler and hooks) on the simulated platform; levels read over
 * HTTP. A property test stalls each holder at any of its decision and send points, in either order.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { ManualClock } from "../../src/clock.ts";
import { PUSH_JOB } from "../../src/domain/stock/index.ts";
import { DEFAULT_LEASE_MS } from "../../src/jobs/queue.ts";
import { Worker } from "../../src/jobs/worker.ts";
import { syncCatalog } from "../../src/platform/catalog-sync.ts";
import { createPushJobHandler, type PushHooks } from "../../src/platform/push.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import type { Variant } from "../helpers/factories.ts";
import {
  alertingDemoStore,
  mirrorLevelRow,
  platformLevelRow,
  recordTestMovements,
} from "../helpers/stock.ts";

/** A point one run reaches and waits at until it is opened. */
function gate() {
  let reach!: () => void;
  let open!: () => void;
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    reached,
    open,
    async stop() {
      reach();
      await opened;
    },
  };
}

describe("a push job held by two workers at once (a lease that ran out)", () => {
  let t: TestApp;
  let store: TestStore;
  let clock: ManualClock;
  let pool: { next(): Variant };
  let location: number;
  let subject = 9000;

  before(async () => {
    t = await startTestApp({ env: { WORKER_CONCURRENCY: "1" } });
    clock = t.clock as ManualClock;
    ({ store, pool, location } = await alertingDemoStore(t));
  });
  after(() => t.close());

  /** A level at `available` on the platform and in the mirror (a new item's, or `item`'s again). */
  async function levelAt(available: number, item = pool.next().inventory_item_id): Promise<number> {
    const res = await t.admin.post(`/admin/stores/${store.id}/platform/inventory`, {
      changes: [{ inventory_item_id: item, location_id: location, set: available }],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await t.drain();
    await syncCatalog(t.runtime.ctx, store.id);
    assert.equal(await shown(item), available);
    return item;
  }

  /** A stock adjustment of `delta` at the item: its push job queued; answers the job's id. */
  async function moved(item: number, delta: number): Promise<number> {
    await recordTestMovements(t, store.id, ++subject, [
      { inventoryItemId: item, locationId: location, availableDelta: delta, reason: "correction" },
    ]);
    const job = await t.runtime.ctx.db
      .selectFrom("jobs")
      .select("id")
      .where("type", "=", PUSH_JOB)
      .where("store_id", "=", store.id)
      .orderBy("id", "desc")
      .limit(1)
      .executeTakeFirstOrThrow();
    return Number(job.id);
  }

  const shown = async (item: number) => (await mirrorLevelRow(store.api, item, location)).available;
  const onPlatform = async (item: number) => (await platformLevelRow(t, store.id, item, location)).available;
  const fault = async (mode: "down" | "reject", count = 1) =>
    assert.equal(
      (await t.admin.post(`/admin/stores/${store.id}/platform/faults`, { mode, count })).status,
      200,
    );

  /** A worker of its own (one slot) running pushes with `hooks`. */
  const worker = (hooks: PushHooks) =>
    new Worker(t.runtime.ctx, { concurrency: 1 }).register(createPushJobHandler(hooks));

  /** The stalled worker's lease runs out: the clock passes it (the heartbeat stopped with the worker). */
  const leaseRunsOut = () => clock.advance(DEFAULT_LEASE_MS + 1);

  /** A heartbeat of the job's holder: its lease runs from now. */
  const heartbeat = (jobId: number) =>
    t.runtime.ctx.db
      .updateTable("jobs")
      .set({ locked_until: new Date(clock.now().getTime() + DEFAULT_LEASE_MS) })
      .where("id", "=", jobId)
      .execute();

  /** Every push left runs (retries after their backoff too); the levels then are final. */
  async function settled(items: number[]) {
    for (let i = 0; i < 3; i++) {
      clock.advance(DEFAULT_LEASE_MS + 60_000);
      await t.drain();
    }
    await syncCatalog(t.runtime.ctx, store.id);
    const jobs = await t.runtime.ctx.db
      .selectFrom("jobs")
      .select(["id", "state"])
      .where("type", "=", PUSH_JOB)
      .where("store_id", "=", store.id)
      .where("state", "<>", "done")
      .execute();
    assert.deepEqual(jobs, [], "every push job done");
    return Promise.all(items.map(async (item) => [await onPlatform(item), await shown(item)]));
  }

  /** Runs `step` once, the first time the hook is called for `which`. */
  const once = (which: "batch" | "mark", step: () => Promise<void>): PushHooks["beforeDecide"] => {
    let done = false;
    return async (stepName) => {
      if (done || stepName !== which) return;
      done = true;
      await step();
    };
  };

  test("the stalled first attempt resumes and batches what the new holder is about to send alone: moved once", async () => {
    const item = await levelAt(20);
    const other = await levelAt(20);
    await moved(item, -3); // job X
    await moved(other, 4); // waiting: X's first attempt takes it along
    const w2Deciding = gate();
    const w2 = worker({ beforeDecide: once("mark", w2Deciding.stop) });
    let second: Promise<number> | null = null;
    const w1 = worker({
      beforeDecide: once("batch", async () => {
        // W1 has read X's movement and taken the other push along; it stalls past its lease.
        leaseRunsOut();
        second = w2.drain(1); // claims X (attempt 2), reads its movement in no batch
        await w2Deciding.reached;
      }),
    });
    await w1.drain(1); // resumes: its batch is fenced out (the lease is W2's); nothing sent
    w2Deciding.open();
    assert.equal(await second, 1);
    assert.deepEqual(await settled([item, other]), [
      [17, 17],
      [24, 24],
    ]);
  });

  test("the new holder sends alone first, the stalled first attempt resumes after: moved once", async () => {
    const item = await levelAt(20);
    const other = await levelAt(20);
    await moved(item, -3);
    await moved(other, 4);
    const w2Sent = gate();
    const w2 = worker({ afterPush: async () => w2Sent.stop() });
    let second: Promise<number> | null = null;
    const w1 = worker({
      beforeDecide: once("batch", async () => {
        leaseRunsOut();
        second = w2.drain(1); // marks X's movement, sends it alone; its acknowledgement waits
        await w2Sent.reached;
      }),
    });
    await w1.drain(1);
    assert.equal(await onPlatform(item), 17);
    w2Sent.open();
    assert.equal(await second, 1);
    assert.deepEqual(await settled([item, other]), [
      [17, 17],
      [24, 24],
    ]);
  });

  test("a job taken along whose lease ran out is claimed and sent alone: the batch leaves it out", async () => {
    const item = await levelAt(20);
    const other = await levelAt(20);
    const leading = await moved(item, -3); // job Y
    await moved(other, 4); // job X, taken along under batch-of-Y
    const w2Deciding = gate();
    const w2 = worker({ beforeDecide: once("mark", w2Deciding.stop) });
    let second: Promise<number> | null = null;
    const w1 = worker({
      beforeDecide: once("batch", async () => {
        // Y's batch is slow to be made: X's lease (no heartbeat) runs out, Y's is kept by its own.
        leaseRunsOut();
        await heartbeat(leading);
        second = w2.drain(1); // claims X (attempt 2), reads its movement in no batch
        await w2Deciding.reached;
      }),
    });
    await w1.drain(1); // Y's batch carries Y's movement only
    w2Deciding.open();
    assert.equal(await second, 1);
    assert.deepEqual(await settled([item, other]), [
      [17, 17],
      [24, 24],
    ]);
  });

  test("a refused batch another worker is sending again is not taken apart: moved once", async () => {
    const item = await levelAt(20);
    const other = await levelAt(20);
    const leading = await moved(item, -3); // job Y
    await moved(other, 4); // job X, taken along
    await fault("down"); // Y's send of the batch is refused, having moved nothing
    const w2Sending = gate();
    const w2Sent = gate();
    let w2Pushes = 0;
    const w2 = worker({
      beforePush: async () => {
        if (++w2Pushes === 1) await w2Sending.stop();
      },
      afterPush: async () => {
        if (w2Pushes === 1) await w2Sent.stop();
      },
    });
    let second: Promise<number> | null = null;
    let w1Pushes = 0;
    const w1 = worker({
      beforePush: async () => {
        if (++w1Pushes !== 1) return;
        // Y's send is slow to go: X's lease (no heartbeat) runs out and W2 claims X. X's movement is
        // in the batch, so W2 is about to send the batch under its key.
        leaseRunsOut();
        await heartbeat(leading);
        second = w2.drain(1);
        await w2Sending.reached;
      },
    });
    await w1.drain(1); // refused; Y waits 10 s for its next attempt
    // W2's send of the batch goes now and is taken; its acknowledgement waits.
    w2Sending.open();
    await w2Sent.reached;
    assert.equal(await onPlatform(item), 17);
    assert.equal(await onPlatform(other), 24);
    // Y's retry: had the batch been taken apart, Y's movement would go alone under a key of its own.
    clock.advance(10_000);
    assert.equal(await w1.drain(1), 1);
    w2Sent.open();
    assert.equal(await second, 1);
    assert.deepEqual(await settled([item, other]), [
      [17, 17],
      [24, 24],
    ]);
  });

  test("any two stall points of the two holders, either resuming first: every movement moved once", async () => {
    const stallsOfFirst = ["batch", "mark", "beforePush", "afterPush"] as const;
    const stallsOfSecond = ["mark", "beforePush", "afterPush"] as const;
    // Every combination (48), not a sample: the space is small, and one stall pair in it was the bug.
    const cases = stallsOfFirst.flatMap((firstAt) =>
      stallsOfSecond.flatMap((secondAt) =>
        [false, true].flatMap((keepsLead) =>
          [false, true].map((firstResumesFirst) => ({ firstAt, secondAt, keepsLead, firstResumesFirst })),
        ),
      ),
    );
    const items = [pool.next().inventory_item_id, pool.next().inventory_item_id];
    for (const { firstAt, secondAt, keepsLead, firstResumesFirst } of cases) {
      const item = await levelAt(20, items[0]);
      const other = await levelAt(20, items[1]);
      const leading = await moved(item, -3);
      await moved(other, 4); // waiting: taken along by the first attempt
      const stalls = [gate(), gate()];
      /** Hooks stopping at `at` once, after `before` ran. */
      const stallAt = (which: 0 | 1, at: string, before: () => Promise<void>): PushHooks => {
        let done = false;
        const stop = async (step: string) => {
          if (done || step !== at) return;
          done = true;
          await before();
          await stalls[which].stop();
        };
        return {
          beforeDecide: (step) => stop(step),
          beforePush: () => stop("beforePush"),
          afterPush: () => stop("afterPush"),
        };
      };
      const w1 = worker(
        stallAt(0, firstAt, async () => {
          leaseRunsOut();
          if (keepsLead) await heartbeat(leading);
        }),
      );
      const w2 = worker(stallAt(1, secondAt, async () => {}));
      const first = w1.drain(1);
      await Promise.race([stalls[0].reached, first]);
      const second = w2.drain(1);
      await Promise.race([stalls[1].reached, second]);
      if (firstResumesFirst) {
        stalls[0].open();
        await first;
        stalls[1].open();
        await second;
      } else {
        stalls[1].open();
        await second;
        stalls[0].open();
        await first;
      }
      const where = JSON.stringify({ firstAt, secondAt, keepsLead, firstResumesFirst });
      assert.deepEqual(
        await settled([item, other]),
        [
          [17, 17],
          [24, 24],
        ],
        where,
      );
    }
  });
});
