/**
 * Authentication on the embedded database keeps looked-up keys (src/http/plugins/auth-cache.ts, issue
 * 18 item 2): a key in use is authenticated without waiting for PGlite's one connection, which another
 * store's statement or transaction may hold for tens of milliseconds. Every change to what
 * authentication reads still bites on the very next request of a key in use: revocation, expiry, API
 * access, rate limits, the store's own fields (the store's erasure: shopify-webhook-intake.test.ts and
 * shopify-inbound.test.ts, which use the key before the erasure). On PostgreSQL keys are kept too,
 * and the same requests answer the same; there another process's change (which this process's count
 * of writes does not see) bites once CROSS_PROCESS_BOUND_MS have passed since the key was read.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import type { ManualClock } from "../../src/clock.ts";
import { CROSS_PROCESS_BOUND_MS } from "../../src/http/plugins/auth.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectError, expectStatus } from "../helpers/assertions.ts";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe("authentication of a key in use", () => {
  let t: TestApp;
  let a: TestStore;
  let b: TestStore;
  before(async () => {
    t = await startTestApp();
    a = await t.createStore({ name: "Alpha" });
    b = await t.createStore({ name: "Beta" });
  });
  after(() => t.close());

  test("a known key's GET /whoami answers while another transaction holds the database", async () => {
    expectStatus(await a.api.get("/v2/whoami"), 200);
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = false;
    // On the embedded database this holds its one connection, as store B's PATCH transaction does.
    const held = t.runtime.ctx.db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      holding = true;
      await released;
    });
    while (!holding) await sleep(1);
    const answered = await Promise.race([a.api.get("/v2/whoami"), sleep(2_000).then(() => null)]);
    release();
    await held;
    assert.ok(answered, "GET /whoami waited for another request's transaction");
    expectStatus(answered, 200);
    assert.equal(answered.body.shop.id, a.id);
  });

  test("each change to the key or its store bites on the key's very next request", async () => {
    const whoami = () => a.api.get("/v2/whoami");
    const first = await whoami();
    expectStatus(first, 200);
    assert.equal(first.body.shop.name, "Alpha");
    expectStatus(await b.api.get("/v2/whoami"), 200);

    expectStatus(await t.admin.patch(`/admin/stores/${a.id}`, { name: "Alpha Two" }), 200);
    const renamed = await whoami();
    assert.equal(renamed.body.shop.name, "Alpha Two");

    expectStatus(
      await t.admin.patch(`/admin/stores/${a.id}`, { rate_limits: { per_key_per_minute: 7 } }),
      200,
    );
    const limited = await whoami();
    expectStatus(limited, 200);
    assert.equal(limited.headers["ratelimit-limit"], "7");

    expectStatus(await t.admin.patch(`/admin/stores/${a.id}`, { api_access: false }), 200);
    expectError(await whoami(), 402, "feature_not_enabled");
    expectStatus(await t.admin.patch(`/admin/stores/${a.id}`, { api_access: true }), 200);
    expectStatus(await whoami(), 200);

    const keys = await t.admin.get(`/admin/stores/${a.id}/keys`);
    const [key] = keys.body.data;
    expectStatus(await t.admin.post(`/admin/stores/${a.id}/keys/${key.id}/revoke`), 200);
    const revoked = await whoami();
    expectError(revoked, 401, "unauthorized");
    assert.match(revoked.body.error.message, /revoked/);

    const clock = t.clock as ManualClock;
    const expiring = await t.admin.post(`/admin/stores/${a.id}/keys`, {
      name: "short",
      scopes: [],
      expires_at: new Date(clock.now().getTime() + 60_000).toISOString(),
    });
    expectStatus(expiring, 201);
    const short = t.client(`Bearer ${expiring.body.data.key}`);
    expectStatus(await short.get("/v2/whoami"), 200);
    clock.advance(61_000);
    const expired = await short.get("/v2/whoami");
    expectError(expired, 401, "unauthorized");
    assert.match(expired.body.error.message, /expired/);

    // The other store's key was never touched and still answers as its store.
    const other = await b.api.get("/v2/whoami");
    expectStatus(other, 200);
    assert.equal(other.body.shop.name, "Beta");
  });

  test("on PostgreSQL a revocation written by another process bites once the bound has passed", {
    skip: !process.env.TEST_DATABASE_URL,
  }, async () => {
    const created = await t.admin.post(`/admin/stores/${b.id}/keys`, { name: "elsewhere", scopes: [] });
    expectStatus(created, 201);
    const client = t.client(`Bearer ${created.body.data.key}`);
    expectStatus(await client.get("/v2/whoami"), 200);
    // Written as another process would: this process's count of writes to keys does not move.
    await sql`update api_keys set revoked_at = now() where id = ${created.body.data.id}`.execute(
      t.runtime.ctx.db,
    );
    (t.clock as ManualClock).advance(CROSS_PROCESS_BOUND_MS);
    const revoked = await client.get("/v2/whoami");
    expectError(revoked, 401, "unauthorized");
    assert.match(revoked.body.error.message, /revoked/);
  });
});
