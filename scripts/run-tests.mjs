#!/usr/bin/env node
// Runs the suite with node:test. Node 20's --test takes no globs, so files are listed here. The
// TypeScript is compiled once for the run (test-bundles.mjs); `--tsx` runs the sources through tsx
// instead, file by file as `node --import tsx --test <file>` does.
// The whole suite runs on embedded PGlite; when TEST_DATABASE_URL is set, the database-backed tests
// (http, integration) run again on PostgreSQL.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { bundleTests } from "./test-bundles.mjs";

const root = path.resolve(import.meta.dirname, "..");
const reliability = process.argv.includes("--reliability");
const withTsx = process.argv.includes("--tsx");
const only = process.argv.slice(2).filter((a) => !a.startsWith("--"));

function listTests(dir) {
  const full = path.join(root, dir);
  let entries = [];
  try {
    entries = readdirSync(full);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const p = path.join(full, name);
    if (statSync(p).isDirectory()) return listTests(path.join(dir, name));
    return name.endsWith(".test.ts") ? [path.join(dir, name)] : [];
  });
}

/**
 * Files that load the machine most (they spawn the service, CLIs or Chromium) are spread evenly
 * through the pass, the rest keep their order between them. node:test runs the files it is given
 * sorted by path, so the order is written into the compiled files' paths (test-bundles.mjs); with
 * --tsx it is node's (by path, which puts the console's browser files side by side).
 *
 * Not all at the start: run together there (27 Nov, CI on an idle 2-core machine, concurrency 3) the
 * browser files took 2.3 to 2.8 times as long as beside light files (the merchant's story 159 s
 * against 69 s) and the PGlite pass 852 s against 591 s. Three Chromiums and a service starting from
 * nothing share two cores worse than one of them beside ordinary files.
 */
const HEAVY = [/-browser\.test\.ts$/, /\/(cli|server-start|secrets-key|data-dir-lock)\.test\.ts$/];
const heavy = (file) => HEAVY.some((pattern) => pattern.test(file));
/** The longest of them take the first places, so the pass does not end with one running alone. */
const LONGEST = [
  /\/console-story-browser\./,
  /\/server-start\./,
  /\/cli\./,
  /\/console-stock-browser\./,
  /\/secrets-key\./,
];
const rank = (file) => {
  const at = LONGEST.findIndex((pattern) => pattern.test(file));
  return at === -1 ? LONGEST.length : at;
};

/** `files` in path order with the heavy ones moved to evenly spaced places, the first at the start. */
function spreadHeavy(files) {
  const sorted = [...files].sort();
  // Array sort is stable: heavy files of one rank keep their path order.
  const heavies = sorted.filter(heavy).sort((a, b) => rank(a) - rank(b));
  const rest = sorted.filter((file) => !heavy(file));
  if (heavies.length === 0) return rest;
  const every = sorted.length / heavies.length;
  const ordered = [];
  for (const [k, file] of heavies.entries()) {
    while (ordered.length < Math.round(k * every) && rest.length > 0) ordered.push(rest.shift());
    ordered.push(file);
  }
  return [...ordered, ...rest];
}

/**
 * --liftoff-only: V8 runs PGlite's WebAssembly with its baseline compiler only. The optimising tier
 * recompiles the hot part of the 9 MB module in every test process (each file is one), which a test
 * file's few hundred statements never earn back: ~1 s less CPU a file (whoami 4.5 -> 3.3 s,
 * purchase-orders 7.9 -> 6.8 s, receipts 7.1 -> 6.0 s). node:test passes the flag on to each file's
 * process; services the tests spawn run as production does.
 *
 * --v8-pool-size=0: V8's background threads (collector helpers, compilers) number the cores less one,
 * as `npm start` sets them (package.json), not Node's default four: on two cores four of them woke at
 * once beside the loop, the embedded database's thread and the PDF thread, and the loop waited for a
 * core (docs/history/reliability-journal.md 5b, thirteenth session).
 */
function run(label, files, env, concurrency = 3) {
  if (files.length === 0) return 0;
  console.log(`\n# ${label}: ${files.length} files`);
  // The order is the compiled paths' (set once for the run by spreadHeavy); with --tsx, node's by path.
  const args = compiled
    ? ["--enable-source-maps", ...files.map(compiled.file)]
    : ["--import", "tsx", ...files];
  const result = spawnSync(
    process.execPath,
    [
      "--liftoff-only",
      "--v8-pool-size=0",
      "--test",
      `--test-concurrency=${concurrency}`,
      "--test-reporter=spec",
      ...args,
    ],
    {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, ...compiled?.env, ...env },
    },
  );
  return result.status ?? 1;
}

const dbDirs = reliability ? ["test/reliability"] : ["test/http", "test/integration"];
const unit = reliability ? [] : listTests("test/unit");
const dbTests = dbDirs.flatMap(listTests);
const pick = (files) => (only.length ? files.filter((f) => only.some((o) => f.includes(o))) : files);

// Tests whose subject is a process or a browser rather than SQL (they spawn servers, CLIs or Chromium)
// run once: on PostgreSQL when it is available (production's database), else on PGlite. The
// start-up test is about the embedded default, so it always runs on PGlite.
const ONCE_ON_POSTGRES = ["test/integration/cli.test.ts", "test/integration/bench-quick.test.ts"];
/**
 * Run in the PGlite pass only. A file is here when a second pass on PostgreSQL would run exactly the
 * same thing again: its subject is a browser page (the pages' SQL is the console's HTTP tests', which
 * run on both), the API description, a client of another service, or the embedded database itself.
 */
const ONCE_ON_PGLITE = [
  "test/integration/server-start.test.ts",
  // The console's pages in Chromium: ten files, a quarter of the pass's time.
  /-browser\.test\.ts$/,
  // The embedded database's own maintenance: it runs on PGlite whatever TEST_DATABASE_URL says.
  "test/integration/embedded-maintenance.test.ts",
  "test/integration/analysed-after-import.test.ts",
  // One process at a time on the embedded database's files: nothing to run on PostgreSQL.
  "test/integration/data-dir-lock.test.ts",
  // The document as served, linted and its guide's examples run: no statement of theirs differs.
  "test/http/openapi-lint.test.ts",
  "test/http/openapi-guide.test.ts",
  // Clients of the Shopify stand-in, an SMTP server and webhook receivers, with no database at all.
  /\/integration\/shopify-(adjust|changes|client|import|readback-cost)\.test\.ts$/,
  "test/integration/mailer.test.ts",
  "test/integration/webhook-http-client.test.ts",
];
for (const entry of [...ONCE_ON_POSTGRES, ...ONCE_ON_PGLITE])
  if (typeof entry === "string" && !existsSync(path.join(root, entry)))
    throw new Error(`run-tests.mjs names ${entry}, which does not exist: rename or remove it there`);
const matches = (list, file) =>
  list.some((entry) => (typeof entry === "string" ? entry === file : entry.test(file)));
const withPostgres = Boolean(process.env.TEST_DATABASE_URL);
const onPglite = [...unit, ...dbTests].filter((f) => !(withPostgres && matches(ONCE_ON_POSTGRES, f)));
const onPostgres = dbTests.filter((f) => !matches(ONCE_ON_PGLITE, f));

/**
 * The run's compiled tests (test-bundles.mjs), or null with --tsx. The threads the service starts
 * (the embedded database's, the PDF renderers) load their compiled entries too (src/thread-entry.ts
 * reads STOCKROOM_TEST_THREAD_ENTRIES when it runs from source): under tsx each thread registered
 * tsx's hooks and loaded its sources through them again.
 */
let compiled = null;
if (!withTsx) {
  const files = reliability
    ? [...listTests("test/reliability/in-process"), ...dbTests]
    : [...new Set([...onPglite, ...onPostgres])];
  const bundles = await bundleTests(root, spreadHeavy(pick(files)), {
    "pglite-worker": "src/db/pglite-worker.ts",
    "render-worker": "src/domain/documents/render-worker.ts",
  });
  compiled = {
    file: bundles.compiled,
    env: { STOCKROOM_TEST_THREAD_ENTRIES: bundles.workers },
  };
  process.on("exit", bundles.remove);
}

let status = 0;
if (reliability) {
  // test/reliability/in-process (fuzz, tenancy) runs on PGlite and on PostgreSQL; the process tests
  // (test/reliability/processes) spawn the service on a PostgreSQL database of their own, so they run in
  // the PostgreSQL pass only, which always runs (default: the local server). One file at a time: the
  // PostgreSQL restart test stops the whole server, so nothing else may use it meanwhile.
  const postgres = process.env.TEST_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";
  status ||= run("reliability tests on PGlite", pick(listTests("test/reliability/in-process")), {
    TEST_DATABASE_URL: "",
  });
  status =
    run("reliability tests on PostgreSQL", pick(dbTests), { TEST_DATABASE_URL: postgres }, 1) || status;
  process.exit(status);
}
status ||= run("unit + database tests on PGlite", pick(onPglite), { TEST_DATABASE_URL: "" });
if (withPostgres) {
  status = run("database tests on PostgreSQL", pick(onPostgres), {}) || status;
}
process.exit(status);
