/**
 * The store's settings in the console (issue 20 item 7) through HTTP as the owner uses them: one
 * Settings area (numbering, API access, tax and exchange rates, location visibility, keys, webhooks,
 * staff, the platform's sync), the owner's webhooks through the public API (create with the secret
 * shown once, pause, test, redeliver, delete after a confirmation), the last key and API access asking
 * before they go; other roles see no Settings tab, get 403 on every settings page and a forged POST
 * changes nothing.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { allModules } from "../../src/modules/index.ts";
import { createWebhooksModule } from "../../src/modules/webhooks.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import { type ConsoleAgent, hiddenValue, pageText as text } from "../helpers/console-agent.ts";
import { startSmtp, type TestSmtp } from "../helpers/smtp.ts";
import { joinStaff } from "../helpers/staff.ts";

const HOOK_URL = "https://hooks.test:9/receiver";

describe("console settings", () => {
  let t: TestApp;
  let smtp: TestSmtp;
  let store: TestStore;
  let owner: ConsoleAgent;
  let purchasing: ConsoleAgent;
  let viewer: ConsoleAgent;
  let csrf: string;
  const path = (rest = "") => `/console/stores/${store.id}${rest}`;
  const storeRecord = async () => (await t.admin.get(`/admin/stores/${store.id}`)).body.data;

  before(async () => {
    smtp = await startSmtp();
    t = await startTestApp({ env: { SMTP_URL: smtp.url } });
    store = await t.createStore({ name: "Kettle & Co", seed: "demo" });
    await t.drain();
    owner = await joinStaff(t, smtp, store.id, "owner@kettle.test", "owner");
    purchasing = await joinStaff(t, smtp, store.id, "buyer@kettle.test", "purchasing");
    viewer = await joinStaff(t, smtp, store.id, "viewer@kettle.test", "viewer");
    csrf = hiddenValue((await owner.get(path("/settings"))).body, "_csrf");
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  const SETTINGS_PAGES = [
    "/settings",
    "/settings/tax_rates",
    "/settings/exchange_rates",
    "/settings/locations",
    "/keys",
    "/request_log",
    "/webhooks",
    "/staff",
    "/sync",
  ];

  test("the owner finds every settings page under one Settings tab", async () => {
    const overview = await owner.get(path());
    assert.match(overview.body, new RegExp(`<a href="${path("/settings")}">Settings</a>`));
    for (const rest of SETTINGS_PAGES) {
      const page = await owner.get(path(rest));
      assert.equal(page.status, 200, rest);
      assert.match(
        page.body,
        new RegExp(`<a href="${path("/settings")}" aria-current="page">Settings</a>`),
        rest,
      );
      assert.match(page.body, /<nav class="subnav" aria-label="Settings">/, rest);
    }
    const general = text((await owner.get(path("/settings"))).body);
    assert.match(general, /Currency USD/);
    // One platform summary: the General page, the store's overview and the sync page say the same.
    const platform = /Platform Simulated platform: a stand-in shop inside Stockroom, for trying it out\./;
    assert.match(general, platform);
    assert.match(text((await owner.get(path())).body), platform);
    assert.match(text((await owner.get(path("/sync"))).body), platform);
    assert.match(general, /API access is on\./);
    assert.match(general, /More settings Tax rates the rates orders offer/);
  });

  test("other roles see no Settings tab; every settings page is 403 and a forged POST changes nothing", async () => {
    for (const agent of [purchasing, viewer]) {
      const overview = await agent.get(path());
      assert.doesNotMatch(overview.body, new RegExp(`href="${path("/settings")}"`));
      for (const rest of SETTINGS_PAGES) assert.equal((await agent.get(path(rest))).status, 403, rest);
      const token = hiddenValue(overview.body, "_csrf");
      const before = await storeRecord();
      const posts: [string, Record<string, string>][] = [
        ["/settings/numbering", { purchase_order_prefix: "X-", next_purchase_order_number: "900" }],
        ["/settings/tax_rates", { id: "", name: "Sneaky", rate_percent: "1" }],
        ["/api_access", { api_access: "off", confirm: "yes" }],
        ["/webhooks", { url: HOOK_URL, events: "*" }],
      ];
      for (const [rest, form] of posts)
        assert.equal((await agent.post(path(rest), { _csrf: token, ...form })).status, 403, rest);
      assert.deepEqual(await storeRecord(), before);
      assert.deepEqual((await t.admin.get(`/admin/stores/${store.id}/tax_rates`)).body.data, []);
      assert.deepEqual((await store.api.get("/v2/webhooks")).body.data, []);
    }
  });

  test("the owner's forged POSTs to the operator's actions are refused and change nothing", async () => {
    const other = await t.createStore({ name: "Someone Else's" });
    const before = await storeRecord();
    const storesBefore = (await t.admin.get("/admin/stores")).body.data.length;
    // The operator's pages: the store list and creating a store.
    assert.equal((await owner.get("/console/stores")).status, 303);
    const created = await owner.post("/console/stores", {
      _csrf: csrf,
      name: "Owner's second store",
      currency: "USD",
      timezone: "UTC",
    });
    assert.equal(created.status, 403);
    // Another store's settings are a store that does not exist.
    const theirs = await owner.post(`/console/stores/${other.id}/settings/numbering`, {
      _csrf: csrf,
      purchase_order_prefix: "X-",
      next_purchase_order_number: "900",
      stock_adjustment_prefix: "Y-",
      next_stock_adjustment_number: "900",
    });
    assert.equal(theirs.status, 404);
    // Fields the numbering form does not have are not passed on (rate limits, the name, the owner).
    const smuggled = await owner.post(path("/settings/numbering"), {
      _csrf: csrf,
      purchase_order_prefix: before.numbering.purchase_order_prefix,
      next_purchase_order_number: String(before.numbering.next_purchase_order_number),
      stock_adjustment_prefix: before.numbering.stock_adjustment_prefix,
      next_stock_adjustment_number: String(before.numbering.next_stock_adjustment_number),
      rate_limits: "100000",
      "rate_limits[per_key_per_minute]": "100000",
      name: "Renamed",
      owner_email: "someone@else.test",
    });
    assert.equal(smuggled.status, 303);
    assert.deepEqual(await storeRecord(), { ...before, updated_at: (await storeRecord()).updated_at });
    assert.equal((await t.admin.get("/admin/stores")).body.data.length, storesBefore);
    assert.equal(
      (await t.admin.get(`/admin/stores/${other.id}`)).body.data.numbering.purchase_order_prefix,
      "PO-",
    );
  });

  test("numbering: saved through the form; a wrong number is named by its label and nothing changes", async () => {
    const saved = await owner.post(path("/settings/numbering"), {
      _csrf: csrf,
      purchase_order_prefix: "KC-",
      next_purchase_order_number: "120",
      stock_adjustment_prefix: "ADJ-",
      next_stock_adjustment_number: "7",
    });
    assert.equal(saved.status, 303);
    assert.equal(saved.location, path("/settings#numbering"));
    const numbering = (await storeRecord()).numbering;
    assert.equal(numbering.purchase_order_prefix, "KC-");
    assert.equal(numbering.next_purchase_order_number, 120);
    assert.equal(numbering.stock_adjustment_prefix, "ADJ-");
    assert.equal(numbering.next_stock_adjustment_number, 7);
    assert.match(text((await owner.get(path("/settings"))).body), /Numbering saved\./);

    const refused = await owner.post(path("/settings/numbering"), {
      _csrf: csrf,
      purchase_order_prefix: "ZZ-",
      next_purchase_order_number: "soon",
      stock_adjustment_prefix: "ADJ-",
      next_stock_adjustment_number: "7",
    });
    assert.equal(refused.status, 422);
    const shown = text(refused.body);
    assert.match(shown, /Nothing was saved\. Please correct: Next purchase order number /);
    assert.doesNotMatch(shown, /numbering\.|next_purchase_order_number/);
    assert.match(
      refused.body,
      /id="numbering-next-purchase-order-number" name="next_purchase_order_number" value="soon"[^>]* aria-invalid="true"/,
    );
    assert.deepEqual((await storeRecord()).numbering, numbering);
  });

  test("tax rates: rows saved, a wrong row named by row and column with nothing saved, a row removed", async () => {
    const url = path("/settings/tax_rates");
    const saved = await owner.post(url, {
      _csrf: csrf,
      id: ["", "", ""],
      name: ["VAT 20%", "", "Reduced 5%"],
      rate_percent: ["20", "", "5"],
    });
    assert.equal(saved.status, 303);
    let rates = (await t.admin.get(`/admin/stores/${store.id}/tax_rates`)).body.data;
    assert.deepEqual(
      rates.map((r: any) => [r.name, r.rate_percent]),
      [
        ["VAT 20%", 20],
        ["Reduced 5%", 5],
      ],
    );
    const page = await owner.get(url);
    assert.match(text(page.body), /Tax rates saved\./);
    assert.match(page.body, /name="name" value="VAT 20%"/);

    const refused = await owner.post(url, {
      _csrf: csrf,
      id: [String(rates[0].id), String(rates[1].id), ""],
      name: ["VAT 20%", "Reduced 5%", "Odd"],
      rate_percent: ["20", "5", "lots"],
    });
    assert.equal(refused.status, 422);
    assert.match(text(refused.body), /Nothing was saved\. Please correct: Row 3, Rate \(%\) /);
    assert.match(
      refused.body,
      /id="tax_rates-3-rate-percent" name="rate_percent" value="lots"[^>]* aria-invalid="true"/,
    );
    assert.deepEqual((await t.admin.get(`/admin/stores/${store.id}/tax_rates`)).body.data, rates);

    const removed = await owner.post(url, {
      _csrf: csrf,
      id: [String(rates[0].id), String(rates[1].id)],
      name: ["VAT 20%", "Reduced 5%"],
      rate_percent: ["20", "5"],
      remove: "2",
    });
    assert.equal(removed.status, 303);
    rates = (await t.admin.get(`/admin/stores/${store.id}/tax_rates`)).body.data;
    assert.deepEqual(
      rates.map((r: any) => r.name),
      ["VAT 20%"],
    );
  });

  test("exchange rates: a currency typed in lower case is saved with its rate and date", async () => {
    const saved = await owner.post(path("/settings/exchange_rates"), {
      _csrf: csrf,
      id: ["", ""],
      currency: ["eur", ""],
      rate_to_base: ["1.08", ""],
      date: ["2026-11-01", ""],
    });
    assert.equal(saved.status, 303);
    assert.deepEqual((await t.admin.get(`/admin/stores/${store.id}/exchange_rates`)).body.data, [
      { currency: "EUR", rate_to_base: 1.08, date: "2026-11-01" },
    ]);
    assert.match(text((await owner.get(path("/settings/exchange_rates"))).body), /Exchange rates saved\./);
  });

  test("locations: hiding one leaves it out of the API's locations; showing brings it back", async () => {
    const before = (await store.api.get("/v2/locations")).body.data;
    assert.ok(before.length >= 2);
    const target = before[1];
    const page = await owner.get(path("/settings/locations"));
    assert.match(text(page.body), new RegExp(`${target.name} .* Active Shown Hide ${target.name}`));
    const hidden = await owner.post(path(`/settings/locations/${target.id}`), {
      _csrf: csrf,
      hidden: "true",
    });
    assert.equal(hidden.status, 303);
    assert.match(
      text((await owner.get(path("/settings/locations"))).body),
      new RegExp(`${target.name} is hidden\\.`),
    );
    const listed = (await store.api.get("/v2/locations")).body.data.map((l: any) => l.id);
    assert.equal(listed.includes(target.id), false);
    await owner.post(path(`/settings/locations/${target.id}`), { _csrf: csrf, hidden: "false" });
    assert.equal((await store.api.get("/v2/locations")).body.data.length, before.length);
  });

  test("API access: turning it off asks first and the answer returns to the settings page", async () => {
    const asked = await owner.post(path("/api_access"), { _csrf: csrf, api_access: "off", back: "settings" });
    assert.equal(asked.status, 200);
    assert.match(text(asked.body), /Turn API access off\? Every key of Kettle & Co stops working at once/);
    assert.equal((await storeRecord()).api_access, true);
    const off = await owner.post(path("/api_access"), {
      _csrf: csrf,
      api_access: "off",
      back: "settings",
      confirm: "yes",
    });
    assert.equal(off.status, 303);
    assert.equal(off.location, path("/settings"));
    assert.equal((await storeRecord()).api_access, false);
    expectStatus(await store.api.get("/v2/whoami"), 402);
    // Turning it on asks nothing.
    const on = await owner.post(path("/api_access"), { _csrf: csrf, api_access: "on", back: "settings" });
    assert.equal(on.status, 303);
    assert.equal((await storeRecord()).api_access, true);
  });

  test("keys: revoking the store's last active key asks first; another key goes at once", async () => {
    const keys = async () => (await t.admin.get(`/admin/stores/${store.id}/keys`)).body.data as any[];
    const made = await owner.post(path("/keys"), { _csrf: csrf, name: "Till", scopes: ["read"] });
    assert.equal(made.status, 303);
    const till = (await keys()).find((k) => k.name === "Till");
    const liveOthers = (await keys()).filter((k) => !k.revoked_at && k.id !== till.id);
    // Another live key exists (the test client's): this one goes without a question.
    assert.ok(liveOthers.length > 0);
    const gone = await owner.post(path(`/keys/${till.id}/revoke`), { _csrf: csrf });
    assert.equal(gone.status, 303);
    assert.ok((await keys()).find((k) => k.id === till.id).revoked_at);
    // Revoke the others as an owner would (confirming the last one), then look at the question.
    for (const k of liveOthers.slice(1)) await owner.post(path(`/keys/${k.id}/revoke`), { _csrf: csrf });
    const last = liveOthers[0];
    const asked = await owner.post(path(`/keys/${last.id}/revoke`), { _csrf: csrf });
    assert.equal(asked.status, 200);
    assert.match(text(asked.body), new RegExp(`Revoke “${last.name}”, the store's last active key\\?`));
    assert.equal((await keys()).find((k) => k.id === last.id).revoked_at, null);
    const done = await owner.post(path(`/keys/${last.id}/revoke`), { _csrf: csrf, confirm: "yes" });
    assert.equal(done.status, 303);
    assert.ok((await keys()).find((k) => k.id === last.id).revoked_at);
    expectStatus(await store.api.get("/v2/whoami"), 401);
  });
});

describe("console settings: webhooks through the public API", () => {
  let t: TestApp;
  let smtp: TestSmtp;
  let store: TestStore;
  let owner: ConsoleAgent;
  let csrf: string;
  const base = () => `/console/stores/${store.id}/webhooks`;

  before(async () => {
    smtp = await startSmtp();
    // Webhook addresses resolve to loopback, where nothing listens on port 9: deliveries fail.
    const modules = allModules.map((m) =>
      m.name === "webhooks" ? createWebhooksModule({ resolve: async () => ["127.0.0.1"] }) : m,
    );
    t = await startTestApp({ modules, env: { SMTP_URL: smtp.url } });
    store = await t.createStore({ name: "Hook Shop" });
    owner = await joinStaff(t, smtp, store.id, "owner@hook.test", "owner");
    csrf = hiddenValue((await owner.get(base())).body, "_csrf");
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  test("a refused URL is named once by its label and nothing is created", async () => {
    const res = await owner.post(base(), { _csrf: csrf, url: "http://insecure.test/x", events: "*" });
    assert.equal(res.status, 422);
    const shown = text(res.body);
    assert.match(shown, /Nothing was saved\. Please correct: URL /);
    assert.match(
      res.body,
      /id="webhook-url" name="url" required maxlength="2000" value="http:\/\/insecure.test\/x" aria-invalid="true"/,
    );
    assert.deepEqual((await store.api.get("/v2/webhooks")).body.data, []);
  });

  test("create (secret shown once), pause, resume, test, redeliver and delete after a confirmation", async () => {
    const created = await owner.post(base(), {
      _csrf: csrf,
      url: HOOK_URL,
      description: "ERP",
      events: ["supplier.created", "purchase_order.created"],
    });
    assert.equal(created.status, 303, text(created.body));
    const [hook] = (await store.api.get("/v2/webhooks")).body.data;
    assert.deepEqual(
      [hook.url, hook.description, hook.events, hook.status],
      [HOOK_URL, "ERP", ["supplier.created", "purchase_order.created"], "active"],
    );
    const first = await owner.get(base());
    const secret = /id="new-webhook-secret" readonly value="([^"]+)"/.exec(first.body)?.[1];
    assert.ok(secret && secret.length > 20, "the secret is shown after creation");
    assert.equal((await owner.get(base())).body.includes(secret), false, "and only once");
    assert.match(
      text(first.body),
      /https:\/\/hooks\.test:9\/receiver ERP active supplier\.created, purchase_order\.created 0/,
    );

    const hookUrl = `${base()}/${hook.id}`;
    assert.equal((await owner.post(`${hookUrl}/status`, { _csrf: csrf, status: "paused" })).status, 303);
    assert.equal((await store.api.get(`/v2/webhooks/${hook.id}`)).body.data.status, "paused");
    const paused = await owner.get(hookUrl);
    assert.match(text(paused.body), /Endpoint paused: deliveries wait until it is resumed\./);
    assert.doesNotMatch(paused.body, />Send a test event</);
    // A forged test on a paused endpoint is the API's refusal, shown as a message.
    await owner.post(`${hookUrl}/test`, { _csrf: csrf });
    assert.match(text((await owner.get(hookUrl)).body), /Not done: /);

    await owner.post(`${hookUrl}/status`, { _csrf: csrf, status: "active" });
    assert.equal((await store.api.get(`/v2/webhooks/${hook.id}`)).body.data.status, "active");
    const tested = await owner.post(`${hookUrl}/test`, { _csrf: csrf });
    assert.equal(tested.status, 303);
    await t.drain();
    const deliveries = (await store.api.get(`/v2/webhooks/${hook.id}/deliveries`)).body.data;
    assert.equal(deliveries.length, 1);
    const page = await owner.get(hookUrl);
    assert.match(text(page.body), new RegExp(`Test event ${deliveries[0].event_id} queued`));
    assert.match(text(page.body), new RegExp(`webhook.test ${deliveries[0].event_id} 1 failed`));
    const redelivered = await owner.post(`${hookUrl}/deliveries/${deliveries[0].id}/redeliver`, {
      _csrf: csrf,
    });
    assert.equal(redelivered.status, 303);
    assert.match(text((await owner.get(hookUrl)).body), /Queued 1 event for redelivery/);
    await t.drain();
    assert.equal((await store.api.get(`/v2/webhooks/${hook.id}/deliveries`)).body.data.length, 2);

    const asked = await owner.post(`${hookUrl}/delete`, { _csrf: csrf });
    assert.equal(asked.status, 200);
    assert.match(text(asked.body), /Delete the endpoint https:\/\/hooks\.test:9\/receiver\?/);
    assert.equal((await store.api.get("/v2/webhooks")).body.data.length, 1);
    const deleted = await owner.post(`${hookUrl}/delete`, { _csrf: csrf, confirm: "yes" });
    assert.equal(deleted.status, 303);
    assert.deepEqual((await store.api.get("/v2/webhooks")).body.data, []);
    assert.equal((await owner.get(hookUrl)).status, 404);
  });
});
