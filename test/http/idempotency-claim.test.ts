/**
 * The idempotency claim commits on its own before the write's transaction, with `synchronous_commit`
 * off for that one statement's transaction (issue 22 item 1: one fsync per keyed write, not two). What
 * must hold around it: the setting ends with the claim's own transaction (the connection goes back to
 * the pool synchronous, and the write's COMMIT waits for the disk, flushing the claim with it); a retry
 * while the first request is inside its transaction sees the claim at once (409); a write that fails
 * inside its transaction gives the key back, so the retry runs at once. The setting is read at the
 * driver, on the very connection the claim and the COMMIT went through.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { PGliteThread } from "../../src/db/pglite-thread.ts";
import { allModules } from "../../src/modules/index.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { probe, probeModule, probeThing } from "../helpers/probe-module.ts";

const SETTING = "select current_setting('synchronous_commit') as v";
const CLAIM = /^\s*insert into idempotency_keys/i;
const COMMIT = /^\s*commit\b/i;

/** While set, what `synchronous_commit` was right after each claim and right before each COMMIT. */
let seen: Array<{ when: "after the claim" | "at the commit"; value: Promise<string> }> | null = null;

function settingOf(result: Promise<{ rows: Array<{ v: string }> }>): Promise<string> {
  return result.then((r) => r.rows[0].v);
}

// Each probe is queued on the same connection in the same tick as the statement it brackets: the
// pg client and the embedded database's thread both run what they are sent in order, so nothing of
// another request can come between (and the connection cannot go back to the pool in between).
const clientQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const first = args[0];
  const text = typeof first === "string" ? first : (first as { text?: string } | undefined)?.text;
  if (!seen || typeof text !== "string") return clientQuery.apply(this, args);
  if (COMMIT.test(text))
    seen.push({ when: "at the commit", value: settingOf(clientQuery.call(this, SETTING) as never) });
  const result = clientQuery.apply(this, args);
  if (CLAIM.test(text))
    seen.push({ when: "after the claim", value: settingOf(clientQuery.call(this, SETTING) as never) });
  return result;
} as typeof pg.Client.prototype.query;

const threadQuery = PGliteThread.prototype.query as (...args: unknown[]) => Promise<never>;
PGliteThread.prototype.query = function (this: PGliteThread, ...args: unknown[]) {
  const text = args[0];
  if (!seen || typeof text !== "string") return threadQuery.apply(this, args);
  if (COMMIT.test(text))
    seen.push({ when: "at the commit", value: settingOf(threadQuery.call(this, SETTING)) });
  const result = threadQuery.apply(this, args);
  if (CLAIM.test(text))
    seen.push({ when: "after the claim", value: settingOf(threadQuery.call(this, SETTING)) });
  return result;
} as typeof PGliteThread.prototype.query;

let t: TestApp;
let store: TestStore;

before(async () => {
  t = await startTestApp({ modules: [...allModules, probeModule] });
  store = await t.createStore();
});

after(() => t.close());

async function thingsNamed(name: string): Promise<number> {
  const page = await store.api.get("/v2/probe_things?limit=250");
  assert.equal(page.status, 200);
  return page.body.data.filter((r: { name: string }) => r.name === name).length;
}

describe("the idempotency claim", () => {
  test("its synchronous_commit off ends with its own statement: the write's COMMIT waits for the disk", async () => {
    await t.runtime.ctx.requestLog.flush();
    seen = [];
    let res: Awaited<ReturnType<typeof store.api.post>>;
    try {
      res = await store.api.post("/v2/probe_things", probeThing("durable"), { "idempotency-key": "sync-1" });
    } finally {
      const observed = seen;
      seen = null;
      const values = await Promise.all(observed.map(async (o) => `${o.when}: ${await o.value}`));
      assert.deepEqual(values, ["after the claim: on", "at the commit: on"]);
    }
    assert.equal(res.status, 201);
    const replay = await store.api.post("/v2/probe_things", probeThing("durable"), {
      "idempotency-key": "sync-1",
    });
    assert.equal(replay.status, 201);
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assert.deepEqual(replay.body, res.body);
  });

  // PostgreSQL only: the embedded database is one session, so while a transaction is open nothing
  // else, the retry's claim included, reaches it (the retry then waits and replays the answer).
  const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
  test("a retry while the first is inside its transaction gets 409 at once, then the stored answer", {
    skip: onPostgres
      ? false
      : "the embedded database is one session: a held transaction holds every statement",
  }, async () => {
    let open!: () => void;
    probe.gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const runs = probe.handlerRuns;
    try {
      const first = store.api.post("/v2/probe_things", probeThing("held"), { "idempotency-key": "held-1" });
      // The handler is inside its transaction, the claim committed before it.
      while (probe.handlerRuns === runs) await new Promise((r) => setImmediate(r));
      const retry = await store.api.post("/v2/probe_things", probeThing("held"), {
        "idempotency-key": "held-1",
      });
      assert.equal(retry.status, 409);
      assert.equal(retry.body.error.code, "idempotency_in_progress");
      open();
      const done = await first;
      assert.equal(done.status, 201);
      const replay = await store.api.post("/v2/probe_things", probeThing("held"), {
        "idempotency-key": "held-1",
      });
      assert.equal(replay.status, 201);
      assert.equal(replay.headers["idempotent-replayed"], "true");
      assert.deepEqual(replay.body, done.body);
      assert.equal(probe.handlerRuns - runs, 1);
      assert.equal(await thingsNamed("held"), 1);
    } finally {
      open();
      probe.gate = null;
    }
  });

  test("a write that fails inside its transaction gives the key back: the retry runs at once", async () => {
    const runs = probe.handlerRuns;
    probe.failNext = true;
    const failed = await store.api.post("/v2/probe_things", probeThing("failed-once"), {
      "idempotency-key": "fail-1",
    });
    assert.equal(failed.status, 500);
    assert.equal(failed.body.error.code, "internal_error");
    // Rolled back: the insert the handler made before failing is gone.
    assert.equal(await thingsNamed("failed-once"), 0);
    const retry = await store.api.post("/v2/probe_things", probeThing("failed-once"), {
      "idempotency-key": "fail-1",
    });
    assert.equal(retry.status, 201);
    assert.equal(retry.headers["idempotent-replayed"], undefined);
    assert.equal(probe.handlerRuns - runs, 2);
    assert.equal(await thingsNamed("failed-once"), 1);
  });
});
