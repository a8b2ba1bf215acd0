/**
 * The console's pages that no other browser test opens (issue 20, "Screenshots of every page at 1280
 * and 390 px… axe-core… on any page"): a supplier's edit form, the questions asked before removing a
 * catalog row, closing an order, marking it unpaid and cancelling an adjustment, the not-found page,
 * and the pages a person meets before signing in: forgotten password (asked and answered), the owner
 * claim of a store made without one, and the choice of store for an email in two. Each page gets the
 * checks every browser test's pages get (pageChecker: axe-core, no sideways scroll, the tables' fit at
 * both widths, screenshots with STOCKROOM_SCREENSHOTS); a question page is also checked
 * to have changed nothing.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { installLandingPath } from "../../src/domain/staff/index.ts";
import type { TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import {
  artifactsFolder,
  type BrowserConsole,
  browserSkip,
  pageChecker,
  startConsoleAsOperator,
} from "../helpers/console-browser.ts";
import {
  createOrderedOrder,
  createSupplier,
  getOrder,
  listLocations,
  trackedVariants,
} from "../helpers/factories.ts";
import { startSmtp, type TestSmtp } from "../helpers/smtp.ts";
import { joinStaff } from "../helpers/staff.ts";

const PASSWORD = "a long enough password";

describe("the console's other pages in a browser", { skip: browserSkip }, () => {
  let session: BrowserConsole;
  let smtp: TestSmtp;
  let store: TestStore;
  let base: string;
  let page: Page;
  const checkPage = pageChecker(artifactsFolder("console-more-pages"));
  const storeUrl = (rest = "") => `${base}/console/stores/${store.id}${rest}`;

  before(async () => {
    smtp = await startSmtp();
    session = await startConsoleAsOperator({ app: { env: { SMTP_URL: smtp.url } } });
    ({ store, base, page } = session);
  });
  after(async () => {
    await session?.close();
    await smtp?.close();
  });

  test("the operator's pages: a supplier's edit form and the questions before taking something away", async () => {
    const supplier = await createSupplier(store.api, {
      name: "Rose City Ceramics",
      currency: "USD",
      email: "orders@rosecity.test",
      address_line1: "1 Main St",
      city: "Portland",
      province: "OR",
      zip: "97209",
      country: "United States",
    });
    const [item, other] = await trackedVariants(store.api);
    expectStatus(
      await store.api.put(`/v2/suppliers/${supplier.id}/catalog`, {
        rows: [{ variant_id: item.id, supplier_sku: "RCC-1", tiers: [{ min_qty: 1, price: "4.50" }] }],
      }),
      200,
    );
    await page.goto(storeUrl(`/suppliers/${supplier.id}/edit`));
    await page.getByRole("heading", { name: "Edit Rose City Ceramics", level: 1 }).waitFor();
    await checkPage(page, "supplier-edit");

    await page.goto(storeUrl(`/suppliers/${supplier.id}`));
    await page.getByRole("button", { name: /^Remove .+ from the catalog$/ }).click();
    await page.getByRole("heading", { name: "Remove from catalog?", level: 1 }).waitFor();
    await checkPage(page, "catalog-remove-question");
    assert.equal((await store.api.get(`/v2/suppliers/${supplier.id}/catalog`)).body.data.length, 1);

    const order = await createOrderedOrder(store.api, {
      supplier_id: supplier.id,
      lines: [
        { variant_id: item.id, quantity: 6, unit_cost: "4.50" },
        { variant_id: other.id, quantity: 2, unit_cost: "9.00" },
      ],
    });
    await page.goto(storeUrl(`/purchase_orders/${order.id}`));
    await page.getByRole("link", { name: "Close…" }).click();
    await page.getByRole("heading", { level: 1 }).waitFor();
    await checkPage(page, "order-close-question");
    assert.equal((await getOrder(store.api, order.id)).status, "ordered");

    expectStatus(await store.api.post(`/v2/purchase_orders/${order.id}/payments`, { amount: "10.00" }), 201);
    await page.goto(storeUrl(`/purchase_orders/${order.id}`));
    await page.getByRole("link", { name: "Mark unpaid…" }).click();
    await page.getByRole("heading", { name: "Mark unpaid?", level: 1 }).waitFor();
    await checkPage(page, "order-mark-unpaid-question");
    assert.equal((await getOrder(store.api, order.id)).payments.length, 1);

    const [location] = await listLocations(store.api);
    const adjustment = await store.api.post("/v2/stock_adjustments", {
      location_id: location.id,
      reason: "damaged",
      lines: [{ variant_id: item.id, delta: -1 }],
    });
    expectStatus(adjustment, 201);
    await page.goto(storeUrl(`/stock_adjustments/${adjustment.body.data.id}`));
    await page.getByRole("button", { name: "Cancel adjustment…" }).click();
    await page.getByRole("heading", { name: `Cancel ${adjustment.body.data.number}?`, level: 1 }).waitFor();
    await checkPage(page, "adjustment-cancel-question");
    assert.equal(
      (await store.api.get(`/v2/stock_adjustments/${adjustment.body.data.id}`)).body.data.status,
      "draft",
    );

    const missing = await page.goto(storeUrl("/purchase_orders/999999"));
    assert.equal(missing?.status(), 404);
    await checkPage(page, "not-found");
    assert.deepEqual(session.foreign, []);
  });

  test("before signing in: a forgotten password, an owner's claim, the choice of store", async () => {
    const visitor = await session.browser.newPage({ viewport: { width: 1280, height: 800 } });
    const foreign: string[] = [];
    visitor.on("request", (r) => {
      if (!r.url().startsWith(`${base}/`)) foreign.push(r.url());
    });
    await visitor.goto(`${base}/console/login`);
    await visitor.getByRole("link", { name: "Forgot your password?" }).click();
    await visitor.getByRole("heading", { level: 1 }).waitFor();
    await checkPage(visitor, "forgot-password");
    await visitor.getByLabel("Email").fill("nobody@example.com");
    await visitor.getByRole("button", { name: "Send me a link" }).click();
    await visitor.getByRole("status").first().waitFor();
    await checkPage(visitor, "forgot-password-sent");

    // A store made without an owner (as a Shopify install makes it): the page that asks who runs it.
    const created = await session.t.admin.post("/admin/stores", {
      name: "Shopify Shop",
      currency: "USD",
      timezone: "UTC",
    });
    expectStatus(created, 201);
    const shop = created.body.data.id as number;
    await visitor.goto(`${base}${await installLandingPath(session.t.runtime.ctx, shop)}`);
    await visitor.getByText("Shopify Shop is connected. Who runs it?").waitFor();
    await checkPage(visitor, "owner-claim");

    // One email in two stores with one password: the sign-in asks which store.
    await joinStaff(session.t, smtp, store.id, "pat@example.com", "purchasing", PASSWORD);
    await joinStaff(session.t, smtp, shop, "pat@example.com", "viewer", PASSWORD);
    await visitor.goto(`${base}/console/login`);
    await visitor.getByLabel("Email").fill("pat@example.com");
    await visitor.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await visitor.getByRole("button", { name: "Sign in", exact: true }).click();
    await visitor.getByRole("button", { name: "Shopify Shop", exact: true }).waitFor();
    await checkPage(visitor, "choose-store");
    await visitor.close();
    assert.deepEqual(foreign, []);
  });
});
