#!/usr/bin/env node
// Runs the suite with node:test through tsx. Node 20's --test takes no globs, so files are listed here.
// The whole suite runs on embedded PGlite; when TEST_DATABASE_URL is set, the database-backed tests
// (http, integration) run again on PostgreSQL.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const reliability = process.argv.includes("--reliability");
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

function run(label, files, env, concurrency = 3) {
  if (files.length === 0) return 0;
  console.log(`\n# ${label}: ${files.length} files`);
  const result = spawnSync(
    process.execPath,
    ["--import", "tsx", "--test", `--test-concurrency=${concurrency}`, "--test-reporter=spec", ...files],
    { cwd: root, stdio: "inherit", env: { ...process.env, ...env } },
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
const ONCE_ON_PGLITE = [
  "test/integration/server-start.test.ts",
  "test/integration/console-browser.test.ts",
  // The embedded database's own maintenance: it runs on PGlite whatever TEST_DATABASE_URL says.
  "test/integration/embedded-maintenance.test.ts",
  // One process at a time on the embedded database's files: nothing to run on PostgreSQL.
  "test/integration/data-dir-lock.test.ts",
];
const withPostgres = Boolean(process.env.TEST_DATABASE_URL);
const onPglite = [...unit, ...dbTests].filter((f) => !(withPostgres && ONCE_ON_POSTGRES.includes(f)));
const onPostgres = dbTests.filter((f) => !ONCE_ON_PGLITE.includes(f));

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
