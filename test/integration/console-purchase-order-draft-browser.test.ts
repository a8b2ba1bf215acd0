/**
 * The draft order editor in Chromium (issue 20 item 3): the operator opens "New purchase order", picks
 * the supplier, finds items by title and by SKU (the supplier's item first, with its tiers), sees the
 * pack-size warning and the line and order totals change as a quantity and a shipping charge are typed,
 * and a line's own tax (none, a rate, the order's) change the totals live, has a zero quantity refused
 * on its field, saves, lands on the draft's page, edits it (a line removed, a quantity changed, a line's
 * own rate) and saves again. Every page gets the checks every browser test's pages get (pageChecker:
 * axe-core, the sideways scroll and the tables' fit at 1280 and 390 px; screenshots with
 * STOCKROOM_SCREENSHOTS).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import type { TestApp, TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import {
  artifactsFolder,
  type BrowserConsole,
  browserSkip,
  pageChecker,
  startConsoleAsOperator,
} from "../helpers/console-browser.ts";
import { createSupplier, getOrder, listVariants, type Variant } from "../helpers/factories.ts";

describe("draft order editor in a browser", { skip: browserSkip }, () => {
  let t: TestApp;
  let store: TestStore;
  let base: string;
  let session: BrowserConsole;
  let page: Page;
  let foreign: string[];
  let variants: Variant[];
  const checkPage = pageChecker(artifactsFolder("console-purchase-order-draft"));
  const bySku = (sku: string) => variants.find((v) => v.sku === sku) as Variant;

  before(async () => {
    ({ t, store, base, page, foreign } = session = await startConsoleAsOperator({
      store: { currency: "USD" },
    }));
    variants = await listVariants(store.api);
    expectStatus(
      await t.admin.put(`/admin/stores/${store.id}/tax_rates`, {
        rates: [{ name: "VAT 20%", rate_percent: "20" }],
      }),
      200,
    );
    const supplier = await createSupplier(store.api, { name: "Northwind Apparel Co", currency: "USD" });
    expectStatus(
      await store.api.put(`/v2/suppliers/${supplier.id}/catalog`, {
        rows: [
          {
            variant_id: bySku("TEE-M").id,
            supplier_sku: "NW-TM",
            pack_size: 6,
            pack_unit: "box",
            min_order_qty: 12,
            tiers: [
              { min_qty: 1, price: "8.00" },
              { min_qty: 24, price: "7.50" },
            ],
          },
        ],
      }),
      200,
    );
  });
  after(() => session?.close());

  test("raise an order with the picker, live warnings and totals, a refused field, then edit it", async () => {
    await page.goto(`${base}/console/stores/${store.id}/purchase_orders`);
    await page.getByRole("link", { name: "New purchase order" }).click();
    await page.getByLabel("Supplier", { exact: true }).fill("Northwind Apparel Co");
    await checkPage(page, "new-empty");

    // The search box is wide enough for a product's title (it was 110 px, under 12 characters).
    const searchBox = page.getByLabel("Find by title, SKU or barcode");
    assert.ok(
      ((await searchBox.boundingBox())?.width ?? 0) >= 250,
      "the item search is at least 250 px wide",
    );
    await page.getByLabel("Find by title, SKU or barcode").fill("classic tee");
    await page.getByRole("button", { name: "Search" }).click();
    const results = page.getByRole("list", { name: "Items found" });
    await results.waitFor();
    assert.match(
      await results.locator("li").first().innerText(),
      /Classic Tee – M TEE-M \d{13}\nFrom this supplier · Supplier SKU NW-TM · packs of 6 \(box\) · minimum 12 · 1\+ at \$8\.00 USD, 24\+ at \$7\.50 USD/,
    );
    await checkPage(page, "picker-results");
    await results.locator("li").first().getByRole("button", { name: "Add" }).click();
    const qty = page.getByLabel("Quantity of Classic Tee – M");
    assert.equal(await qty.inputValue(), "12");
    assert.equal(await page.locator("#line-warn-0").innerText(), "");
    assert.equal(await page.locator("tr[data-line] output.line-total").first().innerText(), "$96.00 USD");

    // As the user types: the pack warning, the line total and the order's totals follow.
    await qty.fill("13");
    await page.getByText("Not a whole number of packs of 6 (box). Suggested: 18.").waitFor();
    assert.equal(await page.locator("tr[data-line] output.line-total").first().innerText(), "$104.00 USD");
    await page.getByLabel("Amount", { exact: true }).fill("10.00");
    assert.equal(await page.locator("#total-subtotal").innerText(), "$104.00 USD");
    assert.equal(await page.locator("#total-charges").innerText(), "$10.00 USD");
    assert.equal(await page.locator("#total-tax").innerText(), "$0.00 USD");
    assert.equal(await page.locator("#total-total").innerText(), "$114.00 USD");
    // The tax picker, prices with or without tax, taxed charges and a line discount, all live.
    await page.getByLabel("Tax", { exact: true }).selectOption({ label: "VAT 20% (20%)" });
    assert.equal(await page.locator("#total-tax").innerText(), "$20.80 USD");
    assert.equal(await page.locator("#total-total").innerText(), "$134.80 USD");
    // A line's own tax: not taxed, a rate of its own, then the order's again.
    const lineTax = page.getByLabel("Tax on Classic Tee – M");
    await lineTax.selectOption({ label: "Not taxed" });
    assert.equal(await page.locator("#total-tax").innerText(), "$0.00 USD");
    assert.equal(await page.locator("#total-total").innerText(), "$114.00 USD");
    await page.getByLabel("Tax", { exact: true }).selectOption({ label: "No tax" });
    await lineTax.selectOption({ label: "VAT 20% (20%)" });
    assert.equal(await page.locator("#total-tax").innerText(), "$20.80 USD");
    await checkPage(page, "new-line-tax");
    await page.getByLabel("Tax", { exact: true }).selectOption({ label: "VAT 20% (20%)" });
    await lineTax.selectOption({ label: "Order's tax" });
    await page.getByLabel("Charges are taxed").check();
    assert.equal(await page.locator("#total-tax").innerText(), "$22.80 USD");
    await page.getByLabel("Discount in percent on Classic Tee – M (blank: none)").fill("12.5");
    assert.equal(await page.locator("tr[data-line] output.line-total").first().innerText(), "$91.00 USD");
    assert.equal(await page.locator("#total-tax").innerText(), "$20.20 USD");
    await page.getByLabel("Prices include tax").check();
    // Included: 91.00 × 20/120 = 15.17 and 10.00 × 20/120 = 1.67; the total is the amounts themselves.
    assert.equal(await page.locator("#total-tax").innerText(), "$16.84 USD");
    assert.equal(await page.locator("#total-total").innerText(), "$101.00 USD");
    await checkPage(page, "new-taxed");
    await page.getByLabel("Prices include tax").uncheck();
    await page.getByLabel("Charges are taxed").uncheck();
    await page.getByLabel("Discount in percent on Classic Tee – M (blank: none)").fill("");
    await page.getByLabel("Tax", { exact: true }).selectOption({ label: "No tax" });
    await qty.fill("24");
    assert.equal(await page.locator("#line-warn-0").innerText(), "");
    assert.equal(await page.locator("tr[data-line] output.line-total").first().innerText(), "$180.00 USD");
    await qty.fill("13");
    await checkPage(page, "new-warned");

    // A second item found by its SKU.
    await page.getByLabel("Find by title, SKU or barcode").fill("cap-black");
    await page.getByRole("button", { name: "Search" }).click();
    await page
      .getByRole("list", { name: "Items found" })
      .getByRole("button", { name: "Add" })
      .first()
      .click();
    const capQty = page.getByLabel("Quantity of Canvas Cap – Black");
    assert.equal(await capQty.inputValue(), "1");
    assert.equal(
      await page.getByLabel("Quantity of Classic Tee – M").inputValue(),
      "13",
      "the form kept the typing",
    );

    // The browser itself refuses a quantity below 1 (min="1"); a cost that is no amount reaches the API.
    await capQty.fill("4");
    await page.getByLabel("Unit cost of Canvas Cap – Black (blank: the supplier's price)").fill("abc");
    await page.getByRole("button", { name: "Save draft" }).click();
    await page.getByRole("alert").first().waitFor();
    assert.match(
      await page.getByRole("alert").first().innerText(),
      /Line 2 \(Canvas Cap – Black\) unit cost /,
    );
    const cost = page.getByLabel("Unit cost of Canvas Cap – Black (blank: the supplier's price)");
    assert.equal(await cost.getAttribute("aria-invalid"), "true");
    await checkPage(page, "new-refused");
    await cost.fill("");
    await page.getByLabel("Reference", { exact: true }).fill("SPRING-1");
    await page.getByRole("button", { name: "Save draft" }).click();
    await page.getByText(/is saved as a draft\. Classic Tee – M: The quantity is not a multiple/).waitFor();
    const orderId = Number(/purchase_orders\/(\d+)$/.exec(page.url())?.[1]);
    const saved = await getOrder(store.api, orderId);
    assert.deepEqual(
      saved.lines.map((l: any) => [l.sku, l.quantity, l.unit_cost]),
      [
        ["TEE-M", 13, "8.00"],
        ["CAP-BLACK", 4, bySku("CAP-BLACK").unit_cost],
      ],
    );
    assert.equal(saved.totals.charges, "10.00");
    await checkPage(page, "draft-page");

    await page.getByRole("link", { name: "Edit draft" }).click();
    assert.equal(await page.locator("#total-subtotal").innerText(), `$${saved.totals.subtotal} USD`);
    await checkPage(page, "edit");
    await page.getByLabel("Quantity of Classic Tee – M").fill("24");
    await page.locator("tr[data-line]").nth(1).getByLabel("Remove").check();
    // The order has no tax; the tees bear VAT of their own: 20% of 24 × 7.50.
    await page.getByLabel("Tax on Classic Tee – M").selectOption({ label: "VAT 20% (20%)" });
    assert.equal(await page.locator("#total-tax").innerText(), "$36.00 USD");
    await page.getByRole("button", { name: "Save draft" }).click();
    await page.getByText(`${saved.number} is saved as a draft.`).waitFor();
    const edited = await getOrder(store.api, orderId);
    assert.deepEqual(
      edited.lines.map((l: any) => [l.sku, l.quantity, l.unit_cost, l.taxable, l.tax_rate_percent]),
      [["TEE-M", 24, "7.50", true, 20]],
    );
    assert.equal(edited.totals.tax, "36.00");
    assert.deepEqual(foreign, [], "the console fetched nothing from elsewhere");
  });
});
