/**
 * Dependencies failing, with a real service process (API and workers) on PostgreSQL:
 *  - webhook receivers that hang, answer 500, redirect, or stream a huge body: every attempt is bounded
 *    (10 s timeout, 64 KiB read), redirects are not followed, and a healthy endpoint of the same store
 *    keeps getting its deliveries promptly;
 *  - the platform down: the API is unaffected, records show pending then failed, and the sync catches up
 *    once the platform is back (admin retry of failed pushes, natural retry of waiting ones), with
 *    nothing pushed twice. The outage lasts about half a minute of real time; the push retry schedule
 *    (10 s, 30 s, 2 min, 10 min, 1 h) is fast-forwarded by moving due pushes to now, so the first group
 *    of pushes spends all 6 attempts as in an outage of more than an hour.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { makePki, type Pki } from "../../helpers/pki.ts";
import { createDatabase, type TestDatabase } from "../helpers/database.ts";
import { explainTimeout, sleep, waitFor } from "../helpers/http.ts";
import { freePort, ServiceProcess } from "../helpers/processes.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import {
  assertLevelsMatchLedger,
  createShop,
  jobReport,
  movementWatermark,
  platformLevels,
  pushCount,
  subscribe,
  waitForDrained,
} from "../helpers/scenario.ts";

/** Short retries so failing endpoints keep being retried while the test watches. */
const RETRY_SCHEDULE = "2s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s";

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

describe("dependencies failing (webhook receivers, the platform)", () => {
  let pki: Pki;
  let receiver: Receiver;
  let db: TestDatabase;
  let server: ServiceProcess;

  before(async () => {
    pki = makePki();
    receiver = await startReceiver(pki);
    db = await createDatabase();
    server = new ServiceProcess({
      kind: "server",
      name: "dependencies-server",
      databaseUrl: db.url,
      port: await freePort(),
      env: { NODE_EXTRA_CA_CERTS: pki.caFile, WEBHOOK_RETRY_SCHEDULE: RETRY_SCHEDULE },
    });
    await server.start();
  });

  after(async () => {
    await server?.stop();
    await receiver?.close();
    await db?.drop();
    pki?.dispose();
  });

  test("receivers that hang, fail, redirect or flood: limits hold, the healthy endpoint keeps flowing", {
    timeout: 180_000,
  }, async (t) => {
    const shop = await createShop(() => server.baseUrl, { name: "Hooks Shop" });
    receiver.behave("/bad/hang", { kind: "hang" });
    receiver.behave("/bad/500", { kind: "status", status: 500, body: "oops" });
    receiver.behave("/bad/redirect", {
      kind: "status",
      status: 302,
      headers: { location: `${receiver.url}/bad/redirect-target` },
    });
    receiver.behave("/bad/huge", { kind: "huge", bytes: 50 * 1024 * 1024 });
    const hooks: Record<string, number> = {};
    for (const p of ["/bad/hang", "/bad/500", "/bad/redirect", "/bad/huge", "/good"])
      hooks[p] = await subscribe(shop.api, `${receiver.url}${p}`);

    // 20 supplier.created events, one every 0.75 s, for about 15 s.
    const created: Array<{ eventAt: number; name: string }> = [];
    for (let i = 0; i < 20; i++) {
      const res = await shop.api.post("/v2/suppliers", { name: `Hooked ${i}` });
      assert.equal(res.status, 201, res.text);
      created.push({ eventAt: Date.now(), name: `Hooked ${i}` });
      await sleep(750);
    }
    const events = await db.query(
      "select id, occurred_at from events where store_id = $1 and name = 'supplier.created' order by seq",
      [shop.id],
    );
    assert.equal(events.length, 20);
    // Every event reaches the healthy endpoint, promptly, while the others fail.
    await waitFor(
      "every event at the healthy endpoint",
      async () => new Set(receiver.at("/good").map((r) => r.eventId)).size >= 20,
      30_000,
    );
    const good = receiver.at("/good");
    const latencies = events.map((e) => {
      const first = good.find((r) => r.eventId === e.id);
      assert.ok(first, `event ${e.id} not delivered to the healthy endpoint`);
      return first.at - new Date(e.occurred_at).getTime();
    });
    const healthyDelivery = { p50: percentile(latencies, 50), max: Math.max(...latencies) };
    t.diagnostic(`healthy endpoint latencies ${JSON.stringify(latencies)}`);
    assert.ok(healthyDelivery.max < 5000, `healthy endpoint waited ${healthyDelivery.max} ms`);
    assert.equal(new Set(good.map((r) => r.deliveryId)).size, good.length);

    // Let the failing endpoints see a few more retries, then read their delivery logs.
    await sleep(5000);
    const log = async (path: string) => {
      const res = await shop.api.get(`/v2/webhooks/${hooks[path]}/deliveries?limit=250`);
      assert.equal(res.status, 200);
      return res.body.data as Array<{
        status: string;
        status_code: number | null;
        duration_ms: number;
        error: string | null;
      }>;
    };
    const hang = await log("/bad/hang");
    assert.ok(hang.length >= 1);
    for (const d of hang) {
      assert.equal(d.status, "failed");
      assert.equal(d.status_code, null);
      assert.equal(d.error, "timeout");
      assert.ok(d.duration_ms >= 9_500 && d.duration_ms <= 15_000, `hang attempt took ${d.duration_ms} ms`);
    }
    const failing = await log("/bad/500");
    assert.ok(failing.length >= 3);
    for (const d of failing) assert.deepEqual([d.status, d.status_code], ["failed", 500]);
    const redirect = await log("/bad/redirect");
    assert.ok(redirect.length >= 3);
    for (const d of redirect) {
      assert.deepEqual([d.status, d.status_code], ["failed", 302]);
      assert.match(d.error ?? "", /redirect/);
    }
    assert.equal(receiver.at("/bad/redirect-target").length, 0, "a redirect was followed");
    const huge = await log("/bad/huge");
    assert.ok(huge.length >= 1);
    for (const d of huge) {
      assert.deepEqual([d.status, d.status_code], ["failed", 200]);
      assert.match(d.error ?? "", /cut off/);
    }
    // The sender stopped reading each huge answer after 64 KiB; a few socket buffers were in flight.
    const hugeAttempts = receiver.at("/bad/huge").length;
    const bytesPerHugeAttempt = Math.round(receiver.hugeBytesWritten / hugeAttempts);
    assert.ok(bytesPerHugeAttempt < 8 * 1024 * 1024, `${bytesPerHugeAttempt} bytes written per huge answer`);

    const figures = {
      events: 20,
      healthyDeliveryMs: healthyDelivery,
      healthyDeliveries: good.length,
      hangAttempts: hang.length,
      hangDurationMs: Math.max(...hang.map((d) => d.duration_ms)),
      attempts500: failing.length,
      redirectAttempts: redirect.length,
      hugeAttempts: huge.length,
      hugeBytesWrittenPerAttempt: bytesPerHugeAttempt,
    };
    t.diagnostic(`figures ${JSON.stringify(figures)}`);
    // Stop the failing endpoints so they do not load the next test.
    for (const p of ["/bad/hang", "/bad/500", "/bad/redirect", "/bad/huge"]) {
      const res = await shop.api.delete(`/v2/webhooks/${hooks[p]}`);
      assert.equal(res.status, 200);
    }
  });

  test("the platform down: API unaffected, sync catches up, nothing pushed twice", {
    timeout: 180_000,
  }, async (t) => {
    const shop = await createShop(() => server.baseUrl, { name: "Outage Shop" });
    await waitForDrained(db, 60_000, shop.id);
    const initial = await platformLevels(shop.admin, shop.id);
    const watermark = await movementWatermark(db, shop.id);
    const documentsBefore = (await pushCount(db, shop.id)).documents;
    const down = await shop.admin.post(`/admin/stores/${shop.id}/platform/faults`, {
      mode: "down",
      count: 1_000_000,
    });
    assert.equal(down.status, 200, down.text);
    const outageStarted = Date.now();

    const apiMs: number[] = [];
    const adjust = async (i: number) => {
      const created = await shop.api.post("/v2/stock_adjustments", {
        location_id: shop.locations[i % 2].id,
        reason: "correction",
        lines: [{ variant_id: shop.variants[i].id, delta: 5 }],
      });
      assert.equal(created.status, 201, created.text);
      apiMs.push(created.ms);
      const applied = await shop.api.post(
        `/v2/stock_adjustments/${created.body.data.id}/apply`,
        {},
        {
          "idempotency-key": `outage-${i}`,
        },
      );
      assert.equal(applied.status, 200, applied.text);
      apiMs.push(applied.ms);
      assert.equal(applied.body.data.platform_sync.state, "pending");
      return created.body.data.id as number;
    };
    const pushJobs = async (ids: number[]) =>
      db.query(
        `select id, state, attempts, last_error from jobs where type = 'platform.push'
         and store_id = $1 and (payload->>'subject_id')::int = any($2::int[]) order by id`,
        [shop.id, ids],
      );

    // Group A: every attempt of its pushes fails (the schedule is fast-forwarded) -> failed.
    const groupA: number[] = [];
    for (let i = 0; i < 6; i++) groupA.push(await adjust(i));
    // On a timeout the jobs' states and the service's last lines say where they stopped.
    await explainTimeout(
      () =>
        waitFor(
          "group A's pushes to fail for good",
          async () => {
            await db.query(
              `update jobs set run_at = now() where type = 'platform.push' and store_id = $1 and state = 'queued'
               and (payload->>'subject_id')::int = any($2::int[])`,
              [shop.id, groupA],
            );
            const jobs = await pushJobs(groupA);
            return jobs.length === groupA.length && jobs.every((j) => j.state === "failed");
          },
          90_000,
          500,
        ),
      async () => ({ jobs: await pushJobs(groupA), log: server.tail(60) }),
    );
    for (const job of await pushJobs(groupA)) {
      assert.equal(job.attempts, 6);
      assert.match(job.last_error, /unavailable/);
    }
    for (const id of groupA) {
      const res = await shop.api.get(`/v2/stock_adjustments/${id}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.data.platform_sync.state, "failed");
      assert.match(res.body.data.platform_sync.error, /unavailable/);
    }
    // Group B: its first attempt fails; it waits for the next one (10 s later).
    const groupB: number[] = [];
    for (let i = 6; i < 10; i++) groupB.push(await adjust(i));
    await waitFor(
      "group B's first attempts",
      async () => (await pushJobs(groupB)).every((j) => j.attempts >= 1 && j.state === "queued"),
      30_000,
    );
    // Reads and writes keep working while the platform stays down (15 s more of real time).
    const until = Date.now() + 15_000;
    let reads = 0;
    while (Date.now() < until) {
      const res = await shop.api.get("/v2/stock_adjustments?limit=50");
      assert.equal(res.status, 200);
      apiMs.push(res.ms);
      const levels = await shop.api.get(`/v2/inventory_levels?location_id=${shop.locations[0].id}&limit=50`);
      assert.equal(levels.status, 200);
      apiMs.push(levels.ms);
      reads += 2;
      await sleep(200);
    }
    const status = await shop.admin.get(`/admin/stores/${shop.id}/sync`);
    assert.equal(status.status, 200);
    assert.equal(status.body.data.counts.failed, groupA.length);
    assert.equal(status.body.data.failed.length, groupA.length);
    const [platformDuring] = await db.query("select count(*) as n from sim_push_keys where store_id = $1", [
      shop.id,
    ]);

    // The platform comes back: admin retry for the failed pushes, the waiting ones retry by themselves.
    const ok = await shop.admin.post(`/admin/stores/${shop.id}/platform/faults`, { mode: "ok" });
    assert.equal(ok.status, 200);
    const outageMs = Date.now() - outageStarted;
    const recoveredFrom = Date.now();
    for (const job of status.body.data.failed as Array<{ job_id: number }>) {
      const retried = await shop.admin.post(`/admin/stores/${shop.id}/sync/${job.job_id}/retry`, {});
      assert.equal(retried.status, 200, retried.text);
    }
    await waitFor(
      "every adjustment synced",
      async () => {
        for (const id of [...groupA, ...groupB]) {
          const res = await shop.api.get(`/v2/stock_adjustments/${id}`);
          if (res.body.data.platform_sync.state !== "synced") return false;
        }
        return true;
      },
      60_000,
      500,
    );
    const catchUpMs = Date.now() - recoveredFrom;
    await waitForDrained(db, 60_000, shop.id);
    const ledger = await assertLevelsMatchLedger(db, shop.admin, shop.id, initial, watermark);
    const pushes = await pushCount(db, shop.id);
    assert.equal(pushes.movementsPushed, pushes.movements, "every movement in exactly one platform document");
    const jobs = await jobReport(db);
    assert.deepEqual(jobs.failed, []);
    assert.equal(jobs.expiredLeases, 0);
    const figures = {
      outageMs,
      documentsPushedDuringOutage: Number(platformDuring.n) - documentsBefore,
      apiCallsDuringOutage: apiMs.length,
      apiDuringOutageMs: { p50: Math.round(percentile(apiMs, 50)), max: Math.round(Math.max(...apiMs)) },
      readsDuringOutage: reads,
      failedAfterSixAttempts: groupA.length,
      waitingRetried: groupB.length,
      catchUpMs,
      movements: ledger.movements,
    };
    assert.equal(figures.documentsPushedDuringOutage, 0);
    t.diagnostic(`figures ${JSON.stringify(figures)}`);
  });
});
