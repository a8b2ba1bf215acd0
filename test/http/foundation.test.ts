import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import SwaggerParser from "@apidevtools/swagger-parser";
import { sql } from "kysely";
import type { ManualClock } from "../../src/clock.ts";
import { allModules } from "../../src/modules/index.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { probe, probeModule, probeThing } from "../helpers/probe-module.ts";

let t: TestApp;
let store: TestStore;
let other: TestStore;

before(async () => {
  t = await startTestApp({ modules: [...allModules, probeModule] });
  store = await t.createStore();
  other = await t.createStore();
});
after(() => t.close());

describe("authentication and scopes", () => {
  test("every refusal answers its code in the envelope", async () => {
    const cases: Array<[string | undefined, number, string]> = [
      [undefined, 401, "unauthorized"],
      ["Basic abc", 401, "unauthorized"],
      ["Bearer not-a-key", 401, "unauthorized"],
      [`Bearer sr2_${"a".repeat(40)}`, 401, "unauthorized"],
    ];
    for (const [auth, status, code] of cases) {
      const res = await t.client(auth).get("/v2/whoami");
      assert.equal(res.status, status, String(auth));
      assert.equal(res.body.error.code, code);
      assert.equal(typeof res.body.error.message, "string");
    }
  });

  test("a revoked key and an expired key answer 401", async () => {
    const created = await t.admin.post(`/admin/stores/${store.id}/keys`, { name: "temp", scopes: [] });
    const client = t.client(`Bearer ${created.body.data.key}`);
    assert.equal((await client.get("/v2/whoami")).status, 200);
    const revoked = await t.admin.post(`/admin/stores/${store.id}/keys/${created.body.data.id}/revoke`);
    assert.equal(revoked.status, 200);
    assert.ok(revoked.body.data.revoked_at);
    const after = await client.get("/v2/whoami");
    assert.equal(after.status, 401);
    assert.equal(after.body.error.code, "unauthorized");

    const clock = t.clock as ManualClock;
    const expiring = await t.admin.post(`/admin/stores/${store.id}/keys`, {
      name: "short",
      scopes: [],
      expires_at: new Date(clock.now().getTime() + 60_000).toISOString(),
    });
    const shortClient = t.client(`Bearer ${expiring.body.data.key}`);
    assert.equal((await shortClient.get("/v2/whoami")).status, 200);
    clock.advance(61_000);
    const expired = await shortClient.get("/v2/whoami");
    assert.equal(expired.status, 401);
    assert.match(expired.body.error.message, /expired/);
  });

  test("a key is shown once and only its hash is stored", async () => {
    const created = await t.admin.post(`/admin/stores/${store.id}/keys`, { name: "once", scopes: ["read"] });
    assert.equal(created.status, 201);
    assert.match(created.body.data.key, /^sr2_[0-9A-Za-z]{40}$/);
    assert.equal(created.body.data.prefix, created.body.data.key.slice(0, 12));
    const listed = await t.admin.get(`/admin/stores/${store.id}/keys`);
    const row = listed.body.data.find((k: any) => k.id === created.body.data.id);
    assert.equal(row.key, undefined);
    const stored = await t.runtime.ctx.db
      .selectFrom("api_keys")
      .selectAll()
      .where("id", "=", created.body.data.id)
      .executeTakeFirstOrThrow();
    assert.notEqual(stored.key_hash, created.body.data.key);
    assert.equal(stored.key_hash.length, 64);
  });

  test("a store without API access answers 402 feature_not_enabled", async () => {
    const s = await t.createStore();
    assert.equal((await t.admin.patch(`/admin/stores/${s.id}`, { api_access: false })).status, 200);
    const res = await s.api.get("/v2/whoami");
    assert.equal(res.status, 402);
    assert.equal(res.body.error.code, "feature_not_enabled");
    const log = await t.admin.get(`/admin/stores/${s.id}/request_log?status=402`);
    assert.equal(log.body.data.length, 1, "a refused request of a known key is still logged against it");
    await t.admin.patch(`/admin/stores/${s.id}`, { api_access: true });
    assert.equal((await s.api.get("/v2/whoami")).status, 200);
  });

  test("a key lacking the route's scope answers 403 insufficient_scope and writes nothing", async () => {
    const readOnly = await store.keyWithScopes(["read"]);
    const before = probe.handlerRuns;
    const res = await readOnly.post("/v2/probe_things", probeThing());
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, "insufficient_scope");
    assert.equal(probe.handlerRuns, before);
    assert.equal((await readOnly.get("/v2/probe_things")).status, 200);
  });

  test("the admin API refuses a wrong token and says it is wrong; a missing one, how to send it", async () => {
    const res = await t.client("Bearer wrong-token").get("/admin/stores");
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, "unauthorized");
    assert.equal(res.body.error.message, "The admin token is wrong.");
    const none = await t.client(undefined).get("/admin/stores");
    assert.equal(none.status, 401);
    assert.equal(none.body.error.message, "Send the admin token as `Authorization: Bearer <ADMIN_TOKEN>`.");
  });
});

describe("errors", () => {
  test("malformed JSON is 400 bad_request", async () => {
    const res = await store.api.post("/v2/probe_things", '{"name": "x",', {
      "content-type": "application/json",
    });
    assert.equal(res.status, 400);
    assert.deepEqual(Object.keys(res.body.error).sort(), ["code", "message"]);
    assert.equal(res.body.error.code, "bad_request");
  });

  test("an unknown field, a wrong type and a nested error each get a detail with its path", async () => {
    const res = await store.api.post("/v2/probe_things", {
      name: "x",
      qty: "3",
      colour: "red",
      lines: [{ quantity: 1 }, { quantity: 0 }],
    });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, "validation_failed");
    const byField = Object.fromEntries(res.body.error.details.map((d: any) => [d.field, d.code]));
    assert.deepEqual(byField, {
      qty: "invalid_type",
      colour: "unknown_field",
      "lines.1.quantity": "out_of_range",
    });
  });

  test("a missing required field is named", async () => {
    const res = await store.api.post("/v2/probe_things", { qty: 1 });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.error.details, [{ field: "name", code: "required", message: "is required" }]);
  });

  test("a body over 1 MiB is 413 with code bad_request", async () => {
    const res = await store.api.post("/v2/probe_things", { name: "x".repeat(1024 * 1024 + 10), qty: 1 });
    assert.equal(res.status, 413);
    assert.equal(res.body.error.code, "bad_request");
  });

  test("an unsupported media type and an unknown route use the envelope", async () => {
    const media = await store.api.post("/v2/probe_things", "name=x", { "content-type": "text/plain" });
    assert.equal(media.status, 415);
    assert.equal(media.body.error.code, "bad_request");
    const missing = await store.api.get("/v2/nothing_here");
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, "not_found");
  });

  test("every response carries X-Request-Id", async () => {
    const res = await t.client().get("/v2/whoami");
    assert.match(String(res.headers["x-request-id"]), /^req_[0-9A-Za-z]{20}$/);
  });
});

describe("paging", () => {
  test("a cursor walk over 600 records returns each exactly once and is bound to its filters", async () => {
    const db = t.runtime.ctx.db;
    const now = t.clock.now();
    // Many rows share one timestamp: the id tie-break must keep the walk exact.
    await sql`insert into probe_things (store_id, name, qty, colour, created_at, updated_at)
      select ${store.id}, 'bulk-' || g, g, case when g % 2 = 0 then 'red' else 'blue' end, ${now}::timestamptz, ${now}::timestamptz + ((g / 7) * interval '1 millisecond')
      from generate_series(1, 600) g`.execute(db);
    const seen = new Set<number>();
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: any = await store.api.get(
        `/v2/probe_things?limit=250${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      assert.equal(res.status, 200);
      for (const row of res.body.data) {
        assert.ok(!seen.has(row.id), `row ${row.id} returned twice`);
        seen.add(row.id);
      }
      assert.equal(res.body.has_more, res.body.next_cursor !== null);
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    const total = await db
      .selectFrom("probe_things" as any)
      .select(sql<number>`count(*)::int`.as("n"))
      .where("store_id", "=", store.id)
      .executeTakeFirstOrThrow();
    assert.equal(seen.size, (total as any).n);
    assert.ok(seen.size >= 600);
    assert.equal(pages, Math.ceil(seen.size / 250));

    const first = await store.api.get("/v2/probe_things?limit=10&colour=red");
    assert.ok(first.body.next_cursor);
    const wrongFilters = await store.api.get(
      `/v2/probe_things?limit=10&colour=blue&cursor=${encodeURIComponent(first.body.next_cursor)}`,
    );
    assert.equal(wrongFilters.status, 400);
    assert.equal(wrongFilters.body.error.code, "invalid_cursor");
    const otherStore = await other.api.get(
      `/v2/probe_things?limit=10&colour=red&cursor=${encodeURIComponent(first.body.next_cursor)}`,
    );
    assert.equal(otherStore.status, 400);
    const garbage = await store.api.get("/v2/probe_things?cursor=not-a-cursor");
    assert.equal(garbage.status, 400);
    assert.equal(garbage.body.error.code, "invalid_cursor");
    const tampered = first.body.next_cursor.replace(/^./, (c: string) => (c === "e" ? "f" : "e"));
    assert.equal(
      (await store.api.get(`/v2/probe_things?limit=10&colour=red&cursor=${encodeURIComponent(tampered)}`))
        .status,
      400,
    );
  });

  test("limit outside 1..250 and malformed date filters are 422 on that parameter", async () => {
    for (const q of ["limit=0", "limit=251", "limit=abc", "updated_at_min=yesterday"]) {
      const res = await store.api.get(`/v2/probe_things?${q}`);
      assert.equal(res.status, 422, q);
      assert.equal(res.body.error.details[0].field, q.split("=")[0]);
    }
  });

  test("date filters narrow the list", async () => {
    const res = await store.api.get(
      `/v2/probe_things?updated_at_min=${encodeURIComponent(new Date(Date.now() + 86400_000 * 365).toISOString())}`,
    );
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, []);
    assert.equal(res.body.has_more, false);
    assert.equal(res.body.next_cursor, null);
  });
});

describe("idempotency", () => {
  test("a replay returns the stored response with Idempotent-Replayed and runs nothing", async () => {
    const headers = { "idempotency-key": "replay-1" };
    const first = await store.api.post("/v2/probe_things", probeThing("replayed", 2), headers);
    assert.equal(first.status, 201);
    const runs = probe.handlerRuns;
    const second = await store.api.post("/v2/probe_things", { qty: 2, name: "replayed" }, headers);
    assert.equal(second.status, 201);
    assert.equal(second.headers["idempotent-replayed"], "true");
    assert.deepEqual(second.body, first.body);
    assert.equal(probe.handlerRuns, runs);
  });

  test("the same key with another body is 409 idempotency_key_reused", async () => {
    const headers = { "idempotency-key": "reuse-1" };
    await store.api.post("/v2/probe_things", probeThing("a"), headers);
    const res = await store.api.post("/v2/probe_things", probeThing("b"), headers);
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, "idempotency_key_reused");
  });

  test("keys are scoped to the API key: another key may use the same string", async () => {
    const otherKey = await store.keyWithScopes(["write:suppliers"]);
    const a = await store.api.post("/v2/probe_things", probeThing("k"), { "idempotency-key": "scoped" });
    const b = await otherKey.post("/v2/probe_things", probeThing("k"), { "idempotency-key": "scoped" });
    assert.equal(a.status, 201);
    assert.equal(b.status, 201);
    assert.notEqual(a.body.data.id, b.body.data.id);
  });

  test("a 4xx that reached the handler is stored; a schema refusal claims nothing", async () => {
    const refused = await store.api.post(
      "/v2/probe_things",
      { name: "x" },
      { "idempotency-key": "schema-refused" },
    );
    assert.equal(refused.status, 422);
    const fixed = await store.api.post("/v2/probe_things", probeThing("fixed"), {
      "idempotency-key": "schema-refused",
    });
    assert.equal(fixed.status, 201);
  });

  test("keys over 255 characters are refused; 255 is fine", async () => {
    const long = await store.api.post("/v2/probe_things", probeThing(), {
      "idempotency-key": "k".repeat(256),
    });
    assert.equal(long.status, 400);
    assert.equal(long.body.error.code, "bad_request");
    assert.equal(
      (await store.api.post("/v2/probe_things", probeThing(), { "idempotency-key": "k".repeat(255) })).status,
      201,
    );
  });

  test("20 concurrent identical POSTs with one key run the handler once", async () => {
    probe.holdMs = 150;
    const runs = probe.handlerRuns;
    try {
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          store.api.post("/v2/probe_things", probeThing("concurrent", 7), { "idempotency-key": "burst-1" }),
        ),
      );
      assert.equal(probe.handlerRuns - runs, 1);
      const created = results.filter((r) => r.status === 201);
      assert.ok(created.length >= 1);
      for (const r of results) {
        assert.ok(
          r.status === 201 || (r.status === 409 && r.body.error.code === "idempotency_in_progress"),
          `${r.status}`,
        );
      }
      const ids = new Set(created.map((r) => r.body.data.id));
      assert.equal(ids.size, 1);
    } finally {
      probe.holdMs = 0;
    }
  });

  test("a claim left in progress by a crashed process expires after 60 s", async () => {
    const db = t.runtime.ctx.db;
    const keyRow = await db
      .selectFrom("api_keys")
      .select("id")
      .where("store_id", "=", store.id)
      .orderBy("id")
      .executeTakeFirstOrThrow();
    const clock = t.clock as ManualClock;
    const claimedAt = clock.now();
    await db
      .insertInto("idempotency_keys")
      .values({
        store_id: store.id,
        api_key_id: keyRow.id,
        key: "crashed",
        request_hash: "x",
        state: "in_progress",
        status_code: null,
        response_body: null,
        locked_at: claimedAt,
        created_at: claimedAt,
      })
      .execute();
    const early = await store.api.post("/v2/probe_things", probeThing(), { "idempotency-key": "crashed" });
    assert.equal(early.status, 409);
    assert.ok(["idempotency_in_progress", "idempotency_key_reused"].includes(early.body.error.code));
    // A matching request hash: rewrite the claim to look like ours, then let it go stale.
    await db.deleteFrom("idempotency_keys").where("key", "=", "crashed").execute();
    probe.holdMs = 0;
    const first = store.api.post("/v2/probe_things", probeThing("crash"), { "idempotency-key": "crashed-2" });
    await first;
    await db
      .updateTable("idempotency_keys")
      .set({ state: "in_progress", status_code: null, response_body: null })
      .where("key", "=", "crashed-2")
      .execute();
    const stillRunning = await store.api.post("/v2/probe_things", probeThing("crash"), {
      "idempotency-key": "crashed-2",
    });
    assert.equal(stillRunning.status, 409);
    assert.equal(stillRunning.body.error.code, "idempotency_in_progress");
    clock.advance(61_000);
    const retried = await store.api.post("/v2/probe_things", probeThing("crash"), {
      "idempotency-key": "crashed-2",
    });
    assert.equal(retried.status, 201);
    assert.equal(retried.headers["idempotent-replayed"], undefined);
  });

  test("stored responses expire after 24 hours", async () => {
    const clock = t.clock as ManualClock;
    const first = await store.api.post("/v2/probe_things", probeThing("day"), { "idempotency-key": "daily" });
    clock.advance(24 * 60 * 60 * 1000 + 1000);
    const again = await store.api.post("/v2/probe_things", probeThing("day"), { "idempotency-key": "daily" });
    assert.equal(again.status, 201);
    assert.equal(again.headers["idempotent-replayed"], undefined);
    assert.notEqual(again.body.data.id, first.body.data.id);
  });
});

describe("rate limits", () => {
  test("the 61st write in a minute gets 429 with Retry-After; reads still pass the write budget", async () => {
    const s = await t.createStore();
    await t.admin.patch(`/admin/stores/${s.id}`, {
      rate_limits: { per_key_per_minute: 120, per_store_per_minute: 300, writes_per_store_per_minute: 60 },
    });
    for (let i = 0; i < 60; i++) {
      const res = await s.api.post("/v2/probe_things", probeThing(`w${i}`));
      assert.equal(res.status, 201, `write ${i + 1}`);
      assert.equal(res.headers["ratelimit-limit"] !== undefined, true);
    }
    const runs = probe.handlerRuns;
    const refused = await s.api.post("/v2/probe_things", probeThing("w61"), { "idempotency-key": "limited" });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.code, "rate_limited");
    assert.ok(Number(refused.headers["retry-after"]) >= 1);
    assert.equal(refused.headers["ratelimit-remaining"], "0");
    assert.equal(probe.handlerRuns, runs);
    const read = await s.api.get("/v2/whoami");
    assert.equal(read.status, 200);
  });

  test("401 requests do not spend a key's budget; the per-key budget holds", async () => {
    const s = await t.createStore();
    await t.admin.patch(`/admin/stores/${s.id}`, {
      rate_limits: { per_key_per_minute: 5, per_store_per_minute: 300, writes_per_store_per_minute: 60 },
    });
    for (let i = 0; i < 10; i++) await t.client("Bearer nope").get("/v2/whoami");
    for (let i = 0; i < 5; i++) assert.equal((await s.api.get("/v2/whoami")).status, 200);
    const sixth = await s.api.get("/v2/whoami");
    assert.equal(sixth.status, 429);
  });

  test("a request one budget refuses spends none of the others: a key over its limit leaves the store's to its other keys", async () => {
    const s = await t.createStore();
    await t.admin.patch(`/admin/stores/${s.id}`, {
      rate_limits: { per_key_per_minute: 2, per_store_per_minute: 3, writes_per_store_per_minute: 60 },
    });
    const other = await s.keyWithScopes(["read"]);
    for (let i = 0; i < 2; i++) assert.equal((await s.api.get("/v2/whoami")).status, 200);
    for (let i = 0; i < 5; i++) {
      const refused = await s.api.get("/v2/whoami");
      assert.equal(refused.status, 429);
      assert.equal(refused.headers["ratelimit-limit"], "2");
      assert.equal(refused.headers["ratelimit-remaining"], "0");
    }
    // The store's budget: 2 of 3 spent, the 5 refused requests gave theirs back.
    const third = await other.get("/v2/whoami");
    assert.equal(third.status, 200);
    assert.equal(third.headers["ratelimit-remaining"], "0");
    const fourth = await other.get("/v2/whoami");
    assert.equal(fourth.status, 429);
    assert.equal(fourth.headers["ratelimit-limit"], "3");
  });
});

describe("request log", () => {
  test("every /v2 request is recorded against its key and readable through the admin API", async () => {
    const res = await store.api.get("/v2/whoami", { "x-request-id": "trace-me-1" });
    assert.equal(res.headers["x-request-id"], "trace-me-1");
    await store.api.post("/v2/probe_things", probeThing("logged"), { "idempotency-key": "log-key" });
    const log = await t.admin.get(`/admin/stores/${store.id}/request_log?limit=250`);
    assert.equal(log.status, 200);
    const whoami = log.body.data.find((r: any) => r.request_id === "trace-me-1");
    assert.ok(whoami);
    assert.equal(whoami.method, "GET");
    assert.equal(whoami.path, "/v2/whoami");
    assert.equal(whoami.status, 200);
    assert.equal(typeof whoami.duration_ms, "number");
    const post = log.body.data.find((r: any) => r.idempotency_key === "log-key");
    assert.equal(post.status, 201);
    const filtered = await t.admin.get(`/admin/stores/${store.id}/request_log?status=403`);
    assert.ok(filtered.body.data.every((r: any) => r.status === 403));
    assert.ok(filtered.body.data.length >= 1);
    const keys = await t.admin.get(`/admin/stores/${store.id}/keys`);
    assert.ok(keys.body.data.some((k: any) => k.last_used_at !== null));
  });

  test("paths and keys with quotes, commas, braces, backslashes and NULL-looking text are logged as sent", async () => {
    // Rows are written in bulk as array parameters: every character must survive array quoting.
    const awkward = `a"b,c{d}e\\f NULL 'g'`;
    const path = `/v2/whoami?x=${encodeURIComponent(awkward)}&y={1,2}`;
    const res = await store.api.get(path, { "x-request-id": "awkward-1" });
    assert.equal(res.status, 200);
    await store.api.post("/v2/probe_things", probeThing("awkward"), { "idempotency-key": awkward });
    await store.api.post("/v2/probe_things", probeThing("null-key"), { "idempotency-key": "NULL" });
    const log = (await t.admin.get(`/admin/stores/${store.id}/request_log?limit=250`)).body.data;
    assert.equal(
      decodeURIComponent(log.find((r: any) => r.request_id === "awkward-1").path),
      decodeURIComponent(path),
    );
    assert.equal(log.filter((r: any) => r.idempotency_key === awkward).length, 1);
    assert.equal(log.filter((r: any) => r.idempotency_key === "NULL").length, 1);
    assert.ok(log.some((r: any) => r.idempotency_key === null));
  });
});

describe("outbox and jobs", () => {
  test("an event commits with its change and not without it", async () => {
    const db = t.runtime.ctx.db;
    const before = await db
      .selectFrom("events")
      .select(sql<number>`count(*)::int`.as("n"))
      .where("name", "=", "probe.created")
      .executeTakeFirstOrThrow();
    await store.api.post("/v2/probe_things", probeThing("evented"));
    await store.api.post("/v2/probe_things", { name: "", qty: 1 });
    const afterCount = await db
      .selectFrom("events")
      .select(sql<number>`count(*)::int`.as("n"))
      .where("name", "=", "probe.created")
      .executeTakeFirstOrThrow();
    assert.equal(afterCount.n - before.n, 1);
  });

  test("a job whose worker dies is picked up again after its lease", async () => {
    const { ctx } = t.runtime;
    const clock = t.clock as ManualClock;
    const ran: number[] = [];
    const { Worker } = await import("../../src/jobs/worker.ts");
    const worker = new Worker(ctx, { concurrency: 2, leaseMs: 30_000 });
    worker.register({ type: "test.lease", run: async (_ctx, job) => void ran.push(job.id) });
    await ctx.db
      .transaction()
      .execute((trx) => ctx.jobs.enqueue(trx, "test.lease", { n: 1 }, { storeId: store.id }));
    // A worker claims it and dies before finishing.
    const claimed = await ctx.jobs.claim(ctx.db, "dead-worker", 5, ["test.lease"]);
    assert.equal(claimed.length, 1);
    assert.equal(await worker.drain(), 0, "a leased job is not taken while the lease holds");
    clock.advance(31_000);
    assert.equal(await worker.drain(), 1);
    assert.deepEqual(ran, [claimed[0].id]);
    const row = await ctx.db
      .selectFrom("jobs")
      .selectAll()
      .where("id", "=", claimed[0].id)
      .executeTakeFirstOrThrow();
    assert.equal(row.state, "done");
    assert.equal(row.attempts, 2);
  });

  test("failed jobs retry with backoff, then fail for good; dedupe keys collapse waiting duplicates", async () => {
    const { ctx } = t.runtime;
    const clock = t.clock as ManualClock;
    const { Worker, PermanentJobError } = await import("../../src/jobs/worker.ts");
    const worker = new Worker(ctx, { concurrency: 2 });
    let attempts = 0;
    const finalFailures: string[] = [];
    worker.register({
      type: "test.flaky",
      run: async () => {
        attempts++;
        throw new Error(`boom ${attempts}`);
      },
      retryDelayMs: (n) => n * 1000,
      onFinalFailure: async (_c, _j, error) => void finalFailures.push(error),
    });
    worker.register({
      type: "test.permanent",
      run: async () => {
        throw new PermanentJobError("refused");
      },
    });
    await ctx.db.transaction().execute(async (trx) => {
      await ctx.jobs.enqueue(trx, "test.flaky", {}, { maxAttempts: 3 });
      await ctx.jobs.enqueue(trx, "test.permanent", {}, { dedupeKey: "perm" });
      await ctx.jobs.enqueue(trx, "test.permanent", {}, { dedupeKey: "perm" });
    });
    await worker.drain();
    assert.equal(attempts, 1);
    clock.advance(999);
    await worker.drain();
    assert.equal(attempts, 1, "not before its backoff");
    clock.advance(1);
    await worker.drain();
    assert.equal(attempts, 2);
    clock.advance(2000);
    await worker.drain();
    assert.equal(attempts, 3);
    assert.deepEqual(finalFailures, ["boom 3"]);
    const perm = await ctx.db.selectFrom("jobs").selectAll().where("type", "=", "test.permanent").execute();
    assert.equal(perm.length, 1, "dedupe key collapses the waiting duplicate");
    assert.equal(perm[0].state, "failed");
    assert.equal(perm[0].attempts, 1);
  });
});

describe("OpenAPI", () => {
  test("the document validates and lists the routes", async () => {
    const res = await t.client().get("/v2/openapi.json");
    assert.equal(res.status, 200);
    const doc = structuredClone(res.body);
    await SwaggerParser.validate(doc);
    assert.equal(res.body.openapi, "3.1.0");
    assert.ok(res.body.paths["/v2/whoami"]);
    assert.equal(
      Object.keys(res.body.paths).some((p: string) => p.startsWith("/admin")),
      false,
    );
    const docs = await t.client().get("/docs/");
    assert.equal(docs.status, 200);
  });
});
