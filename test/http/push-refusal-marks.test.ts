/**
 * A push the platform certainly did not apply takes its in-flight marks off at once (docs/decisions.md,
 * "A report adopted only when no push of its level is in flight"): a refusal answered before applying
 * (the simulated platform's `down` and `reject`) unmarks the document's movements and refreshes their
 * levels in the failing push, so a platform sale reported while it was out shows right away rather than
 * after the retry's backoff. A send whose outcome is unknown (a timeout, a lost answer) keeps them in
 * flight, and so does a refusal of a document an earlier attempt may have applied. A refused batch taken
 * apart adopts a report kept on its levels the same way. Through the job worker (one slot, so a push
 * takes the waiting ones along as a batch) on the simulated platform.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { ManualClock } from "../../src/clock.ts";
import { PUSH_JOB } from "../../src/domain/stock/index.ts";
import { DEFAULT_LEASE_MS } from "../../src/jobs/queue.ts";
import { syncCatalog } from "../../src/platform/catalog-sync.ts";
import type { PushHooks } from "../../src/platform/push.ts";
import { changeSimInventory } from "../../src/platform/simulated/index.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import type { Variant } from "../helpers/factories.ts";
import { modulesWithPushHooks } from "../helpers/push-hooks.ts";
import {
  alertingDemoStore,
  itemEventsSince,
  mirrorLevelRow,
  platformLevelRow,
  recordTestMovements,
} from "../helpers/stock.ts";

describe("a push the platform refused takes its in-flight marks off", () => {
  let t: TestApp;
  let store: TestStore;
  let clock: ManualClock;
  let pool: { next(): Variant };
  let location: number;
  let subject = 7000;
  const pushHooks: PushHooks = { beforePush: null, afterPush: null };

  before(async () => {
    t = await startTestApp({
      env: { WORKER_CONCURRENCY: "1" },
      modules: modulesWithPushHooks(pushHooks),
    });
    clock = t.clock as ManualClock;
    ({ store, pool, location } = await alertingDemoStore(t));
  });
  after(() => t.close());

  const newEvents = itemEventsSince(
    () => t,
    () => store.id,
  );

  /** A level at `available` on the platform and in the mirror, its events read. */
  async function levelAt(available: number): Promise<number> {
    const item = pool.next().inventory_item_id;
    const res = await t.admin.post(`/admin/stores/${store.id}/platform/inventory`, {
      changes: [{ inventory_item_id: item, location_id: location, set: available }],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await t.drain();
    await syncCatalog(t.runtime.ctx, store.id);
    assert.equal(await shown(item), available);
    await newEvents();
    return item;
  }

  /** A stock adjustment of `delta` at the item: its push job queued. */
  const moved = (item: number, delta: number) =>
    recordTestMovements(t, store.id, ++subject, [
      { inventoryItemId: item, locationId: location, availableDelta: delta, reason: "correction" },
    ]);

  const shown = async (item: number) => (await mirrorLevelRow(store.api, item, location)).available;
  const onPlatform = async (item: number) => (await platformLevelRow(t, store.id, item, location)).available;
  const sale = (item: number, adjust: number) =>
    changeSimInventory(t.runtime.ctx.db, clock, store.id, [
      { inventory_item_id: item, location_id: location, adjust },
    ]);
  const fault = async (mode: "down" | "reject", count = 1) =>
    assert.equal(
      (await t.admin.post(`/admin/stores/${store.id}/platform/faults`, { mode, count })).status,
      200,
    );

  /** Runs `step` once, in the next send, before the document goes. */
  const beforeNextSend = (step: () => Promise<void>) => {
    pushHooks.beforePush = async () => {
      pushHooks.beforePush = null;
      await step();
    };
  };
  /**
   * An item at 20 moved by -3, whose push the platform refuses having applied nothing (`down`), and
   * a platform sale of 2 synced while that push is out (kept, not adopted: the mirror shows 17).
   */
  const refusedWithSaleWhileOut = async () => {
    const item = await levelAt(20);
    await moved(item, -3);
    await fault("down");
    beforeNextSend(async () => {
      await sale(item, -2); // the platform: 18
      await syncCatalog(t.runtime.ctx, store.id);
      assert.equal(await shown(item), 17, "kept: the push is in flight");
    });
    return item;
  };
  /** The next send's answer is lost after the platform applied it (a timeout). */
  const answerLostOnce = () => {
    pushHooks.afterPush = () => {
      pushHooks.afterPush = null;
      throw new Error("the platform's answer timed out");
    };
  };

  test("a push refused retryably: a report kept while it was out is adopted at the refusal", async () => {
    const item = await refusedWithSaleWhileOut();
    await t.drain(); // refused before applying; the job waits 10 s for its next attempt
    assert.equal(await shown(item), 15, "the platform's 18 and the −3 it has not taken");
    assert.equal(await onPlatform(item), 18);
    clock.advance(10_000);
    await t.drain();
    assert.equal(await onPlatform(item), 15);
    assert.equal(await shown(item), 15);
    assert.deepEqual(await newEvents(), []);
  });

  test("the marks come off in the transaction that puts the job back: a failure recording the retry leaves them on while the job says running", async () => {
    const item = await refusedWithSaleWhileOut();
    // The push is refused having applied nothing; recording its retry fails (the database went away,
    // the worker died): the job keeps its lease, running, until the lease runs out.
    const jobs = t.runtime.ctx.jobs;
    const fail = jobs.fail;
    jobs.fail = async () => {
      throw new Error("the connection ended before the retry was recorded");
    };
    try {
      await t.drain();
    } finally {
      jobs.fail = fail;
    }
    const job = await t.runtime.ctx.db
      .selectFrom("jobs")
      .select(["state", "attempts"])
      .where("type", "=", PUSH_JOB)
      .where("store_id", "=", store.id)
      .orderBy("id", "desc")
      .limit(1)
      .executeTakeFirstOrThrow();
    assert.deepEqual(job, { state: "running", attempts: 1 });
    assert.equal(await shown(item), 17, "still in flight: the report stays kept while the job is running");
    clock.advance(DEFAULT_LEASE_MS + 1);
    await t.drain(); // the lease ran out: claimed again, sent, acknowledged
    assert.equal(await onPlatform(item), 15);
    assert.equal(await shown(item), 15);
    assert.deepEqual(await newEvents(), []);
  });

  test("a push whose answer was lost stays in flight: a report read meanwhile is kept", async () => {
    const item = await levelAt(20);
    await moved(item, -3);
    answerLostOnce();
    await t.drain(); // applied (17), the answer lost
    assert.equal(await onPlatform(item), 17);
    await sale(item, -2);
    await syncCatalog(t.runtime.ctx, store.id);
    assert.equal(await shown(item), 17, "adopting 15 with the −3 pending would show 12");
    clock.advance(10_000);
    await t.drain(); // sent again under its key: answered, acknowledged
    assert.equal(await shown(item), 15);
    assert.deepEqual(await newEvents(), []);
  });

  test("a refusal of a document an earlier attempt may have applied keeps it in flight", async () => {
    const item = await levelAt(20);
    await moved(item, -3);
    answerLostOnce();
    await t.drain(); // applied (17), the answer lost
    await sale(item, -2);
    await fault("down");
    clock.advance(10_000);
    await t.drain(); // refused, but the first attempt's document is on the platform
    await syncCatalog(t.runtime.ctx, store.id);
    assert.equal(await shown(item), 17, "adopting 15 with the −3 pending would show 12");
    clock.advance(30_000);
    await t.drain();
    assert.equal(await shown(item), 15);
    assert.equal(await onPlatform(item), 15);
    assert.deepEqual(await newEvents(), []);
  });

  test("a send of unknown outcome keeps its document in flight; the record's later documents, never sent, come off", async () => {
    const first = await levelAt(20);
    const second = await levelAt(20);
    // One record, two documents (the reason changes between its movements).
    await recordTestMovements(t, store.id, ++subject, [
      { inventoryItemId: first, locationId: location, availableDelta: -3, reason: "correction" },
      { inventoryItemId: second, locationId: location, availableDelta: -3, reason: "damaged" },
    ]);
    pushHooks.beforePush = () => {
      pushHooks.beforePush = null;
      throw new Error("timed out before the platform answered"); // not applied, but nobody knows
    };
    await t.drain();
    await sale(first, -2);
    await sale(second, -2);
    await syncCatalog(t.runtime.ctx, store.id);
    assert.equal(await shown(first), 17, "kept: the first document may have reached the platform");
    assert.equal(await shown(second), 15, "the second document was never sent");
    clock.advance(10_000);
    await t.drain();
    assert.equal(await shown(first), 15);
    assert.equal(await shown(second), 15);
    assert.equal(await onPlatform(first), 15);
    assert.equal(await onPlatform(second), 15);
    assert.deepEqual(await newEvents(), []);
  });

  test("a push failing for good takes its marks off: a report kept while it was out is adopted", async () => {
    const item = await levelAt(20);
    await moved(item, -3);
    pushHooks.beforePush = () => {
      pushHooks.beforePush = null;
      throw new Error("timed out before the platform answered"); // not applied, but nobody knows
    };
    await t.drain();
    await sale(item, -2); // the platform: 18
    await syncCatalog(t.runtime.ctx, store.id);
    assert.equal(await shown(item), 17, "kept: the push may have reached the platform");
    await fault("reject");
    clock.advance(10_000);
    await t.drain(); // refused: the job fails for good
    assert.equal(await shown(item), 15, "the platform's 18 and the −3 it never took");
    assert.equal(await onPlatform(item), 18);
    assert.deepEqual(await newEvents(), []);
  });

  test("a refused batch an earlier send may have applied is not taken apart: no record reaches the platform twice", async () => {
    const item = await levelAt(20);
    const other = await levelAt(20);
    await moved(item, -3);
    await moved(other, 4); // waiting: the first push takes it along as one batch
    // The batch is applied and its answer lost; the platform then refuses the next sends (the other
    // record's push sends the batch again at once under the batch's key).
    pushHooks.afterPush = async () => {
      pushHooks.afterPush = null;
      await fault("down", 2);
      throw new Error("the platform's answer timed out");
    };
    await t.drain();
    assert.equal(await onPlatform(item), 17);
    assert.equal(await onPlatform(other), 24);
    // Taken apart, each record would go alone under a key of its own, which the platform has never
    // seen: applied a second time. Kept whole, the batch's key answers the first send's result.
    for (let i = 0; i < 4; i++) {
      clock.advance(60_000);
      await t.drain();
    }
    assert.equal(await onPlatform(item), 17);
    assert.equal(await onPlatform(other), 24);
    assert.equal(await shown(item), 17);
    assert.equal(await shown(other), 24);
    assert.deepEqual(await newEvents(), []);
  });

  test("a refused batch taken apart: a report kept on its levels is adopted when nothing else is in flight", async () => {
    const item = await levelAt(20);
    const other = await levelAt(20);
    await moved(item, -3);
    await moved(other, 4); // waiting: the first push takes it along as one batch
    await fault("down");
    beforeNextSend(async () => {
      await sale(item, -2); // the platform: 18
      await syncCatalog(t.runtime.ctx, store.id);
      assert.equal(await shown(item), 17, "kept: the batch is in flight");
    });
    // The batch is refused and taken apart: the first push waits 10 s; the other goes again alone.
    await t.drain();
    assert.equal(await onPlatform(other), 24);
    assert.equal(await shown(other), 24);
    assert.equal(await shown(item), 15, "the platform's 18 and the −3 it has not taken");
    clock.advance(10_000);
    await t.drain();
    assert.equal(await onPlatform(item), 15);
    assert.equal(await shown(item), 15);
    assert.deepEqual(await newEvents(), []);
  });
});
