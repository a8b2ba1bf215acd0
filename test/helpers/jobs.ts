/** Jobs as tests see them: enqueued through ctx.jobs, read back from the queue's table. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { TestApp } from "./app.ts";

/** A job payload a handler must refuse, and the refusal it must record (`last_error`). */
export type PayloadRefusal = [type: string, payload: Record<string, unknown>, error: string];

/**
 * One test per case: a job enqueued with ten attempts and a payload that lacks the shape its handler
 * takes fails for good on its first attempt (PermanentJobError), with the field named in its error.
 * `app` is read when the test runs (the file's `before` starts it).
 */
export function testPayloadRefusals(app: () => TestApp, cases: readonly PayloadRefusal[]): void {
  for (const [type, payload, error] of cases) {
    test(`${type} ${JSON.stringify(payload)} fails for good on its first attempt`, async () => {
      const t = app();
      const ctx = t.runtime.ctx;
      await ctx.jobs.enqueue(ctx.db, type, payload, { maxAttempts: 10 });
      await t.drain();
      const job = await ctx.db
        .selectFrom("jobs")
        .select(["state", "attempts", "last_error"])
        .where("type", "=", type)
        .orderBy("id", "desc")
        .limit(1)
        .executeTakeFirstOrThrow();
      assert.deepEqual(job, { state: "failed", attempts: 1, last_error: error });
    });
  }
}
