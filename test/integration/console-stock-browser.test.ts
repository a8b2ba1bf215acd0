/**
 * The stock pages in Chromium (issue 20 item 6): an inventory user finds an item's stock by SKU, sees
 * the low-stock list, adds an alert rule with the item picker (a contradiction refused at its field
 * first), drafts an adjustment by scanning a SKU, applies it after the confirmation and sees the
 * quantity before and after; a purchasing user raises an order from the low-stock list; a viewer opens
 * every stock page without a write control. Every page gets the checks every browser test's pages get
 * (pageChecker: axe-core, the sideways scroll and the tables' fit at 1280 and 390 px; screenshots with
 * STOCKROOM_SCREENSHOTS).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import {
  artifactsFolder,
  browserSkip,
  launchChromium,
  pageChecker,
  screenshot,
} from "../helpers/console-browser.ts";
import { createSupplier, listLocations, trackedVariants, type Variant } from "../helpers/factories.ts";
import { startSmtp, type TestSmtp } from "../helpers/smtp.ts";
import { joinStaff } from "../helpers/staff.ts";

const PASSWORD = "a long enough password";

describe("stock pages in a browser", { skip: browserSkip }, () => {
  let t: TestApp;
  let smtp: TestSmtp;
  let store: TestStore;
  let base: string;
  let browser: Browser;
  let tracked: Variant[];
  let location: { id: number; name: string };
  const artifactsDir = artifactsFolder("console-stock");
  const checkPage = pageChecker(artifactsDir);
  const foreign: string[] = [];

  const signIn = async (email: string): Promise<Page> => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.on("request", (r) => {
      if (!r.url().startsWith(`${base}/`)) foreign.push(r.url());
    });
    await page.goto(`${base}/console/login`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: /^Sign in$/ }).click();
    await page.waitForURL(`${base}/console/stores/${store.id}`);
    return page;
  };

  before(async () => {
    smtp = await startSmtp();
    t = await startTestApp({ env: { SMTP_URL: smtp.url } });
    await t.runtime.app.listen({ host: "127.0.0.1", port: 0 });
    base = `http://127.0.0.1:${(t.runtime.app.server.address() as { port: number }).port}`;
    store = await t.createStore({ name: "Harbour Hardware", seed: "demo" });
    await t.drain();
    tracked = (await trackedVariants(store.api)).filter((v) => v.sku);
    [location] = await listLocations(store.api);
    for (const [email, role] of [
      ["ivy@example.com", "inventory"],
      ["bo@example.com", "purchasing"],
      ["vi@example.com", "viewer"],
    ])
      await joinStaff(t, smtp, store.id, email, role, PASSWORD);
    const set = await t.admin.post(`/admin/stores/${store.id}/platform/inventory`, {
      changes: [
        { inventory_item_id: tracked[0].inventory_item_id, location_id: location.id, set: 2 },
        { inventory_item_id: tracked[1].inventory_item_id, location_id: location.id, set: 1 },
        { inventory_item_id: tracked[2].inventory_item_id, location_id: location.id, set: 2 },
        { inventory_item_id: tracked[3].inventory_item_id, location_id: location.id, set: 1 },
      ],
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const supplier = await createSupplier(store.api, { name: "Ridge Supply" });
    const put = await store.api.put(`/v2/suppliers/${supplier.id}/catalog`, {
      rows: [
        {
          inventory_item_id: tracked[1].inventory_item_id,
          is_primary: true,
          tiers: [{ min_qty: 1, price: "3.25" }],
        },
      ],
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    await t.drain();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  test("an inventory user: stock by SKU, an alert rule by the item picker, an adjustment scanned and applied", async () => {
    const page = await signIn("ivy@example.com");
    const stock = `${base}/console/stores/${store.id}/stock`;
    await page.getByRole("link", { name: "Stock", exact: true }).click();
    await page.waitForURL(stock);
    await checkPage(page, "stock");
    await page.getByLabel("Search").fill(tracked[0].sku as string);
    await page.getByRole("button", { name: "Find" }).click();
    await page.waitForURL(/q=/);
    assert.match(await page.getByRole("table").innerText(), new RegExp(`SKU ${tracked[0].sku}`));
    await checkPage(page, "stock-search");

    // An alert rule: the contradiction is refused at its field, then saved.
    await page.goto(`${base}/console/stores/${store.id}/alert_rules`);
    await page.getByLabel("Low stock threshold").fill("3");
    await page.getByLabel(/^Item/).fill(tracked[0].sku as string);
    await page.locator("#rule-add-reorder_point").fill("40");
    await page.locator("#rule-add-max_stock").fill("20");
    await page.getByRole("button", { name: "Save alert rules" }).click();
    await page.getByText("Reorder point must be at most the max stock (20)").waitFor();
    assert.equal(await page.locator("#rule-add-reorder_point").getAttribute("aria-invalid"), "true");
    await checkPage(page, "alert-rules-refused");
    await page.locator("#rule-add-reorder_point").fill("5");
    await page.getByRole("button", { name: "Save alert rules" }).click();
    await page.getByText("Alert rules saved.").waitFor();
    await checkPage(page, "alert-rules");

    await page.goto(`${stock}/low`);
    const low = await page.getByRole("table").innerText();
    assert.ok(low.includes(tracked[0].product_title) && low.includes(tracked[1].product_title), low);
    assert.equal(await page.getByRole("button", { name: "Raise an order" }).count(), 0);
    await checkPage(page, "low-stock-inventory");

    // An adjustment: the SKU typed as a scanner does, then applied after the confirmation.
    await page.goto(`${base}/console/stores/${store.id}/stock_adjustments`);
    await page.getByRole("link", { name: "New adjustment" }).click();
    await page.getByLabel("Reason").selectOption("restock");
    await page.getByLabel(/^Item/).fill(tracked[2].sku as string);
    await page.getByLabel(/^Change/).fill("+10");
    await checkPage(page, "adjustment-new");
    await page.getByRole("button", { name: "Create draft" }).click();
    await page.getByText(/Draft .* created\./).waitFor();
    await page.locator("#add-item").fill(tracked[3].sku as string);
    await page.locator("#add-delta").fill("4");
    await page.getByRole("button", { name: "Add line" }).click();
    await page.getByText(/Line added/).waitFor();
    const lines = await page.getByRole("table").innerText();
    assert.match(lines, /Available now\s+After applying/);
    await checkPage(page, "adjustment-draft");
    await page.getByRole("button", { name: "Apply…" }).click();
    await page.getByRole("button", { name: "Apply adjustment" }).waitFor();
    await checkPage(page, "adjustment-apply-confirm");
    await page.getByRole("button", { name: "Apply adjustment" }).click();
    await page.getByText(/applied: stock moved\./).waitFor();
    const applied = await page.getByRole("table").innerText();
    assert.match(applied, new RegExp(`SKU ${tracked[2].sku}\\s+\\+10\\s+2\\s+12`));
    assert.match(applied, new RegExp(`SKU ${tracked[3].sku}\\s+\\+4\\s+1\\s+5`));
    await checkPage(page, "adjustment-applied");
    const level = (
      await store.api.get(
        `/v2/inventory_levels?inventory_item_id=${tracked[2].inventory_item_id}&location_id=${location.id}`,
      )
    ).body.data[0];
    assert.equal(level.available, 12);
    await page.goto(`${base}/console/stores/${store.id}/stock_adjustments?status=applied`);
    await checkPage(page, "adjustments");
    await page.context().close();
  });

  test("a purchasing user raises an order from the low-stock list; it opens as a draft", async () => {
    const page = await signIn("bo@example.com");
    await page.goto(`${base}/console/stores/${store.id}/stock/low`);
    await checkPage(page, "low-stock-purchasing");
    const form = page.getByRole("form", { name: /Raise an order for/ }).first();
    await form.getByRole("spinbutton").fill("6");
    await form.getByRole("button", { name: "Raise an order" }).click();
    await page.getByText(/Draft PO-\d+ raised for 6 ×/).waitFor();
    assert.match(page.url(), /\/purchase_orders\/\d+$/);
    await checkPage(page, "raised-order");
    await page.context().close();
  });

  test("on a phone (390 px) the stock lists are cards: nothing scrolls sideways, each quantity under its name", async () => {
    const page = await signIn("bo@example.com");
    await page.setViewportSize({ width: 390, height: 800 });
    for (const rest of ["/stock", "/stock/low"]) {
      await page.goto(`${base}/console/stores/${store.id}${rest}`);
      // No helper functions inside: tsx names them with a helper the page does not have.
      const seen = await page.evaluate(() => {
        const table = document.querySelector("main table") as HTMLTableElement;
        const wrap = table.closest(".table-wrap") as HTMLElement;
        const row = table.querySelector("tbody tr") as HTMLTableRowElement;
        const heading = row.querySelector('th[scope="row"]') as HTMLElement;
        const available = row.querySelector('td[data-label="Available"]') as HTMLElement;
        const incoming = row.querySelector('td[data-label="Incoming"]') as HTMLElement;
        return {
          screen: document.documentElement.clientWidth,
          scroll: [wrap.scrollWidth, wrap.clientWidth],
          right: Math.round(table.getBoundingClientRect().right),
          heading: heading.innerText,
          label: getComputedStyle(available, "::before").content,
          // A card stacks its cells: "Available" sits below the item, not beside it.
          below: available.getBoundingClientRect().top >= heading.getBoundingClientRect().bottom - 1,
          incoming: getComputedStyle(incoming, "::before").content,
        };
      });
      assert.ok(
        seen.scroll[0] <= seen.scroll[1] + 1,
        `${rest}: ${seen.scroll[0]} px in a ${seen.scroll[1]} px box`,
      );
      assert.ok(
        seen.right <= seen.screen + 1,
        `${rest}: the table ends at ${seen.right} px of ${seen.screen}`,
      );
      assert.match(seen.heading, /SKU /, rest);
      assert.equal(seen.label, '"Available"', rest);
      assert.equal(seen.incoming, '"Incoming"', rest);
      assert.equal(seen.below, true, rest);
      await screenshot(page, artifactsDir, `phone${rest.replaceAll("/", "-")}-390.png`);
    }
    await page.context().close();
  });

  test("a viewer opens every stock page and finds no write control", async () => {
    const page = await signIn("vi@example.com");
    const adjustments = (await store.api.get("/v2/stock_adjustments?status=applied")).body.data;
    for (const [name, rest] of [
      ["viewer-stock", "/stock"],
      ["viewer-low-stock", "/stock/low"],
      ["viewer-adjustments", "/stock_adjustments?status=all"],
      ["viewer-adjustment", `/stock_adjustments/${adjustments[0].id}`],
      ["viewer-alert-rules", "/alert_rules"],
    ]) {
      await page.goto(`${base}/console/stores/${store.id}${rest}`);
      assert.equal(await page.locator("main form[method=post]").count(), 0, name);
      assert.equal(await page.locator("main input:not([type=search]), main textarea").count(), 0, name);
      await checkPage(page, name);
    }
    await page.context().close();
    assert.deepEqual(foreign, []);
  });
});
