/**
 * The supplier pages in Chromium (issue 20 item 2): the operator creates a supplier (a wrong email is
 * named on its field first), finds an item by SKU and adds it with price tiers, imports a CSV with one
 * bad row (refused, nothing written), searches the list and archives. Every page gets the checks every
 * browser test's pages get (pageChecker: axe-core, the sideways scroll and the tables' fit at 1280 and
 * 390 px; screenshots with STOCKROOM_SCREENSHOTS).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import type { TestStore } from "../helpers/app.ts";
import {
  artifactsFolder,
  type BrowserConsole,
  browserSkip,
  pageChecker,
  startConsoleAsOperator,
} from "../helpers/console-browser.ts";
import { createDraftOrder, createSupplier, customLine, listVariants } from "../helpers/factories.ts";

describe("supplier pages in a browser", { skip: browserSkip }, () => {
  let store: TestStore;
  let base: string;
  let session: BrowserConsole;
  let page: Page;
  const checkPage = pageChecker(artifactsFolder("console-suppliers"));
  let foreign: string[];

  before(async () => {
    ({ store, base, page, foreign } = session = await startConsoleAsOperator());
  });
  after(() => session?.close());

  test("create, refuse a field, add a catalog item with tiers, refuse a bad CSV, search, archive", async () => {
    const suppliers = `${base}/console/stores/${store.id}/suppliers`;
    await page.goto(suppliers);
    await checkPage(page, "suppliers-empty");
    await page.getByRole("link", { name: "New supplier" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Rose City Ceramics");
    await page.getByLabel(/^Currency/).fill("usd");
    await page.getByLabel(/^Email/).fill("orders@rosecity");
    await page.getByLabel("Street address").fill("1 Main St");
    await page.getByLabel("City").fill("Portland");
    await page.getByLabel("State or province").fill("OR");
    await page.getByLabel("ZIP or postal code").fill("97209");
    await page.getByLabel("Country").fill("United States");
    await checkPage(page, "supplier-new");
    // The browser's own email check lets "orders@rosecity" through; the API refuses it.
    await page.getByRole("button", { name: "Create supplier" }).click();
    await page.getByRole("alert").first().waitFor();
    assert.match(await page.getByRole("alert").first().innerText(), /Email/);
    assert.equal(await page.getByLabel(/^Email/).getAttribute("aria-invalid"), "true");
    await checkPage(page, "supplier-refused");
    await page.getByLabel(/^Email/).fill("orders@rosecity.test");
    await page.getByRole("button", { name: "Create supplier" }).click();
    await page.getByText("Supplier “Rose City Ceramics” created.").waitFor();
    await checkPage(page, "supplier");

    const [item] = (await listVariants(store.api)).filter((v) => v.sku);
    await page.getByLabel("Title, SKU or barcode").fill(item.sku as string);
    await page.getByRole("button", { name: "Find items" }).click();
    await page.getByLabel("Supplier SKU").fill("RCC-1");
    await page.getByLabel("Pack size").fill("6");
    await page.getByLabel(/^Price tiers/).fill("1:4.50 24:4.00");
    await checkPage(page, "catalog-add");
    await page.getByRole("button", { name: "Add to catalog" }).click();
    await page.getByText("Item added to the catalog.").waitFor();
    assert.match(await page.getByRole("table").innerText(), /1\+ at \$4\.50 USD, 24\+ at \$4\.00 USD/);

    const supplierUrl = page.url().split("#")[0];
    await page.getByLabel(/^CSV rows/).fill(`sku,supplier_sku,pack_size\n${item.sku},RCC-2,none\n`);
    await page.getByRole("button", { name: "Import" }).click();
    await page.getByText("Nothing was imported.").waitFor();
    assert.match(await page.getByRole("alert").innerText(), /Line 2, pack_size: must be a whole number/);
    await checkPage(page, "catalog-import-refused");
    const catalog = await store.api.get(
      `${supplierUrl.replace(/.*\/suppliers\//, "/v2/suppliers/")}/catalog`,
    );
    assert.deepEqual(
      catalog.body.data.map((r: any) => [r.supplier_sku, r.pack_size]),
      [["RCC-1", 6]],
    );

    await page.goto(`${suppliers}?q=rose`);
    assert.match(await page.getByRole("table").innerText(), /Rose City Ceramics/);
    await checkPage(page, "suppliers-search");
    await page.goto(supplierUrl);
    await page.getByRole("button", { name: "Archive" }).click();
    await page.getByText("“Rose City Ceramics” archived.").waitFor();
    await checkPage(page, "supplier-archived");
    assert.deepEqual(foreign, []);
  });

  test("a draft order's page, the send preview and the sent order", async () => {
    const supplier = await createSupplier(store.api, { name: "Acme Parts", email: "orders@acme.test" });
    const order = await createDraftOrder(store.api, {
      supplier_id: supplier.id,
      lines: [customLine(3, "12.50")],
    });
    await page.goto(`${base}/console/stores/${store.id}/purchase_orders/${order.id}`);
    await checkPage(page, "order-draft");
    await page.getByRole("link", { name: "Send by email…" }).click();
    await page.getByLabel("Message").fill("Before Friday, please.");
    assert.match(await page.getByRole("region", { name: "The mail" }).innerText(), /Total: USD 37\.50/);
    await checkPage(page, "order-send-preview");
    await page.getByRole("button", { name: `Send ${order.number} and mark it ordered` }).click();
    await page.getByText(`${order.number} is on its way to the supplier.`).waitFor();
    await checkPage(page, "order-sent");
    assert.equal((await store.api.get(`/v2/purchase_orders/${order.id}`)).body.data.status, "ordered");
    assert.deepEqual(foreign, []);
  });
});
