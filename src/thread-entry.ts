import { type ChildProcess, type ForkOptions, fork } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";

/**
 * Starts a worker thread on the entry `name` that sits beside `moduleUrl` (the starting module's
 * `import.meta.url`).
 *
 * - Built (`npm start`): the bundle `<name>.mjs` beside dist/server.mjs.
 * - From source under the test runner: the entry it compiled for its run, in the folder
 *   STOCKROOM_TEST_THREAD_ENTRIES names (scripts/run-tests.mjs). Registering tsx in every thread and
 *   loading its sources through it cost ~1.3 s of CPU a thread (docs/developing.md, "How long the
 *   suite takes"), and the suite starts hundreds.
 * - Otherwise from source (`node --import tsx`): a thread does not inherit `--import tsx`, so it
 *   registers tsx's loader first, then loads `<name>.ts`.
 */
export function startThread(moduleUrl: string, name: string, options: WorkerOptions = {}): Worker {
  if (!moduleUrl.endsWith(".ts")) return new Worker(new URL(`./${name}.mjs`, moduleUrl), options);
  const compiled = process.env.STOCKROOM_TEST_THREAD_ENTRIES;
  if (compiled) return new Worker(path.join(compiled, `${name}.mjs`), options);
  const tsx = import.meta.resolve("tsx/esm/api");
  const entry = new URL(`./${name}.ts`, moduleUrl).href;
  const code = `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(code, { ...options, eval: true });
}

/**
 * Starts a child process on the entry `name` beside `moduleUrl`, found as `startThread` finds a
 * thread's (the bundle, the test run's compiled entry, or the source through tsx), with an IPC channel
 * whose messages are copied by V8's serializer (typed arrays and Buffers arrive as such). Its Node
 * options are its own, not the parent's (a parent's `--inspect` or test flags would not fit it):
 * V8's background threads as `npm start` sets them.
 */
export function startProcess(moduleUrl: string, name: string, env: NodeJS.ProcessEnv = {}): ChildProcess {
  const options = (execArgv: string[]): ForkOptions => ({
    execArgv: ["--v8-pool-size=0", ...execArgv],
    env: { ...process.env, ...env },
    serialization: "advanced",
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  if (!moduleUrl.endsWith(".ts"))
    return fork(fileURLToPath(new URL(`./${name}.mjs`, moduleUrl)), [], options([]));
  const compiled = process.env.STOCKROOM_TEST_THREAD_ENTRIES;
  if (compiled) return fork(path.join(compiled, `${name}.mjs`), [], options(["--enable-source-maps"]));
  return fork(fileURLToPath(new URL(`./${name}.ts`, moduleUrl)), [], options(["--import", "tsx"]));
}
