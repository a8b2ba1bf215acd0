/**
 * Pools and transports are built once per process: the worker's context (its own database handle)
 * shares the API's resources, each value is made once, and the runtime closes each once at shutdown.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { AppContext } from "../../src/context.ts";
import { mailerFor } from "../../src/mail/service-mailer.ts";
import { foundationModule } from "../../src/modules/foundation.ts";
import type { Module } from "../../src/modules/module.ts";
import { ProcessResources } from "../../src/resources.ts";
import { startTestApp } from "../helpers/app.ts";

describe("process resources", () => {
  test("a value is made once per key and closed once, newest first, even when another close fails", async () => {
    const resources = new ProcessResources();
    const closed: string[] = [];
    let made = 0;
    const a = {};
    const b = {};
    const first = resources.get(
      a,
      () => ({ n: ++made }),
      () => void closed.push("a"),
    );
    assert.equal(
      resources.get(
        a,
        () => ({ n: ++made }),
        () => void closed.push("a again"),
      ),
      first,
    );
    resources.get(
      b,
      () => ({ n: ++made }),
      () => {
        closed.push("b");
        throw new Error("b failed to close");
      },
    );
    assert.equal(made, 2);
    await assert.rejects(resources.close(), /b failed to close/);
    assert.deepEqual(closed, ["b", "a"]);
    await resources.close();
    assert.deepEqual(closed, ["b", "a"], "nothing is closed twice");
    assert.throws(
      () =>
        resources.get(
          a,
          () => ({}),
          () => {},
        ),
      /stopping/,
    );
  });

  test("jobs run with the API's resources: the worker and the API share one mailer", async () => {
    const seen: AppContext[] = [];
    const probe: Module = {
      name: "probe",
      jobs: [{ type: "probe.resources", run: async (ctx) => void seen.push(ctx) }],
    };
    const t = await startTestApp({ modules: [foundationModule, probe] });
    try {
      const ctx = t.runtime.ctx;
      await ctx.jobs.enqueue(ctx.db, "probe.resources", {});
      assert.equal(await t.drain(), 1);
      assert.equal(seen.length, 1);
      assert.notEqual(seen[0], ctx, "the worker has a context of its own");
      assert.equal(seen[0].resources, ctx.resources);
      assert.equal(mailerFor(seen[0]), mailerFor(ctx));
    } finally {
      await t.close();
    }
    assert.throws(() => mailerFor(t.runtime.ctx), /stopping/, "closed with the runtime");
  });
});
