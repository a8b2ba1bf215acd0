/**
 * The whole merchant story in Debian's Chromium (issue 20, "Tests must show"), one store, one service,
 * one test SMTP server, each person in a browser of their own:
 *   the invited owner sets a password and invites a purchasing user;
 *   the purchasing user creates a supplier with a price tier, raises an order for three items found by
 *   search, sees the pack-size warning, sends the order (the mail with its PDF reaches the SMTP server),
 *   receives it in two deliveries (one line by the scan input), sees the landed-cost preview and records
 *   a payment;
 *   an inventory user applies a stock adjustment;
 *   a viewer opens every page and can change nothing, a forged POST included;
 *   the store's stock levels and the platform show every move, and the owner's webhook was called for
 *   each of the console's actions.
 * The steps are tests of their own, so a failure names its step; later steps build on earlier ones
 * only where the story does (the order is received after it is sent). Every page runs axe-core (once per
 * distinct page state), its tables are checked to fit 1280 px unclipped and to stay inside the screen
 * (as cards or a scrollable region) at 390 px, and with STOCKROOM_SCREENSHOTS it is screenshotted at
 * both widths.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { allModules } from "../../src/modules/index.ts";
import { createWebhooksModule } from "../../src/modules/webhooks.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { artifactsFolder, browserSkip, launchChromium, pageChecker } from "../helpers/console-browser.ts";
import {
  getOrder,
  listLocations,
  platformLevel,
  trackedVariants,
  type Variant,
} from "../helpers/factories.ts";
import { startSmtp, type TestSmtp } from "../helpers/smtp.ts";
import { joinStaff, mailsTo, staffLinkPath, subjectOf } from "../helpers/staff.ts";

const PASSWORD = "a long enough password";
const SUPPLIER_EMAIL = "orders@rosecity.test";
/** The owner's webhook endpoint: its name resolves to loopback, where nothing listens on port 9. */
const HOOK_URL = "https://hooks.harbour.test:9/stockroom";

describe("the merchant's whole story in a browser", { skip: browserSkip }, () => {
  let t: TestApp;
  let smtp: TestSmtp;
  let store: TestStore;
  let base: string;
  let browser: Browser;
  let items: Variant[];
  let location: { id: number; name: string };
  const checkPage = pageChecker(artifactsFolder("console-story"));
  const foreign: string[] = [];
  const pages: Record<string, Page> = {};
  /** Filled in as the story goes. */
  const story = { supplierId: 0, orderId: 0, orderNumber: "", adjustmentId: 0 };
  const levelsBefore = new Map<number, { available: number; platform: number }>();

  /** What the looks of the current step found wrong; the step fails at its end if any. */
  let lookProblems: string[] = [];

  /**
   * axe, the sideways check, the tables' fit at both widths and any screenshots (pageChecker). A page
   * that looks wrong is noted and the step goes on (so its later pages are looked at too and the story
   * continues); `looksFine()` fails the step at its end.
   */
  async function look(page: Page, name: string): Promise<void> {
    try {
      await checkPage(page, name);
    } catch (error) {
      lookProblems.push((error as Error).message);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  }
  beforeEach(() => {
    lookProblems = [];
  });
  function looksFine(): void {
    const found = lookProblems;
    lookProblems = [];
    assert.deepEqual(found, [], "pages that look wrong");
  }

  /** A browser of its own (its own cookies); everything it fetches is checked to be the service's. */
  async function browserFor(who: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.on("request", (r) => {
      if (!r.url().startsWith(`${base}/`)) foreign.push(`${who}: ${r.url()}`);
    });
    pages[who] = page;
    return page;
  }

  /** Signs a staff member in with email and password; lands on the store's overview. */
  async function signIn(who: string, email: string): Promise<Page> {
    const page = await browserFor(who);
    await page.goto(`${base}/console/login`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(`${base}/console/stores/${store.id}`);
    return page;
  }

  const storeUrl = (rest = "") => `${base}/console/stores/${store.id}${rest}`;
  const levelOf = async (v: Variant) =>
    (
      await store.api.get(
        `/v2/inventory_levels?inventory_item_id=${v.inventory_item_id}&location_id=${location.id}`,
      )
    ).body.data[0]?.available ?? 0;

  before(async () => {
    smtp = await startSmtp();
    const modules = allModules.map((m) =>
      m.name === "webhooks" ? createWebhooksModule({ resolve: async () => ["127.0.0.1"] }) : m,
    );
    t = await startTestApp({ modules, env: { SMTP_URL: smtp.url } });
    await t.runtime.app.listen({ host: "127.0.0.1", port: 0 });
    base = `http://127.0.0.1:${(t.runtime.app.server.address() as { port: number }).port}`;
    store = await t.createStore({ name: "Harbour Hardware", seed: "demo" });
    await t.drain();
    items = (await trackedVariants(store.api)).filter((v) => v.sku && v.barcode).slice(0, 4);
    assert.equal(items.length, 4, "the demo catalog has four tracked items with SKU and barcode");
    [location] = await listLocations(store.api);
    for (const v of items)
      levelsBefore.set(v.id, {
        available: await levelOf(v),
        platform: (await platformLevel(t, store.id, v.inventory_item_id, location.id)).available,
      });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  test("the invited owner sets a password and invites a purchasing user", async () => {
    const mails = mailsTo(smtp.received, "owner@example.com");
    assert.ok(mails.length > 0, "the owner was mailed an invitation");
    const owner = await browserFor("owner");
    await owner.goto(`${base}${staffLinkPath(mails[mails.length - 1])}`);
    await look(owner, "owner-set-password");
    await owner.getByLabel("New password").fill(PASSWORD);
    await owner.getByRole("button", { name: "Set password and sign in" }).click();
    await owner.waitForURL(storeUrl());
    await look(owner, "owner-overview");

    await owner.getByRole("link", { name: "Settings", exact: true }).click();
    await owner.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Staff" }).click();
    await owner.waitForURL(storeUrl("/staff"));
    await owner.getByLabel("Email").fill("pat@example.com");
    await owner.getByLabel("Name (optional)").fill("Pat Buyer");
    await owner.getByRole("radio", { name: /purchasing/ }).check();
    await owner.getByRole("button", { name: "Send invitation" }).click();
    await owner.getByRole("status").filter({ hasText: "Invitation sent to pat@example.com." }).waitFor();
    await look(owner, "owner-staff-invited");

    await t.drain();
    const invitation = mailsTo(smtp.received, "pat@example.com");
    assert.equal(invitation.length, 1);
    assert.match(subjectOf(invitation[0]), /Harbour Hardware/);
    const pat = await browserFor("purchasing");
    await pat.goto(`${base}${staffLinkPath(invitation[0])}`);
    await pat.getByLabel("New password").fill(PASSWORD);
    await pat.getByRole("button", { name: "Set password and sign in" }).click();
    await pat.waitForURL(storeUrl());
    await pat.getByText("pat@example.com (purchasing)").waitFor();
    await look(pat, "purchasing-overview");
    looksFine();
  });

  test("the owner sets up the store: numbering, tax and exchange rates, locations, a key, a webhook, the sync", async () => {
    const owner = pages.owner;
    assert.ok(owner, "the owner signed in in the step before");
    await owner.goto(storeUrl("/settings"));
    await owner.getByLabel("Purchase order prefix").fill("HH-");
    await owner.getByLabel("Next purchase order number").fill("100");
    await owner.getByRole("button", { name: "Save numbering" }).click();
    await owner.getByText("Numbering saved.").waitFor();
    await look(owner, "owner-settings-numbering");

    const nav = owner.getByRole("navigation", { name: "Settings" });
    await nav.getByRole("link", { name: "Tax rates" }).click();
    await owner.getByLabel("Name, row 1").fill("Sales tax 8%");
    await owner.getByLabel("Rate (%), row 1").fill("8");
    await owner.getByRole("button", { name: "Save tax rates" }).click();
    await owner.getByText("Tax rates saved.").waitFor();
    await look(owner, "owner-settings-tax-rates");

    await nav.getByRole("link", { name: "Exchange rates" }).click();
    await owner.getByLabel("Currency, row 1", { exact: true }).fill("eur");
    await owner.getByLabel("Rate to the store's currency, row 1").fill("1.08");
    await owner.getByRole("button", { name: "Save exchange rates" }).click();
    await owner.getByText("Exchange rates saved.").waitFor();
    await look(owner, "owner-settings-exchange-rates");

    await nav.getByRole("link", { name: "Locations" }).click();
    await owner.getByRole("heading", { name: "Locations", level: 1 }).waitFor();
    await look(owner, "owner-settings-locations");

    await nav.getByRole("link", { name: "API keys" }).click();
    await owner.getByLabel(/^Name/).fill("Accounting sync");
    await owner.getByRole("checkbox", { name: /read/ }).first().check();
    await owner.getByRole("button", { name: "Create key" }).click();
    await owner.getByText("Key “Accounting sync” created.").waitFor();
    const secret = await owner.getByLabel("Secret").inputValue();
    assert.match(secret, /^sr2_[A-Za-z0-9]{40}$/);
    await look(owner, "owner-settings-key-created");

    await nav.getByRole("link", { name: "Webhooks" }).click();
    await owner.getByLabel(/^URL/).fill(HOOK_URL);
    await owner.getByRole("checkbox", { name: /All events/ }).check();
    await owner.getByRole("button", { name: "Add endpoint" }).click();
    await owner.getByText(`Endpoint ${HOOK_URL} added.`).waitFor();
    await look(owner, "owner-settings-webhook-added");

    await nav.getByRole("link", { name: "Platform sync" }).click();
    await owner.getByRole("heading", { name: "Platform sync", level: 1 }).waitFor();
    await look(owner, "owner-settings-sync");

    // What the owner set is the store's now, and the history says the owner's console did it.
    const record = (await t.admin.get(`/admin/stores/${store.id}`)).body.data;
    assert.equal(record.numbering.purchase_order_prefix, "HH-");
    assert.deepEqual(
      (await t.admin.get(`/admin/stores/${store.id}/tax_rates`)).body.data.map(
        (r: { name: string; rate_percent: string }) => [r.name, r.rate_percent],
      ),
      [["Sales tax 8%", 8]],
    );
    assert.deepEqual(
      (await t.admin.get(`/admin/stores/${store.id}/exchange_rates`)).body.data.map(
        (r: { currency: string }) => r.currency,
      ),
      ["EUR"],
    );
    const key = t.client(`Bearer ${secret}`);
    assert.equal((await key.get("/v2/whoami")).body.key.name, "Accounting sync");
    assert.deepEqual(
      (await store.api.get("/v2/webhooks")).body.data.map((w: { url: string }) => w.url),
      [HOOK_URL],
    );
    looksFine();
  });

  test("purchasing creates a supplier with a catalog item in packs of 6 and a price tier", async () => {
    const pat = pages.purchasing;
    await pat.goto(storeUrl("/suppliers"));
    await pat.getByRole("link", { name: "New supplier" }).click();
    await pat.getByLabel("Name", { exact: true }).fill("Rose City Ceramics");
    await pat.getByLabel(/^Currency/).fill("USD");
    await pat.getByLabel(/^Email/).fill(SUPPLIER_EMAIL);
    await look(pat, "supplier-new");
    await pat.getByRole("button", { name: "Create supplier" }).click();
    await pat.getByText("Supplier “Rose City Ceramics” created.").waitFor();
    story.supplierId = Number(/\/suppliers\/(\d+)/.exec(pat.url())?.[1]);
    assert.ok(story.supplierId > 0, pat.url());

    await pat.getByLabel("Title, SKU or barcode").fill(items[0].sku as string);
    await pat.getByRole("button", { name: "Find items" }).click();
    await pat.getByLabel("Supplier SKU").fill("RCC-1");
    await pat.getByLabel("Pack size").fill("6");
    await pat.getByLabel(/^Price tiers/).fill("1:4.50 24:4.00");
    await pat.getByRole("button", { name: "Add to catalog" }).click();
    await pat.getByText("Item added to the catalog.").waitFor();
    assert.match(await pat.getByRole("table").innerText(), /1\+ at \$4\.50 USD, 24\+ at \$4\.00 USD/);
    await look(pat, "supplier-catalog");
    const catalog = await store.api.get(`/v2/suppliers/${story.supplierId}/catalog`);
    assert.deepEqual(
      catalog.body.data.map((r: any) => [
        r.supplier_sku,
        r.pack_size,
        r.price_list.effective.tiers.map((x: any) => x.price),
      ]),
      [["RCC-1", 6, ["4.50", "4.00"]]],
    );
    looksFine();
  });

  test("purchasing raises an order for three items found by search and sees the pack warning", async () => {
    const pat = pages.purchasing;
    await pat.goto(storeUrl("/purchase_orders"));
    await pat.getByRole("link", { name: "New purchase order" }).click();
    await pat.getByLabel("Supplier", { exact: true }).fill("Rose City Ceramics");
    const search = pat.getByLabel("Find by title, SKU or barcode");
    const found = pat.getByRole("list", { name: "Items found" });
    // The first by title, the others by SKU and by barcode.
    for (const [i, query] of [
      [0, items[0].product_title],
      [1, items[1].sku as string],
      [2, items[2].barcode as string],
    ] as const) {
      await search.fill(query);
      await pat.getByRole("button", { name: "Search" }).click();
      const hit = found
        .locator("li")
        .filter({ hasText: items[i].sku as string })
        .first();
      await hit.waitFor();
      if (i === 0) await look(pat, "order-picker");
      await hit.getByRole("button", { name: "Add" }).click();
      await pat.locator("tr[data-line]").nth(i).waitFor();
    }
    assert.equal(await pat.locator("tr[data-line]").count(), 3);

    const lines = pat.locator("tr[data-line]");
    await lines.nth(0).getByRole("spinbutton").first().fill("13");
    await pat.getByText("Not a whole number of packs of 6").first().waitFor();
    await look(pat, "order-pack-warning");
    await lines.nth(0).getByRole("spinbutton").first().fill("12");
    await lines.nth(1).getByRole("spinbutton").first().fill("3");
    await lines.nth(2).getByRole("spinbutton").first().fill("2");
    await pat.getByLabel("Amount", { exact: true }).fill("6.00");
    await pat.getByRole("button", { name: "Save draft" }).click();
    await pat.getByText(/is saved as a draft/).waitFor();
    story.orderId = Number(/purchase_orders\/(\d+)$/.exec(pat.url())?.[1]);
    const order = await getOrder(store.api, story.orderId);
    story.orderNumber = order.number;
    assert.deepEqual(
      order.lines.map((l: any) => [l.sku, l.quantity]),
      [
        [items[0].sku, 12],
        [items[1].sku, 3],
        [items[2].sku, 2],
      ],
    );
    assert.equal(order.lines[0].unit_cost, "4.50", "the supplier's tier price");
    assert.equal(order.status, "draft");
    await look(pat, "order-draft");
    looksFine();
  });

  test("purchasing sends the order; the mail with its PDF reaches the supplier", async () => {
    assert.ok(story.orderId, "the order was raised");
    const pat = pages.purchasing;
    await pat.goto(storeUrl(`/purchase_orders/${story.orderId}`));
    await pat.getByRole("link", { name: "Send by email…" }).click();
    assert.equal(await pat.getByLabel(/^To/).inputValue(), SUPPLIER_EMAIL);
    await pat.getByLabel("Message").fill("Before Friday, please.");
    await look(pat, "order-send");
    await pat.getByRole("button", { name: `Send ${story.orderNumber} and mark it ordered` }).click();
    await pat.getByText(`${story.orderNumber} is on its way to the supplier.`).waitFor();
    await look(pat, "order-sent");
    await t.drain();
    const mails = mailsTo(smtp.received, SUPPLIER_EMAIL);
    assert.equal(mails.length, 1, "one mail to the supplier");
    assert.match(subjectOf(mails[0]), new RegExp(story.orderNumber));
    assert.match(mails[0].raw, /Before Friday, please\./);
    assert.match(mails[0].raw, /Content-Type: application\/pdf/i);
    assert.match(mails[0].raw, new RegExp(`filename="?${story.orderNumber}[^"\\s]*\\.pdf`));
    assert.equal((await getOrder(store.api, story.orderId)).status, "ordered");
    looksFine();
  });

  test("purchasing receives the order in two deliveries, one line by scanning, previewing landed costs", async () => {
    assert.ok(story.orderId, "the order was raised");
    const pat = pages.purchasing;
    const order = await getOrder(store.api, story.orderId);
    const [lineA, lineB, lineC] = order.lines;
    const orderUrl = storeUrl(`/purchase_orders/${story.orderId}`);

    // Delivery 1: the third item scanned twice (a scanner types the code, then Enter), the second typed.
    await pat.goto(orderUrl);
    await pat.getByRole("link", { name: "Receive a delivery" }).click();
    await pat.waitForURL(`${orderUrl}/receive`);
    const scan = pat.getByLabel(/^Scan or type a SKU or barcode/);
    for (let i = 0; i < 2; i++) await scan.pressSequentially(`${items[2].barcode}\n`);
    assert.equal(await pat.locator(`#received_${lineC.id}`).inputValue(), "2");
    await pat.locator(`#received_${lineB.id}`).fill("3");
    await look(pat, "receive-1-scanned");
    await pat.getByRole("button", { name: "Preview landed costs" }).click();
    const preview = pat.getByRole("region", { name: "Before booking: landed costs" });
    await preview.waitFor();
    // $6.00 shipping over 17 units: 3 × $8.50 carry $1.58, a landed $9.0266… a unit, shown to the cent.
    const previewText = await preview.innerText();
    assert.match(previewText, /\$1\.58 USD\s+\$9\.03 USD/);
    assert.doesNotMatch(previewText, /\d\.\d{3}/, "amounts to the cent");
    await look(pat, "receive-1-preview");
    await pat.getByRole("button", { name: "Book this receipt" }).click();
    await pat.getByText(`Receipt booked on ${story.orderNumber}: 5 units into stock.`).waitFor();
    assert.equal((await getOrder(store.api, story.orderId)).status, "partial");
    await look(pat, "order-partial");

    // Delivery 2: the rest of the first item.
    await pat.getByRole("link", { name: "Receive a delivery" }).click();
    await pat.waitForURL(`${orderUrl}/receive`);
    await pat.locator(`#received_${lineA.id}`).fill("12");
    await pat.getByRole("button", { name: "Preview landed costs" }).click();
    await preview.waitFor();
    await look(pat, "receive-2-preview");
    await pat.getByRole("button", { name: "Book this receipt" }).click();
    await pat.getByText(`Receipt booked on ${story.orderNumber}: 12 units into stock.`).waitFor();
    const received = await getOrder(store.api, story.orderId);
    assert.equal(received.status, "received");
    assert.equal(received.receipts.length, 2);
    assert.deepEqual(
      received.lines.map((l: any) => l.received_quantity),
      [12, 3, 2],
    );
    await look(pat, "order-received");
    looksFine();
  });

  test("purchasing records a payment", async () => {
    assert.ok(story.orderId, "the order was raised");
    const pat = pages.purchasing;
    await pat.goto(storeUrl(`/purchase_orders/${story.orderId}`));
    await pat.getByLabel(/^Amount/).fill("20.00");
    await pat.getByLabel("Reference").fill("INV-1001");
    await pat.getByRole("button", { name: "Record payment" }).click();
    await pat.getByText(`Payment of $20.00 USD recorded on ${story.orderNumber}.`).waitFor();
    const order = await getOrder(store.api, story.orderId);
    assert.equal(order.payment_status, "partial");
    assert.match(await pat.locator("#payments").innerText(), /INV-1001/);
    await look(pat, "order-paid-in-part");
    looksFine();
  });

  test("an inventory user applies a stock adjustment", async () => {
    await joinStaff(t, smtp, store.id, "ivy@example.com", "inventory", PASSWORD);
    const ivy = await signIn("inventory", "ivy@example.com");
    await look(ivy, "inventory-overview");
    await ivy.goto(storeUrl("/stock_adjustments"));
    await ivy.getByRole("link", { name: "New adjustment" }).click();
    await ivy.getByLabel("Reason").selectOption("restock");
    await ivy.getByLabel(/^Item/).fill(items[3].sku as string);
    await ivy.getByLabel(/^Change/).fill("+5");
    await look(ivy, "adjustment-new");
    await ivy.getByRole("button", { name: "Create draft" }).click();
    await ivy.getByText(/Draft .* created\./).waitFor();
    story.adjustmentId = Number(/stock_adjustments\/(\d+)/.exec(ivy.url())?.[1]);
    await ivy.getByRole("button", { name: "Apply…" }).click();
    await ivy.getByRole("button", { name: "Apply adjustment" }).waitFor();
    await look(ivy, "adjustment-confirm");
    await ivy.getByRole("button", { name: "Apply adjustment" }).click();
    await ivy.getByText(/applied: stock moved\./).waitFor();
    await look(ivy, "adjustment-applied");
    await ivy.goto(storeUrl("/stock"));
    await look(ivy, "stock");
    looksFine();
  });

  test("a viewer opens every page and can change nothing, a forged POST included", async () => {
    await joinStaff(t, smtp, store.id, "vi@example.com", "viewer", PASSWORD);
    const viewer = await signIn("viewer", "vi@example.com");
    const paths: [string, string][] = [
      ["viewer-overview", ""],
      ["viewer-purchase-orders", "/purchase_orders"],
      ["viewer-suppliers", "/suppliers"],
      ["viewer-stock", "/stock"],
      ["viewer-low-stock", "/stock/low"],
      ["viewer-adjustments", "/stock_adjustments?status=all"],
      ["viewer-alert-rules", "/alert_rules"],
    ];
    if (story.supplierId) paths.push(["viewer-supplier", `/suppliers/${story.supplierId}`]);
    if (story.orderId) paths.push(["viewer-order", `/purchase_orders/${story.orderId}`]);
    if (story.adjustmentId) paths.push(["viewer-adjustment", `/stock_adjustments/${story.adjustmentId}`]);
    for (const [name, rest] of paths) {
      const answer = await viewer.goto(storeUrl(rest));
      assert.equal(answer?.status(), 200, name);
      const forms = await viewer.$$eval("form[method=post]", (fs) => fs.map((f) => f.getAttribute("action")));
      assert.deepEqual(forms, ["/console/logout"], `${name} offers the viewer no write form`);
      await look(viewer, name);
    }
    for (const rest of ["/settings", "/staff", "/purchase_orders/new"]) {
      const answer = await viewer.goto(storeUrl(rest));
      assert.equal(answer?.status(), 403, `${rest} is not the viewer's`);
    }

    // Forged POSTs with the session's own CSRF token: a supplier, a payment, an adjustment.
    const suppliersBefore = (await store.api.get("/v2/suppliers")).body.data.length;
    const paymentsBefore = story.orderId ? (await getOrder(store.api, story.orderId)).payments : [];
    const forged: [string, Record<string, string>][] = [
      ["/suppliers", { name: "Forged Supplier", currency: "USD" }],
      [`/purchase_orders/${story.orderId || 1}/payments`, { amount: "1.00" }],
      ["/stock_adjustments", { reason: "restock", item: "X", delta: "1" }],
    ];
    const statuses = await viewer.evaluate(
      async ({ storeId, posts }) => {
        const csrf = (
          document.querySelector('form[action="/console/logout"] input[name=_csrf]') as HTMLInputElement
        ).value;
        const answers: number[] = [];
        for (const [path, fields] of posts)
          answers.push(
            (
              await fetch(`/console/stores/${storeId}${path}`, {
                method: "POST",
                body: new URLSearchParams({ _csrf: csrf, ...fields }),
              })
            ).status,
          );
        return answers;
      },
      { storeId: store.id, posts: forged },
    );
    assert.deepEqual(statuses, [403, 403, 403]);
    assert.equal((await store.api.get("/v2/suppliers")).body.data.length, suppliersBefore);
    if (story.orderId) assert.deepEqual((await getOrder(store.api, story.orderId)).payments, paymentsBefore);
    looksFine();
  });

  test("stock levels and the platform show every move; the webhook was called for each", async () => {
    await t.drain();
    const moved = [12, 3, 2, 5]; // received, received, received by scan, adjusted
    for (const [i, v] of items.entries()) {
      const before = levelsBefore.get(v.id)!;
      assert.equal(await levelOf(v), before.available + moved[i], `${v.sku} in the store`);
      assert.equal(
        (await platformLevel(t, store.id, v.inventory_item_id, location.id)).available,
        before.platform + moved[i],
        `${v.sku} on the platform`,
      );
    }
    const owner = pages.owner;
    await owner.goto(storeUrl(`/stock?q=${encodeURIComponent(items[0].sku as string)}`));
    assert.match(
      await owner.getByRole("table").innerText(),
      new RegExp(`${levelsBefore.get(items[0].id)!.available + 12}`),
    );
    await look(owner, "owner-stock-after");

    // The console's actions were the API's own: the owner's webhook (every event) was called for each.
    const [hook] = (await store.api.get("/v2/webhooks")).body.data;
    const delivered = new Set(
      (await store.api.get(`/v2/webhooks/${hook.id}/deliveries?limit=250`)).body.data.map(
        (d: { event: string }) => d.event,
      ),
    );
    for (const event of [
      "supplier.created",
      "purchase_order.created",
      "purchase_order.ordered",
      "purchase_order.receipt_recorded",
      "purchase_order.received",
      "stock_adjustment.applied",
    ])
      assert.ok(
        delivered.has(event),
        `the webhook was called for ${event} (got ${[...delivered].join(", ")})`,
      );
    assert.deepEqual(foreign, [], "the console fetched nothing from elsewhere");
    looksFine();
  });
});
