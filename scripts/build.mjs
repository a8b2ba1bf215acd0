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
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";

const root = path.resolve(import.meta.dirname, "..");
const outdir = path.join(root, "dist");

/** Directories read at run time relative to their module, and where the bundle finds them. */
const ASSETS = [
  ["src/domain/documents/fonts", "fonts"],
  ["src/console/assets", "assets"],
];

/** Writes a file by temporary name and rename, and not at all when it already holds those bytes. */
function writeAtomically(file, contents) {
  if (existsSync(file) && Buffer.compare(readFileSync(file), Buffer.from(contents)) === 0) return;
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
  });
  for (const [from, to] of ASSETS) copyDirectory(path.join(root, from), path.join(outdir, to));
  for (const file of result.outputFiles) writeAtomically(file.path, file.contents);
  return outdir;
}

if (import.meta.url === `file://${process.argv[1]}`) await buildService();
