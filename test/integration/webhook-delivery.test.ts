/**
 * Webhook delivery end to end: events emitted through the outbox reach a real HTTPS receiver
 * (node:https with a throwaway CA made by openssl), signed as the contract says; retries follow the
 * schedule under the ManualClock through to `disabled` and the owner's email; `.updated` events fold;
 * redelivery by id, by event id and by `since`; the slow lane; a worker that dies mid-delivery; the
 * 30-day purge; and the address guard at creation and at delivery time (WEBHOOK_ALLOW_PRIVATE=false).
 */
import assert from "node:assert/strict";
import { createHmac, timingSafeEqual } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { ManualClock } from "../../src/clock.ts";
import { DEFAULT_RETRY_SCHEDULE } from "../../src/domain/webhooks/retry-schedule.ts";
import { foundationModule } from "../../src/modules/foundation.ts";
import { suppliersModule } from "../../src/modules/suppliers.ts";
import { createWebhooksModule } from "../../src/modules/webhooks.ts";
import { type HttpResult, startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { emitTestEvent } from "../helpers/factories.ts";
import { makePki, type Pki } from "../helpers/pki.ts";

// --- A test CA, a receiver, and a verifier written here (not the service's own) -----------------

interface Received {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  raw: Buffer;
  json: any;
}

interface Receiver {
  port: number;
  connections: number;
  requests: Received[];
  /** Answer for a path: status and body (default 204, empty). */
  respond: (path: string) => { status: number; body?: string; headers?: Record<string, string> };
  at(path: string): Received[];
  close(): Promise<void>;
}

async function startReceiver(pki: Pki): Promise<Receiver> {
  const server: Server = createServer({ key: pki.key, cert: pki.cert });
  const receiver: Receiver = {
    port: 0,
    connections: 0,
    requests: [],
    respond: () => ({ status: 204 }),
    at: (p) => receiver.requests.filter((r) => r.path === p),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on("connection", () => receiver.connections++);
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      const p = req.url ?? "";
      receiver.requests.push({
        method: req.method ?? "",
        path: p,
        headers: req.headers,
        raw,
        json: JSON.parse(raw.toString("utf8")),
      });
      const answer = receiver.respond(p);
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.port = (server.address() as AddressInfo).port;
  return receiver;
}

/** What a receiver is told to do: HMAC-SHA256 over `<timestamp>.<raw body>`, 300 s tolerance. */
function verify(
  secret: string,
  headers: IncomingMessage["headers"],
  raw: Buffer,
  nowSeconds: number,
): boolean {
  const timestamp = headers["x-service-timestamp"];
  const signature = headers["x-service-signature"];
  if (typeof timestamp !== "string" || !/^\d+$/.test(timestamp) || typeof signature !== "string")
    return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > 300) return false;
  const expected = `sha256=${createHmac("sha256", secret)
    .update(Buffer.concat([Buffer.from(`${timestamp}.`), raw]))
    .digest("hex")}`;
  return (
    expected.length === signature.length && timingSafeEqual(Buffer.from(expected), Buffer.from(signature))
  );
}

function flipOneByte(raw: Buffer, index: number): Buffer {
  const copy = Buffer.from(raw);
  copy[index] = copy[index] ^ 0x01;
  return copy;
}

// --- Deliveries to a loopback receiver (WEBHOOK_ALLOW_PRIVATE=true) ------------------------------

describe("webhook delivery", () => {
  let pki: Pki;
  let receiver: Receiver;
  let t: TestApp;
  let outbox: string;
  const clock = new ManualClock("2030-03-01T00:00:00.000Z");
  const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);

  before(async () => {
    pki = makePki({ subjectAltNames: ["DNS:hooks.test", "DNS:rebind.test", "IP:127.0.0.1"] });
    receiver = await startReceiver(pki);
    outbox = mkdtempSync(path.join(tmpdir(), "stockroom-webhook-outbox-"));
    t = await startTestApp({
      clock,
      env: { OUTBOX_DIR: outbox },
      modules: [
        foundationModule,
        suppliersModule,
        createWebhooksModule({
          ca: pki.ca,
          resolve: async (host) => (host === "hooks.test" ? ["127.0.0.1"] : []),
        }),
      ],
    });
  });
  after(async () => {
    await t.close();
    await receiver.close();
    rmSync(outbox, { recursive: true, force: true });
    pki.dispose();
  });

  const url = (p: string) => `https://hooks.test:${receiver.port}${p}`;

  async function hook(s: TestStore, p: string, events: string[]) {
    const res = await s.api.post("/v2/webhooks", { url: url(p), events });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data as { id: number; secret: string };
  }

  async function deliveries(s: TestStore, webhookId: number, query = "") {
    const res = await s.api.get(`/v2/webhooks/${webhookId}/deliveries${query}`);
    assert.equal(res.status, 200);
    return res.body.data as Array<Record<string, any>>;
  }

  // Four endpoints (two subscribed, one to another event, one paused) and two events, delivered once.
  describe("each subscribed endpoint gets the event with every header and a signature a verifier accepts", () => {
    let s: TestStore;
    let domain: string;
    let a: { id: number; secret: string };
    let b: { id: number; secret: string };
    let d: { id: number; secret: string };
    const supplier = { id: 7, name: "Acme", tags: ["bolts"], email: null };
    const order = { id: 3, number: "PO-0003", status: "partial" };
    const receipt = { id: 11, purchase_order_id: 3 };
    let created: { id: string; occurredAt: Date };
    let recorded: { id: string; occurredAt: Date };

    before(async () => {
      s = await t.createStore();
      domain = (await t.admin.get(`/admin/stores/${s.id}`)).body.data.domain;
      a = await hook(s, "/a", ["supplier.created"]);
      b = await hook(s, "/b", ["*"]);
      await hook(s, "/c", ["purchase_order.created"]);
      d = await hook(s, "/d", ["*"]);
      await s.api.patch(`/v2/webhooks/${d.id}`, { status: "paused" });
      created = await emitTestEvent(t, s.id, "supplier.created", 7, supplier);
      recorded = await emitTestEvent(t, s.id, "purchase_order.receipt_recorded", 3, order, { receipt });
      await t.drain();
    });

    test("only the subscribed, active endpoints get it; a paused one's events are still recorded", async () => {
      assert.equal(receiver.at("/a").length, 1);
      assert.equal(receiver.at("/b").length, 2);
      assert.equal(receiver.at("/c").length, 0, "not subscribed");
      assert.equal(receiver.at("/d").length, 0, "paused endpoints get nothing");
      assert.deepEqual(await deliveries(s, d.id), []);
      const stored = await t.runtime.ctx.db
        .selectFrom("events")
        .select("id")
        .where("store_id", "=", s.id)
        .execute();
      assert.equal(stored.length, 2);
    });

    test("the body: id, event, api_version, occurred_at, shop and data, in that order", () => {
      const [toA] = receiver.at("/a");
      assert.equal(toA.method, "POST");
      assert.deepEqual(Object.keys(toA.json), ["id", "event", "api_version", "occurred_at", "shop", "data"]);
      assert.deepEqual(toA.json, {
        id: created.id,
        event: "supplier.created",
        api_version: 2,
        occurred_at: created.occurredAt.toISOString(),
        shop: { id: s.id, domain },
        data: supplier,
      });
    });

    test("every header, the delivery id the log's", async () => {
      const [toA] = receiver.at("/a");
      const [rowA] = await deliveries(s, a.id);
      assert.equal(toA.headers["content-type"], "application/json");
      assert.equal(toA.headers["user-agent"], "Stockroom-Webhooks/2");
      assert.equal(toA.headers["x-service-event"], "supplier.created");
      assert.equal(toA.headers["x-service-event-id"], created.id);
      assert.equal(toA.headers["x-service-delivery-id"], String(rowA.id));
      assert.equal(toA.headers["x-service-webhook-id"], String(a.id));
      assert.equal(toA.headers["x-service-timestamp"], String(nowSeconds()));
      assert.match(String(toA.headers["x-service-signature"]), /^sha256=[0-9a-f]{64}$/);
    });

    test("the signature verifies, and fails for a flipped byte, another secret, a shifted or stale timestamp", () => {
      const [toA] = receiver.at("/a");
      assert.equal(verify(a.secret, toA.headers, toA.raw, nowSeconds()), true);
      for (const index of [0, Math.floor(toA.raw.length / 2), toA.raw.length - 1]) {
        assert.equal(verify(a.secret, toA.headers, flipOneByte(toA.raw, index), nowSeconds()), false);
      }
      assert.equal(verify(b.secret, toA.headers, toA.raw, nowSeconds()), false, "another endpoint's secret");
      const shifted = { ...toA.headers, "x-service-timestamp": String(nowSeconds() - 1) };
      assert.equal(verify(a.secret, shifted, toA.raw, nowSeconds()), false, "timestamp is signed too");
      assert.equal(verify(a.secret, toA.headers, toA.raw, nowSeconds() + 301), false, "older than 300 s");
    });

    test("an event's extra part (the receipt) goes beside data", () => {
      const receiptToB = receiver.at("/b").find((r) => r.json.event === "purchase_order.receipt_recorded");
      assert.ok(receiptToB);
      assert.deepEqual(receiptToB.json, {
        id: recorded.id,
        event: "purchase_order.receipt_recorded",
        api_version: 2,
        occurred_at: recorded.occurredAt.toISOString(),
        shop: { id: s.id, domain },
        data: order,
        receipt,
      });
      assert.equal(verify(b.secret, receiptToB.headers, receiptToB.raw, nowSeconds()), true);
    });

    test("the delivery log row and the endpoint's last delivery", async () => {
      const [rowA] = await deliveries(s, a.id);
      assert.deepEqual(
        { ...rowA, id: 0 },
        {
          id: 0,
          webhook_id: a.id,
          event_id: created.id,
          event: "supplier.created",
          attempt: 1,
          status: "succeeded",
          status_code: 204,
          duration_ms: rowA.duration_ms,
          error: null,
          next_attempt_at: null,
          created_at: clock.now().toISOString(),
        },
      );
      const afterA = (await s.api.get(`/v2/webhooks/${a.id}`)).body.data;
      assert.equal(afterA.last_delivered_at, clock.now().toISOString());
      assert.equal(afterA.consecutive_failures, 0);
    });
  });

  test("a 2xx with a body, a redirect and a 5xx are failures; redirects are not followed", async () => {
    const s = await t.createStore();
    receiver.respond = (p) =>
      p === "/body"
        ? { status: 200, body: "ok" }
        : p === "/redirect"
          ? { status: 302, headers: { location: url("/a") } }
          : p === "/error"
            ? { status: 503 }
            : { status: 204 };
    const hooks = [
      await hook(s, "/body", ["supplier.created"]),
      await hook(s, "/redirect", ["supplier.created"]),
      await hook(s, "/error", ["supplier.created"]),
    ];
    const before = receiver.at("/a").length;
    await emitTestEvent(t, s.id, "supplier.created", 1, { id: 1 });
    await t.drain();
    const rows = await Promise.all(hooks.map(async (h) => (await deliveries(s, h.id))[0]));
    assert.deepEqual(
      rows.map((r) => [r.status, r.status_code]),
      [
        ["failed", 200],
        ["failed", 302],
        ["failed", 503],
      ],
    );
    assert.match(rows[0].error, /body must be empty/);
    assert.match(rows[1].error, /redirect not followed/);
    assert.equal(rows[2].error, "HTTP 503");
    for (const r of rows)
      assert.equal(r.next_attempt_at, new Date(clock.now().getTime() + 60_000).toISOString());
    assert.equal(receiver.at("/a").length, before, "the redirect was not followed");
    receiver.respond = () => ({ status: 204 });
    for (const h of hooks) await s.api.delete(`/v2/webhooks/${h.id}`);
    clock.advance(60_000);
    await t.drain(); // their retries find the endpoints gone and do nothing
    assert.equal(receiver.at("/body").length, 1);
  });

  // One endpoint failing every attempt until it is disabled, set up once; then what each step left.
  describe("retries at 1m, 5m, 30m, 2h, 12h, 1d, 1d, 1d, then disabled with one email to the owner", () => {
    const p = "/failing-endpoint";
    let s: TestStore;
    let h: { id: number; secret: string };
    let event: { id: string };
    let firstAttempts: number;
    let firstBody: Buffer;
    /** For each retry: attempts seen a second before it was due, then at its time, and the last request. */
    let retries: { early: number; onTime: number; last: any; at: number }[];
    let disabledAt: string;

    before(async () => {
      s = await t.createStore();
      receiver.respond = (path) => (path === p ? { status: 500 } : { status: 204 });
      h = await hook(s, p, ["supplier.created"]);
      event = await emitTestEvent(t, s.id, "supplier.created", 9, { id: 9, name: "Retry Ltd" });
      await t.drain();
      firstAttempts = receiver.at(p).length;
      firstBody = receiver.at(p)[0]?.raw;
      retries = [];
      for (const delay of DEFAULT_RETRY_SCHEDULE) {
        clock.advance(delay - 1000);
        await t.drain();
        const early = receiver.at(p).length;
        clock.advance(1000);
        await t.drain();
        const got = receiver.at(p);
        retries.push({ early, onTime: got.length, last: got[got.length - 1], at: nowSeconds() });
      }
      disabledAt = clock.now().toISOString();
      await t.drain(); // the email job
      await t.drain();
    });

    test("each retry comes at its time, not earlier: the same body signed afresh", () => {
      assert.equal(firstAttempts, 1);
      for (const [i, { early, onTime, last, at }] of retries.entries()) {
        const delay = DEFAULT_RETRY_SCHEDULE[i];
        assert.equal(early, i + 1, `attempt ${i + 2} must not come early`);
        assert.equal(onTime, i + 2, `attempt ${i + 2} after ${delay} ms`);
        // The same body, signed afresh with the time of this attempt.
        assert.deepEqual(last.raw, firstBody);
        assert.equal(last.headers["x-service-timestamp"], String(at));
        assert.equal(verify(h.secret, last.headers, last.raw, at), true);
        assert.equal(last.headers["x-service-event-id"], event.id);
      }
    });

    test("the delivery log has every attempt, failed with its status and its next attempt's time", async () => {
      const rows = await deliveries(s, h.id);
      assert.deepEqual(
        rows.map((r) => r.attempt),
        [9, 8, 7, 6, 5, 4, 3, 2, 1],
      );
      const oldestFirst = [...rows].reverse();
      for (const [i, row] of oldestFirst.entries()) {
        assert.equal(row.status, "failed");
        assert.equal(row.status_code, 500);
        const delay = DEFAULT_RETRY_SCHEDULE[i];
        assert.equal(
          row.next_attempt_at,
          delay === undefined ? null : new Date(Date.parse(row.created_at) + delay).toISOString(),
        );
      }
    });

    test("the endpoint is disabled after the last, with the reason and its failure count", async () => {
      const webhook = (await s.api.get(`/v2/webhooks/${h.id}`)).body.data;
      assert.equal(webhook.status, "disabled");
      assert.equal(webhook.disabled_at, disabledAt);
      assert.match(webhook.disabled_reason, /retry schedule/);
      assert.equal(webhook.consecutive_failures, 9);
      assert.equal(webhook.last_failed_at, disabledAt);
    });

    test("the owner gets exactly one email", () => {
      const emails = readdirSync(outbox)
        .filter((f) => f.endsWith(".eml"))
        .map((f) => readFileSync(path.join(outbox, f), "utf8"))
        .filter((m) => m.includes(p));
      assert.equal(emails.length, 1, "exactly one email");
      assert.match(emails[0], /^To: owner@example\.com/m);
      assert.match(emails[0], /^Subject: Webhook endpoint disabled/m);
    });

    test("disabled: new events are not delivered; test and redeliver are refused", async () => {
      await emitTestEvent(t, s.id, "supplier.created", 10, { id: 10 });
      await t.drain();
      assert.equal(receiver.at(p).length, 9);
      const refused = await s.api.post(`/v2/webhooks/${h.id}/test`);
      assert.equal(refused.status, 422);
      assert.equal(refused.body.error.code, "webhook_not_active");
      const refused2 = await s.api.post(`/v2/webhooks/${h.id}/redeliver`, { event_id: event.id });
      assert.equal(refused2.body.error.code, "webhook_not_active");
    });

    test("re-enabled: a fresh start", async () => {
      receiver.respond = () => ({ status: 204 });
      const enabled = await s.api.patch(`/v2/webhooks/${h.id}`, { status: "active" });
      assert.equal(enabled.body.data.status, "active");
      assert.equal(enabled.body.data.consecutive_failures, 0);
      assert.equal(enabled.body.data.disabled_at, null);
      await emitTestEvent(t, s.id, "supplier.created", 11, { id: 11 });
      await t.drain();
      assert.equal(receiver.at(p).length, 10);
      assert.equal(
        (await s.api.get(`/v2/webhooks/${h.id}`)).body.data.last_delivered_at,
        clock.now().toISOString(),
      );
    });
  });

  test("three quick updates of one record fold into one delivery with the latest state", async () => {
    const s = await t.createStore();
    const p = "/fold";
    await hook(s, p, ["supplier.updated", "supplier.archived"]);
    await emitTestEvent(t, s.id, "supplier.updated", 7, { id: 7, name: "v1" });
    clock.advance(1000);
    await t.drain();
    await emitTestEvent(t, s.id, "supplier.updated", 7, { id: 7, name: "v2" });
    await emitTestEvent(t, s.id, "supplier.updated", 8, { id: 8, name: "other record" });
    clock.advance(1000);
    const latest = await emitTestEvent(t, s.id, "supplier.updated", 7, { id: 7, name: "v3" });
    await t.drain();
    clock.advance(2999);
    await t.drain();
    assert.equal(receiver.at(p).length, 0, "nothing before the window closes");
    clock.advance(1);
    await t.drain();
    const forSeven = receiver.at(p).filter((r) => r.json.data.id === 7);
    assert.equal(forSeven.length, 1);
    assert.equal(forSeven[0].json.id, latest.id);
    assert.deepEqual(forSeven[0].json.data, { id: 7, name: "v3" });
    // Record 8's window opened a second later; it closes a second later.
    assert.equal(receiver.at(p).length, 1);
    clock.advance(1000);
    await t.drain();
    assert.equal(receiver.at(p).filter((r) => r.json.data.id === 8).length, 1);

    // Lifecycle events never fold.
    await emitTestEvent(t, s.id, "supplier.archived", 7, { id: 7, archived: true });
    await emitTestEvent(t, s.id, "supplier.archived", 7, { id: 7, archived: true });
    await t.drain();
    assert.equal(receiver.at(p).filter((r) => r.json.event === "supplier.archived").length, 2);

    // A record changing all the time is still delivered every five seconds, not postponed forever.
    const start = receiver.at(p).length;
    for (let i = 0; i < 6; i++) {
      await emitTestEvent(t, s.id, "supplier.updated", 9, { id: 9, name: `n${i}` });
      clock.advance(2000);
      await t.drain();
    }
    const nine = receiver.at(p).slice(start);
    assert.deepEqual(
      nine.map((r) => r.json.data.name),
      ["n2", "n5"],
    );
  });

  test("supplier API: created is delivered at once; three quick PATCHes become one delivery equal to GET", async () => {
    const s = await t.createStore();
    const p = "/suppliers";
    const h = await hook(s, p, ["supplier.created", "supplier.updated"]);
    const created = await s.api.post("/v2/suppliers", { name: "Fold & Sons", currency: "USD" });
    assert.equal(created.status, 201);
    const id = created.body.data.id;
    await t.drain();
    assert.equal(receiver.at(p).length, 1);
    assert.equal(receiver.at(p)[0].json.event, "supplier.created");
    assert.deepEqual(receiver.at(p)[0].json.data, created.body.data);

    for (const name of ["Fold & Sons 2", "Fold & Sons 3", "Fold & Sons 4"]) {
      const res = await s.api.patch(`/v2/suppliers/${id}`, { name });
      assert.equal(res.status, 200);
      clock.advance(1000);
      await t.drain();
    }
    assert.equal(receiver.at(p).length, 1, "still folding");
    clock.advance(2000);
    await t.drain();
    const updates = receiver.at(p).filter((r) => r.json.event === "supplier.updated");
    assert.equal(updates.length, 1);
    const current = await s.api.get(`/v2/suppliers/${id}`);
    assert.deepEqual(updates[0].json.data, current.body.data);
    assert.equal(updates[0].json.data.name, "Fold & Sons 4");
    assert.equal(verify(h.secret, updates[0].headers, updates[0].raw, nowSeconds()), true);
  });

  describe("redeliver by delivery id, by event id and by since", () => {
    const p = "/redeliver";
    let s: TestStore;
    let h: { id: number; secret: string };
    let early: Awaited<ReturnType<typeof emitTestEvent>>;
    let e1: Awaited<ReturnType<typeof emitTestEvent>>;
    let e2: Awaited<ReturnType<typeof emitTestEvent>>;
    let tested: HttpResult;
    before(async () => {
      s = await t.createStore();
      h = await hook(s, p, ["supplier.created", "supplier.archived"]);
      early = await emitTestEvent(t, s.id, "supplier.created", 1, { id: 1 });
      clock.advance(60_000);
      e1 = await emitTestEvent(t, s.id, "supplier.created", 2, { id: 2 });
      clock.advance(1000);
      e2 = await emitTestEvent(t, s.id, "supplier.archived", 2, { id: 2, archived: true });
      await t.drain();
      tested = await s.api.post(`/v2/webhooks/${h.id}/test`);
      await t.drain();
    });

    test("the three events and a signed webhook.test delivery arrive first", () => {
      assert.equal(tested.status, 202);
      assert.equal(receiver.at(p).length, 4);
      const testDelivery = receiver.at(p)[3];
      assert.equal(testDelivery.json.event, "webhook.test");
      assert.equal(testDelivery.headers["x-service-event"], "webhook.test");
      assert.equal(testDelivery.json.data.id, h.id);
      assert.equal(verify(h.secret, testDelivery.headers, testDelivery.raw, nowSeconds()), true);
    });

    test("by delivery id: the same body under a new delivery id, signed afresh, logged as attempt 2", async () => {
      const originalE1 = receiver.at(p).find((r) => r.json.id === e1.id);
      assert.ok(originalE1);
      const [rowE1] = await deliveries(s, h.id, `?event_id=${e1.id}`);
      clock.advance(1000);
      const byId = await s.api.post(`/v2/webhooks/${h.id}/deliveries/${rowE1.id}/redeliver`);
      assert.deepEqual(byId.body, { data: { queued: 1, event_ids: [e1.id] } });
      await t.drain();
      const resent = receiver.at(p)[4];
      assert.equal(resent.json.id, e1.id);
      assert.deepEqual(resent.raw, originalE1.raw, "the same body");
      assert.notEqual(resent.headers["x-service-delivery-id"], originalE1.headers["x-service-delivery-id"]);
      assert.equal(verify(h.secret, resent.headers, resent.raw, nowSeconds()), true);
      assert.deepEqual(
        (await deliveries(s, h.id, `?event_id=${e1.id}`)).map((r) => [r.attempt, r.status]),
        [
          [2, "succeeded"],
          [1, "succeeded"],
        ],
      );
    });

    test("by event id", async () => {
      const byEvent = await s.api.post(`/v2/webhooks/${h.id}/redeliver`, { event_id: e2.id });
      assert.deepEqual(byEvent.body, { data: { queued: 1, event_ids: [e2.id] } });
      await t.drain();
      assert.equal(receiver.at(p)[5].json.id, e2.id);
    });

    // since: the subscribed events from that moment, newest first, each a fresh attempt 1; never the
    // webhook.test event, never the earlier event.
    test("by since: the subscribed events from then, newest first, each a fresh attempt 1", async () => {
      const since = await s.api.post(`/v2/webhooks/${h.id}/redeliver`, {
        since: e1.occurredAt.toISOString(),
      });
      assert.equal(since.status, 202);
      assert.deepEqual(since.body, { data: { queued: 2, event_ids: [e2.id, e1.id] } });
      await t.drain();
      assert.deepEqual(
        receiver
          .at(p)
          .slice(6)
          .map((r) => r.json.id)
          .sort(),
        [e1.id, e2.id].sort(),
      );
      const latestRows = (await deliveries(s, h.id, "?limit=2")).map((r) => [r.event_id, r.attempt]);
      assert.deepEqual(latestRows.map((r) => r[1]).sort(), [1, 1]);
      assert.ok(
        !receiver
          .at(p)
          .slice(6)
          .some((r) => r.json.id === early.id),
      );
    });

    test("since long ago takes every subscribed event, never webhook.test", async () => {
      const all = await s.api.post(`/v2/webhooks/${h.id}/redeliver`, { since: "2000-01-01T00:00:00Z" });
      assert.deepEqual(all.body.data.event_ids, [e2.id, e1.id, early.id]);
      await t.drain();
    });
  });

  test("since resends at most the newest 500 events", async () => {
    const s = await t.createStore();
    const p = "/catch-up";
    const h = await hook(s, p, ["*"]);
    // 600 past events written straight into the outbox table (no fan-out), one second apart.
    const base = clock.now().getTime() - 600_000;
    await sql`
      insert into events (id, store_id, name, subject_type, subject_id, data, occurred_at)
      select 'evt_catchup_' || g, ${s.id}, 'supplier.updated', 'supplier', g, jsonb_build_object('id', g),
        ${new Date(base)}::timestamptz + make_interval(secs => g)
      from generate_series(1, 600) g`.execute(t.runtime.ctx.db);
    const res = await s.api.post(`/v2/webhooks/${h.id}/redeliver`, { since: new Date(base).toISOString() });
    assert.equal(res.status, 202);
    assert.equal(res.body.data.queued, 500);
    assert.equal(res.body.data.event_ids.length, 500);
    assert.equal(res.body.data.event_ids[0], "evt_catchup_600");
    assert.equal(res.body.data.event_ids[499], "evt_catchup_101");
    await t.drain();
    assert.equal(receiver.at(p).length, 500);
    assert.equal(new Set(receiver.at(p).map((r) => r.json.id)).size, 500);
  });

  test("a worker killed mid-delivery loses no event: the job comes back when its lease runs out", async () => {
    const s = await t.createStore();
    const p = "/killed";
    await hook(s, p, ["supplier.created"]);
    const event = await emitTestEvent(t, s.id, "supplier.created", 1, { id: 1 });
    const ctx = t.runtime.ctx;
    const claimed = await ctx.jobs.claim(ctx.db, "worker-that-dies", 10, ["webhooks.fanout"]);
    assert.equal(claimed.length, 1);
    // ...and the worker dies here, holding the lease.
    await t.drain();
    assert.equal(receiver.at(p).length, 0);
    clock.advance(30_001);
    await t.drain();
    assert.equal(receiver.at(p).length, 1);
    assert.equal(receiver.at(p)[0].json.id, event.id);
  });

  /** A store past 1,000 events in the last hour (none of them subscribed to), so it is on the slow lane. */
  async function busyStore() {
    const busy = await t.createStore();
    await sql`
      insert into events (id, store_id, name, subject_type, subject_id, data, occurred_at)
      select 'evt_busy_' || ${busy.id} || '_' || g, ${busy.id}, 'item.low_stock', 'item', g, '{}'::jsonb, ${clock.now()}
      from generate_series(1, 1000) g`.execute(t.runtime.ctx.db);
    return busy;
  }

  describe("over 1,000 events an hour a store's deliveries take the slow lane; nothing is dropped", () => {
    const p = "/busy";
    const failing = "/busy-failing";
    const db = () => t.runtime.ctx.db;
    let busy: TestStore;
    let bad: { id: number };
    let emitted: string[];

    before(async () => {
      receiver.respond = (path) => (path === failing ? { status: 500 } : { status: 204 });
      busy = await busyStore();
      const quiet = await t.createStore();
      await hook(busy, p, ["supplier.created"]);
      bad = await hook(busy, failing, ["supplier.created"]);
      await hook(quiet, "/quiet", ["supplier.created"]);
      emitted = [];
      for (let i = 0; i < 150; i++)
        emitted.push((await emitTestEvent(t, busy.id, "supplier.created", i, { id: i })).id);
      await emitTestEvent(t, quiet.id, "supplier.created", 1, { id: 1 });
    });

    test("the busy store's events wait in its lane behind one lane job, not one job each", async () => {
      const waiting = await db()
        .selectFrom("webhook_lane_items")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("store_id", "=", busy.id)
        .executeTakeFirstOrThrow();
      assert.equal(Number(waiting.n), 150);
      const laneJobs = await db()
        .selectFrom("jobs")
        .select(["type", "state"])
        .where("store_id", "=", busy.id)
        .where("state", "=", "queued")
        .execute();
      assert.deepEqual(
        laneJobs,
        [{ type: "webhooks.lane", state: "queued" }],
        "one lane job, no per-event jobs",
      );
    });

    test("the lane delivers every event, the quiet store's too; failures wait in the lane for their retry", async () => {
      await t.drain();
      assert.equal(receiver.at("/quiet").length, 1);
      assert.deepEqual(
        receiver
          .at(p)
          .map((r) => r.json.id)
          .sort(),
        [...emitted].sort(),
      );
      assert.equal(receiver.at(failing).length, 150);
      // The failed attempts wait in the lane for their retry a minute later.
      const retries = await db()
        .selectFrom("webhook_lane_items")
        .select(["webhook_id", "attempt"])
        .where("store_id", "=", busy.id)
        .execute();
      assert.equal(retries.length, 150);
      assert.ok(retries.every((r) => r.webhook_id === bad.id && r.attempt === 2));
      clock.advance(60_000);
      await t.drain();
      assert.equal(receiver.at(failing).length, 300);
      const log = await deliveries(busy, bad.id, "?limit=1");
      assert.equal(log[0].attempt, 2);
      await busy.api.delete(`/v2/webhooks/${bad.id}`);
      receiver.respond = () => ({ status: 204 });
      clock.advance(10 * 60_000);
      await t.drain();
      const left = await db()
        .selectFrom("webhook_lane_items")
        .select("id")
        .where("store_id", "=", busy.id)
        .execute();
      assert.deepEqual(left, []);
    });
  });

  test("a lane worker that dies mid-batch: its rows come back after the lease and are delivered; a later event waits", async () => {
    const p = "/busy-lost";
    receiver.respond = () => ({ status: 204 });
    const busy = await busyStore();
    await hook(busy, p, ["supplier.created"]);
    const db = t.runtime.ctx.db;
    const lost = await emitTestEvent(t, busy.id, "supplier.created", 999, { id: 999 });
    const ctx = t.runtime.ctx;
    assert.equal((await ctx.jobs.claim(ctx.db, "lane-worker-that-dies", 10, ["webhooks.lane"])).length, 1);
    await db
      .updateTable("webhook_lane_items")
      .set({ locked_by: "lane-worker-that-dies", locked_until: new Date(clock.now().getTime() + 5 * 60_000) })
      .where("store_id", "=", busy.id)
      .execute();
    await t.drain();
    assert.ok(!receiver.at(p).some((r) => r.json.id === lost.id));
    // Meanwhile another event arrives: its lane job finds the lane busy and waits for the lease to
    // end instead of spinning.
    const later = await emitTestEvent(t, busy.id, "supplier.created", 1000, { id: 1000 });
    assert.equal(await t.drain(), 1);
    clock.advance(5 * 60_000 + 1);
    await t.drain();
    assert.equal(receiver.at(p).filter((r) => r.json.id === lost.id).length, 1);
    assert.equal(receiver.at(p).filter((r) => r.json.id === later.id).length, 1);
  });

  test("events and delivery logs older than 30 days are purged", async () => {
    const s = await t.createStore();
    const h = await hook(s, "/retention", ["supplier.created"]);
    const old = await emitTestEvent(t, s.id, "supplier.created", 1, { id: 1 });
    await t.drain();
    clock.advance(30 * 24 * 3600 * 1000 + 1000);
    const fresh = await emitTestEvent(t, s.id, "supplier.created", 2, { id: 2 });
    await t.drain();
    await t.runtime.worker.runPeriodic("webhooks.retention");
    const rows = await deliveries(s, h.id);
    assert.deepEqual(
      rows.map((r) => r.event_id),
      [fresh.id],
    );
    const events = await t.runtime.ctx.db
      .selectFrom("events")
      .select("id")
      .where("store_id", "=", s.id)
      .execute();
    assert.deepEqual(
      events.map((e) => e.id),
      [fresh.id],
    );
    assert.notEqual(old.id, fresh.id);
    const cutoff = new Date(clock.now().getTime() - 30 * 24 * 3600 * 1000);
    const stale = await t.runtime.ctx.db
      .selectFrom("events")
      .select("id")
      .where("occurred_at", "<", cutoff)
      .execute();
    assert.deepEqual(stale, []);
  });
});

// --- The address guard with WEBHOOK_ALLOW_PRIVATE=false ------------------------------------------

describe("webhook address guard (WEBHOOK_ALLOW_PRIVATE=false)", () => {
  let pki: Pki;
  let receiver: Receiver;
  let t: TestApp;
  let store: TestStore;
  const answers: Record<string, string[]> = {
    "loopback.test": ["127.0.0.1"],
    "mixed.test": ["93.184.216.34", "10.0.0.1"],
    "rebind.test": ["93.184.216.34"],
    "api.stockroom.test": ["93.184.216.34"],
  };

  before(async () => {
    pki = makePki({ subjectAltNames: ["DNS:hooks.test", "DNS:rebind.test", "IP:127.0.0.1"] });
    receiver = await startReceiver(pki);
    t = await startTestApp({
      env: { WEBHOOK_ALLOW_PRIVATE: "false", PUBLIC_HOSTNAMES: "api.stockroom.test" },
      modules: [
        foundationModule,
        suppliersModule,
        createWebhooksModule({ ca: pki.ca, resolve: async (h) => answers[h] ?? [] }),
      ],
    });
    store = await t.createStore();
  });
  after(async () => {
    await t.close();
    await receiver.close();
    pki.dispose();
  });

  test("refused at creation: private, loopback, link-local, mapped and NAT64 forms, http, names", async () => {
    const refused = [
      "https://127.0.0.1/hook",
      "https://10.0.0.1/hook",
      "https://169.254.169.254/latest/meta-data",
      "https://[::1]/hook",
      "https://[::ffff:127.0.0.1]/hook",
      "https://[64:ff9b::a9fe:a9fe]/hook",
      "https://0x7f000001/hook",
      "https://2130706433/hook",
      "https://127.1/hook",
      "https://100.64.0.1/hook",
      "https://224.0.0.1/hook",
      "https://[fe80::1]/hook",
      "https://[2002:7f00:1::]/hook",
      "https://localhost/hook",
      "https://loopback.test/hook",
      "https://mixed.test/hook",
      "https://api.stockroom.test/hook",
      "https://unknown-name.test/hook",
      "http://rebind.test/hook",
      "http://93.184.216.34/hook",
      "https://user:pass@rebind.test/hook",
      "not a url",
    ];
    for (const url of refused) {
      const res = await store.api.post("/v2/webhooks", { url, events: ["*"] });
      assert.equal(res.status, 422, url);
      assert.equal(res.body.error.code, "validation_failed", url);
      assert.equal(res.body.error.details.length, 1, url);
      assert.equal(res.body.error.details[0].field, "url", url);
      assert.equal(res.body.error.details[0].code, "invalid_url", url);
    }
    assert.deepEqual((await store.api.get("/v2/webhooks")).body, { data: [] });
    // A PATCH to such a URL is refused the same way.
    const ok = await store.api.post("/v2/webhooks", { url: "https://rebind.test/hook", events: ["*"] });
    assert.equal(ok.status, 201);
    const patched = await store.api.patch(`/v2/webhooks/${ok.body.data.id}`, { url: "https://[::1]/" });
    assert.equal(patched.status, 422);
    assert.equal(patched.body.error.details[0].field, "url");
    assert.equal(
      (await store.api.get(`/v2/webhooks/${ok.body.data.id}`)).body.data.url,
      "https://rebind.test/hook",
    );
    await store.api.delete(`/v2/webhooks/${ok.body.data.id}`);
  });

  test("a name that resolved publicly at creation and to loopback later is not delivered to", async () => {
    const created = await store.api.post("/v2/webhooks", {
      url: `https://rebind.test:${receiver.port}/hook`,
      events: ["supplier.created"],
    });
    assert.equal(created.status, 201);
    answers["rebind.test"] = ["127.0.0.1"];
    await emitTestEvent(t, store.id, "supplier.created", 1, { id: 1 });
    await t.drain();
    assert.equal(receiver.connections, 0, "no connection was even opened");
    const log = await store.api.get(`/v2/webhooks/${created.body.data.id}/deliveries`);
    assert.equal(log.body.data.length, 1);
    assert.equal(log.body.data[0].status, "failed");
    assert.equal(log.body.data[0].status_code, null);
    assert.match(
      log.body.data[0].error,
      /address not allowed: rebind\.test resolves to 127\.0\.0\.1.*loopback/,
    );
    assert.notEqual(log.body.data[0].next_attempt_at, null, "retried later like any failure");
  });
});
