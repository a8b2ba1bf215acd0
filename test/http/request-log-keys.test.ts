/**
 * The request log's flush stamps its keys' `last_used_at` in one statement however many keys it names
 * (recordKeysUsed), beside the one insert of the log rows: counted at the driver. Each key gets the
 * time of its own last request, and a flush that lands late (an older time) never sets one back.
 */
import "../helpers/statements.ts";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { recordKeysUsed } from "../../src/domain/stores/index.ts";
import { RequestLogWriter } from "../../src/http/plugins/request-log.ts";
import { type Client, startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import { countStatements } from "../helpers/statements.ts";

describe("request log: the keys' last use", () => {
  let t: TestApp;
  let store: TestStore;
  let clients: Client[];

  const keysById = async () => {
    const res = await t.admin.get(`/admin/stores/${store.id}/keys`);
    expectStatus(res, 200);
    return new Map<number, string | null>(
      res.body.data.map((k: { id: number; last_used_at: string | null }) => [k.id, k.last_used_at]),
    );
  };

  before(async () => {
    t = await startTestApp();
    store = await t.createStore();
    clients = [store.api];
    for (let i = 0; i < 5; i++) clients.push(await store.keyWithScopes(["read"]));
    await t.runtime.ctx.requestLog.flush();
  });
  after(() => t.close());

  test("a flush naming six keys runs two statements: the rows' insert and one update of the keys", async () => {
    const ids: number[] = [];
    for (const client of clients) {
      const whoami = await client.get("/v2/whoami");
      expectStatus(whoami, 200);
      ids.push(whoami.body.key.id);
    }
    assert.equal(new Set(ids).size, 6);
    // A writer of its own, whose flush comes only when asked (the app's flushes on a timer), with
    // times after any the app's writer holds: only forward moves count, so those cannot interfere.
    const writer = new RequestLogWriter(t.runtime.ctx.db, t.clock, 3_600_000);
    const start = t.clock.now().getTime() + 3_600_000;
    const times = ids.map((_, i) => new Date(start + i * 1_000));
    ids.forEach((id, i) => {
      writer.record({
        store_id: store.id,
        key_id: id,
        method: "GET",
        path: "/v2/whoami",
        status: 200,
        duration_ms: 1,
        idempotency_key: null,
        request_id: `keys-${i}`,
        created_at: times[i],
      });
    });
    // The app's writer flushed first: its own flush of these requests must not fall in the count.
    await t.runtime.ctx.requestLog.flush();
    const { statements } = await countStatements(() => writer.flush());
    await writer.close();
    assert.equal(statements.length, 2, statements.join("\n"));
    assert.match(statements[0], /^insert into request_log/);
    assert.match(statements[1], /^update api_keys/);
    // Every key has the time of its own request.
    const used = await keysById();
    assert.deepEqual(
      ids.map((id) => used.get(id)),
      times.map((at) => at.toISOString()),
    );
  });

  test("a late flush with an older time leaves a key's last use where it was", async () => {
    await t.runtime.ctx.requestLog.flush();
    const before = await keysById();
    const [id, at] = [...before].find(([, time]) => time !== null) as [number, string];
    await recordKeysUsed(t.runtime.ctx.db, new Map([[id, new Date(Date.parse(at) - 60_000)]]));
    assert.equal((await keysById()).get(id), at);
    // A later time moves it on.
    const later = new Date(Date.parse(at) + 60_000);
    await recordKeysUsed(t.runtime.ctx.db, new Map([[id, later]]));
    assert.equal((await keysById()).get(id), later.toISOString());
  });

  test("no key used: the flush touches no key", async () => {
    const writer = new RequestLogWriter(t.runtime.ctx.db, t.clock, 3_600_000);
    writer.record({
      store_id: store.id,
      key_id: null,
      method: "GET",
      path: "/v2/whoami",
      status: 401,
      duration_ms: 1,
      idempotency_key: null,
      request_id: "no-key",
      created_at: t.clock.now(),
    });
    await t.runtime.ctx.requestLog.flush();
    const { statements } = await countStatements(() => writer.close());
    assert.equal(statements.length, 1, statements.join("\n"));
    assert.match(statements[0], /^insert into request_log/);
  });

  /**
   * The app's database behind a server that fails statements while `down` is set (unreachable), each
   * once `refuse` is called: a row can be recorded while a failing flush is under way.
   */
  const unreachableServer = () => {
    let refusals: Array<() => void> = [];
    const state = {
      down: true,
      refuse() {
        for (const refusal of refusals) refusal();
        refusals = [];
      },
      db: new Proxy(t.runtime.ctx.db, {
        get(target, property, receiver) {
          if (property !== "getExecutor") return Reflect.get(target, property, receiver);
          return () =>
            new Proxy(target.getExecutor(), {
              get(executor, name, r) {
                const value = Reflect.get(executor, name, r);
                if (typeof value !== "function") return value;
                // The executor's own methods read its private fields: called on it, not on the proxy.
                if (name !== "executeQuery") return value.bind(executor);
                return (...args: unknown[]) =>
                  state.down
                    ? new Promise((_, reject) => refusals.push(() => reject(new Error("connection refused"))))
                    : value.apply(executor, args);
              },
            });
        },
      }),
    };
    return state;
  };

  test("rows a failed flush could not write are written by the next one, before the newer rows, as recorded", async () => {
    const server = unreachableServer();
    const writer = new RequestLogWriter(server.db, t.clock, 3_600_000);
    // Whole seconds less 11 ms before the clock, so the times cross a second's boundary.
    const start = Math.floor(t.clock.now().getTime() / 1000) * 1000 - 11;
    const at = (i: number) => new Date(start + i * 10).toISOString();
    const record = (i: number, status: number, idempotencyKey: string | null) =>
      writer.record({
        store_id: store.id,
        key_id: null,
        method: i % 2 ? "POST" : "GET",
        path: `/v2/kept-${i}`,
        status,
        duration_ms: i,
        idempotency_key: idempotencyKey,
        request_id: `kept-${i}`,
        created_at: new Date(start + i * 10),
      });
    record(0, 200, null);
    record(1, 201, "k-1");
    const failed = writer.flush();
    await new Promise((resolve) => setImmediate(resolve));
    record(2, 422, null);
    server.refuse();
    await failed;
    server.down = false;
    record(3, 204, "k-3");
    await writer.close();
    const log = (await t.admin.get(`/admin/stores/${store.id}/request_log?limit=250`)).body.data;
    const kept = log
      .filter((r: { request_id: string }) => r.request_id.startsWith("kept-"))
      .sort((a: { id: number }, b: { id: number }) => a.id - b.id)
      .map((r: Record<string, unknown>) => [
        r.request_id,
        r.method,
        r.path,
        r.status,
        r.duration_ms,
        r.idempotency_key,
        r.created_at,
      ]);
    // In the order written (ids): the kept rows first.
    assert.deepEqual(kept, [
      ["kept-0", "GET", "/v2/kept-0", 200, 0, null, at(0)],
      ["kept-1", "POST", "/v2/kept-1", 201, 1, "k-1", at(1)],
      ["kept-2", "GET", "/v2/kept-2", 422, 2, null, at(2)],
      ["kept-3", "POST", "/v2/kept-3", 204, 3, "k-3", at(3)],
    ]);
  });

  test("a failed flush keeps the newest 10,000 rows", async () => {
    const server = unreachableServer();
    const writer = new RequestLogWriter(server.db, t.clock, 3_600_000, 100_000);
    const at = t.clock.now();
    for (let i = 0; i < 10_003; i++)
      writer.record({
        store_id: store.id,
        key_id: null,
        method: "GET",
        path: "/v2/whoami",
        status: 200,
        duration_ms: 0,
        idempotency_key: null,
        request_id: `bound-${i}`,
        created_at: at,
      });
    const failed = writer.flush();
    await new Promise((resolve) => setImmediate(resolve));
    server.refuse();
    await failed;
    server.down = false;
    await writer.close();
    const { rows } = await sql<{ n: number; first: string }>`select count(*)::int as n,
        min(id) filter (where request_id = 'bound-3') = min(id) as first
      from request_log where store_id = ${store.id} and request_id like 'bound-%'`.execute(t.runtime.ctx.db);
    assert.deepEqual(rows, [{ n: 10_000, first: true }]);
  });
});
