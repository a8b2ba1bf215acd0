/**
 * The settings area and the supplier merge and prices pages in Chromium (issue 20 items 7 and 2): the
 * operator walks the settings pages, saves tax rates, looks at a merge's confirmation and a catalog
 * item's prices. Every page gets the checks every browser test's pages get (pageChecker: axe-core, the
 * sideways scroll and the tables' fit at 1280 and 390 px; screenshots with STOCKROOM_SCREENSHOTS).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import type { TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import {
  artifactsFolder,
  type BrowserConsole,
  browserSkip,
  pageChecker,
  startConsoleAsOperator,
} from "../helpers/console-browser.ts";
import { createDraftOrder, createSupplier, customLine, listVariants } from "../helpers/factories.ts";

describe("settings, merge and prices pages in a browser", { skip: browserSkip }, () => {
  let store: TestStore;
  let base: string;
  let session: BrowserConsole;
  let page: Page;
  const checkPage = pageChecker(artifactsFolder("console-settings"));
  let foreign: string[];

  before(async () => {
    ({ store, base, page, foreign } = session = await startConsoleAsOperator());
  });
  after(() => session?.close());

  test("the settings pages, tax rates saved, a merge's confirmation and an item's prices", async () => {
    await page.goto(`${base}/console/stores/${store.id}`);
    await page.getByRole("link", { name: "Settings", exact: true }).click();
    await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
    await checkPage(page, "settings-general");
    const nav = page.getByRole("navigation", { name: "Settings" });
    await nav.getByRole("link", { name: "Tax rates" }).click();
    await page.getByLabel("Name, row 1").fill("VAT 20%");
    await page.getByLabel("Rate (%), row 1").fill("20");
    await page.getByRole("button", { name: "Save tax rates" }).click();
    await page.getByText("Tax rates saved.").waitFor();
    await checkPage(page, "settings-tax-rates");
    await nav.getByRole("link", { name: "Exchange rates" }).click();
    await page.getByRole("heading", { name: "Exchange rates", level: 1 }).waitFor();
    await checkPage(page, "settings-exchange-rates");
    await nav.getByRole("link", { name: "Locations" }).click();
    await page.getByRole("heading", { name: "Locations", level: 1 }).waitFor();
    await checkPage(page, "settings-locations");
    await nav.getByRole("link", { name: "Webhooks" }).click();
    await page.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor();
    await checkPage(page, "settings-webhooks");
    await nav.getByRole("link", { name: "Platform sync" }).click();
    await page.getByRole("heading", { name: "Platform sync", level: 1 }).waitFor();
    await checkPage(page, "settings-sync");

    const variants = (await listVariants(store.api)).slice(0, 2);
    const target = await createSupplier(store.api, { name: "Anchor Tools" });
    const source = await createSupplier(store.api, { name: "Anchor Tools Ltd", phone: "+44 20 7946 0000" });
    expectStatus(
      await store.api.put(`/v2/suppliers/${source.id}/catalog`, {
        rows: [{ variant_id: variants[0].id, tiers: [{ min_qty: 1, price: 3 }] }],
      }),
      200,
    );
    await createDraftOrder(store.api, { supplier_id: source.id, lines: [customLine()] });
    await page.goto(`${base}/console/stores/${store.id}/suppliers/${target.id}`);
    await page.getByRole("link", { name: "Merge duplicates into this supplier" }).click();
    await page.getByLabel(/Anchor Tools Ltd/).check();
    await checkPage(page, "merge-pick");
    await page.getByRole("button", { name: "See what would move" }).click();
    await page.getByRole("heading", { name: "Merge 1 supplier into Anchor Tools?" }).waitFor();
    assert.match(await page.getByRole("table").innerText(), /Purchase orders\s+1\s+Catalog items\s+1/);
    await checkPage(page, "merge-confirm");
    await page.getByRole("button", { name: "Merge into Anchor Tools" }).click();
    await page.getByText(/Merged 1 supplier into Anchor Tools/).waitFor();
    await checkPage(page, "merged");

    await page
      .getByRole("link", { name: /^Prices of / })
      .first()
      .click();
    await page.getByLabel(/^Price tiers/).fill("1:3.25 10:3.00");
    await page.getByLabel(/^Effective from/).fill("2099-01-01");
    await page.getByRole("button", { name: "Save prices" }).click();
    await page.getByText("Prices saved, from 1 Jan 2099.").waitFor();
    await checkPage(page, "prices-upcoming");
    assert.deepEqual(foreign, []);
  });
});
