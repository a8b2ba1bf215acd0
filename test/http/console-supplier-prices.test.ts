/**
 * Upcoming prices on a supplier's catalog in the console (issue 20 item 2): new tiers from a future
 * date become the upcoming set (the API's catalog effective_from) and the prices in force stay; both
 * are listed on the item's prices page and in the catalog; a wrong tier text is named by its label and
 * nothing changes; a viewer gets 403.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import { type ConsoleAgent, hiddenValue, pageText as text } from "../helpers/console-agent.ts";
import { createSupplier, listVariants } from "../helpers/factories.ts";
import { startSmtp, type TestSmtp } from "../helpers/smtp.ts";
import { joinStaff } from "../helpers/staff.ts";

describe("console supplier prices: upcoming tiers", () => {
  let t: TestApp;
  let smtp: TestSmtp;
  let store: TestStore;
  let buyer: ConsoleAgent;
  let viewer: ConsoleAgent;

  before(async () => {
    smtp = await startSmtp();
    t = await startTestApp({ env: { SMTP_URL: smtp.url } });
    store = await t.createStore({ name: "Price Shop", seed: "demo" });
    await t.drain();
    buyer = await joinStaff(t, smtp, store.id, "buyer@price.test", "purchasing");
    viewer = await joinStaff(t, smtp, store.id, "viewer@price.test", "viewer");
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  test("tiers from a future date are upcoming, the prices in force stay; a wrong tier text changes nothing", async () => {
    const [variant] = await listVariants(store.api);
    const supplier = await createSupplier(store.api, { name: "Tier Co", currency: "USD" });
    expectStatus(
      await store.api.put(`/v2/suppliers/${supplier.id}/catalog`, {
        rows: [{ variant_id: variant.id, tiers: [{ min_qty: 1, price: 4 }] }],
      }),
      200,
    );
    const item = variant.inventory_item_id;
    const url = `/console/stores/${store.id}/suppliers/${supplier.id}/catalog/${item}/prices`;
    const supplierPage = await buyer.get(`/console/stores/${store.id}/suppliers/${supplier.id}`);
    assert.match(supplierPage.body, new RegExp(`href="${url}"`));
    const page = await buyer.get(url);
    assert.equal(page.status, 200);
    assert.match(text(page.body), /Prices in force 1\+ at \$4\.00 USD/);
    const csrf = hiddenValue(page.body, "_csrf");

    const saved = await buyer.post(url, {
      _csrf: csrf,
      tiers: "1:4.50 10:4.20",
      effective_from: "2099-01-01",
    });
    assert.equal(saved.status, 303);
    const [row] = (await store.api.get(`/v2/suppliers/${supplier.id}/catalog`)).body.data;
    assert.deepEqual(row.price_list.effective.tiers, [{ min_qty: 1, price: "4.00" }]);
    assert.equal(row.price_list.upcoming.effective_from, "2099-01-01");
    assert.deepEqual(row.price_list.upcoming.tiers, [
      { min_qty: 1, price: "4.50" },
      { min_qty: 10, price: "4.20" },
    ]);
    const shown = text((await buyer.get(url)).body);
    assert.match(shown, /Prices saved, from 1 Jan 2099\./);
    assert.match(shown, /Upcoming prices 1\+ at \$4\.50 USD, 10\+ at \$4\.20 USD Upcoming from 1 Jan 2099/);
    assert.match(
      text((await buyer.get(`/console/stores/${store.id}/suppliers/${supplier.id}`)).body),
      /1\+ at \$4\.50 USD, 10\+ at \$4\.20 USD from 1 Jan 2099/,
    );

    const refused = await buyer.post(url, { _csrf: csrf, tiers: "lots", effective_from: "2099-02-01" });
    assert.equal(refused.status, 422);
    assert.match(
      text(refused.body),
      /Nothing was saved\. Please correct: Price tiers must be "quantity:price" pairs/,
    );
    assert.match(refused.body, /id="prices-tiers" name="tiers" required value="lots" aria-invalid="true"/);
    const badDate = await buyer.post(url, { _csrf: csrf, tiers: "1:5", effective_from: "someday" });
    assert.equal(badDate.status, 422);
    assert.match(text(badDate.body), /Effective from /);
    assert.deepEqual((await store.api.get(`/v2/suppliers/${supplier.id}/catalog`)).body.data, [row]);

    assert.equal((await viewer.get(url)).status, 403);
    const forged = await viewer.post(url, {
      _csrf: hiddenValue((await viewer.get(`/console/stores/${store.id}`)).body, "_csrf"),
      tiers: "1:1",
    });
    assert.equal(forged.status, 403);
    assert.deepEqual((await store.api.get(`/v2/suppliers/${supplier.id}/catalog`)).body.data, [row]);
  });
});
