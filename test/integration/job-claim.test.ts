/**
 * A claim takes at most the jobs it asks for. Since the claim turned synchronous_commit off in its
 * own statement (e7aae9c), `where id in (select … limit n for update skip locked)` ran its subquery
 * again for every row beside the volatile set_config, each run skipping the rows the update had just
 * locked, so a claim of one took every due job: a worker of 8 slots ran every waiting push and
 * delivery at once. The due jobs are now picked once, in a WITH.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
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
});
