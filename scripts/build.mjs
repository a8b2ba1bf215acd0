#!/usr/bin/env node
// Compiles the service's entry points (src/start.ts and the service it loads, src/worker.ts, the PDF threads' entry) into dist/ as plain JavaScript
// bundles, so `npm start` and `npm run worker` run on Node alone. Running the TypeScript through tsx
// costs a loader thread and the transpiler in every process (about 35 MB of resident memory at idle);
// a bundle also starts faster. Packages stay external (loaded from node_modules, and lazily where the
// code imports them lazily: PGlite, pdfkit). Runs before `npm start` (prestart) in about half a second.
//
// Files the code reads next to itself (`new URL("./fonts/…", import.meta.url)`) are copied beside the
// bundles. Each output file is written to a temporary name and renamed, so a process starting while
// another build runs (tests, the benchmark) never reads half a file.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { build } from "esbuild";

const root = path.resolve(import.meta.dirname, "..");
const outdir = path.join(root, "dist");

/** Directories read at run time relative to their module, and where the bundle finds them. */
const ASSETS = [
  ["src/domain/documents/fonts", "fonts"],
  ["src/console/assets", "assets"],
];

/**
 * Writes a file by temporary name and rename. A file that already holds those bytes is only touched:
 * bin/stockroom.mjs trusts dist/cli.mjs while it is newer than every source, and an edit that changes
 * nothing in the output must not leave it looking stale.
 */
function writeAtomically(file, contents) {
  if (existsSync(file) && Buffer.compare(readFileSync(file), Buffer.from(contents)) === 0) {
    const now = new Date();
    utimesSync(file, now, now);
    return;
  }
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, file);
}

function copyDirectory(from, to) {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) copyDirectory(source, target);
    else writeAtomically(target, readFileSync(source));
  }
}

/** How every bundle here is made: ESM for Node 20, packages left to node_modules, written by us. */
const NODE_BUNDLE = {
  outExtension: { ".js": ".mjs" },
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  sourcemap: "linked",
  legalComments: "none",
  logLevel: "warning",
  write: false,
};

export async function buildService() {
  mkdirSync(outdir, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: {
      // The entry (src/start.ts) sets start-up's memory behaviour before the service (service.mjs) and
      // its packages load.
      server: "src/start.ts",
      service: "src/server.ts",
      worker: "src/worker.ts",
      // The PDF threads' entry (render-pool.ts starts dist/render-worker.mjs beside the bundles).
      "render-worker": "src/domain/documents/render-worker.ts",
      // The embedded database's thread (pglite-thread.ts starts dist/pglite-worker.mjs beside the bundles).
      "pglite-worker": "src/db/pglite-worker.ts",
    },
    outdir,
    ...NODE_BUNDLE,
  });
  for (const [from, to] of ASSETS) copyDirectory(path.join(root, from), path.join(outdir, to));
  for (const file of result.outputFiles) writeAtomically(file.path, file.contents);
  await buildCli();
  return outdir;
}

/**
 * The `stockroom` command as dist/cli.mjs, which bin/stockroom.mjs runs instead of the sources through
 * tsx. Split into chunks: what `serve`, `worker` and `db` import lazily (the service and its packages)
 * stays in chunks of its own, so a client command loads commander and a dozen small modules. The
 * chunks (cli-chunk-*.mjs) sit beside the other bundles: the service finds its thread entries and
 * fonts next to the module that starts or reads them. Called
 * after buildService (the CLI's `serve` starts those threads), so cli.mjs is written last.
 */
async function buildCli() {
  const result = await build({
    absWorkingDir: root,
    entryPoints: { cli: "src/cli/main.ts" },
    outdir,
    ...NODE_BUNDLE,
    chunkNames: "cli-[name]-[hash]",
    splitting: true,
  });
  // Entry last: a process that sees the new cli.mjs finds every chunk it names.
  const files = result.outputFiles.sort(
    (a, b) => Number(a.path.endsWith("cli.mjs")) - Number(b.path.endsWith("cli.mjs")),
  );
  for (const file of files) writeAtomically(file.path, file.contents);
}

if (import.meta.url === `file://${process.argv[1]}`) await buildService();
