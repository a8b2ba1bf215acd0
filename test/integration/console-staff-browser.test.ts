/**
 * Staff in the console, driven by Debian's Chromium through playwright-core against a listening service
 * with a test SMTP server: the invited owner follows the mailed link and sets a password, invites a
 * purchasing user from the staff page, who follows their own link and later signs in with email and
 * password; a viewer sees no write control on any page and a forged POST is refused 403; ten wrong
 * passwords lock an account. Every page gets the checks every browser test's pages get (pageChecker:
 * axe-core with no serious or critical violation, the sideways scroll and the tables' fit at 1280 and
 * 390 px; screenshots with STOCKROOM_SCREENSHOTS).
 *
 * Runs wherever Debian's Chromium exists (CHROMIUM); skipped only when it is absent outside CI.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { artifactsFolder, browserSkip, launchChromium, pageChecker } from "../helpers/console-browser.ts";
import { startSmtp, type TestSmtp } from "../helpers/smtp.ts";
import { mailsTo, staffLinkPath } from "../helpers/staff.ts";

describe("staff in the console, in a browser", { skip: browserSkip }, () => {
  let t: TestApp;
  let smtp: TestSmtp;
  let store: TestStore;
  let base: string;
  let browser: Browser;
  let checkPage: (page: Page, name: string) => Promise<void>;
  const contexts: BrowserContext[] = [];
  const foreign: string[] = [];

  before(async () => {
    checkPage = pageChecker(artifactsFolder("console-staff"));
    smtp = await startSmtp();
    t = await startTestApp({ env: { SMTP_URL: smtp.url } });
    await t.runtime.app.listen({ host: "127.0.0.1", port: 0 });
    base = `http://127.0.0.1:${(t.runtime.app.server.address() as { port: number }).port}`;
    store = await t.createStore({ name: "Harbour Hardware", seed: "demo" });
    await t.drain();
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  /** A browser of its own (its own cookies), everything it fetches checked to be the service's. */
  async function person(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    const page = await context.newPage();
    page.on("request", (r) => {
      if (!r.url().startsWith(`${base}/`)) foreign.push(r.url());
    });
    return page;
  }

  /** The newest link mailed to this address, on this service. */
  function linkFor(email: string): string {
    const mails = mailsTo(smtp.received, email);
    assert.ok(mails.length > 0, `no mail to ${email}`);
    return `${base}${staffLinkPath(mails[mails.length - 1])}`;
  }

  /** Follows the mailed link and chooses a password; the browser lands on the store's overview. */
  async function join(page: Page, email: string, password: string, button: string): Promise<void> {
    await page.goto(linkFor(email));
    await page.getByLabel("New password").fill(password);
    await page.getByRole("button", { name: button }).click();
    await page.waitForURL(`${base}/console/stores/${store.id}`);
  }

  /** The POST forms a page offers (their actions). */
  const postForms = (page: Page) =>
    page.$$eval("form[method=post]", (forms) => forms.map((f) => f.getAttribute("action")));

  test("the invited owner sets a password and invites a purchasing user, who signs in", async () => {
    const owner = await person();
    await owner.goto(linkFor("owner@example.com"));
    await checkPage(owner, "set-password");
    // Too short first: refused on the field, said once.
    await owner.getByLabel("New password").fill("short");
    // The browser's own minlength check would stop the form: send it as a script-less client would.
    await owner.$eval("#new-password", (el) => el.removeAttribute("minlength"));
    await owner.getByRole("button", { name: "Set password and sign in" }).click();
    await owner.getByText("Use at least 10 characters.").waitFor();
    assert.equal(await owner.getByLabel("New password").getAttribute("aria-invalid"), "true");
    await owner.getByLabel("New password").fill("owner's long password");
    await owner.getByRole("button", { name: "Set password and sign in" }).click();
    await owner.waitForURL(`${base}/console/stores/${store.id}`);
    await owner.getByText("owner@example.com").first().waitFor();
    await checkPage(owner, "owner-overview");

    await owner.getByRole("link", { name: "Settings", exact: true }).click();
    await owner.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Staff" }).click();
    await owner.waitForURL(`${base}/console/stores/${store.id}/staff`);
    await checkPage(owner, "staff");
    await owner.getByLabel("Email").fill("pat@example.com");
    await owner.getByLabel("Name (optional)").fill("Pat Buyer");
    await owner.getByRole("radio", { name: /purchasing/ }).check();
    await owner.getByRole("button", { name: "Send invitation" }).click();
    await owner.getByRole("status").filter({ hasText: "Invitation sent to pat@example.com." }).waitFor();
    await checkPage(owner, "staff-invited");

    await t.drain();
    const pat = await person();
    await join(pat, "pat@example.com", "pat's long password", "Set password and sign in");
    await pat.getByRole("button", { name: "Sign out" }).click();
    await pat.waitForURL(`${base}/console/login`);
    await checkPage(pat, "sign-in");
    await pat.getByLabel("Email").fill("pat@example.com");
    await pat.getByLabel("Password", { exact: true }).fill("pat's long password");
    await pat.getByRole("button", { name: "Sign in", exact: true }).click();
    await pat.waitForURL(`${base}/console/stores/${store.id}`);
    await pat.getByText("pat@example.com (purchasing)").waitFor();
    // Purchasing is not the owner: no settings tabs.
    assert.equal(await pat.getByRole("link", { name: "Staff" }).count(), 0);
    assert.equal(await pat.getByRole("link", { name: "API keys" }).count(), 0);
    assert.equal(await pat.getByRole("link", { name: "Settings", exact: true }).count(), 0);
    assert.deepEqual(foreign, []);
  });

  test("a viewer sees no write control on any page, and a forged POST is refused", async () => {
    // A long address: the header must still read well on a phone (below).
    const email = "viewer.of.the.warehouse.accounts@harbour-hardware-wholesale.example.com";
    const created = await t.admin.post(`/admin/stores/${store.id}/staff`, { email, role: "viewer" });
    assert.equal(created.status, 201);
    await t.drain();
    const viewer = await person();
    await join(viewer, email, "viewer's long password", "Set password and sign in");
    for (const [name, rest] of [
      ["viewer-overview", ""],
      ["viewer-alert-rules", "/alert_rules"],
      ["viewer-purchase-orders", "/purchase_orders"],
    ] as const) {
      await viewer.goto(`${base}/console/stores/${store.id}${rest}`);
      assert.deepEqual(await postForms(viewer), ["/console/logout"], name);
      await checkPage(viewer, name);
    }
    // At 390 px the console's name and Sign out share the first row, the button on one line, and who is
    // signed in takes a row of its own below them, not a column of a few letters a line.
    await viewer.setViewportSize({ width: 390, height: 800 });
    const box = async (selector: string) => (await viewer.locator(selector).boundingBox())!;
    const [brand, signOut, who] = [
      await box("header.top .brand"),
      await box("header.top .logout button"),
      await box("header.top .who"),
    ];
    assert.ok(
      Math.abs(signOut.y + signOut.height / 2 - (brand.y + brand.height / 2)) < 8,
      "Sign out beside the name",
    );
    assert.ok(signOut.height < 2 * 24, `Sign out on one line (${signOut.height} px)`);
    assert.ok(who.y >= brand.y + brand.height - 1, "who is signed in below the name");
    assert.ok(who.width > 300, `who is signed in on a row of its own (${who.width} px wide)`);
    assert.ok(who.height <= 3 * 24, `the address in at most three lines (${who.height} px)`);
    await viewer.setViewportSize({ width: 1280, height: 800 });
    // A POST made by hand with the session's own CSRF token: refused, nothing changed.
    const rulesBefore = (await t.admin.get(`/admin/stores/${store.id}/alert_rules`)).body.data;
    const status = await viewer.evaluate(async (storeId) => {
      const csrf = (
        document.querySelector('form[action="/console/logout"] input[name=_csrf]') as HTMLInputElement
      ).value;
      const body = new URLSearchParams({ _csrf: csrf, rows: "0", low_stock_threshold: "3" });
      const res = await fetch(`/console/stores/${storeId}/alert_rules`, { method: "POST", body });
      return res.status;
    }, store.id);
    assert.equal(status, 403);
    assert.deepEqual((await t.admin.get(`/admin/stores/${store.id}/alert_rules`)).body.data, rulesBefore);
  });

  test("ten wrong passwords lock the account; the right one is refused too until the lock ends", async () => {
    const page = await person();
    await page.goto(`${base}/console/login`);
    /** Signs in with the staff form and waits for the answer page (a refusal renders the form again). */
    const attempt = async (password: string) => {
      await page.getByLabel("Email").fill("pat@example.com");
      await page.getByLabel("Password", { exact: true }).fill(password);
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === "POST" && r.url() === `${base}/console/login`),
        page.getByRole("button", { name: "Sign in", exact: true }).click(),
      ]);
      await page.waitForLoadState("load");
      return answer.status();
    };
    const answers: number[] = [];
    for (let i = 0; i < 10; i++) answers.push(await attempt(`wrong guess ${i}`));
    assert.deepEqual(answers, [401, 401, 401, 401, 401, 401, 401, 401, 401, 429]);
    assert.equal(await attempt("pat's long password"), 429);
    await page.getByRole("alert").filter({ hasText: "locked after 10 failed sign-ins" }).waitFor();
    assert.equal(new URL(page.url()).pathname, "/console/login");
    await checkPage(page, "locked");
  });
});
