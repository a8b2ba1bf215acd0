/**
 * Store A's probe of the noisy-neighbour test, on a thread of its own: `GET /v2/whoami` over real HTTP
 * every `everyMs`, each timed from when it was due to its whole answer read, so a request that waits
 * for a held event loop (or a stall between two requests) counts as it would for a client. Through
 * inject, on the service's own thread, the probe's own objects were half of what that thread's old
 * generation gained (light-my-request's request and response outlive every scavenge and go only in a
 * full collection: docs/reliability.md 5b), so the probe brought the full collections it then measured.
 *
 * `startWhoamiProbe` runs it; the thread loads this file through tsx (a worker does not inherit
 * `--import tsx`) and answers each `{ sample: ms }` with `{ times, statuses }`.
 */
import { performance } from "node:perf_hooks";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

export interface WhoamiProbeOptions {
  origin: string;
  key: string;
  everyMs: number;
}

export interface WhoamiProbe {
  /** Times (ms) of the requests sent during `ms`, from when each was due; rejects on any non-200. */
  sample(ms: number): Promise<number[]>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function sample(
  options: WhoamiProbeOptions,
  ms: number,
): Promise<{ times: number[]; statuses: number[] }> {
  const times: number[] = [];
  const statuses: number[] = [];
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const due = performance.now() + options.everyMs;
    await sleep(options.everyMs);
    const res = await fetch(`${options.origin}/v2/whoami`, {
      headers: { authorization: `Bearer ${options.key}` },
    });
    await res.arrayBuffer();
    times.push(performance.now() - due);
    if (res.status !== 200) statuses.push(res.status);
  }
  return { times, statuses };
}

function serve(options: WhoamiProbeOptions): void {
  const port = parentPort!;
  port.on("message", async (message: { sample: number }) => {
    port.postMessage(await sample(options, message.sample));
  });
}

/** Starts A's probe on a thread of its own. */
export function startWhoamiProbe(options: WhoamiProbeOptions): WhoamiProbe {
  const tsx = import.meta.resolve("tsx/esm/api");
  const entry = import.meta.url;
  const code = `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(entry)}); });`;
  const worker = new Worker(code, { eval: true, workerData: options });
  return {
    sample: (ms) =>
      new Promise<number[]>((resolve, reject) => {
        const onError = (error: Error) => reject(error);
        worker.once("error", onError);
        worker.once("message", (m: { times: number[]; statuses: number[] }) => {
          worker.off("error", onError);
          if (m.statuses.length > 0) reject(new Error(`whoami answered ${m.statuses.join(", ")}`));
          else resolve(m.times);
        });
        worker.postMessage({ sample: ms });
      }),
    async stop() {
      await worker.terminate();
    },
  };
}

if (!isMainThread && workerData && (workerData as WhoamiProbeOptions).everyMs) {
  serve(workerData as WhoamiProbeOptions);
}
