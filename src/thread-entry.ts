import path from "node:path";
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
