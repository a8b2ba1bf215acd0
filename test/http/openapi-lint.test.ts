/**
 * The live API description passes the linters integrators run (issue 21 item 6): Redocly CLI's
 * recommended rules (redocly.yaml) and Spectral's spectral:oas (.spectral.yaml), with no error and no
 * warning; a rule turned off says why in its config.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { startTestApp, type TestApp } from "../helpers/app.ts";

let t: TestApp;
let dir: string;
let documentFile: string;

before(async () => {
  t = await startTestApp();
  const res = await t.client().get("/v2/openapi.json");
  assert.equal(res.status, 200);
  dir = mkdtempSync(join(tmpdir(), "stockroom-openapi-lint-"));
  documentFile = join(dir, "openapi.json");
  writeFileSync(documentFile, JSON.stringify(res.body));
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t.close();
});

function run(bin: string, args: string[]) {
  return spawnSync(join("node_modules", ".bin", bin), args, {
    encoding: "utf8",
    // No telemetry or update check: the linters run offline.
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
  });
}

describe("the API description under integrators' linters", () => {
  test("Redocly lint (recommended): no error, no warning", () => {
    const lint = run("redocly", ["lint", "--config", "redocly.yaml", "--format", "json", documentFile]);
    const report = JSON.parse(lint.stdout.slice(lint.stdout.indexOf("{")));
    const problems = report.problems.map(
      (p: { ruleId: string; message: string; location: Array<{ pointer: string }> }) =>
        `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`,
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(report.totals, { errors: 0, warnings: 0, ignored: 0 });
    assert.equal(lint.status, 0, lint.stderr);
  });

  test("Spectral (spectral:oas): no error, no warning, no hint", () => {
    const output = join(dir, "spectral.json");
    const lint = run("spectral", [
      "lint",
      "--ruleset",
      ".spectral.yaml",
      "--format",
      "json",
      "--output",
      output,
      "--fail-severity",
      "hint",
      documentFile,
    ]);
    const results = JSON.parse(readFileSync(output, "utf8")).map(
      (r: { code: string; path: string[]; message: string }) => `${r.code} ${r.path.join(".")}: ${r.message}`,
    );
    assert.deepEqual(results, []);
    assert.equal(lint.status, 0, lint.stderr);
  });

  test("the linters catch a flaw (an operation without operationId)", () => {
    const flawed = JSON.parse(readFileSync(documentFile, "utf8"));
    delete flawed.paths["/v2/whoami"].get.operationId;
    const file = join(dir, "flawed.json");
    writeFileSync(file, JSON.stringify(flawed));
    const redocly = run("redocly", ["lint", "--config", "redocly.yaml", "--format", "json", file]);
    assert.match(redocly.stdout, /operation-operationId/);
    const spectral = run("spectral", [
      "lint",
      "--ruleset",
      ".spectral.yaml",
      "--fail-severity",
      "hint",
      file,
    ]);
    assert.notEqual(spectral.status, 0);
    assert.match(spectral.stdout, /operation-operationId/);
  });
});
