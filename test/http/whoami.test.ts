import "../helpers/statements.ts";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { ManualClock } from "../../src/clock.ts";
import { CROSS_PROCESS_BOUND_MS } from "../../src/http/plugins/auth.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectError, expectStatus } from "../helpers/assertions.ts";
import { countStatements } from "../helpers/statements.ts";

describe("GET /v2/whoami", () => {
  let t: TestApp;
  let store: TestStore;
  before(async () => {
    t = await startTestApp();
    store = await t.createStore({ name: "Whoami Shop", currency: "EUR", timezone: "Europe/Berlin" });
  });
  after(() => t.close());

  test("returns the shop and key exactly as the contract shows, without a data wrapper", async () => {
    const res = await store.api.get("/v2/whoami");
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ["api_version", "key", "shop"]);
    assert.equal(res.body.api_version, "2");
    assert.equal(res.body.shop.id, store.id);
    assert.equal(res.body.shop.name, "Whoami Shop");
    assert.equal(res.body.shop.currency, "EUR");
    assert.equal(res.body.shop.timezone, "Europe/Berlin");
    assert.match(res.body.shop.domain, /\.shop\.test$/);
    assert.equal(res.body.key.prefix, store.key.slice(0, 12));
    assert.equal(res.body.key.expires_at, null);
    assert.ok(res.body.key.scopes.includes("webhooks"));
    assert.match(String(res.headers["x-request-id"]), /^req_/);
  });

  /**
   * The key and its store come back from the database as one JSON text (src/http/plugins/key-lookup.ts):
   * what it carries must reach the answer unchanged, whatever the names hold.
   */
  test("names with quotes, backslashes and other scripts, the scopes, the rate limits and an expiry to the millisecond come through the key lookup exactly", async () => {
    const name = 'Bolt "&" Nut \\ Co\u2028 — Ünïcode 🔩';
    const odd = await t.createStore({ name, timezone: "America/St_Johns" });
    const expiresAt = new Date(t.clock.now().getTime() + 86_400_123).toISOString();
    const created = await t.admin.post(`/admin/stores/${odd.id}/keys`, {
      name: `key "${name}"`,
      scopes: ["read", "write:suppliers"],
      expires_at: expiresAt,
    });
    expectStatus(created, 201);
    expectStatus(
      await t.admin.patch(`/admin/stores/${odd.id}`, {
        rate_limits: { per_key_per_minute: 777, per_store_per_minute: 888, writes_per_store_per_minute: 99 },
      }),
      200,
    );
    const res = await t.client(`Bearer ${created.body.data.key}`).get("/v2/whoami");
    expectStatus(res, 200);
    assert.deepEqual(res.body, {
      shop: {
        id: odd.id,
        domain: res.body.shop.domain,
        name,
        currency: "USD",
        timezone: "America/St_Johns",
      },
      key: {
        id: created.body.data.id,
        name: `key "${name}"`,
        prefix: created.body.data.key.slice(0, 12),
        scopes: ["read", "write:suppliers"],
        expires_at: expiresAt,
      },
      api_version: "2",
    });
    assert.equal(res.headers["ratelimit-limit"], "777");
  });

  test("a key expiring at a millisecond works until that millisecond and is refused from it", async () => {
    const clock = t.clock as ManualClock;
    const created = await t.admin.post(`/admin/stores/${store.id}/keys`, {
      name: "brief",
      scopes: ["read"],
      expires_at: new Date(clock.now().getTime() + 1_001).toISOString(),
    });
    expectStatus(created, 201);
    const client = t.client(`Bearer ${created.body.data.key}`);
    clock.advance(1_000);
    expectStatus(await client.get("/v2/whoami"), 200);
    clock.advance(1);
    expectError(await client.get("/v2/whoami"), 401, "unauthorized");
  });

  test("on PostgreSQL the key lookup answers one column, the key and its store as one text", {
    skip: !process.env.TEST_DATABASE_URL,
  }, async () => {
    // A key not looked up yet (a kept one is answered without the statement).
    const fresh = await store.keyWithScopes(["read"]);
    await t.runtime.ctx.requestLog.flush();
    const seen = await countStatements(() => fresh.get("/v2/whoami"));
    expectStatus(seen.result, 200);
    const lookups = seen.columns.filter((c) => /\bfrom "api_keys"/.test(c.statement));
    assert.deepEqual(
      lookups.map((c) => c.columns),
      [["key_json"]],
      seen.columns.map((c) => c.statement).join("\n"),
    );
  });

  /**
   * A key in use is kept in process (src/http/plugins/auth-cache.ts). On PostgreSQL, where other
   * processes write keys too, it is read again once CROSS_PROCESS_BOUND_MS have passed since its read.
   */
  test("a key in use answers GET /whoami without a statement; on PostgreSQL it is read again after the bound", async () => {
    const client = await store.keyWithScopes(["read"]);
    expectStatus(await client.get("/v2/whoami"), 200);
    await t.runtime.ctx.requestLog.flush();
    const kept = await countStatements(() => client.get("/v2/whoami"));
    expectStatus(kept.result, 200);
    assert.deepEqual(kept.statements, []);
    (t.clock as ManualClock).advance(CROSS_PROCESS_BOUND_MS);
    const later = await countStatements(() => client.get("/v2/whoami"));
    expectStatus(later.result, 200);
    const lookups = later.statements.filter((s) => /\bfrom "api_keys"/.test(s));
    assert.equal(lookups.length, t.runtime.ctx.dbKind === "postgres" ? 1 : 0, later.statements.join("\n"));
  });
});
