/**
 * Several processes on one PostgreSQL and one Redis: two API processes (WORKERS=off) and two worker
 * processes (src/worker.ts). Rate limits hold across the API processes; with both workers running, no
 * webhook delivery attempt and no platform push is made twice; and when a worker is killed with
 * SIGKILL while it holds jobs, the other worker takes them over once their lease runs out and finishes
 * everything.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { makePki, type Pki } from "../../helpers/pki.ts";
import { createDatabase, type TestDatabase } from "../helpers/database.ts";
import { client, type Response, waitFor } from "../helpers/http.ts";
import { freePort, resetRateLimits, ServiceProcess } from "../helpers/processes.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import {
  assertLevelsMatchLedger,
  createShop,
  eventWatermark,
  jobReport,
  movementWatermark,
  platformLevels,
  pushCount,
  type Shop,
  subscribe,
  undeliveredEvents,
  waitForDrained,
} from "../helpers/scenario.ts";

const LEASE_MS = 30_000;

describe("several API and worker processes on one PostgreSQL and Redis", () => {
  let pki: Pki;
  let receiver: Receiver;
  let db: TestDatabase;
  let apis: ServiceProcess[];
  let workers: ServiceProcess[];

  before(async () => {
    pki = makePki();
    receiver = await startReceiver(pki);
    db = await createDatabase();
    const env = { NODE_EXTRA_CA_CERTS: pki.caFile };
    // The first API process migrates the fresh database; the others start on it.
    const first = new ServiceProcess({
      kind: "server",
      name: "multi-api-a",
      databaseUrl: db.url,
      port: await freePort(),
      env: { ...env, WORKERS: "off" },
    });
    await first.start();
    const second = new ServiceProcess({
      kind: "server",
      name: "multi-api-b",
      databaseUrl: db.url,
      port: await freePort(),
      env: { ...env, WORKERS: "off" },
    });
    workers = [1, 2].map(
      (n) => new ServiceProcess({ kind: "worker", name: `multi-worker-${n}`, databaseUrl: db.url, env }),
    );
    await Promise.all([second.start(), ...workers.map((w) => w.start())]);
    apis = [first, second];
  });

  after(async () => {
    await Promise.all([...(apis ?? []), ...(workers ?? [])].map((p) => p.stop()));
    await receiver?.close();
    await db?.drop();
    pki?.dispose();
  });

  /** A client of the store that sends its requests to the API processes in turn. */
  function roundRobin(key: string) {
    let turn = 0;
    const clients = apis.map((api) => client(() => api.baseUrl, `Bearer ${key}`));
    return () => clients[turn++ % clients.length];
  }

  test("rate limits hold across both API processes (per key and per store)", async (t) => {
    const shop = await createShop(() => apis[0].baseUrl, {
      name: "Limited Shop",
      rateLimits: { per_key_per_minute: 40, per_store_per_minute: 60, writes_per_store_per_minute: 1000 },
    });
    const second = await shop.admin.post(`/admin/stores/${shop.id}/keys`, {
      name: "second",
      scopes: ["read"],
    });
    assert.equal(second.status, 201);
    await resetRateLimits([shop.keyId, second.body.data.id], [shop.id]);

    const burst = async (key: string, count: number) => {
      const next = roundRobin(key);
      const answers: Response[] = [];
      const queue = Array.from({ length: count }, (_, i) => i);
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (queue.shift() !== undefined) answers.push(await next().get("/v2/whoami"));
        }),
      );
      const ok = answers.filter((a) => a.status === 200).length;
      const limited = answers.filter((a) => a.status === 429);
      for (const a of limited) {
        assert.equal(a.body.error.code, "rate_limited");
        assert.match(String(a.headers["retry-after"]), /^[1-9]\d*$/);
      }
      assert.equal(ok + limited.length, count, "every answer is 200 or 429");
      return { ok, limited: limited.length };
    };
    // 80 requests with the first key over both processes: exactly its 40 per minute succeed.
    const first = await burst(shop.key, 80);
    assert.deepEqual(first, { ok: 40, limited: 40 });
    // The second key has its own 40, but the store's 60 per minute leaves it 20.
    const other = await burst(second.body.data.key, 80);
    assert.deepEqual(other, { ok: 20, limited: 60 });
    t.diagnostic(
      `figures ${JSON.stringify({ keyBudget: 40, keySuccesses: first.ok, storeBudget: 60, secondKeySuccesses: other.ok })}`,
    );
  });

  let shop: Shop;
  let sinceSeq: number;

  test("two workers: no delivery attempt and no platform push made twice", {
    timeout: 180_000,
  }, async (t) => {
    shop = await createShop(() => apis[0].baseUrl, { name: "Busy Shop" });
    sinceSeq = await eventWatermark(db, shop.id);
    await subscribe(shop.api, `${receiver.url}/hooks/multi`);
    await waitForDrained(db, 60_000);
    const initial = await platformLevels(shop.admin, shop.id);
    const watermark = await movementWatermark(db, shop.id);
    const [jobsBefore] = await db.query("select coalesce(max(id), 0) as id from jobs");

    const next = roundRobin(shop.key);
    const variants = shop.variants.slice(0, 10);
    let n = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (n < 40) {
          const i = n++;
          const created = await next().post("/v2/stock_adjustments", {
            location_id: shop.locations[i % 2].id,
            reason: "correction",
            lines: [
              { variant_id: variants[i % 10].id, delta: 2 },
              { variant_id: variants[(i + 1) % 10].id, delta: -1 },
            ],
          });
          assert.equal(created.status, 201, created.text);
          const applied = await next().post(
            `/v2/stock_adjustments/${created.body.data.id}/apply`,
            {},
            {
              "idempotency-key": `multi-apply-${i}`,
            },
          );
          assert.equal(applied.status, 200, applied.text);
        }
      }),
    );
    const drainMs = await waitForDrained(db, 90_000);

    const ledger = await assertLevelsMatchLedger(db, shop.admin, shop.id, initial, watermark);
    const pushes = await pushCount(db, shop.id);
    assert.equal(pushes.movementsPushed, pushes.movements);
    // No job was claimed by both workers: every job of this phase ran exactly once.
    const [claims] = await db.query(
      "select count(*) as jobs, count(*) filter (where attempts <> 1) as reclaimed from jobs where id > $1 and state = 'done'",
      [jobsBefore.id],
    );
    assert.equal(claims.reclaimed, 0, "a job ran more than once");
    const multi = receiver.at("/hooks/multi");
    const pairs = new Set(multi.map((r) => `${r.eventId}/${r.deliveryId}`));
    assert.equal(pairs.size, multi.length, "a delivery attempt reached the receiver twice");
    const eventIds = new Set(multi.map((r) => r.eventId));
    assert.equal(eventIds.size, multi.length, "an event was delivered twice with no failure in between");
    const coverage = await undeliveredEvents(db, shop.id, eventIds, sinceSeq);
    assert.deepEqual(coverage.missing, []);
    const [logged] = await db.query(
      "select count(*) as n, count(distinct id) as ids from webhook_deliveries where store_id = $1",
      [shop.id],
    );
    assert.equal(logged.n, multi.length, "one delivery row per request received");
    t.diagnostic(
      `figures ${JSON.stringify({ writes: 80, jobs: claims.jobs, reclaimed: claims.reclaimed, movements: ledger.movements, pushDocuments: pushes.documents, deliveries: multi.length, eventsExpected: coverage.expected, drainMs })}`,
    );
  });

  test("a worker killed mid-work: the other takes its jobs over after the lease", {
    timeout: 180_000,
  }, async (t) => {
    assert.ok(shop, "runs after the previous test");
    // Slow answers keep deliveries in flight, so the worker dies holding leased jobs.
    receiver.behave("/hooks/multi", { kind: "slow", ms: 4000 });
    const before = receiver.at("/hooks/multi").length;
    const next = roundRobin(shop.key);
    for (let i = 0; i < 16; i++) {
      const created = await next().post("/v2/stock_adjustments", {
        location_id: shop.locations[0].id,
        reason: "damaged",
        lines: [{ variant_id: shop.variants[i % 10].id, delta: -1 }],
      });
      assert.equal(created.status, 201, created.text);
      const applied = await next().post(
        `/v2/stock_adjustments/${created.body.data.id}/apply`,
        {},
        {
          "idempotency-key": `takeover-apply-${i}`,
        },
      );
      assert.equal(applied.status, 200, applied.text);
    }
    const victim = workers[0];
    const held = await waitFor(
      "the first worker to hold running jobs",
      async () => {
        const rows = await db.query("select id from jobs where state = 'running' and locked_by like $1", [
          `w-${victim.pid}-%`,
        ]);
        return rows.length >= 2 ? rows.map((r) => Number(r.id)) : null;
      },
      30_000,
      100,
    );
    await victim.kill("SIGKILL");
    const killedAt = Date.now();
    // The jobs seen running above may have finished between that read and the kill. What the worker
    // held when it died is what is still leased to it once it is gone; the pause lets PostgreSQL
    // finish a COMMIT the worker sent just before its death.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const heldAtDeath = (
      await db.query("select id from jobs where state = 'running' and locked_by like $1", [
        `w-${victim.pid}-%`,
      ])
    ).map((r) => Number(r.id));
    assert.ok(heldAtDeath.length >= 1, `the worker died holding none of ${held.join(", ")}`);
    const drainMs = await waitForDrained(db, 120_000);
    const taken = await db.query(
      "select id, state, attempts, locked_by, finished_at from jobs where id = any($1::bigint[])",
      [heldAtDeath],
    );
    for (const job of taken) {
      assert.equal(job.state, "done", `job ${job.id}`);
      assert.ok(job.attempts >= 2, `job ${job.id} was not run again`);
    }
    const finishedAfterMs = Math.max(...taken.map((j) => new Date(j.finished_at).getTime() - killedAt));
    assert.ok(finishedAfterMs <= LEASE_MS + 30_000, `takeover took ${finishedAfterMs} ms`);
    assert.ok(workers[1].running, "the other worker is still up");

    const multi = receiver.at("/hooks/multi");
    const pairs = new Set(multi.map((r) => `${r.eventId}/${r.deliveryId}`));
    assert.equal(pairs.size, multi.length, "a delivery attempt reached the receiver twice");
    const coverage = await undeliveredEvents(db, shop.id, new Set(multi.map((r) => r.eventId)), sinceSeq);
    assert.deepEqual(coverage.missing, []);
    const jobs = await jobReport(db);
    assert.equal(jobs.expiredLeases, 0);
    assert.equal(jobs.byState.running ?? 0, 0);
    assert.deepEqual(jobs.failed, []);
    const pushes = await pushCount(db, shop.id);
    assert.deepEqual([pushes.movementsPushed, pushes.acknowledged], [pushes.movements, pushes.movements]);
    t.diagnostic(
      `figures ${JSON.stringify({ heldJobs: heldAtDeath.length, takeoverMs: finishedAfterMs, leaseMs: LEASE_MS, drainMs, deliveriesAfterKill: multi.length - before, redelivered: multi.length - new Set(multi.map((r) => r.eventId)).size })}`,
    );
  });
});
