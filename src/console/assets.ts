import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

/**
 * The console's two static files, read once at start and served from memory. Their URLs carry a hash
 * of the content, so browsers may cache them and still never run a stale copy after an upgrade.
 */
function load(name: string) {
  const body = readFileSync(new URL(`./assets/${name}`, import.meta.url), "utf8");
  const version = createHash("sha256").update(body).digest("hex").slice(0, 12);
  return { body, href: `/console/assets/${name}?v=${version}` };
}

export const consoleCss = load("console.css");
export const consoleJs = load("console.js");
export const consoleIcon = load("favicon.svg");
