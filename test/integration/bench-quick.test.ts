/**
 * The benchmark must not rot: `npm run bench -- --quick --only whoami` runs end to end (service and
 * ceiling as child processes, autocannon in its own process, a fresh database) and writes its JSON.
 * On PGlite by default; on PostgreSQL when TEST_DATABASE_URL is set. Only that it completes and what it
 * writes is checked, never whether targets are met: figures on a busy test machine mean nothing.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function runBench(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "--silent", "bench", "--", ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("close", (code) => resolve({ code, output }));
  });
}

test("npm run bench -- --quick --only whoami completes and writes valid JSON", {
  timeout: 240_000,
}, async () => {
  const databaseUrl = process.env.TEST_DATABASE_URL ?? "";
  const db = databaseUrl ? "postgres" : "pglite";
  const dir = mkdtempSync(path.join(tmpdir(), "stockroom-bench-quick-"));
  const out = path.join(dir, "quick.json");
  try {
    const { code, output } = await runBench(["--quick", "--only", "whoami", "--db", db, "--out", out], {
      DATABASE_URL: databaseUrl,
    });
    assert.equal(code, 0, `the bench exited with ${code}:\n${output.slice(-4000)}`);

    const report = JSON.parse(readFileSync(out, "utf8"));
    assert.equal(report.mode, "quick");
    assert.deepEqual(report.only, ["whoami"]);
    assert.match(report.node, /^v\d+\./);
    assert.ok(report.machine.cpus >= 1);
    assert.ok(report.machine.memoryGb > 0);
    assert.equal(typeof report.machine.os, "string");
    assert.equal(report.runs.length, 1);

    const run = report.runs[0];
    assert.equal(run.db, db);
    assert.equal(run.error, undefined);
    assert.equal(typeof run.version, "string");
    assert.ok(run.version.length > 0);
    assert.ok(run.idleRssMb > 0);
    assert.deepEqual(
      run.ceiling.map((r: { connections: number }) => r.connections),
      [1, 32],
    );
    for (const row of run.ceiling) assert.ok(row.requests > 0 && row.rps > 0, "the ceiling answered");

    const whoami = run.scenarios.find((s: { name: string }) => s.name === "whoami");
    assert.ok(whoami, "the whoami scenario is in the report");
    assert.equal(whoami.status, "ok");
    assert.deepEqual(
      whoami.rows.map((r: { connections: number }) => r.connections),
      [1, 32],
    );
    for (const row of whoami.rows) {
      assert.ok(row.requests > 0 && row.rps > 0, "the service answered");
      assert.equal(row.errors, 0, `whoami had errors: ${JSON.stringify(row.errorSamples)}`);
      for (const field of ["p50", "p97_5", "p99", "durationSec"]) assert.equal(typeof row[field], "number");
      assert.ok(row.ratio > 0, "the ratio to the ceiling is reported");
      // CPU a request over the measured window (bench/lib/cpu-meter.ts, read from /proc): the service's
      // and the load generator's, the database backends' on PostgreSQL only.
      if (process.platform === "linux") {
        assert.ok(row.cpu.serviceUs > 0 && row.cpu.loadUs > 0, `CPU a request: ${JSON.stringify(row.cpu)}`);
        assert.equal(row.cpu.databaseUs === null, db === "pglite");
      }
    }
    assert.ok(whoami.targets.length >= 2);
    for (const t of whoami.targets) {
      assert.equal(t.issue, 2);
      assert.ok(t.met === null || typeof t.met === "boolean");
    }
    // Only the chosen scenario ran (plus the idle memory figure taken at start).
    assert.deepEqual(
      run.scenarios.map((s: { name: string }) => s.name),
      ["idle-memory", "whoami"],
    );
    assert.match(output, /whoami c=32/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
