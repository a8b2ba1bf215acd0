/**
 * The console in Debian's Chromium (playwright-core): launching it, and the checks every page of a
 * browser test gets: axe-core run in the page (no serious or critical violation) once per distinct page
 * state, no sideways scrolling and every table fitting (misfitTables) at 1280 and 390 px, and, when a
 * developer asks for them (STOCKROOM_SCREENSHOTS), a full-page screenshot at both widths.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { ADMIN_TOKEN, startTestApp, type TestApp, type TestAppOptions, type TestStore } from "./app.ts";

/**
 * Debian's headless shell (package chromium-headless-shell: Chromium's engine without the browser's
 * own UI, what Playwright itself runs headless) when it is installed, else the full browser. The full
 * browser in headless mode keeps a hidden UI of its own busy: idle, it used ~0.12 s of CPU a second of
 * wall time, the shell ~0.002 s; a browser file waits on its service most of its 30 to 280 s.
 */
const HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell";
export const CHROMIUM = existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : "/usr/bin/chromium";
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** Why the browser tests are skipped here (Chromium absent outside CI), or false. */
export const browserSkip =
  !existsSync(CHROMIUM) && !process.env.CI
    ? `${CHROMIUM} is not installed (apt-get install -y chromium-headless-shell); runs in CI`
    : false;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/**
 * The folder one test file's screenshots go to, or undefined when none are wanted. Screenshots assert
 * nothing, and two full-page ones a checked page cost about as much as the checks themselves, so they
 * are taken only when STOCKROOM_SCREENSHOTS names a folder (`STOCKROOM_SCREENSHOTS=test-artifacts npm
 * test -- browser`): each file then writes into a fresh sub-folder of it named after the file.
 */
export function artifactsFolder(name: string): string | undefined {
  const root = process.env.STOCKROOM_SCREENSHOTS;
  if (!root) return undefined;
  const folder = path.resolve(root, name);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  return folder;
}

/** A full-page screenshot into the file's folder, when screenshots were asked for. */
export async function screenshot(page: Page, folder: string | undefined, file: string): Promise<void> {
  if (folder) await page.screenshot({ path: path.join(folder, file), fullPage: true });
}

/**
 * What axe's result depends on, as a digest: the page's markup with the text itself, the digits in
 * attribute values and the values of fields left out (a number or a CSRF token in an attribute does not
 * change a rule's outcome; the presence of an element's text or a field's value may, so it is kept),
 * and the viewport's width. Two checked pages with the same digest would get the same answer from axe.
 */
async function pageState(page: Page): Promise<string> {
  // No helper functions inside: the compiled tests name them with a helper the page does not have.
  return page.evaluate(async () => {
    const parts: string[] = [String(window.innerWidth)];
    for (const el of document.querySelectorAll("*")) {
      let part = el.tagName;
      for (const a of el.attributes)
        part += ` ${a.name}=${a.name === "value" ? a.value !== "" : a.value.replace(/[0-9]+/g, "0")}`;
      for (const child of el.childNodes)
        if (child.nodeType === Node.TEXT_NODE && child.textContent?.trim()) {
          part += " +text";
          break;
        }
      if ((el as HTMLInputElement).value) part += " +value";
      if ((el as HTMLInputElement).checked) part += " +checked";
      parts.push(part);
    }
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(parts.join("\n")));
    return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  });
}

/** axe-core in the page: no serious or critical violation. */
async function checkAxe(page: Page, name: string): Promise<void> {
  // The page keeps axe until it navigates; a check of the same document does not send it again.
  if (await page.evaluate(() => !("axe" in window))) await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    // Only the violations are read: axe skips gathering every passing node's details.
    const result = await (window as unknown as { axe: { run(o: object): Promise<any> } }).axe.run({
      resultTypes: ["violations"],
    });
    return result.violations
      .filter((v: { impact: string }) => v.impact === "serious" || v.impact === "critical")
      .map(
        (v: { id: string; nodes: { target: string[] }[] }) =>
          `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`,
      );
  });
  assert.deepEqual(violations, [], `axe on ${name}`);
}

/**
 * The checks of one test file's pages: axe once per distinct page state (pageState; a later page in
 * the same state was already found clean), then at both widths no sideways scrolling and every table
 * fitting (misfitTables, issue 20 item 8), and the screenshots when asked for, numbered in the order
 * the pages were checked.
 */
export function pageChecker(folder: string | undefined) {
  let shot = 0;
  const axeChecked = new Set<string>();
  return async function checkPage(page: Page, name: string): Promise<void> {
    const state = await pageState(page);
    if (!axeChecked.has(state)) {
      await checkAxe(page, name);
      axeChecked.add(state);
    }
    shot += 1;
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      const sideways = await page.evaluate(
        () => document.documentElement.scrollWidth > window.innerWidth + 1,
      );
      assert.equal(sideways, false, `${name} scrolls sideways at ${width} px`);
      assert.deepEqual(await misfitTables(page, width), [], `${name}'s tables at ${width} px`);
      await screenshot(page, folder, `${String(shot).padStart(2, "0")}-${name}-${width}.png`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  };
}

/** A test app serving the console on loopback, one store in it, and Chromium on a page of it. */
export interface BrowserConsole {
  t: TestApp;
  store: TestStore;
  /** The service's address: http://127.0.0.1:<port>. */
  base: string;
  browser: Browser;
  page: Page;
  /** What the page fetched from anywhere but the service (a test asserts it stays empty). */
  foreign: string[];
  close(): Promise<void>;
}

/**
 * What the operator's browser tests share: a test app listening on a loopback port, a store ("Harbour
 * Hardware" with the demo catalog unless told), its platform work drained, Chromium with a 1280 px page
 * whose every request off the service is noted, signed in with the admin token on the store list.
 */
export async function startConsoleAsOperator(
  options: { app?: TestAppOptions; store?: { name?: string; currency?: string } } = {},
): Promise<BrowserConsole> {
  const t = await startTestApp(options.app);
  await t.runtime.app.listen({ host: "127.0.0.1", port: 0 });
  const base = `http://127.0.0.1:${(t.runtime.app.server.address() as { port: number }).port}`;
  const store = await t.createStore({ name: "Harbour Hardware", seed: "demo", ...options.store });
  await t.drain();
  const browser = await launchChromium();
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  const foreign: string[] = [];
  page.on("request", (r) => {
    if (!r.url().startsWith(`${base}/`)) foreign.push(r.url());
  });
  await page.goto(`${base}/console/login`);
  await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
  await page.getByRole("button", { name: "Sign in with the admin token" }).click();
  await page.waitForURL(`${base}/console/stores`);
  return {
    t,
    store,
    base,
    browser,
    page,
    foreign,
    async close() {
      await browser.close();
      await t.close();
    },
  };
}

/**
 * Tables that do not fit: at 1280 px a table (and every scrolling box around it) shows all its columns
 * without clipping or a sideways scroll; at 390 px a table either fits the screen (as cards) or sits in
 * a box of its own that scrolls sideways and itself fits the screen. Empty when every table fits.
 */
export async function misfitTables(page: Page, width: number): Promise<string[]> {
  return page.evaluate((wide) => {
    const pageWidth = document.documentElement.clientWidth;
    const problems: string[] = [];
    document.querySelectorAll("table").forEach((table, i) => {
      const name = `table ${i + 1} (${(table.querySelector("caption")?.textContent ?? table.getAttribute("aria-label") ?? "").trim().slice(0, 40)})`;
      const right = table.getBoundingClientRect().right;
      let scroller: HTMLElement | null = table.parentElement;
      while (scroller && scroller !== document.body && getComputedStyle(scroller).overflowX === "visible")
        scroller = scroller.parentElement;
      const scrolls = scroller !== null && scroller !== document.body;
      if (wide) {
        if (right > pageWidth + 1) problems.push(`${name} ends at ${Math.round(right)} px of ${pageWidth}`);
        if (scrolls && scroller!.scrollWidth > scroller!.clientWidth + 1)
          problems.push(
            `${name} is clipped: ${scroller!.scrollWidth} px in a ${scroller!.clientWidth} px box`,
          );
        if (table.scrollWidth > table.clientWidth + 1)
          problems.push(`${name} overflows itself: ${table.scrollWidth} px in ${table.clientWidth} px`);
      } else if (
        table.querySelector(":scope > tbody > tr > td.empty") &&
        scrolls &&
        scroller!.scrollWidth > scroller!.clientWidth + 1
      ) {
        // A list with nothing in it has nothing to scroll to: its headings must not run off the side.
        problems.push(
          `${name} is empty but scrolls: ${scroller!.scrollWidth} px in a ${scroller!.clientWidth} px box`,
        );
      } else if (right > pageWidth + 1) {
        const style = scrolls ? getComputedStyle(scroller!).overflowX : "visible";
        if (!scrolls || !["auto", "scroll"].includes(style))
          problems.push(`${name} is cut at ${pageWidth} px (ends at ${Math.round(right)} px, no scroll box)`);
        else if (scroller!.getBoundingClientRect().right > pageWidth + 1)
          problems.push(`${name}'s scroll box is wider than the screen`);
      }
    });
    return problems;
  }, width >= 1280);
}
