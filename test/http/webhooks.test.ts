/**
 * /v2/webhooks through HTTP: shapes, validation, the limit of 10, status moves, scopes, tenancy, the
 * delivery log's paging and filters, and the refusals of test/redeliver. Delivery itself (a real HTTPS
 * receiver, signatures, retries, folding) is covered by test/integration/webhook-delivery.test.ts.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../src/clock.ts";
import { foundationModule } from "../../src/modules/foundation.ts";
import { createWebhooksModule } from "../../src/modules/webhooks.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { emitTestEvent } from "../helpers/factories.ts";

const WEBHOOK_KEYS = [
  "api_version",
  "consecutive_failures",
  "created_at",
  "description",
  "disabled_at",
  "disabled_reason",
  "events",
  "id",
  "last_delivered_at",
  "last_failed_at",
  "status",
  "updated_at",
  "url",
];
const DELIVERY_KEYS = [
  "attempt",
  "created_at",
  "duration_ms",
  "error",
  "event",
  "event_id",
  "id",
  "next_attempt_at",
  "status",
  "status_code",
  "webhook_id",
];
// Port 9 (discard) on loopback: nothing listens, so every attempt fails fast with a refused connection.
const DEAD_URL = "https://hooks.test:9/receiver";

describe("webhooks API", () => {
  let t: TestApp;
  let store: TestStore;
  let other: TestStore;
  const clock = new ManualClock("2030-01-01T00:00:00.000Z");

  before(async () => {
    t = await startTestApp({
      clock,
      modules: [foundationModule, createWebhooksModule({ resolve: async () => ["127.0.0.1"] })],
    });
    store = await t.createStore();
    other = await t.createStore();
  });
  after(() => t.close());

  async function create(s: TestStore, body: Record<string, unknown>) {
    const res = await s.api.post("/v2/webhooks", body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data;
  }

  test("POST creates an endpoint and returns the secret once; GET and list never show it", async () => {
    const created = await create(store, {
      url: DEAD_URL,
      events: ["supplier.created", "purchase_order.created"],
      description: "ERP bridge",
    });
    assert.deepEqual(Object.keys(created).sort(), [...WEBHOOK_KEYS, "secret"].sort());
    assert.match(created.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(
      { ...created, id: 0, secret: "" },
      {
        id: 0,
        secret: "",
        url: DEAD_URL,
        description: "ERP bridge",
        events: ["supplier.created", "purchase_order.created"],
        status: "active",
        api_version: 2,
        consecutive_failures: 0,
        last_delivered_at: null,
        last_failed_at: null,
        disabled_at: null,
        disabled_reason: null,
        created_at: "2030-01-01T00:00:00.000Z",
        updated_at: "2030-01-01T00:00:00.000Z",
      },
    );

    const one = await store.api.get(`/v2/webhooks/${created.id}`);
    assert.equal(one.status, 200);
    assert.deepEqual(Object.keys(one.body.data).sort(), WEBHOOK_KEYS);
    const { secret: _secret, ...withoutSecret } = created;
    assert.deepEqual(one.body.data, withoutSecret);

    const list = await store.api.get("/v2/webhooks");
    assert.equal(list.status, 200);
    assert.deepEqual(Object.keys(list.body), ["data"]);
    assert.deepEqual(list.body.data, [withoutSecret]);

    // The stored secret is encrypted, not the plain value.
    const row = await t.runtime.ctx.db
      .selectFrom("webhooks")
      .select("secret_encrypted")
      .where("id", "=", created.id)
      .executeTakeFirstOrThrow();
    assert.ok(!row.secret_encrypted.includes(created.secret.slice(6)));
    await store.api.delete(`/v2/webhooks/${created.id}`);
  });

  test('events must be catalogue names or ["*"]; refusals write nothing', async () => {
    const cases: Array<[unknown, Array<{ field: string; code: string }>]> = [
      [["supplier.created", "supplier.exploded"], [{ field: "events.1", code: "unknown_event" }]],
      [["*", "supplier.created"], [{ field: "events", code: "invalid_value" }]],
      [[], [{ field: "events", code: "invalid_length" }]],
      ["supplier.created", [{ field: "events", code: "invalid_type" }]],
    ];
    for (const [events, expected] of cases) {
      const res = await store.api.post("/v2/webhooks", { url: DEAD_URL, events });
      assert.equal(res.status, 422, JSON.stringify(events));
      assert.equal(res.body.error.code, "validation_failed");
      assert.deepEqual(
        res.body.error.details.map((d: { field: string; code: string }) => ({
          field: d.field,
          code: d.code,
        })),
        expected,
      );
    }
    const missing = await store.api.post("/v2/webhooks", { events: ["*"] });
    assert.equal(missing.status, 422);
    assert.deepEqual(missing.body.error.details[0], {
      field: "url",
      code: "required",
      message: "is required",
    });
    const unknown = await store.api.post("/v2/webhooks", { url: DEAD_URL, events: ["*"], secret: "x" });
    assert.equal(unknown.status, 422);
    assert.equal(unknown.body.error.details[0].code, "unknown_field");
    const http = await store.api.post("/v2/webhooks", { url: "http://hooks.test/x", events: ["*"] });
    assert.equal(http.status, 422);
    assert.deepEqual(http.body.error.details, [
      { field: "url", code: "invalid_url", message: "url must use https" },
    ]);
    assert.deepEqual((await store.api.get("/v2/webhooks")).body, { data: [] });

    // Every catalogue name is accepted; duplicates collapse.
    const all = await create(store, {
      url: DEAD_URL,
      events: ["stock_adjustment.applied", "item.overstock", "receipt.voided", "item.overstock"],
    });
    assert.deepEqual(all.events, ["stock_adjustment.applied", "item.overstock", "receipt.voided"]);
    await store.api.delete(`/v2/webhooks/${all.id}`);
  });

  test("at most 10 endpoints per store: the 11th is 422 limit_reached and changes nothing", async () => {
    const s = await t.createStore();
    for (let i = 0; i < 10; i++) await create(s, { url: `${DEAD_URL}/${i}`, events: ["*"] });
    const res = await s.api.post("/v2/webhooks", { url: `${DEAD_URL}/10`, events: ["*"] });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, "limit_reached");
    const list = await s.api.get("/v2/webhooks");
    assert.equal(list.body.data.length, 10);
    // Another store's endpoints don't count against this one.
    const elsewhere = await t.createStore();
    await create(elsewhere, { url: DEAD_URL, events: ["*"] });
    // Deleting one makes room again.
    const del = await s.api.delete(`/v2/webhooks/${list.body.data[0].id}`);
    assert.deepEqual(del.body, { data: { id: list.body.data[0].id, deleted: true } });
    await create(s, { url: `${DEAD_URL}/10`, events: ["*"] });
  });

  test("PATCH changes fields; status moves active/paused; disabled is refused; re-enabling resets", async () => {
    const hook = await create(store, { url: DEAD_URL, events: ["supplier.created"] });
    clock.advance(1000);
    const changed = await store.api.patch(`/v2/webhooks/${hook.id}`, {
      url: "https://hooks.test:9/other",
      events: ["*"],
      description: "all of it",
    });
    assert.equal(changed.status, 200);
    assert.equal(changed.body.data.url, "https://hooks.test:9/other");
    assert.deepEqual(changed.body.data.events, ["*"]);
    assert.equal(changed.body.data.description, "all of it");
    assert.equal(changed.body.data.updated_at, clock.now().toISOString());
    assert.equal(changed.body.data.created_at, hook.created_at);

    const cleared = await store.api.patch(`/v2/webhooks/${hook.id}`, { description: null });
    assert.equal(cleared.body.data.description, null);

    const disabled = await store.api.patch(`/v2/webhooks/${hook.id}`, { status: "disabled" });
    assert.equal(disabled.status, 422);
    assert.equal(disabled.body.error.code, "validation_failed");
    assert.equal(disabled.body.error.details[0].field, "status");
    const badUrl = await store.api.patch(`/v2/webhooks/${hook.id}`, { url: "ftp://hooks.test/" });
    assert.equal(badUrl.status, 422);
    assert.equal(badUrl.body.error.details[0].field, "url");
    const badEvent = await store.api.patch(`/v2/webhooks/${hook.id}`, { events: ["nope"] });
    assert.equal(badEvent.status, 422);
    assert.deepEqual(badEvent.body.error.details[0].field, "events.0");
    const unchanged = await store.api.get(`/v2/webhooks/${hook.id}`);
    assert.equal(unchanged.body.data.url, "https://hooks.test:9/other");
    assert.equal(unchanged.body.data.status, "active");

    const paused = await store.api.patch(`/v2/webhooks/${hook.id}`, { status: "paused" });
    assert.equal(paused.body.data.status, "paused");

    // Test and redeliver on a paused endpoint: 422 webhook_not_active.
    for (const [path, body] of [
      [`/v2/webhooks/${hook.id}/test`, undefined],
      [`/v2/webhooks/${hook.id}/redeliver`, { since: "2029-01-01T00:00:00Z" }],
    ] as const) {
      const res = await store.api.post(path, body);
      assert.equal(res.status, 422, path);
      assert.equal(res.body.error.code, "webhook_not_active");
    }

    // A disabled endpoint (as the retry schedule leaves it) comes back with PATCH status active.
    await t.runtime.ctx.db
      .updateTable("webhooks")
      .set({
        status: "disabled",
        consecutive_failures: 9,
        disabled_at: clock.now(),
        disabled_reason: "retry schedule exhausted",
      })
      .where("id", "=", hook.id)
      .execute();
    const stillDisabled = await store.api.patch(`/v2/webhooks/${hook.id}`, { status: "paused" });
    assert.equal(stillDisabled.status, 422);
    assert.equal(stillDisabled.body.error.code, "invalid_transition");
    const test1 = await store.api.post(`/v2/webhooks/${hook.id}/test`);
    assert.equal(test1.body.error.code, "webhook_not_active");
    const active = await store.api.patch(`/v2/webhooks/${hook.id}`, { status: "active" });
    assert.equal(active.status, 200);
    assert.equal(active.body.data.status, "active");
    assert.equal(active.body.data.consecutive_failures, 0);
    assert.equal(active.body.data.disabled_at, null);
    assert.equal(active.body.data.disabled_reason, null);
    await store.api.delete(`/v2/webhooks/${hook.id}`);
  });

  test("every route needs the webhooks scope, reads included", async () => {
    const hook = await create(store, { url: DEAD_URL, events: ["*"] });
    const readOnly = await store.keyWithScopes(["read", "write:suppliers"]);
    const calls: Array<[string, string, unknown?]> = [
      ["get", "/v2/webhooks"],
      ["post", "/v2/webhooks", { url: DEAD_URL, events: ["*"] }],
      ["get", `/v2/webhooks/${hook.id}`],
      ["patch", `/v2/webhooks/${hook.id}`, { description: "x" }],
      ["delete", `/v2/webhooks/${hook.id}`],
      ["get", `/v2/webhooks/${hook.id}/deliveries`],
      ["post", `/v2/webhooks/${hook.id}/deliveries/1/redeliver`],
      ["post", `/v2/webhooks/${hook.id}/redeliver`, { since: "2029-01-01T00:00:00Z" }],
      ["post", `/v2/webhooks/${hook.id}/test`],
    ];
    for (const [method, path, body] of calls) {
      const res =
        method === "get" || method === "delete"
          ? await (
              readOnly as never as Record<string, (p: string) => Promise<{ status: number; body: any }>>
            )[method](path)
          : await (
              readOnly as never as Record<
                string,
                (p: string, b?: unknown) => Promise<{ status: number; body: any }>
              >
            )[method](path, body);
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.equal(res.body.error.code, "insufficient_scope");
    }
    const unauthenticated = await t.client().get("/v2/webhooks");
    assert.equal(unauthenticated.status, 401);
    const scoped = await store.keyWithScopes(["webhooks"]);
    assert.equal((await scoped.get(`/v2/webhooks/${hook.id}`)).status, 200);
    await store.api.delete(`/v2/webhooks/${hook.id}`);
  });

  test("another store's webhook is 404 on every route, and is left alone", async () => {
    const theirs = await create(other, { url: DEAD_URL, events: ["*"] });
    const calls: Array<[string, string, unknown?]> = [
      ["get", `/v2/webhooks/${theirs.id}`],
      ["patch", `/v2/webhooks/${theirs.id}`, { status: "paused" }],
      ["delete", `/v2/webhooks/${theirs.id}`],
      ["get", `/v2/webhooks/${theirs.id}/deliveries`],
      ["post", `/v2/webhooks/${theirs.id}/deliveries/1/redeliver`],
      ["post", `/v2/webhooks/${theirs.id}/redeliver`, { since: "2029-01-01T00:00:00Z" }],
      ["post", `/v2/webhooks/${theirs.id}/test`],
      ["get", "/v2/webhooks/999999"],
    ];
    const api = store.api as never as Record<
      string,
      (p: string, b?: unknown) => Promise<{ status: number; body: any }>
    >;
    for (const [method, path, body] of calls) {
      const res =
        method === "get" || method === "delete" ? await api[method](path) : await api[method](path, body);
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.error.code, "not_found");
    }
    const still = await other.api.get(`/v2/webhooks/${theirs.id}`);
    assert.equal(still.body.data.status, "active");
    assert.deepEqual((await store.api.get("/v2/webhooks")).body.data, []);
    // Events of one store never reach another store's endpoints.
    await emitTestEvent(t, store.id, "supplier.created");
    await t.drain();
    const theirLog = await other.api.get(`/v2/webhooks/${theirs.id}/deliveries`);
    assert.deepEqual(theirLog.body.data, []);
    await other.api.delete(`/v2/webhooks/${theirs.id}`);
  });

  test("deliveries: one row per attempt, newest first, paged, filtered by status and event_id", async () => {
    const s = await t.createStore();
    const hook = await create(s, { url: DEAD_URL, events: ["supplier.created", "supplier.archived"] });
    const first = await emitTestEvent(t, s.id, "supplier.created", 1);
    await t.drain();
    clock.advance(10);
    const second = await emitTestEvent(t, s.id, "supplier.archived", 1);
    await t.drain();
    // Both first attempts failed (nothing listens); a minute later each is tried again.
    clock.advance(60_000);
    await t.drain();

    const all = await s.api.get(`/v2/webhooks/${hook.id}/deliveries`);
    assert.equal(all.status, 200);
    assert.equal(all.body.data.length, 4);
    assert.equal(all.body.has_more, false);
    assert.equal(all.body.next_cursor, null);
    for (const row of all.body.data) {
      assert.deepEqual(Object.keys(row).sort(), DELIVERY_KEYS);
      assert.equal(row.webhook_id, hook.id);
      assert.equal(row.status, "failed");
      assert.equal(row.status_code, null);
      assert.match(row.error, /ECONNREFUSED/);
      assert.ok(Number.isInteger(row.duration_ms) && row.duration_ms >= 0);
    }
    const times = all.body.data.map((r: { created_at: string }) => r.created_at);
    assert.deepEqual(times, [...times].sort().reverse());
    assert.deepEqual(
      all.body.data.map((r: { attempt: number; event_id: string }) => [r.attempt, r.event_id]).slice(2),
      [
        [1, second.id],
        [1, first.id],
      ],
    );
    const attempt1 = all.body.data[3];
    assert.equal(attempt1.event, "supplier.created");
    assert.equal(attempt1.next_attempt_at, new Date(Date.parse(attempt1.created_at) + 60_000).toISOString());

    const page1 = await s.api.get(`/v2/webhooks/${hook.id}/deliveries?limit=3`);
    assert.equal(page1.body.data.length, 3);
    assert.equal(page1.body.has_more, true);
    const page2 = await s.api.get(
      `/v2/webhooks/${hook.id}/deliveries?limit=3&cursor=${encodeURIComponent(page1.body.next_cursor)}`,
    );
    assert.deepEqual(
      [...page1.body.data, ...page2.body.data].map((r: { id: number }) => r.id),
      all.body.data.map((r: { id: number }) => r.id),
    );
    const otherFilter = await s.api.get(
      `/v2/webhooks/${hook.id}/deliveries?limit=3&status=failed&cursor=${encodeURIComponent(page1.body.next_cursor)}`,
    );
    assert.equal(otherFilter.status, 400);
    assert.equal(otherFilter.body.error.code, "invalid_cursor");

    const byEvent = await s.api.get(`/v2/webhooks/${hook.id}/deliveries?event_id=${first.id}`);
    assert.deepEqual(
      byEvent.body.data.map((r: { attempt: number }) => r.attempt),
      [2, 1],
    );
    const succeeded = await s.api.get(`/v2/webhooks/${hook.id}/deliveries?status=succeeded`);
    assert.deepEqual(succeeded.body.data, []);
    const badStatus = await s.api.get(`/v2/webhooks/${hook.id}/deliveries?status=pending`);
    assert.equal(badStatus.status, 422);
    assert.equal(badStatus.body.error.details[0].field, "status");

    const webhook = (await s.api.get(`/v2/webhooks/${hook.id}`)).body.data;
    assert.equal(webhook.consecutive_failures, 4);
    assert.equal(webhook.last_failed_at, clock.now().toISOString());
    assert.equal(webhook.last_delivered_at, null);

    // The admin console sees the same log.
    const admin = await t.admin.get(`/admin/stores/${s.id}/webhooks/${hook.id}/deliveries?limit=2`);
    assert.equal(admin.status, 200);
    assert.deepEqual(admin.body.data, all.body.data.slice(0, 2));
    const adminList = await t.admin.get(`/admin/stores/${s.id}/webhooks`);
    assert.deepEqual(adminList.body.data, [webhook]);
    assert.equal((await t.admin.get(`/admin/stores/${s.id}/webhooks/999999/deliveries`)).status, 404);
  });

  test("redeliver and test: validation, 404s, and the 202 bodies", async () => {
    const s = await t.createStore();
    const hook = await create(s, { url: DEAD_URL, events: ["supplier.created"] });
    const event = await emitTestEvent(t, s.id, "supplier.created", 5);
    const unsubscribed = await emitTestEvent(t, s.id, "supplier.archived", 5);
    await t.drain();
    const [delivery] = (await s.api.get(`/v2/webhooks/${hook.id}/deliveries`)).body.data;

    const neither = await s.api.post(`/v2/webhooks/${hook.id}/redeliver`, {});
    assert.equal(neither.status, 422);
    assert.equal(neither.body.error.code, "validation_failed");
    const both = await s.api.post(`/v2/webhooks/${hook.id}/redeliver`, {
      event_id: event.id,
      since: "2029-01-01T00:00:00Z",
    });
    assert.equal(both.status, 422);
    const badSince = await s.api.post(`/v2/webhooks/${hook.id}/redeliver`, { since: "yesterday" });
    assert.equal(badSince.status, 422);
    assert.equal(badSince.body.error.details[0].field, "since");
    const missingEvent = await s.api.post(`/v2/webhooks/${hook.id}/redeliver`, { event_id: "evt_nope" });
    assert.equal(missingEvent.status, 422);
    assert.deepEqual(
      { field: missingEvent.body.error.details[0].field, code: missingEvent.body.error.details[0].code },
      { field: "event_id", code: "not_found" },
    );
    const notSubscribed = await s.api.post(`/v2/webhooks/${hook.id}/redeliver`, {
      event_id: unsubscribed.id,
    });
    assert.equal(notSubscribed.status, 422);
    assert.equal(notSubscribed.body.error.details[0].code, "not_subscribed");
    const otherStoreEvent = await emitTestEvent(t, other.id, "supplier.created", 5);
    const foreign = await s.api.post(`/v2/webhooks/${hook.id}/redeliver`, { event_id: otherStoreEvent.id });
    assert.equal(foreign.status, 422);
    const noDelivery = await s.api.post(`/v2/webhooks/${hook.id}/deliveries/999999/redeliver`);
    assert.equal(noDelivery.status, 404);

    const one = await s.api.post(`/v2/webhooks/${hook.id}/deliveries/${delivery.id}/redeliver`);
    assert.equal(one.status, 202);
    assert.deepEqual(one.body, { data: { queued: 1, event_ids: [event.id] } });
    const byEvent = await s.api.post(`/v2/webhooks/${hook.id}/redeliver`, { event_id: event.id });
    assert.equal(byEvent.status, 202);
    assert.deepEqual(byEvent.body, { data: { queued: 1, event_ids: [event.id] } });
    const future = await s.api.post(`/v2/webhooks/${hook.id}/redeliver`, { since: "2100-01-01T00:00:00Z" });
    assert.deepEqual(future.body, { data: { queued: 0, event_ids: [] } });

    const tested = await s.api.post(`/v2/webhooks/${hook.id}/test`);
    assert.equal(tested.status, 202);
    assert.deepEqual(Object.keys(tested.body.data).sort(), ["event", "event_id", "queued"]);
    assert.match(tested.body.data.event_id, /^evt_/);
    assert.equal(tested.body.data.event, "webhook.test");
    assert.equal(tested.body.data.queued, true);
    await t.drain();
    const testRows = await s.api.get(
      `/v2/webhooks/${hook.id}/deliveries?event_id=${tested.body.data.event_id}`,
    );
    assert.equal(testRows.body.data.length, 1);
    assert.equal(testRows.body.data[0].event, "webhook.test");
    // A test event is one delivery: no retry is scheduled for it.
    assert.equal(testRows.body.data[0].next_attempt_at, null);

    const admin = await t.admin.post(
      `/admin/stores/${s.id}/webhooks/${hook.id}/deliveries/${delivery.id}/redeliver`,
    );
    assert.equal(admin.status, 202);
    assert.deepEqual(admin.body, { data: { queued: 1, event_ids: [event.id] } });
    await t.drain();
  });

  test("a replayed create with the same Idempotency-Key returns the same endpoint and creates no other", async () => {
    const s = await t.createStore();
    const headers = { "idempotency-key": "create-hook-1" };
    const first = await s.api.post("/v2/webhooks", { url: DEAD_URL, events: ["*"] }, headers);
    const again = await s.api.post("/v2/webhooks", { url: DEAD_URL, events: ["*"] }, headers);
    assert.equal(again.status, 201);
    assert.equal(again.headers["idempotent-replayed"], "true");
    assert.deepEqual(again.body, first.body);
    assert.equal((await s.api.get("/v2/webhooks")).body.data.length, 1);
  });
});
