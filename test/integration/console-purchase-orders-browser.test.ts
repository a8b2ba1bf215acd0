/**
 * The purchase order list and an order's lifecycle in Chromium (issue 20 item 3): a purchasing user
 * filters and searches the list, sorts it, pages on; duplicates an order (the copy opens), deletes the
 * copy after the question, marks an order in transit, cancels a line's remainder, closes, reopens and
 * archives after the question. Every page gets the checks every browser test's pages get (pageChecker:
 * axe-core, the sideways scroll and the tables' fit at 1280 and 390 px; screenshots with
 * STOCKROOM_SCREENSHOTS).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { artifactsFolder, browserSkip, launchChromium, pageChecker } from "../helpers/console-browser.ts";
import { createDraftOrder, createOrderedOrder, createSupplier, listVariants } from "../helpers/factories.ts";
import { startSmtp, type TestSmtp } from "../helpers/smtp.ts";
import { joinStaff } from "../helpers/staff.ts";

describe("purchase order pages in a browser", { skip: browserSkip }, () => {
  let t: TestApp;
  let smtp: TestSmtp;
  let store: TestStore;
  let base: string;
  let browser: Browser;
  let page: Page;
  const checkPage = pageChecker(artifactsFolder("console-purchase-orders"));
  const foreign: string[] = [];
  const orders: any[] = [];

  before(async () => {
    smtp = await startSmtp();
    t = await startTestApp({ env: { SMTP_URL: smtp.url } });
    await t.runtime.app.listen({ host: "127.0.0.1", port: 0 });
    base = `http://127.0.0.1:${(t.runtime.app.server.address() as { port: number }).port}`;
    store = await t.createStore({ name: "Harbour Hardware", seed: "demo" });
    await t.drain();
    const variants = (await listVariants(store.api)).slice(0, 3);
    const lines = variants.map((v, i) => ({ variant_id: v.id, quantity: 4 + i, unit_cost: `${12 + i}.50` }));
    const acme = await createSupplier(store.api, { name: "Acme Parts & Tools" });
    const rose = await createSupplier(store.api, { name: "Rose City Ceramics" });
    orders.push(
      await createOrderedOrder(store.api, { supplier_id: acme.id, reference: "Spring restock", lines }),
    );
    orders.push(
      await createDraftOrder(store.api, { supplier_id: rose.id, reference: "Mugs for the café", lines }),
    );
    for (let i = 0; i < 6; i++)
      orders.push(
        await createDraftOrder(store.api, {
          supplier_id: i % 2 ? acme.id : rose.id,
          lines: lines.slice(0, 1),
        }),
      );
    await joinStaff(t, smtp, store.id, "pat@example.com", "purchasing");
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.on("request", (r) => {
      if (!r.url().startsWith(`${base}/`)) foreign.push(r.url());
    });
    await page.goto(`${base}/console/login`);
    await page.getByLabel("Email").fill("pat@example.com");
    await page.getByLabel("Password").fill("a long enough password");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(`${base}/console/stores/${store.id}`);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  const rowsOf = async () =>
    (await page.getByRole("table", { name: "Purchase orders" }).locator("tbody tr").allInnerTexts()).map(
      (r) => r.split("\t")[0].trim(),
    );

  test("the list: newest first, filters, search, sort", async () => {
    await page.goto(`${base}/console/stores/${store.id}/purchase_orders`);
    assert.deepEqual(
      await rowsOf(),
      [...orders].reverse().map((o) => o.number),
    );
    await checkPage(page, "orders");
    await page.getByLabel("Status").selectOption({ label: "Open" });
    await page.getByRole("button", { name: "Find" }).click();
    await page.waitForURL(/status=/);
    assert.deepEqual(await rowsOf(), [orders[0].number]);
    await checkPage(page, "orders-open");
    await page.getByLabel("Status").selectOption({ label: "Any" });
    await page.getByLabel("Number or reference").fill("café");
    await page.getByRole("button", { name: "Find" }).click();
    await page.waitForURL(/q=caf/);
    assert.deepEqual(await rowsOf(), [orders[1].number]);
    await checkPage(page, "orders-search");
    await page.getByLabel("Number or reference").fill("");
    await page.getByLabel("Supplier").fill("Acme Parts & Tools");
    await page.getByLabel("Sort").selectOption({ label: "Oldest first" });
    await page.getByRole("button", { name: "Find" }).click();
    await page.waitForURL(/sort=created_at/);
    assert.deepEqual(
      await rowsOf(),
      [orders[0], orders[3], orders[5], orders[7]].map((o) => o.number),
    );
    await page.getByRole("link", { name: "Acme Parts & Tools" }).first().click();
    await page.waitForURL(/\/suppliers\/\d+$/);
    assert.deepEqual(foreign, []);
  });

  test("an order's lifecycle: duplicate and delete the copy, in transit, cancel remaining, close, reopen, archive", async () => {
    const [order] = orders;
    await page.goto(`${base}/console/stores/${store.id}/purchase_orders`);
    await page.getByRole("link", { name: order.number, exact: true }).click();
    await page.getByRole("heading", { name: `Purchase order ${order.number}` }).waitFor();
    await checkPage(page, "order-ordered");

    await page.getByRole("button", { name: "Duplicate" }).click();
    await page.getByText(`is a new draft copied from ${order.number}.`).waitFor();
    await checkPage(page, "order-duplicate");
    await page.getByRole("link", { name: "Delete draft…" }).click();
    await checkPage(page, "order-delete-question");
    await page.getByRole("button", { name: "Delete the draft" }).click();
    await page.getByText(/Draft PO-\d+ is deleted\./).waitFor();

    await page.goto(`${base}/console/stores/${store.id}/purchase_orders/${order.id}`);
    await page.getByLabel("Expected").fill("2031-03-15");
    await page.getByRole("button", { name: "Mark in transit" }).click();
    await page.getByText(`${order.number} is in transit.`).waitFor();
    await page
      .getByRole("link", { name: /Cancel remaining/ })
      .first()
      .click();
    await checkPage(page, "order-cancel-remaining-question");
    await page.getByRole("button", { name: "Cancel the remaining quantity" }).click();
    await page.getByText(/are cancelled\./).waitFor();
    await checkPage(page, "order-line-cancelled");

    await page.getByRole("link", { name: "Close…" }).click();
    await page.getByRole("button", { name: "Close the order" }).click();
    await page.getByText(`${order.number} is closed.`).waitFor();
    await page.getByRole("button", { name: "Reopen" }).click();
    await page.getByText(`${order.number} is reopened.`).waitFor();
    await page.getByRole("link", { name: "Archive…" }).click();
    await checkPage(page, "order-archive-question");
    await page.getByRole("button", { name: "Close and archive" }).click();
    await page.getByText(`${order.number} is archived (closed first).`).waitFor();
    await checkPage(page, "order-archived");
    const now = (await store.api.get(`/v2/purchase_orders/${order.id}`)).body.data;
    assert.deepEqual([now.status, now.archived, now.expected_at], ["closed", true, "2031-03-15"]);
    const history = (await store.api.get(`/v2/purchase_orders/${order.id}/history?limit=250`)).body.data;
    assert.deepEqual(
      history
        .filter((h: any) => h.via === "console")
        .map((h: any) => [h.type, h.by])
        .reverse(),
      [
        ["duplicated", "pat@example.com"],
        ["in_transit", "pat@example.com"],
        ["line_cancelled", "pat@example.com"],
        ["closed", "pat@example.com"],
        ["reopened", "pat@example.com"],
        ["closed", "pat@example.com"],
        ["archived", "pat@example.com"],
      ],
    );
    assert.deepEqual(foreign, []);
  });
});
