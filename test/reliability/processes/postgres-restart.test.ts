/**
 * PostgreSQL restarted under load (`pg_ctlcluster ... restart`, as root), with a real service process
 * (API and workers). While the database is away, requests fail fast with 503 (or 500) `internal_error`
 * (503 with Retry-After), never hang past the client's 10 s bound and never lose the connection; the
 * service recovers by itself within seconds of the database being back, without a restart; writes
 * retried with their Idempotency-Key take effect exactly once; background work resumes.
 *
 * This test restarts the whole local PostgreSQL server: it must run alone (scripts/run-tests.mjs runs the
 * reliability suite with --test-concurrency=1 on PostgreSQL), and it always leaves PostgreSQL running.
 */
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { createDatabase, type TestDatabase } from "../helpers/database.ts";
import { NetError, type Response, sleep, waitFor } from "../helpers/http.ts";
import { freePort, ServiceProcess } from "../helpers/processes.ts";
import {
  createShop,
  jobReport,
  newRetryStats,
  type Shop,
  sendUntilFinal,
  waitForDrained,
} from "../helpers/scenario.ts";

const CLUSTER_VERSION = readdirSync("/etc/postgresql")[0];

/** Runs pg_ctlcluster without blocking the event loop (the load goes on meanwhile). */
async function pgctl(action: "restart" | "start"): Promise<void> {
  await promisify(execFile)("pg_ctlcluster", ["--skip-systemctl-redirect", CLUSTER_VERSION, "main", action], {
    timeout: 60_000,
  });
}

function postgresReady(): boolean {
  try {
    execFileSync("pg_isready", ["-h", "127.0.0.1", "-p", "5432", "-q"], { stdio: "pipe", timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

/** Whatever happened, PostgreSQL is left running. */
async function ensurePostgresUp(): Promise<void> {
  for (let i = 0; i < 30; i++) {
    if (postgresReady()) return;
    if (i === 5) {
      try {
        await pgctl("start");
      } catch {
        // already starting
      }
    }
    await sleep(1000);
  }
  throw new Error("PostgreSQL did not come back up");
}

interface Outcome {
  at: number;
  op: string;
  kind: "ok" | "unavailable" | "internal" | "unexpected" | "net";
  status: number;
  ms: number;
  detail: string;
}

describe("PostgreSQL restarted under load", () => {
  let db: TestDatabase;
  let server: ServiceProcess;

  before(async () => {
    db = await createDatabase();
    server = new ServiceProcess({
      kind: "server",
      name: "postgres-restart-server",
      databaseUrl: db.url,
      port: await freePort(),
    });
    await server.start();
  });

  after(async () => {
    await ensurePostgresUp();
    await server?.stop();
    await db?.drop();
  });

  test("requests fail fast with 503/500 internal_error, and the service recovers by itself", {
    timeout: 240_000,
  }, async (t) => {
    const shop: Shop = await createShop(() => server.baseUrl, { name: "Restart Shop" });
    const outcomes: Outcome[] = [];
    const classify = (op: string, res: Response | NetError): Outcome => {
      const at = Date.now();
      if (res instanceof NetError)
        return { at, op, kind: "net", status: 0, ms: res.ms, detail: `${res.code} ${res.message}` };
      const code = res.body?.error?.code;
      let kind: Outcome["kind"] = "unexpected";
      if (res.status < 300) kind = "ok";
      else if (
        res.status === 503 &&
        code === "internal_error" &&
        /^\d+$/.test(String(res.headers["retry-after"]))
      )
        kind = "unavailable";
      else if (res.status === 500 && code === "internal_error") kind = "internal";
      else if (res.status === 409 && code === "idempotency_in_progress") kind = "unavailable";
      return { at, op, kind, status: res.status, ms: res.ms, detail: res.text.slice(0, 200) };
    };
    const attempt = async (op: string, send: () => Promise<Response>) => {
      let outcome: Outcome;
      try {
        outcome = classify(op, await send());
      } catch (error) {
        if (!(error instanceof NetError)) throw error;
        outcome = classify(op, error);
      }
      outcomes.push(outcome);
      return outcome;
    };

    // Load: reads of three kinds, and supplier creations with keys retried until final.
    let stop = false;
    let writes = 0;
    const writeStats = newRetryStats();
    const pendingWrites: Array<Promise<Response>> = [];
    const readers = Array.from({ length: 3 }, async (_, n) => {
      while (!stop) {
        const which = (n + outcomes.length) % 3;
        if (which === 0) await attempt("whoami", () => shop.api.get("/v2/whoami"));
        else if (which === 1) await attempt("variants", () => shop.api.get("/v2/variants?limit=20"));
        else await attempt("suppliers", () => shop.api.get("/v2/suppliers?limit=20"));
        await sleep(50);
      }
    });
    const writer = (async () => {
      while (!stop) {
        const i = writes++;
        const body = { name: `Restart supplier ${i}` };
        // The first try is recorded as an outcome; the retries until final run on in the background.
        const first = await attempt("create supplier", () =>
          shop.api.post("/v2/suppliers", body, { "idempotency-key": `restart-${i}` }),
        );
        if (first.kind !== "ok")
          pendingWrites.push(
            sendUntilFinal(shop.api, "post", "/v2/suppliers", body, `restart-${i}`, writeStats, 150_000),
          );
        await sleep(100);
      }
    })();

    await sleep(3000);
    const restartStarted = Date.now();
    let restartEnded = 0;
    try {
      await pgctl("restart");
      restartEnded = Date.now();
      await sleep(15_000);
    } finally {
      stop = true;
      await Promise.all([...readers, writer]);
      await ensurePostgresUp();
    }

    // After the load: the service answers normally again, without having been restarted.
    for (let i = 0; i < 20; i++) {
      const res = await shop.api.get(i % 2 ? "/v2/whoami" : "/v2/variants?limit=5");
      assert.equal(res.status, 200, res.text);
    }
    assert.ok(server.running, "the service process is still the same one");
    assert.equal(server.starts, 1);
    const finals = await Promise.all(pendingWrites);
    for (const res of finals) assert.equal(res.status, 201, res.text);

    const failures = outcomes.filter((o) => o.kind !== "ok");
    const unexpected = outcomes.filter((o) => o.kind === "unexpected" || o.kind === "net");
    assert.deepEqual(unexpected, [], "every failure is a 503/500 internal_error, none hangs or drops");
    assert.ok(failures.length > 0, "the restart was felt by some request");
    const maxMs = Math.max(...outcomes.map((o) => o.ms));
    assert.ok(maxMs < 10_000, `a request took ${maxMs} ms`);
    const lastFailure = Math.max(...failures.map((o) => o.at));
    const recoveryMs = lastFailure - restartEnded;
    assert.ok(recoveryMs < 10_000, `requests kept failing ${recoveryMs} ms after PostgreSQL was back`);
    const okAfter = outcomes.filter((o) => o.kind === "ok" && o.at > lastFailure).length;
    assert.ok(okAfter >= 20, `only ${okAfter} successes after the last failure`);

    // Each supplier creation took effect exactly once.
    const [suppliers] = await db.query(
      "select count(*) as n, count(distinct name) as names from suppliers where store_id = $1 and name like 'Restart supplier %'",
      [shop.id],
    );
    assert.deepEqual([suppliers.n, suppliers.names], [writes, writes]);

    // Background work resumed: a stock adjustment applied now reaches the platform.
    const created = await shop.api.post("/v2/stock_adjustments", {
      location_id: shop.locations[0].id,
      reason: "correction",
      lines: [{ variant_id: shop.variants[0].id, delta: 1 }],
    });
    assert.equal(created.status, 201, created.text);
    const applied = await shop.api.post(
      `/v2/stock_adjustments/${created.body.data.id}/apply`,
      {},
      {
        "idempotency-key": "after-restart",
      },
    );
    assert.equal(applied.status, 200, applied.text);
    const syncedAfterMs = await (async () => {
      const from = Date.now();
      await waitFor(
        "the adjustment to reach the platform",
        async () =>
          (await shop.api.get(`/v2/stock_adjustments/${created.body.data.id}`)).body.data.platform_sync
            .state === "synced",
        60_000,
      );
      return Date.now() - from;
    })();
    const drainMs = await waitForDrained(db, 90_000);
    const jobs = await jobReport(db);
    assert.deepEqual(jobs.failed, []);
    assert.equal(jobs.expiredLeases, 0);

    const byKind = (kind: Outcome["kind"]) => outcomes.filter((o) => o.kind === kind).length;
    const firstFailure = Math.min(...failures.map((o) => o.at));
    const figures = {
      requests: outcomes.length,
      ok: byKind("ok"),
      unavailable503: outcomes.filter((o) => o.status === 503).length,
      inProgress409: outcomes.filter((o) => o.status === 409).length,
      internal500: byKind("internal"),
      hangsOrDrops: byKind("net"),
      maxResponseMs: Math.round(maxMs),
      restartMs: restartEnded - restartStarted,
      failureWindowMs: lastFailure - firstFailure,
      firstFailureAfterRestartStartMs: firstFailure - restartStarted,
      lastFailureAfterRestartEndMs: recoveryMs,
      writes,
      writeRetries: writeStats.attempts,
      syncedAfterMs,
      drainMs,
    };
    t.diagnostic(`figures ${JSON.stringify(figures)}`);
  });
});
