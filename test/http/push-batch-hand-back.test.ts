/**
 * A refused batch's jobs are handed back only once the batch is taken apart (docs/decisions.md, "Push
 * batches"). A push that takes the store's waiting pushes along and has its batch refused (the
 * platform down: nothing moved) takes the batch apart in the transaction that puts it back for its
 * next attempt. Handed back before that, a job taken along could read its movement still in the
 * batch, then find the batch gone and end `done` with its movement never sent (the reliability suite's
 * outage test caught it: one push of six done while the platform was down). Through the worker loop
 * with two slots on the simulated platform; a push's `beforePlan` hook, when it read a movement still
 * in a batch, waits for that batch to be taken apart before it plans, which is the order that lost it.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import type { ManualClock } from "../../src/clock.ts";
import { PUSH_JOB } from "../../src/domain/stock/index.ts";
import type { PushHooks } from "../../src/platform/push.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import { idempotencyKey, listLocations, platformLevel, trackedVariants } from "../helpers/factories.ts";
import { modulesWithPushHooks } from "../helpers/push-hooks.ts";

const RECORDS = 8;

describe("a refused batch's jobs handed back once it is taken apart", () => {
  let t: TestApp;
  let store: TestStore;
  let clock: ManualClock;
  /** Pushes that read a movement in a batch which was taken apart before they planned. */
  let readInVanishedBatch = 0;
  /** Ends the PostgreSQL lock that holds a refused batch's leader from recording its retry. */
  let readInBatch: (() => void) | null = null;
  let held = false;
  const pushHooks: PushHooks = {
    // On PostgreSQL, the first batch's leader is held from recording its retry (its job row locked)
    // until a push read a movement in that batch, or 1.5 s: the order in which the loss showed.
    beforePush: async (ids) => {
      if (!process.env.TEST_DATABASE_URL || ids.length < 2 || held) return;
      held = true;
      const read = new Promise<void>((resolve) => {
        readInBatch = resolve;
      });
      await new Promise<void>((locked) => {
        void t.runtime.ctx.db.transaction().execute(async (trx) => {
          await sql`select id from jobs where type = ${PUSH_JOB} and store_id = ${store.id}
            and state = 'running' and locked_by not like 'batch-of-%' for update`.execute(trx);
          locked();
          await Promise.race([read, sleep(1500)]);
        });
      });
    },
    beforePlan: async (ids) => {
      const batched = await batchesOf(ids);
      if (batched.length === 0) return;
      readInBatch?.();
      // Give a batch being taken apart the time to go (its leader's retry committing).
      for (let i = 0; i < 40 && (await batchesOf(ids)).length > 0; i++) await sleep(25);
      if ((await batchesOf(ids)).length === 0) readInVanishedBatch++;
    },
  };

  async function batchesOf(ids: readonly number[]): Promise<number[]> {
    const { rows } = await sql<{ batch_id: string }>`select batch_id from push_batch_movements
      where movement_id = any(${[...ids]}::bigint[])`.execute(t.runtime.ctx.db);
    return rows.map((r) => Number(r.batch_id));
  }

  before(async () => {
    t = await startTestApp({
      env: { WORKER_CONCURRENCY: "2" },
      modules: modulesWithPushHooks(pushHooks),
    });
    clock = t.clock as ManualClock;
    store = await t.createStore({ seed: "demo" });
    await t.drain();
  });
  after(() => t.close());

  async function pushJobs(ids: readonly number[]) {
    const rows = await t.runtime.ctx.db
      .selectFrom("jobs")
      .select(["id", "state", "attempts", "payload", "locked_by", "run_at", "last_error"])
      .where("type", "=", PUSH_JOB)
      .where("store_id", "=", store.id)
      .orderBy("id")
      .execute();
    return rows.filter((r) => ids.includes(r.payload.subject_id as number));
  }

  /** The adjustments of the test, for a timeout's message. */
  let adjustmentsSeen: number[] = [];

  async function until(what: string, check: () => Promise<boolean>, ms = 20_000) {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}: ${JSON.stringify(await pushJobs(adjustmentsSeen))}`);
      await sleep(20);
    }
  }

  test("the platform down: no push ends done; back up: every adjustment reaches it once", async () => {
    const variants = (await trackedVariants(store.api)).slice(0, RECORDS);
    const [location] = await listLocations(store.api);
    const levelOf = async (itemId: number) =>
      (await platformLevel(t, store.id, itemId, location.id)).available;
    const before = await Promise.all(variants.map((v) => levelOf(v.inventory_item_id)));
    expectStatus(
      await t.admin.post(`/admin/stores/${store.id}/platform/faults`, { mode: "down", count: 1_000_000 }),
      200,
    );
    // Every push waits, queued, until the worker starts: the first takes the others along.
    const adjustments: number[] = [];
    for (const v of variants) {
      const created = await store.api.post("/v2/stock_adjustments", {
        location_id: location.id,
        reason: "correction",
        lines: [{ variant_id: v.id, delta: 5 }],
      });
      expectStatus(created, 201);
      const applied = await store.api.post(
        `/v2/stock_adjustments/${created.body.data.id}/apply`,
        {},
        idempotencyKey("hand-back"),
      );
      expectStatus(applied, 200);
      adjustments.push(created.body.data.id);
    }
    adjustmentsSeen = adjustments;
    t.runtime.worker.start();
    // Rounds of attempts: each batch refused and taken apart, its jobs handed back to lead their own.
    for (let round = 0; round < 3; round++) {
      await until("every push's attempt", async () =>
        (await pushJobs(adjustments)).every(
          (j) => (j.state === "queued" && j.attempts > round) || j.state === "done",
        ),
      );
      const jobs = await pushJobs(adjustments);
      assert.deepEqual(
        jobs.filter((j) => j.state === "done").map((j) => j.payload.subject_id),
        [],
        "no push is done while the platform is down",
      );
      // The next round's attempts (none after the last: they would run with the platform still down).
      if (round < 2) {
        clock.advance(10 * 60_000);
        t.runtime.ctx.jobs.notify();
      }
    }
    assert.equal(
      readInVanishedBatch,
      0,
      "no push read its movement in a batch taken apart before it planned",
    );
    for (const id of adjustments) {
      const res = await store.api.get(`/v2/stock_adjustments/${id}`);
      expectStatus(res, 200);
      assert.equal(res.body.data.platform_sync.state, "pending");
    }

    expectStatus(await t.admin.post(`/admin/stores/${store.id}/platform/faults`, { mode: "ok" }), 200);
    clock.advance(60 * 60_000);
    t.runtime.ctx.jobs.notify();
    await until("every push done", async () =>
      (await pushJobs(adjustments)).every((j) => j.state === "done"),
    );
    const after = await Promise.all(variants.map((v) => levelOf(v.inventory_item_id)));
    assert.deepEqual(
      after,
      before.map((l) => l + 5),
    );
    for (const id of adjustments) {
      const res = await store.api.get(`/v2/stock_adjustments/${id}`);
      assert.equal(res.body.data.platform_sync.state, "synced");
    }
  });
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
