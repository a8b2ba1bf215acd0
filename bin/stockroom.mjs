#!/usr/bin/env node
// The `stockroom` command. Runs dist/cli.mjs, the CLI compiled by scripts/build.mjs, in this very process
// (so `serve` and `worker` get signals directly). When that file is missing or older than a source, it is
// compiled first (a fraction of a second; `npm install` then `npx stockroom` needs no build step). Only if
// that cannot be done (a read-only install) does it load tsx's hooks and run src/cli/main.ts: the hooks
// and on-the-fly compiling cost a client command ~0.5 s of CPU more (docs/developing.md, "The CLI test").
import { readdirSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const compiled = new URL("../dist/cli.mjs", import.meta.url);

/** The newest modification time of any file under `dir`, in ms. */
function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const time = statSync(`${entry.parentPath ?? entry.path}/${entry.name}`).mtimeMs;
    if (time > latest) latest = time;
  }
  return latest;
}

function fresh() {
  try {
    return statSync(compiled).mtimeMs >= newest(`${root}src`);
  } catch {
    return false;
  }
}

let ready = fresh();
if (!ready) {
  try {
    const { buildService } = await import(new URL("../scripts/build.mjs", import.meta.url).href);
    await buildService();
    ready = true;
  } catch {
    ready = false;
  }
}
if (ready) {
  await import(compiled.href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import(new URL("../src/cli/main.ts", import.meta.url).href);
}
