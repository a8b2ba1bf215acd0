/**
 * A claim takes at most the jobs it asks for. Since the claim turned synchronous_commit off in its
 * own statement (e7aae9c), `where id in (select … limit n for update skip locked)` ran its subquery
 * again for every row beside the volatile set_config, each run skipping the rows the update had just
 * locked, so a claim of one took every due job: a worker of 8 slots ran every waiting push and
 * delivery at once. The due jobs are now picked once, in a WITH.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import type { ManualClock } from "../../src/clock.ts";
import type { OnePerStore } from "../../src/jobs/queue.ts";
import { Worker } from "../../src/jobs/worker.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";

describe("job claims", () => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test("a claim of two takes two of five due jobs, in run order, then the next two, then the last", async () => {
    const { ctx } = t.runtime;
    await ctx.db.transaction().execute((trx) =>
      ctx.jobs.enqueueMany(
        trx,
        [1, 2, 3, 4, 5].map((n) => ({ type: "test.claim", payload: { n } })),
      ),
    );
    const claims: number[][] = [];
    for (let i = 0; i < 4; i++) {
      const claimed = await ctx.jobs.claim(ctx.db, "claimer", 2, ["test.claim"]);
      claims.push(claimed.map((j) => j.payload.n as number));
    }
    assert.deepEqual(claims, [[1, 2], [3, 4], [5], []]);
  });

  test("a worker of one slot runs one job at a time", async () => {
    const { ctx } = t.runtime;
    let running = 0;
    let most = 0;
    const worker = new Worker(ctx, { concurrency: 1 });
    worker.register({
      type: "test.one-slot",
      run: async () => {
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running--;
      },
    });
    await ctx.db.transaction().execute((trx) =>
      ctx.jobs.enqueueMany(
        trx,
        [1, 2, 3, 4].map((n) => ({ type: "test.one-slot", payload: { n } })),
      ),
    );
    assert.equal(await worker.drain(), 4);
    assert.equal(most, 1);
  });

  /** Jobs of `type`, one per [store, n] in this order, all due now. */
  async function queue(type: string, jobs: Array<[number, number]>) {
    const { ctx } = t.runtime;
    await ctx.db.transaction().execute((trx) =>
      ctx.jobs.enqueueMany(
        trx,
        jobs.map(([store, n]) => ({ type, payload: { n }, options: { storeId: store } })),
      ),
    );
  }

  async function claimOf(type: string, limit: number, one: OnePerStore[], workerId = "claimer") {
    const { ctx } = t.runtime;
    const claimed = await ctx.jobs.claim(ctx.db, workerId, limit, [type], 30_000, undefined, one);
    return claimed.map((j) => j.payload.n as number);
  }

  test("one per store: a claim takes each store's first due job, none of a store with one running", async () => {
    const type = "test.one-per-store";
    await queue(type, [
      [9001, 1],
      [9001, 2],
      [9002, 3],
      [9001, 4],
      [9002, 5],
    ]);
    const one = [{ type }];
    assert.deepEqual(await claimOf(type, 10, one), [1, 3]);
    assert.deepEqual(await claimOf(type, 10, one), [], "both stores have one running");
    const { ctx } = t.runtime;
    const [first] = await ctx.db
      .selectFrom("jobs")
      .selectAll()
      .where("type", "=", type)
      .orderBy("id")
      .execute();
    await ctx.jobs.complete(ctx.db, { ...first, payload: {} }, "claimer");
    assert.deepEqual(await claimOf(type, 10, one), [2], "9001's next, 9002's first still running");
    assert.deepEqual(await claimOf(type, 10, []), [4, 5], "without the rule: every due job");
  });

  test("one per store: a running job whose lease ran out is the store's one to claim again", async () => {
    const type = "test.one-per-store-lease";
    const clock = t.clock as ManualClock;
    await queue(type, [
      [9001, 1],
      [9001, 2],
    ]);
    const one = [{ type }];
    assert.deepEqual(await claimOf(type, 10, one, "dies"), [1]);
    clock.advance(31_000);
    assert.deepEqual(await claimOf(type, 10, one), [1], "the dead worker's job, not the next");
    assert.deepEqual(await claimOf(type, 10, one), []);
  });

  test("one per store: jobs another job took along (leased under its mark) hold their store", async () => {
    const type = "test.one-per-store-taken";
    await queue(type, [
      [9001, 1],
      [9001, 2],
      [9001, 3],
    ]);
    const { ctx } = t.runtime;
    const taken = await ctx.jobs.leaseWaiting(ctx.db, type, 9001, {
      exceptId: 0,
      mark: "batch-of-0",
      limit: 3,
    });
    assert.equal(taken.length, 3);
    assert.deepEqual(await claimOf(type, 10, [{ type }]), []);
    await ctx.jobs.releaseLeased(
      ctx.db,
      taken.map((j) => j.id),
      "batch-of-0",
    );
    assert.deepEqual(await claimOf(type, 10, [{ type }]), [1]);
  });

  test("one per store: only for the stores its subquery selects", async () => {
    const type = "test.one-per-store-some";
    await queue(type, [
      [9001, 1],
      [9001, 2],
      [9002, 3],
      [9002, 4],
    ]);
    assert.deepEqual(await claimOf(type, 10, [{ type, stores: sql`select 9001` }]), [1, 3, 4]);
  });

  test("a worker runs a one-per-store type's jobs one at a time per store, the next as soon as one ends", async () => {
    const { ctx } = t.runtime;
    const type = "test.one-per-store-worker";
    const running = new Map<number, number>();
    let most = 0;
    let ran = 0;
    // No poll within the test's time: each next job must be claimed when the one before it ends.
    const worker = new Worker(ctx, { concurrency: 8, pollIntervalMs: 600_000 });
    worker.register({
      type,
      onePerStore: true,
      run: async (_, job) => {
        const store = job.store_id as number;
        running.set(store, (running.get(store) ?? 0) + 1);
        most = Math.max(most, ...running.values());
        await new Promise((resolve) => setTimeout(resolve, 5));
        running.set(store, (running.get(store) ?? 1) - 1);
        ran++;
      },
    });
    await queue(type, [
      [9001, 1],
      [9002, 2],
      [9001, 3],
      [9002, 4],
      [9001, 5],
      [9001, 6],
    ]);
    worker.start();
    for (let attempt = 0; attempt < 1000 && ran < 6; attempt++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    await worker.stop();
    assert.equal(ran, 6);
    assert.equal(most, 1);
  });
});
