/**
 * The console's stock pages (issue 20 item 6) through HTTP as a browser without script uses them:
 * levels per location with search and paging, the low-stock list built from the alert rules with its
 * "raise an order" (a draft for the primary supplier, once per form), and stock adjustments: a draft
 * made with the item picker, lines changed, added and removed, apply and cancel after a confirmation,
 * the quantity before and after each line. An inventory user adjusts; a viewer sees no write control
 * and a forged POST is 403 with nothing changed.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { type ConsoleAgent, hiddenValue, pageText as text } from "../helpers/console-agent.ts";
import { createSupplier, listLocations, trackedVariants, type Variant } from "../helpers/factories.ts";
import { startSmtp, type TestSmtp } from "../helpers/smtp.ts";
import { joinStaff } from "../helpers/staff.ts";

describe("console stock", () => {
  let t: TestApp;
  let store: TestStore;
  let smtp: TestSmtp;
  let inventory: ConsoleAgent;
  let buyer: ConsoleAgent;
  let viewer: ConsoleAgent;
  let tracked: Variant[];
  let locations: { id: number; name: string }[];
  const path = (rest: string) => `/console/stores/${store.id}${rest}`;
  const csrfOf = async (agent: ConsoleAgent) => hiddenValue((await agent.get(path(""))).body, "_csrf");
  const levelOf = async (item: number, location: number) =>
    (await store.api.get(`/v2/inventory_levels?inventory_item_id=${item}&location_id=${location}`)).body
      .data[0];
  const setLevel = async (item: number, location: number, quantity: number) => {
    const res = await t.admin.post(`/admin/stores/${store.id}/platform/inventory`, {
      changes: [{ inventory_item_id: item, location_id: location, set: quantity }],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await t.drain();
  };

  before(async () => {
    smtp = await startSmtp();
    t = await startTestApp({ env: { SMTP_URL: smtp.url } });
    store = await t.createStore({ seed: "demo" });
    await t.drain();
    tracked = (await trackedVariants(store.api)).filter((v) => v.sku);
    locations = await listLocations(store.api);
    inventory = await joinStaff(t, smtp, store.id, "ivy@example.com", "inventory");
    buyer = await joinStaff(t, smtp, store.id, "bo@example.com", "purchasing");
    viewer = await joinStaff(t, smtp, store.id, "vi@example.com", "viewer");
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  test("stock levels: every item named with its location and quantities; search by SKU; location filter; paging", async () => {
    const v = tracked[0];
    const loc = locations[0];
    const level = await levelOf(v.inventory_item_id, loc.id);
    const page = await viewer.get(path("/stock"));
    assert.equal(page.status, 200);
    assert.match(page.body, /<a href="[^"]+\/stock" aria-current="page">Stock<\/a>/);
    const found = await viewer.get(
      path(`/stock?q=${encodeURIComponent(v.sku as string)}&location=${loc.id}`),
    );
    assert.equal(found.status, 200);
    const shown = text(found.body);
    assert.ok(shown.includes(v.product_title), shown);
    assert.ok(shown.includes(`SKU ${v.sku}`));
    assert.ok(
      shown.includes(`${loc.name} ${level.available} ${level.on_hand} ${level.incoming} 0`),
      `row of ${v.sku} at ${loc.name}: ${shown}`,
    );
    assert.match(found.body, new RegExp(`<option value="${loc.id}" selected>`));
    const none = await viewer.get(path("/stock?q=nothing-has-this-zz"));
    assert.match(text(none.body), /No item matches that search\./);
    // Only punctuation: the API refuses it (400), the page says nothing matches and keeps the search.
    const punctuation = await viewer.get(path("/stock?q=%25%25"));
    assert.equal(punctuation.status, 200);
    assert.match(text(punctuation.body), /No item matches that search\./);
    assert.match(punctuation.body, /name="q" value="%%"/);
    // 50 a page: the demo store has more levels than that, so a next page exists and continues.
    const first = await viewer.get(path("/stock"));
    const next = /<a href="([^"]+)" rel="next">Next page<\/a>/.exec(first.body)?.[1];
    assert.ok(next, "a next page link");
    const second = await viewer.get(next.replaceAll("&amp;", "&"));
    assert.equal(second.status, 200);
    assert.match(second.body, /First page/);
  });

  test("low stock: items at or below the rules, the suggestion and the primary supplier; raise an order opens a draft, once per form", async () => {
    const [a, b] = tracked.slice(1, 3);
    const loc = locations[0];
    await setLevel(a.inventory_item_id, loc.id, 1);
    await setLevel(b.inventory_item_id, loc.id, 2);
    const rules = await t.admin.put(`/admin/stores/${store.id}/alert_rules`, {
      low_stock_threshold: null,
      items: [
        { inventory_item_id: a.inventory_item_id, location_id: loc.id, reorder_point: 3, max_stock: 12 },
        { inventory_item_id: b.inventory_item_id, location_id: loc.id, reorder_point: 3 },
      ],
    });
    assert.equal(rules.status, 200, JSON.stringify(rules.body));
    const supplier = await createSupplier(store.api, { name: "Ridge Supply" });
    const put = await store.api.put(`/v2/suppliers/${supplier.id}/catalog`, {
      rows: [
        { inventory_item_id: a.inventory_item_id, is_primary: true, tiers: [{ min_qty: 1, price: "2.50" }] },
      ],
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const levelA = await levelOf(a.inventory_item_id, loc.id);
    const suggested = 12 - (levelA.available + levelA.incoming);

    const seen = await viewer.get(path("/stock/low"));
    assert.equal(seen.status, 200);
    const shown = text(seen.body);
    assert.ok(shown.includes(a.product_title) && shown.includes(b.product_title), shown);
    assert.ok(shown.includes("Ridge Supply"));
    assert.ok(shown.includes("No supplier lists this item.") === false, "a viewer gets no order control");
    assert.doesNotMatch(seen.body, /Raise an order/);

    const page = await buyer.get(path("/stock/low"));
    assert.match(text(page.body), /No supplier lists this item\./);
    const form =
      /<form method="post" action="[^"]+\/stock\/low\/order"[^>]*aria-label="Raise an order for [^"]*">([\s\S]*?)<\/form>/g;
    const forms = [...page.body.matchAll(form)].map((m) => m[1]);
    const mine = forms.find((f) => f.includes(`name="inventory_item_id" value="${a.inventory_item_id}"`));
    assert.ok(mine, "a raise form for the item with a supplier");
    assert.match(mine, new RegExp(`name="quantity" min="1"[^>]* value="${suggested}"`));
    const fields = Object.fromEntries(
      [...mine.matchAll(/<input type="(?:hidden|number)"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)].map(
        (m) => [m[1], m[2]],
      ),
    );
    const raised = await buyer.post(path("/stock/low/order"), { ...fields, quantity: "7" });
    assert.equal(raised.status, 303, raised.body);
    const orderId = Number(/\/purchase_orders\/(\d+)$/.exec(raised.location ?? "")?.[1]);
    const order = (await store.api.get(`/v2/purchase_orders/${orderId}`)).body.data;
    assert.deepEqual(
      [order.status, order.supplier.id, order.location.id, order.lines.length, order.lines[0].quantity],
      ["draft", supplier.id, loc.id, 1, 7],
    );
    assert.equal(order.lines[0].inventory_item_id, a.inventory_item_id);
    assert.equal(order.lines[0].unit_cost, "2.50");
    assert.match(
      text((await buyer.get(raised.location as string)).body),
      new RegExp(`Draft ${order.number} raised for 7 ×`),
    );
    // The same form again (a double click, a reload): the same order, not a second one.
    const again = await buyer.post(path("/stock/low/order"), { ...fields, quantity: "7" });
    assert.equal(again.location, raised.location);
    const drafts = (await store.api.get(`/v2/purchase_orders?supplier_id=${supplier.id}`)).body.data;
    assert.equal(drafts.length, 1);
    const bad = await buyer.post(path("/stock/low/order"), { ...fields, _key: "k2", quantity: "0" });
    assert.equal(bad.status, 303);
    assert.match(
      text((await buyer.get(path("/stock/low"))).body),
      /Quantity to order of .* must be a whole number of 1 or more\. Nothing was ordered\./,
    );
    // Neither an inventory user nor a viewer may raise one.
    for (const agent of [inventory, viewer]) {
      const refused = await agent.post(path("/stock/low/order"), {
        ...fields,
        _csrf: await csrfOf(agent),
        _key: "k3",
      });
      assert.equal(refused.status, 403);
    }
    assert.equal((await store.api.get(`/v2/purchase_orders?supplier_id=${supplier.id}`)).body.data.length, 1);
  });

  test("an inventory user drafts an adjustment with the item picker, changes and adds lines, sees before and after, applies it once", async () => {
    const [c, d] = tracked.slice(3, 5);
    const loc = locations[0];
    await setLevel(c.inventory_item_id, loc.id, 10);
    await setLevel(d.inventory_item_id, loc.id, 4);
    const newPage = await inventory.get(path("/stock_adjustments/new"));
    assert.equal(newPage.status, 200);
    const key = hiddenValue(newPage.body, "_key");
    const csrf = hiddenValue(newPage.body, "_csrf");
    const base = {
      _csrf: csrf,
      _key: key,
      location_id: String(loc.id),
      reason: "damaged",
      note: "Shelf fell",
    };
    const nothing = await inventory.post(path("/stock_adjustments"), {
      ...base,
      item: "zz-nothing",
      delta: "-2",
    });
    assert.equal(nothing.status, 422);
    assert.match(text(nothing.body), /Item matches nothing/);
    assert.match(nothing.body, /id="adj-item"[^>]*aria-invalid="true"/);
    const badDelta = await inventory.post(path("/stock_adjustments"), {
      ...base,
      item: c.sku as string,
      delta: "two",
    });
    assert.equal(badDelta.status, 422);
    assert.match(text(badDelta.body), /Change must be a whole number other than 0/);
    assert.equal((await store.api.get("/v2/stock_adjustments")).body.data.length, 0);
    const created = await inventory.post(path("/stock_adjustments"), {
      ...base,
      item: c.sku as string,
      delta: "−2",
    });
    assert.equal(created.status, 303, created.body);
    const adjPath = created.location as string;
    const id = Number(/(\d+)$/.exec(adjPath)?.[1]);
    let adj = (await store.api.get(`/v2/stock_adjustments/${id}`)).body.data;
    assert.deepEqual(
      [
        adj.status,
        adj.reason,
        adj.note,
        adj.location.id,
        adj.lines.map((l: any) => [l.inventory_item_id, l.delta]),
      ],
      ["draft", "damaged", "Shelf fell", loc.id, [[c.inventory_item_id, -2]]],
    );
    const draft = await inventory.get(adjPath);
    assert.match(text(draft.body), new RegExp(`Draft ${adj.number} created\\.`));
    assert.match(draft.body, /name="lines\.0\.delta" value="-2"/);
    // The viewer's copy of the page reads the same draft without inputs.
    const read = text((await viewer.get(adjPath)).body);
    assert.match(read, /Available now After applying/);
    assert.ok(read.includes(`SKU ${c.sku} -2 10 8`), read);
    // Add a line by SKU, then change the first line and save.
    const added = await inventory.post(`${adjPath}/add`, { _csrf: csrf, item: d.sku as string, delta: "+5" });
    assert.equal(added.status, 303);
    const saved = await inventory.post(`${adjPath}/lines`, {
      _csrf: csrf,
      rows: "2",
      "lines.0.delta": "-3",
      "lines.1.delta": "+5",
    });
    assert.equal(saved.status, 303);
    adj = (await store.api.get(`/v2/stock_adjustments/${id}`)).body.data;
    assert.deepEqual(
      adj.lines.map((l: any) => [l.inventory_item_id, l.delta]),
      [
        [c.inventory_item_id, -3],
        [d.inventory_item_id, 5],
      ],
    );
    const badLine = await inventory.post(`${adjPath}/lines`, {
      _csrf: csrf,
      rows: "2",
      "lines.0.delta": "x",
    });
    assert.equal(badLine.status, 422);
    assert.match(badLine.body, /name="lines\.0\.delta"[^>]*aria-invalid="true"/);
    assert.match(text(badLine.body), /Change must be a whole number/);
    // Apply asks first; the confirmation carries its own key, so posting it twice applies once.
    const confirm = await inventory.post(`${adjPath}/apply`, { _csrf: csrf });
    assert.equal(confirm.status, 200);
    assert.match(text(confirm.body), /an applied adjustment cannot be undone/);
    assert.equal((await store.api.get(`/v2/stock_adjustments/${id}`)).body.data.status, "draft");
    const applyKey = hiddenValue(confirm.body.slice(confirm.body.indexOf('name="confirm"')), "_key");
    const applied = await inventory.post(`${adjPath}/apply`, { _csrf: csrf, confirm: "yes", _key: applyKey });
    assert.equal(applied.status, 303);
    const twice = await inventory.post(`${adjPath}/apply`, { _csrf: csrf, confirm: "yes", _key: applyKey });
    assert.equal(twice.status, 303);
    assert.equal((await levelOf(c.inventory_item_id, loc.id)).available, 7);
    assert.equal((await levelOf(d.inventory_item_id, loc.id)).available, 9);
    const done = text((await inventory.get(adjPath)).body);
    assert.match(done, new RegExp(`${adj.number} applied: stock moved\\.`));
    assert.match(done, /Available before Available after/);
    assert.ok(done.includes(`SKU ${c.sku} -3 10 7`), done);
    assert.ok(done.includes(`SKU ${d.sku} +5 4 9`), done);
    assert.doesNotMatch(done, /Save lines|Apply…/);
    const list = text((await viewer.get(path("/stock_adjustments?status=applied"))).body);
    assert.ok(list.includes(adj.number) && list.includes("Damaged"), list);
  });

  test("cancel asks first and moves nothing", async () => {
    const e = tracked[6];
    const loc = locations[0];
    const before = (await levelOf(e.inventory_item_id, loc.id)).available;
    const created = await inventory.submit(path("/stock_adjustments/new"), path("/stock_adjustments"), {
      _key: "cancel-me",
      location_id: String(loc.id),
      reason: "correction",
      item: e.sku as string,
      delta: "4",
    });
    assert.equal(created.status, 303);
    const csrf = await csrfOf(inventory);
    const ask = await inventory.post(`${created.location}/cancel`, { _csrf: csrf });
    assert.equal(ask.status, 200);
    assert.match(text(ask.body), /Nothing moves, and a cancelled adjustment cannot be applied later\./);
    const done = await inventory.post(`${created.location}/cancel`, { _csrf: csrf, confirm: "yes" });
    assert.equal(done.status, 303);
    const id = Number(/(\d+)$/.exec(created.location as string)?.[1]);
    assert.equal((await store.api.get(`/v2/stock_adjustments/${id}`)).body.data.status, "cancelled");
    assert.equal((await levelOf(e.inventory_item_id, loc.id)).available, before);
  });

  test("a viewer sees adjustments without a write control; forged POSTs are 403 and change nothing; a buyer may not adjust", async () => {
    const f = tracked[7];
    const loc = locations[0];
    const draft = await store.api.post("/v2/stock_adjustments", {
      location_id: loc.id,
      lines: [{ variant_id: f.id, delta: 3 }],
    });
    assert.equal(draft.status, 201, JSON.stringify(draft.body));
    const id = draft.body.data.id;
    const list = await viewer.get(path("/stock_adjustments"));
    assert.equal(list.status, 200);
    assert.doesNotMatch(list.body, /New adjustment/);
    const page = await viewer.get(path(`/stock_adjustments/${id}`));
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.body, /<form method="post" action="[^"]*stock_adjustments/);
    assert.ok(text(page.body).includes("+3"));
    assert.equal((await viewer.get(path("/stock_adjustments/new"))).status, 403);
    for (const agent of [viewer, buyer]) {
      const csrf = await csrfOf(agent);
      for (const [url, form] of [
        ["/stock_adjustments", { location_id: String(loc.id), item: f.sku as string, delta: "1" }],
        [`/stock_adjustments/${id}/lines`, { rows: "1", "lines.0.delta": "9" }],
        [`/stock_adjustments/${id}/add`, { item: f.sku as string, delta: "1" }],
        [`/stock_adjustments/${id}/apply`, { confirm: "yes", _key: "forged" }],
        [`/stock_adjustments/${id}/cancel`, { confirm: "yes" }],
      ] as const) {
        const res = await agent.post(path(url), { _csrf: csrf, ...form });
        assert.equal(res.status, 403, url);
      }
    }
    const after = (await store.api.get(`/v2/stock_adjustments/${id}`)).body.data;
    assert.deepEqual([after.status, after.lines.map((l: any) => l.delta)], ["draft", [3]]);
    assert.equal((await store.api.get("/v2/stock_adjustments?status=draft")).body.data.length, 1);
  });
});
