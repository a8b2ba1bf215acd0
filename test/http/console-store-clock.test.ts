/**
 * The console reads a store's clock and names the store (issue 20 leftovers), for a store in Los
 * Angeles whose evening is already the next day in UTC: the order list's "Created" is the store's day
 * and time, the store's Overview its own times in the store's zone, a key's expiry typed on its page
 * is the store's time; the header names the store and shows no internal id. And one item's prices page
 * reads that item's catalog row alone, through the catalog list's `inventory_item_id` filter (whose
 * answers, refusals and cursor binding are checked here too).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../src/clock.ts";
import { apiCallsDuring } from "../helpers/api-calls.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import { ConsoleAgent, pageText as text } from "../helpers/console-agent.ts";
import { createDraftOrder, createSupplier, customLine, listVariants } from "../helpers/factories.ts";

describe("console: the store's clock and name", () => {
  let t: TestApp;
  let clock: ManualClock;
  let store: TestStore;
  let agent: ConsoleAgent;
  const path = (rest = "") => `/console/stores/${store.id}${rest}`;

  before(async () => {
    // 03:30 on 2 May in UTC is 20:30 on 1 May in Los Angeles (PDT, UTC-7).
    clock = new ManualClock("2031-05-02T03:30:00.000Z");
    t = await startTestApp({ clock });
    store = await t.createStore({ name: "Pacific Tools", seed: "demo", timezone: "America/Los_Angeles" });
    await t.drain();
    agent = new ConsoleAgent(t);
    assert.equal((await agent.login()).status, 303);
  });
  after(async () => {
    await t.close();
  });

  test("the order list's Created is the store's day and time, not the UTC date", async () => {
    const supplier = await createSupplier(store.api, { name: "Evening Supply" });
    const order = await createDraftOrder(store.api, {
      supplier_id: supplier.id,
      lines: [customLine(1, "5.00")],
    });
    assert.equal(order.created_at, "2031-05-02T03:30:00.000Z");
    const list = await agent.get(path("/purchase_orders"));
    assert.equal(list.status, 200);
    const row = new RegExp(
      `<a href="[^"]+/purchase_orders/${order.id}">${order.number}</a>.*?</tr>`,
      "s",
    ).exec(list.body)?.[0];
    assert.ok(row, "the order's row");
    assert.match(row, /<td><time datetime="2031-05-02T03:30:00.000Z">1 May 2031, 20:30<\/time><\/td><\/tr>$/);
    assert.doesNotMatch(row, /2031-05-02</);
  });

  test("the header names the store and shows no internal id", async () => {
    for (const rest of ["", "/purchase_orders", "/stock", "/suppliers", "/settings"]) {
      const page = await agent.get(path(rest));
      assert.equal(page.status, 200, rest);
      assert.match(page.body, /<p class="store-name">Store <strong>Pacific Tools<\/strong><\/p>/, rest);
      assert.doesNotMatch(page.body, new RegExp(`#${store.id}<`), rest);
    }
  });

  test("the store's Overview shows its own times in the store's zone, without saying UTC", async () => {
    const overview = await agent.get(path());
    assert.equal(overview.status, 200);
    const times = [...overview.body.matchAll(/<time datetime="([^"]+)">([^<]+)<\/time>/g)];
    assert.ok(times.length >= 2, "Created and Updated");
    for (const [, , shown] of times) assert.doesNotMatch(shown, /UTC/);
    // The store was made at the clock's 03:30 UTC: 20:30 the day before in Los Angeles.
    assert.match(text(overview.body), /Created 1 May 2031, 20:30/);
  });

  test("a key's expiry is typed in the store's time and shown back as typed", async () => {
    const csrf = await agent.csrf();
    const keys = path("/keys");
    const form = await agent.get(keys);
    assert.match(
      form.body,
      /<label for="key-expires">Expires at <span class="hint">\(optional; the store's time\)<\/span>/,
    );
    // A read key expiring at the given wall time, typed into the console's form.
    const createKey = (name: string, expiresAt: string) =>
      agent.post(keys, { _csrf: csrf, name, scopes: ["read"], expires_at: expiresAt });
    const created = await createKey("Evening job", "2031-06-01T18:00");
    assert.equal(created.status, 303, created.body);
    const listed = (await t.admin.get(`/admin/stores/${store.id}/keys`)).body.data;
    const key = listed.find((k: { name: string }) => k.name === "Evening job");
    // 18:00 in Los Angeles in June (PDT, UTC-7) is 01:00 UTC the next day.
    assert.equal(key.expires_at, "2031-06-02T01:00:00.000Z");
    assert.match(
      (await agent.get(keys)).body,
      /<time datetime="2031-06-02T01:00:00.000Z">1 Jun 2031, 18:00<\/time>/,
    );
    // In winter (PST, UTC-8) the same wall time is an hour later in UTC.
    const winter = await createKey("Winter job", "2031-12-01T18:00");
    assert.equal(winter.status, 303, winter.body);
    const again = (await t.admin.get(`/admin/stores/${store.id}/keys`)).body.data;
    assert.equal(
      again.find((k: { name: string }) => k.name === "Winter job").expires_at,
      "2031-12-02T02:00:00.000Z",
    );
  });

  describe("one item's catalog row", () => {
    let supplierId: number;
    let items: number[];

    before(async () => {
      const variants = (await listVariants(store.api)).slice(0, 3);
      items = variants.map((v) => v.inventory_item_id);
      supplierId = (await createSupplier(store.api, { name: "Row Supply", currency: "USD" })).id;
      expectStatus(
        await store.api.put(`/v2/suppliers/${supplierId}/catalog`, {
          rows: variants.map((v, i) => ({
            variant_id: v.id,
            supplier_sku: `ROW-${i}`,
            tiers: [{ min_qty: 1, price: `${i + 1}.00` }],
          })),
        }),
        200,
      );
    });

    test("GET /v2/suppliers/{id}/catalog?inventory_item_id= answers that row alone, or none", async () => {
      const all = await store.api.get(`/v2/suppliers/${supplierId}/catalog`);
      expectStatus(all, 200);
      assert.equal(all.body.data.length, 3);
      const one = await store.api.get(`/v2/suppliers/${supplierId}/catalog?inventory_item_id=${items[1]}`);
      expectStatus(one, 200);
      assert.deepEqual(one.body, {
        data: [all.body.data.find((r: { inventory_item_id: number }) => r.inventory_item_id === items[1])],
        has_more: false,
        next_cursor: null,
      });
      const unlisted = await store.api.get(`/v2/suppliers/${supplierId}/catalog?inventory_item_id=987654321`);
      expectStatus(unlisted, 200);
      assert.deepEqual(unlisted.body, { data: [], has_more: false, next_cursor: null });
      const wrong = await store.api.get(`/v2/suppliers/${supplierId}/catalog?inventory_item_id=abc`);
      assert.equal(wrong.status, 422);
      assert.equal(wrong.body.error.code, "validation_failed");
      assert.deepEqual(
        wrong.body.error.details.map((d: { field: string }) => d.field),
        ["inventory_item_id"],
      );
      // A cursor of the whole list does not page the filtered one.
      const first = await store.api.get(`/v2/suppliers/${supplierId}/catalog?limit=1`);
      const cursor = encodeURIComponent(first.body.next_cursor);
      const crossed = await store.api.get(
        `/v2/suppliers/${supplierId}/catalog?inventory_item_id=${items[1]}&cursor=${cursor}`,
      );
      assert.equal(crossed.status, 400);
      assert.equal(crossed.body.error.code, "invalid_cursor");
    });

    test("an item's prices page reads its row through the filter, not the catalog", async () => {
      const url = path(`/suppliers/${supplierId}/catalog/${items[2]}/prices`);
      const { result: page, calls } = await apiCallsDuring(t, () => agent.get(url));
      assert.equal(page.status, 200);
      assert.match(text(page.body), /Supplier SKU ROW-2/);
      assert.match(text(page.body), /Prices in force 1\+ at \$3\.00 USD/);
      const catalogCalls = calls.filter((c) => c.startsWith(`/v2/suppliers/${supplierId}/catalog`));
      assert.deepEqual(catalogCalls, [`/v2/suppliers/${supplierId}/catalog?inventory_item_id=${items[2]}`]);
      // An item the supplier does not list is a 404 page, as before.
      const missing = await agent.get(path(`/suppliers/${supplierId}/catalog/987654321/prices`));
      assert.equal(missing.status, 404);
    });
  });
});
