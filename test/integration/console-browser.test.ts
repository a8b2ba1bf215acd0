/**
 * The console driven by a real browser (Debian's Chromium through playwright-core) against a listening
 * service: sign in, create a store, flip API access, create a key (secret shown once, copied), see it
 * listed, call the API with it, revoke it, and find that call in the request log. Every page is
 * checked for labels, table semantics, keyboard focus, laptop width and load time, then as every browser
 * test's pages are (pageChecker: axe-core, the tables' fit at 1280 and 390 px, screenshots with
 * STOCKROOM_SCREENSHOTS).
 *
 * Runs wherever Debian's Chromium exists (CHROMIUM); skipped only when it is absent outside CI (in CI
 * it must run: `.ci/run` installs it with apt).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { ADMIN_TOKEN, ALL_SCOPES, startTestApp, type TestApp } from "../helpers/app.ts";
import { artifactsFolder, browserSkip, launchChromium, pageChecker } from "../helpers/console-browser.ts";

describe("console in a browser", { skip: browserSkip }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const sharedChecks = pageChecker(artifactsFolder("console"));
  const foreign: string[] = [];

  before(async () => {
    t = await startTestApp();
    await t.runtime.app.listen({ host: "127.0.0.1", port: 0 });
    const address = t.runtime.app.server.address() as { port: number };
    base = `http://127.0.0.1:${address.port}`;
    browser = await launchChromium();
    // A laptop screen.
    context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
    page = await context.newPage();
    // Nothing may be fetched from anywhere but the service itself (checked at the end).
    page.on("request", (request) => {
      if (!request.url().startsWith(`${base}/`)) foreign.push(request.url());
    });
  });

  const loadTimes = new Map<string, number>();

  after(async () => {
    if (loadTimes.size) console.log(`page load times (ms): ${JSON.stringify(Object.fromEntries(loadTimes))}`);
    await browser?.close();
    await t?.close();
  });

  /** Load time, accessibility basics, width, then the shared checks under the step's name. */
  async function checkPage(name: string): Promise<void> {
    const timing = await page.evaluate(() => {
      const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
      return nav.loadEventEnd > 0 ? nav.loadEventEnd - nav.startTime : nav.duration;
    });
    // Load time is reported, not asserted: a timed assertion fails on a busy CI machine for reasons
    // that have nothing to do with the page (the under-1 s figure is checked by hand and in the note).
    loadTimes.set(name, Math.round(timing));
    const problems = await page.evaluate(() => {
      const found: string[] = [];
      for (const el of document.querySelectorAll<HTMLElement>("input, select, textarea, button")) {
        if (el instanceof HTMLInputElement && (el.type === "hidden" || el.hidden)) continue;
        const named =
          (el as HTMLInputElement).labels?.length ||
          el.getAttribute("aria-label") ||
          (el.tagName === "BUTTON" && el.textContent?.trim());
        if (!named) found.push(`unlabelled ${el.outerHTML.slice(0, 80)}`);
      }
      for (const table of document.querySelectorAll("table")) {
        if (!table.querySelector("caption")?.textContent?.trim()) found.push("table without caption");
        for (const th of table.querySelectorAll("thead th"))
          if (th.getAttribute("scope") !== "col") found.push("header cell without scope");
      }
      if (document.querySelectorAll("h1").length !== 1) found.push("not exactly one h1");
      if (!document.documentElement.lang) found.push("no lang");
      if (document.documentElement.scrollWidth > window.innerWidth + 1) found.push("scrolls sideways");
      return found;
    });
    assert.deepEqual(problems, [], name);
    // Then what every browser test's pages get: axe, the tables' fit at 1280 and 390 px, any screenshots.
    await sharedChecks(page, name);
    await page.setViewportSize({ width: 1366, height: 768 });
  }

  test("sign in, make a key, use it, revoke it, find its request in the log", async () => {
    // Without the session cookie every page sends the browser to sign in.
    const direct = await fetch(`${base}/console/stores`, { redirect: "manual" });
    assert.equal(direct.status, 303);
    assert.equal(direct.headers.get("location"), "/console/login?next=%2Fconsole%2Fstores");
    await page.goto(`${base}/console/stores`);
    assert.equal(new URL(page.url()).pathname, "/console/login");
    await checkPage("login");

    await page.getByLabel("Admin token").fill("certainly-not-the-admin-token");
    await page.getByRole("button", { name: "Sign in with the admin token" }).click();
    await page.getByRole("alert").filter({ hasText: "That is not the admin token." }).waitFor();
    assert.equal(
      (await context.cookies()).some((c) => c.name === "stockroom_session"),
      false,
    );

    // Typed and submitted with the keyboard alone.
    await page.getByLabel("Admin token").focus();
    await page.keyboard.type(ADMIN_TOKEN);
    await page.keyboard.press("Enter");
    await page.waitForURL(`${base}/console/stores`);
    const cookie = (await context.cookies()).find((c) => c.name === "stockroom_session");
    assert.ok(cookie);
    assert.deepEqual([cookie.httpOnly, cookie.sameSite, cookie.path], [true, "Strict", "/console"]);

    // Keyboard: the first Tab reaches the skip link, drawn with a visible focus ring.
    await page.keyboard.press("Tab");
    const focus = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      const style = getComputedStyle(el);
      return { text: el.textContent, outline: style.outlineStyle, width: style.outlineWidth };
    });
    assert.equal(focus.text, "Skip to content");
    assert.equal(focus.outline, "solid");
    assert.equal(focus.width, "3px");

    await checkPage("stores");

    await page.getByLabel("Name", { exact: true }).fill("Browser Bikes");
    await page.getByLabel(/^Currency/).fill("EUR");
    await page.getByLabel(/^Time zone/).fill("Europe/Amsterdam");
    await page.getByRole("button", { name: "Create store" }).click();
    await page.getByRole("status").filter({ hasText: "Store “Browser Bikes” created." }).waitFor();
    const storeId = Number(/\/console\/stores\/(\d+)$/.exec(page.url())?.[1]);
    assert.ok(storeId > 0);
    await checkPage("store-overview");

    // Turning access off asks first, on a page of its own (no script needed).
    await page.getByRole("button", { name: "Turn API access off" }).click();
    await page.getByRole("heading", { name: "Turn API access off?", level: 1 }).waitFor();
    await checkPage("api-access-confirm");
    await page.getByRole("button", { name: "Turn API access off" }).click();
    await page.getByText("API access is off.").waitFor();
    assert.equal((await t.admin.get(`/admin/stores/${storeId}`)).body.data.api_access, false);
    await page.getByRole("button", { name: "Turn API access on" }).click();
    await page.getByText("API access is on.").waitFor();
    assert.equal((await t.admin.get(`/admin/stores/${storeId}`)).body.data.api_access, true);

    await page.getByRole("link", { name: "Settings", exact: true }).click();
    await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "API keys" }).click();
    await page.getByLabel(/^Name/).fill("Till app");
    await page.getByLabel("webhooks").check();
    await page.getByRole("button", { name: "Create key" }).click();
    const secretField = page.getByLabel("Secret");
    const secret = await secretField.inputValue();
    assert.match(secret, /^sr2_[A-Za-z0-9]{40}$/);
    await page.getByRole("button", { name: "Copy" }).click();
    await page.getByText(/Copied to the clipboard\.|Press Ctrl\+C to copy\./).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
    const row = page.getByRole("row").filter({ hasText: "Till app" });
    await row.getByText("Active").waitFor();
    assert.match((await row.textContent()) ?? "", /read, webhooks/);
    await checkPage("key-created");

    const whoami = await fetch(`${base}/v2/whoami`, { headers: { authorization: `Bearer ${secret}` } });
    assert.equal(whoami.status, 200);
    assert.equal(((await whoami.json()) as any).shop.name, "Browser Bikes");

    // Shown once: a reload no longer has it.
    await page.reload();
    assert.equal(await page.getByLabel("Secret").count(), 0);
    assert.equal((await page.content()).includes(secret), false);

    // The store's only key: revoking it asks first.
    await page.getByRole("button", { name: "Revoke Till app" }).click();
    await page.getByRole("heading", { name: "Revoke the last key?", level: 1 }).waitFor();
    await checkPage("key-revoke-question");
    await page.getByRole("button", { name: "Revoke Till app" }).click();
    await page.getByRole("status").filter({ hasText: "Key “Till app”" }).waitFor();
    await page.getByRole("row").filter({ hasText: "Till app" }).getByText("Revoked").waitFor();
    assert.equal(await page.getByRole("button", { name: "Revoke Till app" }).count(), 0);
    await checkPage("key-revoked");
    const refused = await fetch(`${base}/v2/whoami`, { headers: { authorization: `Bearer ${secret}` } });
    assert.equal(refused.status, 401);

    await page.getByRole("link", { name: "Request log" }).click();
    await page
      .getByLabel("Key", { exact: true })
      .selectOption({ label: `Till app (${secret.slice(0, 12)})` });
    await page.getByLabel("Status", { exact: true }).fill("200");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/key_id=\d+&status=200/);
    const logRows = page.getByRole("row").filter({ hasText: "/v2/whoami" });
    assert.equal(await logRows.count(), 1);
    const cells = (await logRows.first().getByRole("cell").allTextContents()).map((c) => c.trim());
    assert.deepEqual(cells.slice(1, 5), ["GET", "/v2/whoami", "200", `Till app (${secret.slice(0, 12)})`]);
    await checkPage("request-log");

    // Something on the other pages: a webhook with a failed delivery, and a purchase order.
    const backOffice = await t.admin.post(`/admin/stores/${storeId}/keys`, {
      name: "Back office",
      scopes: ALL_SCOPES,
    });
    const api = t.client(`Bearer ${backOffice.body.data.key}`);
    const hook = await api.post("/v2/webhooks", { url: "https://127.0.0.2:9/hook", events: ["*"] });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    assert.equal((await api.post(`/v2/webhooks/${hook.body.data.id}/test`)).status, 202);
    await t.drain();
    const supplier = await api.post("/v2/suppliers", { name: "Velo Parts" });
    const order = await api.post("/v2/purchase_orders", {
      supplier_id: supplier.body.data.id,
      lines: [
        { product_title: "Chain", sku: "CH-8", quantity: 12, unit_cost: 7.4 },
        { product_title: "Brake pads", quantity: 20, unit_cost: 3.15 },
      ],
    });
    assert.equal(order.status, 201, JSON.stringify(order.body));

    const visit = async (tab: string, name: string) => {
      await page.getByRole("link", { name: tab, exact: true }).click();
      await page.getByRole("heading", { level: 1 }).waitFor();
      assert.equal(
        await page.getByRole("link", { name: tab, exact: true }).getAttribute("aria-current"),
        "page",
      );
      await checkPage(name);
    };
    await visit("Webhooks", "webhooks");
    await page.getByRole("link", { name: "https://127.0.0.2:9/hook" }).click();
    await page.getByRole("row").filter({ hasText: "webhook.test" }).getByText("failed").waitFor();
    await checkPage("webhook-deliveries");
    await page.getByRole("button", { name: "Redeliver webhook.test" }).click();
    await page.getByRole("status").filter({ hasText: "Queued 1 event for redelivery" }).waitFor();

    await visit("Platform sync", "sync");
    await visit("Alert rules", "alert-rules");
    await visit("Purchase orders", "purchase-orders");
    await page.getByRole("link", { name: order.body.data.number, exact: true }).click();
    await page.getByRole("heading", { name: `Purchase order ${order.body.data.number}` }).waitFor();
    const lineRows = page.getByRole("table", { name: "Lines" }).getByRole("row");
    assert.equal(await lineRows.count(), 3);
    const total = page.getByRole("table", { name: "Totals" }).getByRole("cell").last();
    // In the store's money format, with the code (the order is in euros).
    assert.equal((await total.textContent())?.trim(), `€${order.body.data.totals.total} EUR`);
    await checkPage("purchase-order");
    const pdfHref = await page
      .getByRole("link", { name: `PDF of ${order.body.data.number}` })
      .getAttribute("href");
    const pdf = await page.request.get(`${base}${pdfHref}`);
    assert.equal(pdf.status(), 200);
    assert.equal(pdf.headers()["content-type"], "application/pdf");
    assert.equal((await pdf.body()).subarray(0, 5).toString(), "%PDF-");
    await visit("Overview", "overview-again");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(`${base}/console/login`);
    await page.goto(`${base}/console/stores/${storeId}/keys`);
    assert.equal(new URL(page.url()).pathname, "/console/login");
    assert.deepEqual(foreign, []);
  });
});
