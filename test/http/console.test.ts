/**
 * The merchant console (/console) through HTTP: sign-in and the session cookie, refusals without a
 * session or without the CSRF token (which change nothing), and each page and action against the admin
 * API it drives. A second app built without the feature modules shows the "not available yet" pages.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { ManualClock } from "../../src/clock.ts";
import { consoleModule } from "../../src/modules/console.ts";
import { foundationModule } from "../../src/modules/foundation.ts";
import { allModules } from "../../src/modules/index.ts";
import { createWebhooksModule } from "../../src/modules/webhooks.ts";
import { ADMIN_TOKEN, startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { ConsoleAgent as Agent, hiddenValue, pageText as text } from "../helpers/console-agent.ts";
import { recordTestMovements } from "../helpers/stock.ts";

// Nothing listens on port 9 of loopback: every webhook attempt fails fast.
const DEAD_URL = "https://hooks.test:9/receiver";

describe("console", () => {
  let t: TestApp;
  let store: TestStore;

  before(async () => {
    // The full service, with webhook addresses resolving to loopback (nothing is really sent).
    const modules = allModules.map((m) =>
      m.name === "webhooks" ? createWebhooksModule({ resolve: async () => ["127.0.0.1"] }) : m,
    );
    t = await startTestApp({ modules });
    store = await t.createStore({ name: "Console Store", seed: "demo" });
    await t.drain();
  });
  after(() => t.close());

  const storeCount = async () => (await t.admin.get("/admin/stores")).body.data.length as number;

  test("without a session: pages redirect to sign-in, POSTs are 401 and change nothing", async () => {
    const agent = new Agent(t);
    const page = await agent.get("/console/stores");
    assert.equal(page.status, 303);
    assert.equal(page.location, "/console/login?next=%2Fconsole%2Fstores");
    const root = await agent.get("/console");
    assert.equal(root.status, 303);
    assert.equal(root.location, "/console/login");
    const keys = await agent.get(`/console/stores/${store.id}/keys`);
    assert.equal(keys.status, 303);
    assert.equal(
      keys.location,
      `/console/login?next=${encodeURIComponent(`/console/stores/${store.id}/keys`)}`,
    );

    const before = await storeCount();
    const post = await agent.post("/console/stores", { name: "Sneaky", currency: "USD", timezone: "UTC" });
    assert.equal(post.status, 401);
    assert.match(text(post.body), /Your session has ended/);
    assert.equal(await storeCount(), before);

    // A cookie that was not signed by this console is no session.
    agent.cookies.set("stockroom_session", "forged-session-id.c2lnbmF0dXJl");
    assert.equal((await agent.get("/console/stores")).status, 303);
    assert.equal(
      (await agent.post(`/console/stores/${store.id}/api_access`, { api_access: "off" })).status,
      401,
    );
    assert.equal((await t.admin.get(`/admin/stores/${store.id}`)).body.data.api_access, true);
  });

  test("sign-in: wrong token refused, form token required, right token gives a strict HttpOnly cookie", async () => {
    const agent = new Agent(t);
    const form = await agent.get("/console/login");
    assert.equal(form.status, 200);
    assert.match(String(form.headers["content-type"]), /^text\/html/);
    assert.match(form.body, /<label for="admin-token">Admin token/);
    assert.match(form.body, /<input type="password" id="admin-token" name="token"/);
    const loginCookie = form.setCookies.find((c) => c.startsWith("stockroom_login="));
    assert.ok(loginCookie);
    assert.match(loginCookie, /; Path=\/console\/login; Max-Age=600; HttpOnly; SameSite=Strict$/);
    const nonce = hiddenValue(form.body, "_csrf");

    const wrong = await agent.post("/console/login", { _csrf: nonce, token: "not-the-admin-token-at-all" });
    assert.equal(wrong.status, 401);
    assert.match(text(wrong.body), /That is not the admin token/);
    assert.equal(
      wrong.setCookies.some((c) => c.startsWith("stockroom_session=")),
      false,
    );

    const noNonce = await new Agent(t).post("/console/login", { token: ADMIN_TOKEN });
    assert.equal(noNonce.status, 403);
    assert.equal(
      noNonce.setCookies.some((c) => c.startsWith("stockroom_session=")),
      false,
    );

    const fresh = await agent.get("/console/login?next=%2Fconsole%2Fstores%2F1%2Fkeys");
    assert.equal(hiddenValue(fresh.body, "next"), "/console/stores/1/keys");
    const ok = await agent.post("/console/login", {
      _csrf: hiddenValue(fresh.body, "_csrf"),
      token: ADMIN_TOKEN,
      next: "/console/stores/1/keys",
    });
    assert.equal(ok.status, 303);
    assert.equal(ok.location, "/console/stores/1/keys");
    const session = ok.setCookies.find((c) => c.startsWith("stockroom_session="));
    assert.ok(session);
    assert.match(
      session,
      /^stockroom_session=[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}; Path=\/console; Max-Age=28800; HttpOnly; SameSite=Strict$/,
    );
    // The admin token itself never goes into a cookie.
    assert.equal(ok.setCookies.join(";").includes(ADMIN_TOKEN), false);

    const page = await agent.get("/console/stores");
    assert.equal(page.status, 200);
    assert.match(
      String(page.headers["content-security-policy"]),
      /default-src 'none'; style-src 'self'; script-src 'self'/,
    );
    assert.equal(page.headers["cache-control"], "no-store");
    assert.equal(page.headers["x-frame-options"], "DENY");
    assert.match(text(page.body), /Console Store/);

    // Only console paths are accepted as the place to go after signing in.
    const other = await new Agent(t).get("/console/login?next=https%3A%2F%2Fevil.test%2F");
    assert.equal(hiddenValue(other.body, "next"), "/console/stores");
  });

  test("a POST without the session's CSRF token is 403 and changes nothing; with it the store is made", async () => {
    const agent = new Agent(t);
    await agent.login();
    const before = await storeCount();
    const form = { name: "CSRF Shop", currency: "EUR", timezone: "Europe/Berlin", seed: "empty" };
    const missing = await agent.post("/console/stores", form);
    assert.equal(missing.status, 403);
    assert.match(text(missing.body), /Nothing was changed/);
    const wrong = await agent.post("/console/stores", { ...form, _csrf: "x".repeat(43) });
    assert.equal(wrong.status, 403);
    // Another session's token is no good either.
    const other = new Agent(t);
    await other.login();
    const foreign = await agent.post("/console/stores", { ...form, _csrf: await other.csrf() });
    assert.equal(foreign.status, 403);
    assert.equal(await storeCount(), before);

    const ok = await agent.post("/console/stores", { ...form, _csrf: await agent.csrf() });
    assert.equal(ok.status, 303);
    const id = Number(/^\/console\/stores\/(\d+)$/.exec(ok.location ?? "")?.[1]);
    const created = (await t.admin.get(`/admin/stores/${id}`)).body.data;
    assert.deepEqual(
      [created.name, created.currency, created.timezone, created.api_access],
      ["CSRF Shop", "EUR", "Europe/Berlin", true],
    );
    const detail = await agent.get(ok.location!);
    assert.match(text(detail.body), /Store “CSRF Shop” created\./);
    // The one-shot message is gone on the next view.
    assert.doesNotMatch(text((await agent.get(ok.location!)).body), /created\./);
  });

  test("store creation refused by the admin API shows every problem and keeps the form", async () => {
    const agent = new Agent(t);
    await agent.login();
    const before = await storeCount();
    const res = await agent.post("/console/stores", {
      _csrf: await agent.csrf(),
      name: "Bad <b>Shop</b>",
      currency: "XXQ",
      timezone: "Mars/Base",
    });
    assert.equal(res.status, 422);
    const shown = text(res.body);
    assert.match(shown, /currency: is not a known ISO 4217 currency code/);
    assert.match(shown, /timezone: is not a known IANA time zone/);
    // Typed values come back, escaped.
    assert.match(res.body, /value="Bad &lt;b&gt;Shop&lt;\/b&gt;"/);
    assert.match(res.body, /id="store-currency" name="currency"[^>]*aria-invalid="true"/);
    assert.equal(await storeCount(), before);
  });

  test("user data is escaped on every page", async () => {
    const created = await t.admin.post("/admin/stores", {
      name: `<script>alert("x")</script>`,
      currency: "USD",
      timezone: "UTC",
    });
    const agent = new Agent(t);
    await agent.login();
    for (const url of ["/console/stores", `/console/stores/${created.body.data.id}`]) {
      const page = await agent.get(url);
      assert.equal(page.body.includes("<script>alert"), false, url);
      assert.ok(page.body.includes("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"), url);
    }
  });

  test("the API access switch turns the store's keys off (402) and on again", async () => {
    const agent = new Agent(t);
    await agent.login();
    const csrf = await agent.csrf();
    const page = await agent.get(`/console/stores/${store.id}`);
    assert.match(text(page.body), /API access is on\./);
    assert.match(page.body, /<button type="submit" class="danger">Turn API access off<\/button>/);

    // Turning it off asks first: the first POST changes nothing and answers the question.
    const asked = await agent.post(`/console/stores/${store.id}/api_access`, {
      _csrf: csrf,
      api_access: "off",
    });
    assert.equal(asked.status, 200);
    assert.match(text(asked.body), /Turn API access off\? Every key of Console Store stops working at once/);
    assert.equal(hiddenValue(asked.body, "confirm"), "yes");
    assert.equal((await t.admin.get(`/admin/stores/${store.id}`)).body.data.api_access, true);
    const off = await agent.post(`/console/stores/${store.id}/api_access`, {
      _csrf: csrf,
      api_access: "off",
      confirm: "yes",
    });
    assert.equal(off.status, 303);
    assert.equal(off.location, `/console/stores/${store.id}`);
    assert.equal((await t.admin.get(`/admin/stores/${store.id}`)).body.data.api_access, false);
    const refused = await store.api.get("/v2/whoami");
    assert.equal(refused.status, 402);
    assert.equal(refused.body.error.code, "feature_not_enabled");
    const shown = text((await agent.get(`/console/stores/${store.id}`)).body);
    assert.match(shown, /API access turned off\./);
    assert.match(shown, /API access is off\. Every key of this store answers 402 feature_not_enabled\./);

    const bogus = await agent.post(`/console/stores/${store.id}/api_access`, {
      _csrf: csrf,
      api_access: "maybe",
    });
    assert.equal(bogus.status, 303);
    assert.equal((await t.admin.get(`/admin/stores/${store.id}`)).body.data.api_access, false);

    await agent.post(`/console/stores/${store.id}/api_access`, { _csrf: csrf, api_access: "on" });
    assert.equal((await t.admin.get(`/admin/stores/${store.id}`)).body.data.api_access, true);
    assert.equal((await store.api.get("/v2/whoami")).status, 200);
  });

  describe("keys: created with scopes and expiry, secret shown once, listed, revoked", () => {
    let agent: Agent;
    let csrf: string;
    let keysUrl: string;

    before(async () => {
      agent = new Agent(t);
      await agent.login();
      csrf = await agent.csrf();
      keysUrl = `/console/stores/${store.id}/keys`;
    });

    test("the form offers every scope and an expiry", async () => {
      const form = await agent.get(keysUrl);
      for (const scope of ["read", "write:purchase_orders", "write:suppliers", "write:inventory", "webhooks"])
        assert.match(form.body, new RegExp(`<input type="checkbox" name="scopes" value="${scope}"`));
      assert.match(form.body, /<label for="key-expires">Expires at/);
    });

    test("created with scopes and expiry; the secret is shown once and works", async () => {
      const expires = new Date(t.clock.now().getTime() + 30 * 86_400_000);
      const local = expires.toISOString().slice(0, 16);
      const created = await agent.post(keysUrl, {
        _csrf: csrf,
        name: "Warehouse app",
        scopes: ["read", "webhooks"],
        expires_at: local,
      });
      assert.equal(created.status, 303);
      assert.equal(created.location, keysUrl);
      const listed = (await t.admin.get(`/admin/stores/${store.id}/keys`)).body.data;
      const key = listed.find((k: any) => k.name === "Warehouse app");
      assert.deepEqual(key.scopes, ["read", "webhooks"]);
      assert.equal(key.expires_at, `${local}:00.000Z`);
      assert.equal(key.revoked_at, null);

      const shown = await agent.get(keysUrl);
      const secret = /<input type="text" id="new-key-secret" readonly value="(sr2_[A-Za-z0-9]{40})"/.exec(
        shown.body,
      )?.[1];
      assert.ok(secret, "the secret is shown");
      assert.equal(secret.slice(0, 12), key.prefix);
      assert.match(shown.body, /data-copy-target="new-key-secret"/);
      assert.match(text(shown.body), new RegExp(`Warehouse app ${key.prefix} read, webhooks Active`));
      // Once only.
      const again = await agent.get(keysUrl);
      assert.equal(again.body.includes(secret), false);
      assert.equal(again.body.includes("new-key-secret"), false);

      const whoami = await t.client(`Bearer ${secret}`).get("/v2/whoami");
      assert.equal(whoami.status, 200);
      assert.deepEqual(whoami.body.key.scopes, ["read", "webhooks"]);
    });

    test("revoked: the key stops working and the list says so", async () => {
      // A key of its own, made through the admin API, so this test does not depend on the one above.
      const made = await t.admin.post(`/admin/stores/${store.id}/keys`, {
        name: "Warehouse app",
        scopes: ["read", "webhooks"],
      });
      assert.equal(made.status, 201);
      const secret: string = made.body.data.key;
      const key = (await t.admin.get(`/admin/stores/${store.id}/keys`)).body.data.find(
        (k: any) => k.prefix === secret.slice(0, 12),
      );
      const revoked = await agent.post(`${keysUrl}/${key.id}/revoke`, { _csrf: csrf });
      assert.equal(revoked.status, 303);
      assert.notEqual(
        (await t.admin.get(`/admin/stores/${store.id}/keys`)).body.data.find((k: any) => k.id === key.id)
          .revoked_at,
        null,
      );
      assert.equal((await t.client(`Bearer ${secret}`).get("/v2/whoami")).status, 401);
      const after = text((await agent.get(keysUrl)).body);
      assert.match(after, new RegExp(`Key “Warehouse app” \\(${key.prefix}\\) revoked\\.`));
      assert.match(after, new RegExp(`Warehouse app ${key.prefix} read, webhooks Revoked`));
    });

    test("refusals keep the form and create nothing; revoking an unknown key is 404", async () => {
      const count = (await t.admin.get(`/admin/stores/${store.id}/keys`)).body.data.length;
      const noName = await agent.post(keysUrl, { _csrf: csrf, name: "", scopes: ["read"] });
      assert.equal(noName.status, 422);
      assert.match(text(noName.body), /name/);
      const past = await agent.post(keysUrl, {
        _csrf: csrf,
        name: "Old",
        scopes: ["read"],
        expires_at: "2001-01-01T00:00",
      });
      assert.equal(past.status, 422);
      assert.match(text(past.body), /expires_at: must be in the future/);
      assert.match(past.body, /id="key-name" name="name" required maxlength="200" value="Old"/);
      const badDate = await agent.post(keysUrl, {
        _csrf: csrf,
        name: "Odd",
        scopes: ["read"],
        expires_at: "soon",
      });
      assert.equal(badDate.status, 422);
      assert.equal((await t.admin.get(`/admin/stores/${store.id}/keys`)).body.data.length, count);
      const missingKey = await agent.post(`${keysUrl}/999999/revoke`, { _csrf: csrf });
      assert.equal(missingKey.status, 404);
    });
  });

  test("request log: filtered by key and status, paged with a next link", async () => {
    const agent = new Agent(t);
    await agent.login();
    const made = await t.admin.post(`/admin/stores/${store.id}/keys`, { name: "Logger", scopes: ["read"] });
    const client = t.client(`Bearer ${made.body.data.key}`);
    await client.get("/v2/whoami");
    (t.clock as ManualClock).advance(1000);
    await client.get("/v2/whoami");
    (t.clock as ManualClock).advance(1000);
    await client.get("/v2/suppliers/999999");
    (t.clock as ManualClock).advance(1000);
    await store.api.get("/v2/whoami");

    const base = `/console/stores/${store.id}/request_log`;
    const all = await agent.get(`${base}?key_id=${made.body.data.id}`);
    assert.equal(all.status, 200);
    const rows = (html: string) =>
      [
        ...html.matchAll(
          /<tr><td><time[^>]*>[^<]*<\/time><\/td><td>(\w+)<\/td><td><code>([^<]*)<\/code><\/td><td class="num">(\d+)<\/td><td>([^<]*)<\/td>/g,
        ),
      ].map((m) => [m[1], m[2], Number(m[3]), m[4]]);
    const label = `Logger (${made.body.data.prefix})`;
    assert.deepEqual(rows(all.body), [
      ["GET", "/v2/suppliers/999999", 404, label],
      ["GET", "/v2/whoami", 200, label],
      ["GET", "/v2/whoami", 200, label],
    ]);
    assert.match(all.body, new RegExp(`<option value="${made.body.data.id}" selected>Logger`));

    const ok = await agent.get(`${base}?key_id=${made.body.data.id}&status=200`);
    assert.deepEqual(rows(ok.body), [
      ["GET", "/v2/whoami", 200, label],
      ["GET", "/v2/whoami", 200, label],
    ]);
    assert.match(
      ok.body,
      /id="log-status" name="status" min="100" max="599" inputmode="numeric" value="200"/,
    );

    const first = await agent.get(`${base}?key_id=${made.body.data.id}&limit=2`);
    assert.equal(rows(first.body).length, 2);
    const next = /<a href="([^"]+)" rel="next">Next page<\/a>/.exec(first.body)?.[1];
    assert.ok(next);
    const second = await agent.get(next.replace(/&amp;/g, "&"));
    assert.deepEqual(rows(second.body), [["GET", "/v2/whoami", 200, label]]);
    assert.doesNotMatch(second.body, /rel="next"/);
    assert.match(second.body, />First page<\/a>/);

    const bad = await agent.get(`${base}?status=abc`);
    assert.equal(bad.status, 200);
    assert.match(text(bad.body), /status/);
    assert.match(bad.body, /role="alert"/);
  });

  test("webhooks: endpoints, their delivery log, and redeliver", async () => {
    const agent = new Agent(t);
    await agent.login();
    const hook = (await store.api.post("/v2/webhooks", { url: DEAD_URL, events: ["*"], description: "ERP" }))
      .body.data;
    const list = await agent.get(`/console/stores/${store.id}/webhooks`);
    assert.equal(list.status, 200);
    assert.match(text(list.body), new RegExp(`${DEAD_URL} ERP active All events`));
    assert.match(list.body, new RegExp(`href="/console/stores/${store.id}/webhooks/${hook.id}"`));

    const tested = await store.api.post(`/v2/webhooks/${hook.id}/test`);
    assert.equal(tested.status, 202);
    await t.drain();
    const deliveries = (await t.admin.get(`/admin/stores/${store.id}/webhooks/${hook.id}/deliveries`)).body
      .data;
    assert.equal(deliveries.length, 1);
    const page = await agent.get(`/console/stores/${store.id}/webhooks/${hook.id}`);
    assert.equal(page.status, 200);
    const shown = text(page.body);
    // The attempt's moment in the store's zone (this store is in UTC), "26 Nov 2026, 11:04".
    const at = new Date(deliveries[0].created_at);
    const month = at.toLocaleString("en-US", { month: "short", timeZone: "UTC" });
    const hhmm = at.toISOString().slice(11, 16);
    const when = `${at.getUTCDate()} ${month} ${at.getUTCFullYear()}, ${hhmm}`;
    assert.match(shown, new RegExp(`${when} webhook.test ${tested.body.data.event_id} 1 failed`));
    assert.match(page.body, /Redeliver webhook.test<\/button>/);

    const redeliver = await agent.post(
      `/console/stores/${store.id}/webhooks/${hook.id}/deliveries/${deliveries[0].id}/redeliver`,
      { _csrf: await agent.csrf() },
    );
    assert.equal(redeliver.status, 303);
    assert.equal(redeliver.location, `/console/stores/${store.id}/webhooks/${hook.id}`);
    assert.match(
      text((await agent.get(redeliver.location!)).body),
      new RegExp(`Queued 1 event for redelivery \\(${tested.body.data.event_id}\\)`),
    );
    await t.drain();
    assert.equal(
      (await t.admin.get(`/admin/stores/${store.id}/webhooks/${hook.id}/deliveries`)).body.data.length,
      2,
    );

    const failedOnly = await agent.get(
      `/console/stores/${store.id}/webhooks/${hook.id}?status=failed&limit=1`,
    );
    assert.match(failedOnly.body, /rel="next"/);
    assert.equal((await agent.get(`/console/stores/${store.id}/webhooks/999999`)).status, 404);
    const noCsrf = await agent.post(
      `/console/stores/${store.id}/webhooks/${hook.id}/deliveries/${deliveries[0].id}/redeliver`,
      {},
    );
    assert.equal(noCsrf.status, 403);
    await t.drain();
    assert.equal(
      (await t.admin.get(`/admin/stores/${store.id}/webhooks/${hook.id}/deliveries`)).body.data.length,
      2,
    );
  });

  describe("platform sync: counts, a failed push with its job, and retry", () => {
    let agent: Agent;
    let status: any;
    let failed: any;
    before(async () => {
      agent = new Agent(t);
      await agent.login();
      const variant = (await store.api.get("/v2/variants?limit=50")).body.data.find(
        (v: any) => v.inventory_tracked,
      );
      const location = (await store.api.get("/v2/locations")).body.data[0];
      await t.admin.post(`/admin/stores/${store.id}/platform/faults`, { mode: "reject", count: 1 });
      await recordTestMovements(t, store.id, 424242, [
        {
          inventoryItemId: variant.inventory_item_id,
          locationId: location.id,
          availableDelta: 2,
          reason: "restock",
        },
      ]);
      await t.drain();
      status = (await t.admin.get(`/admin/stores/${store.id}/sync`)).body.data;
      failed = status.failed.find((f: any) => f.subject_id === 424242);
    });

    test("the page shows the counts and the failed push with its job and reason", async () => {
      assert.ok(failed);
      const page = await agent.get(`/console/stores/${store.id}/sync`);
      assert.equal(page.status, 200);
      const shown = text(page.body);
      assert.match(shown, new RegExp(`failed ${status.counts.failed}`));
      assert.match(
        shown,
        new RegExp(
          `${failed.job_id} stock adjustment 424242 1 .* rejected by the platform \\(simulated refusal\\)`,
        ),
      );
    });

    test("retry queues the job again and says so", async () => {
      const retry = await agent.post(`/console/stores/${store.id}/sync/${failed.job_id}/retry`, {
        _csrf: await agent.csrf(),
      });
      assert.equal(retry.status, 303);
      assert.match(
        text((await agent.get(`/console/stores/${store.id}/sync`)).body),
        new RegExp(`Job ${failed.job_id} queued again\\.`),
      );
    });

    test("a second retry of a push no longer failed is refused with the reason", async () => {
      const again = await agent.post(`/console/stores/${store.id}/sync/${failed.job_id}/retry`, {
        _csrf: await agent.csrf(),
      });
      assert.equal(again.status, 303);
      assert.match(
        text((await agent.get(`/console/stores/${store.id}/sync`)).body),
        /not retried: the push is \w+, not failed/,
      );
    });

    test("the retried push succeeds and leaves the failed list", async () => {
      await t.drain();
      const after = (await t.admin.get(`/admin/stores/${store.id}/sync`)).body.data;
      assert.equal(
        after.failed.some((f: any) => f.subject_id === 424242),
        false,
      );
    });
  });

  describe("alert rules: items picked by SKU or title, saved, refused at the field, rows removed", () => {
    let agent: Agent;
    let csrf: string;
    let variants: any[];
    let location: { id: number; name: string };
    let url: string;
    const rulesNow = async () => (await t.admin.get(`/admin/stores/${store.id}/alert_rules`)).body.data;

    before(async () => {
      agent = new Agent(t);
      await agent.login();
      csrf = await agent.csrf();
      variants = (await store.api.get("/v2/variants?limit=250")).body.data.filter((v: any) => v.sku);
      location = (await store.api.get("/v2/locations")).body.data[0];
      url = `/console/stores/${store.id}/alert_rules`;
    });

    test("an empty form: the threshold, no rules yet, and an item picker to add one (no raw ids)", async () => {
      const empty = await agent.get(url);
      assert.equal(empty.status, 200);
      assert.match(empty.body, /<label for="low-stock">Low stock threshold/);
      assert.match(empty.body, /<input type="hidden" name="rows" value="0">/);
      assert.match(text(empty.body), /No per-item rules yet: add one below\./);
      assert.match(empty.body, /<input type="search" id="rule-add-item" name="add_item"/);
      assert.doesNotMatch(empty.body, /Inventory item id/);
    });

    test("a rule added by SKU is saved and shown by the item's title and SKU", async () => {
      const v = variants[0];
      const saved = await agent.post(url, {
        _csrf: csrf,
        rows: "0",
        low_stock_threshold: "5",
        add_item: v.sku,
        "add.location_id": String(location.id),
        "add.reorder_point": "10",
        "add.max_stock": "100",
      });
      assert.equal(saved.status, 303, saved.body);
      assert.deepEqual(await rulesNow(), {
        low_stock_threshold: 5,
        items: [
          {
            inventory_item_id: v.inventory_item_id,
            location_id: location.id,
            reorder_point: 10,
            max_stock: 100,
          },
        ],
      });
      const page = await agent.get(url);
      assert.match(text(page.body), /Alert rules saved\./);
      assert.ok(text(page.body).includes(`SKU ${v.sku}`));
      assert.ok(text(page.body).includes(v.product_title));
      assert.match(page.body, /<input type="hidden" name="rows" value="1">/);
      assert.match(page.body, new RegExp(`<option value="${location.id}" selected>`));
    });

    test("words matching several items offer a choice; the choice adds the rule", async () => {
      const titles = new Map<string, number>();
      for (const v of variants) titles.set(v.product_title, (titles.get(v.product_title) ?? 0) + 1);
      const shared = [...titles].find(([, n]) => n > 1)?.[0] as string;
      assert.ok(shared, "the demo catalog has a product with several variants");
      const before = await rulesNow();
      const ask = await agent.post(url, {
        _csrf: csrf,
        rows: "1",
        low_stock_threshold: "5",
        "items.0.inventory_item_id": String(before.items[0].inventory_item_id),
        "items.0.location_id": String(location.id),
        "items.0.reorder_point": "10",
        "items.0.max_stock": "100",
        add_item: shared,
        "add.reorder_point": "2",
      });
      assert.equal(ask.status, 422);
      assert.match(text(ask.body), /Item matches several items: choose one\./);
      assert.match(ask.body, /Which item did you mean\?/);
      assert.deepEqual(await rulesNow(), before);
      const chosen = variants.find((v) => v.product_title === shared);
      const added = await agent.post(url, {
        _csrf: csrf,
        rows: "1",
        low_stock_threshold: "5",
        "items.0.inventory_item_id": String(before.items[0].inventory_item_id),
        "items.0.location_id": String(location.id),
        "items.0.reorder_point": "10",
        "items.0.max_stock": "100",
        add_item: shared,
        add_item_variant: String(chosen.id),
        "add.reorder_point": "2",
      });
      assert.equal(added.status, 303, added.body);
      const after = await rulesNow();
      assert.equal(after.items.length, 2);
      assert.ok(
        after.items.some(
          (i: any) => i.inventory_item_id === chosen.inventory_item_id && i.reorder_point === 2,
        ),
      );
    });

    test("a reorder point above the max stock is refused at its field, once, in words; nothing is saved", async () => {
      const before = await rulesNow();
      const form: Record<string, string> = {
        _csrf: csrf,
        rows: String(before.items.length),
        low_stock_threshold: "5",
      };
      before.items.forEach((item: any, i: number) => {
        form[`items.${i}.inventory_item_id`] = String(item.inventory_item_id);
        form[`items.${i}.location_id`] = item.location_id === null ? "" : String(item.location_id);
        form[`items.${i}.reorder_point`] = String(item.reorder_point ?? "");
        form[`items.${i}.max_stock`] = String(item.max_stock ?? "");
      });
      form["items.0.reorder_point"] = "300";
      form["items.0.max_stock"] = "100";
      const refused = await agent.post(url, form);
      assert.equal(refused.status, 422);
      assert.equal(
        text(refused.body).match(/Reorder point must be at most the max stock \(100\)/g)?.length,
        1,
      );
      assert.match(refused.body, /name="items\.0\.reorder_point"[^>]*value="300"[^>]*aria-invalid="true"/);
      assert.deepEqual(await rulesNow(), before);
      const onAdd = await agent.post(url, {
        ...form,
        "items.0.reorder_point": "10",
        add_item: variants[3].sku,
        "add.reorder_point": "9",
        "add.max_stock": "4",
      });
      assert.equal(onAdd.status, 422);
      assert.match(text(onAdd.body), /Reorder point must be at most the max stock \(4\)/);
      assert.match(onAdd.body, /name="add\.reorder_point"[^>]*value="9"[^>]*aria-invalid="true"/);
      const unknown = await agent.post(url, {
        ...form,
        "items.0.reorder_point": "10",
        add_item: "no such thing zz",
      });
      assert.equal(unknown.status, 422);
      assert.match(
        text(unknown.body),
        /Item matches nothing: no item has “no such thing zz” in its title, SKU or barcode\./,
      );
      const notNumber = await agent.post(url, { ...form, "items.0.reorder_point": "-4" });
      assert.equal(notNumber.status, 422);
      assert.match(text(notNumber.body), /Reorder point must be a whole number from 0 to 1,000,000,000/);
      assert.deepEqual(await rulesNow(), before);
    });

    test("a row marked remove is removed; a blank threshold clears it", async () => {
      const set = await agent.post(url, {
        _csrf: csrf,
        rows: "0",
        low_stock_threshold: "5",
        add_item: variants[0].sku,
        "add.location_id": String(location.id),
        "add.reorder_point": "10",
      });
      assert.equal(set.status, 303);
      const removed = await agent.post(url, {
        _csrf: csrf,
        rows: "2",
        low_stock_threshold: "",
        "items.0.inventory_item_id": String(variants[0].inventory_item_id),
        "items.0.location_id": String(location.id),
        "items.0.reorder_point": "10",
        "items.0.remove": "1",
        "items.1.inventory_item_id": String(variants[1].inventory_item_id),
        "items.1.reorder_point": "4",
      });
      assert.equal(removed.status, 303);
      assert.deepEqual(await rulesNow(), {
        low_stock_threshold: null,
        items: [
          {
            inventory_item_id: variants[1].inventory_item_id,
            location_id: null,
            reorder_point: 4,
            max_stock: null,
          },
        ],
      });
    });
  });

  describe("purchase orders: the list, one order with its lines and totals, and its PDF", () => {
    let agent: Agent;
    let order: any;
    let base: string;
    before(async () => {
      agent = new Agent(t);
      await agent.login();
      const supplier = await store.api.post("/v2/suppliers", { name: "Acme <Supply>" });
      assert.equal(supplier.status, 201, JSON.stringify(supplier.body));
      const created = await store.api.post("/v2/purchase_orders", {
        supplier_id: supplier.body.data.id,
        reference: "REF-42",
        lines: [
          { product_title: "Widget", sku: "W-1", quantity: 3, unit_cost: 2.5 },
          { product_title: "Gadget", quantity: 1, unit_cost: 10 },
        ],
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      order = created.body.data;
      base = `/console/stores/${store.id}/purchase_orders`;
    });

    test("the list links each order and its supplier and shows its status, supplier (escaped) and total", async () => {
      const list = await agent.get(base);
      assert.equal(list.status, 200);
      assert.match(list.body, new RegExp(`<a href="${base}/${order.id}">${order.number}</a>`));
      assert.match(
        list.body,
        new RegExp(
          `<a href="/console/stores/${store.id}/suppliers/${order.supplier.id}">Acme &lt;Supply&gt;</a>`,
        ),
      );
      assert.match(text(list.body), new RegExp(`${order.number} Acme <Supply> Draft \\$17\\.50 USD REF-42`));
    });

    test("a filter matching nothing says so; a bad filter is shown as an alert", async () => {
      const filtered = await agent.get(`${base}?status=closed`);
      assert.match(text(filtered.body), /No purchase orders match\./);
      const badFilter = await agent.get(`${base}?status=nonsense`);
      assert.match(badFilter.body, /role="alert"/);
    });

    test("one order: its reference, lines, totals and a link to its PDF", async () => {
      const detail = await agent.get(`${base}/${order.id}`);
      assert.equal(detail.status, 200);
      const shown = text(detail.body);
      assert.match(shown, new RegExp(`Purchase order ${order.number}`));
      assert.match(shown, /Reference REF-42/);
      assert.match(shown, /1 Widget W-1 – 3 0 0 3 \$2\.50 USD – \$7\.50 USD/);
      assert.match(shown, /2 Gadget – – 1 0 0 1 \$10\.00 USD – \$10\.00 USD/);
      assert.match(shown, /Subtotal Charges Tax Total \$17\.50 USD \$0\.00 USD \$0\.00 USD \$17\.50 USD/);
      assert.match(
        detail.body,
        new RegExp(
          `<a href="/console/stores/${store.id}/suppliers/${order.supplier.id}">Acme &lt;Supply&gt;</a>`,
        ),
      );
      assert.match(
        detail.body,
        new RegExp(`<a href="${base}/${order.id}/pdf" type="application/pdf">PDF of ${order.number}</a>`),
      );
    });

    test("the PDF and its receiving copy are served inline", async () => {
      for (const query of ["", "?received=true"]) {
        const pdf = await agent.get(`${base}/${order.id}/pdf${query}`);
        assert.equal(pdf.status, 200, query);
        assert.equal(pdf.headers["content-type"], "application/pdf");
        assert.match(
          String(pdf.headers["content-disposition"]),
          /^inline; filename="PO-\d+(-receiving)?\.pdf"$/,
        );
        assert.equal(pdf.body.slice(0, 5), "%PDF-");
      }
    });

    test("the admin PDF route serves it; another store, an unknown store and no token are refused", async () => {
      const admin = await t.admin.get(`/admin/stores/${store.id}/purchase_orders/${order.id}/pdf`);
      assert.equal(admin.status, 200);
      assert.equal(admin.headers["content-type"], "application/pdf");
      const other = await t.createStore();
      assert.equal(
        (await t.admin.get(`/admin/stores/${other.id}/purchase_orders/${order.id}/pdf`)).status,
        404,
      );
      assert.equal((await t.admin.get(`/admin/stores/999999/purchase_orders/${order.id}/pdf`)).status, 404);
      assert.equal(
        (await t.client().get(`/admin/stores/${store.id}/purchase_orders/${order.id}/pdf`)).status,
        401,
      );
    });

    test("an unknown order is a 404 page; without a session the PDF redirects to sign-in", async () => {
      assert.equal((await agent.get(`${base}/999999`)).status, 404);
      assert.equal((await agent.get(`${base}/999999/pdf`)).status, 404);
      assert.equal((await new Agent(t).get(`${base}/${order.id}/pdf`)).status, 303);
    });
  });

  test("sign-out ends the session: the old cookie no longer opens pages", async () => {
    const agent = new Agent(t);
    await agent.login();
    const cookie = agent.cookies.get("stockroom_session")!;
    const noCsrf = await agent.post("/console/logout", {});
    assert.equal(noCsrf.status, 403);
    const out = await agent.post("/console/logout", { _csrf: await agent.csrf() });
    assert.equal(out.status, 303);
    assert.equal(out.location, "/console/login");
    assert.ok(
      out.setCookies.some((c) =>
        /^stockroom_session=; Path=\/console; Max-Age=0; HttpOnly; SameSite=Strict$/.test(c),
      ),
    );
    const replay = new Agent(t);
    replay.cookies.set("stockroom_session", cookie);
    assert.equal((await replay.get("/console/stores")).status, 303);
  });

  test("unknown pages and stores are 404 pages; assets are served", async () => {
    const agent = new Agent(t);
    await agent.login();
    for (const url of ["/console/stores/999999", "/console/stores/abc/keys", "/console/nowhere"]) {
      const res = await agent.get(url);
      assert.equal(res.status, 404, url);
      assert.match(String(res.headers["content-type"]), /^text\/html/);
    }
    const page = await agent.get("/console/stores");
    const css = /<link rel="stylesheet" href="([^"]+)">/.exec(page.body)![1];
    const js = /<script src="([^"]+)" defer><\/script>/.exec(page.body)![1];
    const cssRes = await new Agent(t).get(css);
    assert.equal(cssRes.status, 200);
    assert.match(String(cssRes.headers["content-type"]), /^text\/css/);
    assert.match(cssRes.body, /:focus-visible/);
    const jsRes = await new Agent(t).get(js);
    assert.equal(jsRes.status, 200);
    assert.match(jsRes.body, /data-copy-target/);
  });
});

describe("console without the feature modules", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ modules: [foundationModule, consoleModule] });
  });
  after(() => t.close());

  test("pages whose admin routes are missing say they are not available yet", async () => {
    const store = await t.createStore();
    const agent = new Agent(t);
    await agent.login();
    const pages: [string, string][] = [
      ["webhooks", "Webhooks is not available yet."],
      ["webhooks/1", "The webhook delivery log is not available yet."],
      ["sync", "Platform sync status is not available yet."],
      ["alert_rules", "Alert rules is not available yet."],
      ["purchase_orders", "The purchase order viewer is not available yet."],
      ["purchase_orders/1", "The purchase order viewer is not available yet."],
    ];
    for (const [path, message] of pages) {
      const res = await agent.get(`/console/stores/${store.id}/${path}`);
      assert.equal(res.status, 200, path);
      assert.ok(text(res.body).includes(message), path);
    }
    // The PDF route comes with the console module itself; there is simply no such order.
    assert.equal((await agent.get(`/console/stores/${store.id}/purchase_orders/1/pdf`)).status, 404);
    const csrf = await agent.csrf();
    const retry = await agent.post(`/console/stores/${store.id}/sync/1/retry`, { _csrf: csrf });
    assert.equal(retry.status, 501);
    assert.match(text(retry.body), /Sync retry is not available yet\./);
    // The pages that need only the foundation work.
    assert.equal((await agent.get(`/console/stores/${store.id}/keys`)).status, 200);
    assert.equal((await agent.get(`/console/stores/${store.id}/request_log`)).status, 200);
  });
});
