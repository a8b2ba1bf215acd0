/**
 * The noisy key of the noisy-neighbour test, on a thread of its own: its clients send the heaviest
 * requests a store's key may send (PATCHes and PDFs of 500-line orders, pages of them, one of them),
 * over real HTTP, as fast as the service lets them (each 429 waits out its Retry-After). On its own thread, so reading and parsing B's big answers costs the service's
 * event loop nothing: what the test measures there is the service's own work.
 *
 * `startHeavyClient` runs it; the thread loads this file through tsx (a worker does not inherit
 * `--import tsx`) and runs `runClients` with the workerData.
 */
import { setPriority } from "node:os";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

export interface HeavyClientOptions {
  origin: string;
  key: string;
  orderIds: number[];
  clients: number;
}

/** B's answers by kind and status, e.g. `{"pdf 200": 12, "patch 429": 1}`. */
export type HeavyCounts = Record<string, number>;

export interface HeavyClient {
  /** Answers counted so far (a snapshot). */
  counts(): Promise<HeavyCounts>;
  /**
   * Holds the clients after their current request; resolves once none is in flight, so the service has
   * nothing of B's left to do (the test then times A idle, interleaved with the loaded phases).
   */
  pause(): Promise<void>;
  /** Lets the held clients send again. */
  resume(): void;
  /** Stops the clients after their current request and resolves with every answer counted. */
  stop(): Promise<HeavyCounts>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * What client `n` sends on order `id`, over and over: the clients take turns at the four heaviest
 * things, so B's reads keep coming while its PDFs render. Each PDF follows a PATCH of its order, so
 * it is rendered anew rather than taken from the cache.
 */
function cycle(
  n: number,
  id: number,
  step: number,
): Array<{ kind: string; method: string; path: string; body?: unknown }> {
  const patch = {
    kind: "patch",
    method: "PATCH",
    path: `/v2/purchase_orders/${id}`,
    body: { notes: `${n}:${step}` },
  };
  switch (n % 4) {
    case 0:
      return [patch, { kind: "pdf", method: "GET", path: `/v2/purchase_orders/${id}/pdf` }];
    case 1:
      return [patch, { kind: "pdf", method: "GET", path: `/v2/purchase_orders/${id}/pdf?received=true` }];
    case 2:
      return [{ kind: "list", method: "GET", path: "/v2/purchase_orders?limit=250" }];
    default:
      return [{ kind: "get", method: "GET", path: `/v2/purchase_orders/${id}` }];
  }
}

/**
 * B's clients stand in for a merchant's integration on another machine; here they share the
 * service's two cores, and reading B's answers (pages of 1,500 lines) keeps this thread busy about
 * half the time B is at work. At the lowest priority it runs when a core is free, so the test does
 * not measure the service's loop waiting for a core behind the client, which a remote client never
 * takes (docs/history/reliability-journal.md 5b, thirteenth session). Linux keeps a niceness per thread and
 * setpriority of pid 0 is the calling thread; elsewhere pid 0 is the whole process: left alone there.
 */
const CLIENT_NICENESS = 19;

async function runClients(options: HeavyClientOptions): Promise<void> {
  if (process.platform === "linux") setPriority(CLIENT_NICENESS);
  const port = parentPort!;
  const counts: HeavyCounts = {};
  let running = true;
  let paused = false;
  let inFlight = 0;
  const reportPausedWhenIdle = async () => {
    while (paused && inFlight > 0) await sleep(5);
    if (paused) port.postMessage({ paused: true });
  };
  port.on("message", (message: string) => {
    if (message === "stop") running = false;
    else if (message === "counts") port.postMessage({ counts });
    else if (message === "pause") {
      paused = true;
      void reportPausedWhenIdle();
    } else if (message === "resume") paused = false;
  });
  const client = async (n: number) => {
    for (let step = n; running; step++) {
      const id = options.orderIds[step % options.orderIds.length];
      for (const request of cycle(n, id, step)) {
        while (paused && running) await sleep(10);
        if (!running) return;
        inFlight++;
        const res = await fetch(`${options.origin}${request.path}`, {
          method: request.method,
          headers: {
            authorization: `Bearer ${options.key}`,
            ...(request.body !== undefined && { "content-type": "application/json" }),
          },
          body: request.body === undefined ? undefined : JSON.stringify(request.body),
        });
        // The whole answer is read, as a client would: the service has to send every byte.
        const bytes = (await res.arrayBuffer()).byteLength;
        inFlight--;
        const label = `${request.kind} ${res.status}`;
        counts[label] = (counts[label] ?? 0) + 1;
        if (res.status === 429) await sleep(Number(res.headers.get("retry-after") ?? "1") * 1000);
        else if (res.status !== 200) throw new Error(`${label} (${bytes} bytes) on ${request.path}`);
      }
    }
  };
  await Promise.all(Array.from({ length: options.clients }, (_, n) => client(n)));
  port.postMessage({ counts, done: true });
}

/** Starts the noisy key's clients on a thread of their own. */
export function startHeavyClient(options: HeavyClientOptions): HeavyClient {
  const tsx = import.meta.resolve("tsx/esm/api");
  const entry = import.meta.url;
  const code = `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(entry)}); });`;
  const worker = new Worker(code, { eval: true, workerData: options });
  let failure: Error | null = null;
  const finished = new Promise<HeavyCounts>((resolve, reject) => {
    worker.on("message", (m: { counts: HeavyCounts; done?: boolean }) => {
      if (m.done) resolve(m.counts);
    });
    worker.on("error", (error) => {
      failure = error;
      reject(error);
    });
  });
  finished.catch(() => {});
  return {
    counts: () =>
      new Promise<HeavyCounts>((resolve, reject) => {
        if (failure) return reject(failure);
        const onMessage = (m: { counts?: HeavyCounts; done?: boolean }) => {
          if (m.done || !m.counts) return;
          worker.off("message", onMessage);
          resolve({ ...m.counts });
        };
        worker.on("message", onMessage);
        worker.postMessage("counts");
      }),
    pause: () =>
      new Promise<void>((resolve, reject) => {
        if (failure) return reject(failure);
        const onMessage = (m: { paused?: boolean }) => {
          if (!m.paused) return;
          worker.off("message", onMessage);
          resolve();
        };
        worker.on("message", onMessage);
        worker.postMessage("pause");
      }),
    resume: () => worker.postMessage("resume"),
    async stop() {
      worker.postMessage("stop");
      const counts = await finished;
      await worker.terminate();
      return counts;
    },
  };
}

if (!isMainThread && workerData && (workerData as HeavyClientOptions).origin) {
  void runClients(workerData as HeavyClientOptions);
}
