/**
 * The console in Debian's Chromium (playwright-core): launching it, and the checks every page of a
 * browser test gets: axe-core run in the page (no serious or critical violation), no sideways scrolling
 * at 1280 and 390 px, and a full-page screenshot at both widths into the test's artifacts folder.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** Why the browser tests are skipped here (Chromium absent outside CI), or false. */
export const browserSkip =
  !existsSync(CHROMIUM) && !process.env.CI
    ? `${CHROMIUM} is not installed (apt-get install -y chromium); runs in CI`
    : false;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
    ],
  });
}

/** A fresh folder under test-artifacts/ for one test file's screenshots. */
export function artifactsFolder(name: string): string {
  const folder = path.resolve(import.meta.dirname, "../../test-artifacts", name);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  return folder;
}

/** Numbers the screenshots of one folder in the order the pages were checked. */
export function pageChecker(folder: string) {
  let shot = 0;
  return async function checkPage(page: Page, name: string): Promise<void> {
    await page.evaluate(AXE);
    const violations = await page.evaluate(async () => {
      const result = await (window as unknown as { axe: { run(): Promise<any> } }).axe.run();
      return result.violations
        .filter((v: { impact: string }) => v.impact === "serious" || v.impact === "critical")
        .map(
          (v: { id: string; nodes: { target: string[] }[] }) =>
            `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`,
        );
    });
    assert.deepEqual(violations, [], `axe on ${name}`);
    shot += 1;
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      const sideways = await page.evaluate(
        () => document.documentElement.scrollWidth > window.innerWidth + 1,
      );
      assert.equal(sideways, false, `${name} scrolls sideways at ${width} px`);
      await page.screenshot({
        path: path.join(folder, `${String(shot).padStart(2, "0")}-${name}-${width}.png`),
        fullPage: true,
      });
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  };
}
