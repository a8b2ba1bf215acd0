import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type ChildServer, freePort, startChildServer, stopChildServer } from "../helpers/child-server.ts";
import { copyMigratedDatabase } from "../helpers/embedded-template.ts";

/**
 * One process at a time on an embedded database's files (src/db/pglite-lock.ts): `npm run worker` or a
 * second `npm start` on the DATA_DIR of a running service corrupted it; they now refuse to start.
 */

function envFor(dataDir: string, port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: "warn" };
  for (const name of ["DATABASE_URL", "ADMIN_TOKEN", "BOOTSTRAP", "WORKERS", "TEST_DATABASE_URL"])
    delete env[name];
  return env;
}

/** Runs a compiled entry to its end: its exit code and everything it wrote. */
function runToExit(entry: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [entry], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  // A process that starts instead of refusing would run on; the test runner's timeout is not needed.
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  return new Promise((resolve) =>
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}

function lockOwner(dataDir: string): number {
  return JSON.parse(readFileSync(join(dataDir, "pglite.lock"), "utf8")).pid;
}

describe("one process at a time on the embedded database's files", () => {
  let dataDir: string;
  before(async () => {
    execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
    dataDir = await mkdtemp(join(tmpdir(), "stockroom-lock-"));
    // The database's files are there already (a copy of the migrated template): the lock is this
    // file's subject, a first start's initdb (~4 s of CPU) is server-start's.
    await copyMigratedDatabase(join(dataDir, "pglite"));
  });
  after(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  test("the worker and a second service refuse a data directory a running service has open", async () => {
    const port = await freePort();
    const service: ChildServer = await startChildServer(["dist/server.mjs"], { env: envFor(dataDir, port) });
    const pid = service.child.pid!;
    try {
      const message = new RegExp(
        `The embedded database in ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} is in use by process ${pid} `,
      );

      const worker = await runToExit("dist/worker.mjs", envFor(dataDir, port));
      assert.equal(worker.code, 2, worker.output);
      assert.match(worker.output, message);
      assert.match(worker.output, /use PostgreSQL \(DATABASE_URL\)/);
      assert.doesNotMatch(worker.output, /\n\s+at /, "a message, not a stack trace");

      const second = await runToExit("dist/server.mjs", envFor(dataDir, await freePort()));
      assert.equal(second.code, 2, second.output);
      assert.match(second.output, message);

      // The lock names the running service, and the refusals left it and its database alone.
      assert.equal(lockOwner(dataDir), pid);
      const key = /API key, shown once: (sr2_[0-9A-Za-z]{40})/.exec(service.output())?.[1];
      const whoami = await fetch(`http://127.0.0.1:${port}/v2/whoami`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(whoami.status, 200);
    } finally {
      assert.equal(await stopChildServer(service.child, "SIGTERM"), 0);
    }
    assert.equal(existsSync(join(dataDir, "pglite.lock")), false, "a clean stop removes the lock");
  });

  test("a lock left by a process that is gone is taken over", async () => {
    // A pid that was alive a moment ago and no longer is: what a killed service leaves.
    const gone = spawn(process.execPath, ["-e", ""]);
    const gonePid = gone.pid!;
    await new Promise((resolve) => gone.once("exit", resolve));
    writeFileSync(
      join(dataDir, "pglite.lock"),
      `${JSON.stringify({ pid: gonePid, host: "x", started: "" })}\n`,
    );

    const port = await freePort();
    const service = await startChildServer(["dist/server.mjs"], { env: envFor(dataDir, port) });
    try {
      assert.equal(lockOwner(dataDir), service.child.pid);
      assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
    } finally {
      assert.equal(await stopChildServer(service.child, "SIGTERM"), 0);
    }
    assert.equal(existsSync(join(dataDir, "pglite.lock")), false);
  });
});
