/**
 * The load generator: autocannon, in a process of its own (forked by bench/lib/load.ts) so that the
 * generator never shares an event loop with the service or the bench driver. Receives one LoadSpec
 * over IPC, answers one LoadResult, exits.
 */
import { createRequire } from "node:module";
import type { LoadRequest, LoadResult, LoadSpec } from "./load-types.ts";

interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (req: AutocannonRequest) => AutocannonRequest | null;
  onResponse?: (status: number, body: string, context: unknown, headers?: Record<string, string>) => void;
}

interface AutocannonResult {
  duration: number;
  requests: { total: number };
  latency: Record<string, number>;
  non2xx: number;
  errors: number;
  timeouts: number;
  "2xx": number;
}

interface AutocannonInstance {
  stop(): void;
  on(event: "response", listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
}

type Autocannon = ((
  options: Record<string, unknown>,
  callback: (error: Error | null, result: AutocannonResult) => void,
) => AutocannonInstance) & { track?: unknown };

const require = createRequire(import.meta.url);
const autocannon = require("autocannon") as Autocannon;

function run(
  spec: LoadSpec,
  durationSec: number,
  next: () => LoadRequest | null,
  remaining: number,
): Promise<AutocannonResult & { samples: string[]; latencies: number[]; waits: DatabaseWait[] }> {
  const samples: string[] = [];
  const latencies: number[] = [];
  const waits: DatabaseWait[] = [];
  let exhausted = false;
  return new Promise((resolve, reject) => {
    let instance: AutocannonInstance | null = null;
    const request: AutocannonRequest = {
      setupRequest(req) {
        const item = next();
        if (item === null) {
          // Out of prepared requests: end the run (the one built now is never sent after stop).
          if (!exhausted) {
            exhausted = true;
            setImmediate(() => instance?.stop());
          }
          return { ...req, method: "GET", path: "/healthz" };
        }
        return {
          ...req,
          method: item.method,
          path: item.path,
          headers: { ...spec.headers, ...(item.headers ?? {}) },
          body: item.body,
        };
      },
      onResponse(status, body, _context, headers) {
        if ((status < 200 || status > 299) && samples.length < 5)
          samples.push(`${status} ${body.slice(0, 300)}`);
        const wait = databaseWaitOf(headers?.["server-timing"]);
        if (wait) waits.push(wait);
      },
    };
    const options: Record<string, unknown> = {
      url: spec.origin,
      connections: spec.once ? Math.max(1, Math.min(spec.connections, remaining)) : spec.connections,
      pipelining: 1,
      duration: durationSec,
      timeout: spec.timeoutSec ?? 30,
      headers: spec.headers,
      requests: [request],
    };
    if (spec.overallRate) options.overallRate = spec.overallRate;
    // A fixed amount ends the run when the prepared requests are used up (autocannon then ignores the
    // duration, so a timer keeps the bound).
    let timer: NodeJS.Timeout | null = null;
    if (spec.once) {
      options.amount = remaining;
      timer = setTimeout(() => instance?.stop(), durationSec * 1000);
    }
    instance = autocannon(options, (error, result) => {
      if (timer) clearTimeout(timer);
      if (error) reject(error);
      else resolve(Object.assign(result, { samples, latencies, waits }));
    });
    // autocannon's own histogram keeps whole milliseconds; this keeps the exact times of every response.
    instance.on("response", (_client, _status, _bytes, ms) => {
      latencies.push(ms);
    });
  });
}

interface DatabaseWait {
  waitMs: number;
  holdMs: number;
  turns: number;
  storeTurnMs: number;
}

/** The service's Server-Timing (SERVER_TIMING=on, src/http/plugins/database-waits.ts), if it sent one. */
function databaseWaitOf(header: string | undefined): DatabaseWait | null {
  const match =
    header &&
    /db-wait;dur=([\d.]+);desc="(\d+) turns[^"]*", db-hold;dur=([\d.]+), store-turn;dur=([\d.]+)/.exec(
      header,
    );
  if (!match) return null;
  const [waitMs, turns, holdMs, storeTurnMs] = match.slice(1).map(Number);
  return { waitMs, holdMs, turns, storeTurnMs };
}

/**
 * Stopping a timed run closes its connections with a request in flight on each, and the service still
 * answers those (to nobody): at 32 connections, 32 requests the measured run's first 32 then queued
 * behind, each waiting about twice the mean latency. In a 10-second run of requests taking 0.5-2 s
 * those are 5 to 20 % of all samples, so the p97.5 and p99 measured the warm-up's leftovers rather than
 * the queue (issue 22 item 3). The measured run starts once they are done: none took longer than the
 * slowest answered one (bounded, so a stuck service still gets measured).
 */
async function settle(latencies: number[]): Promise<void> {
  const slowest = latencies.reduce((a, b) => Math.max(a, b), 0);
  await new Promise((resolve) => setTimeout(resolve, Math.min(slowest * 1.2, 30_000)));
}

async function main(spec: LoadSpec): Promise<LoadResult> {
  let index = 0;
  const next = (): LoadRequest | null => {
    if (spec.requests.length === 0) return null;
    if (spec.once) return index < spec.requests.length ? spec.requests[index++] : null;
    return spec.requests[index++ % spec.requests.length];
  };
  const remaining = () => (spec.once ? spec.requests.length - index : Number.POSITIVE_INFINITY);
  if (spec.warmupSec > 0) {
    if (!spec.once) {
      const warmup = await run(spec, spec.warmupSec, next, remaining());
      await settle(warmup.latencies);
    } else {
      // Prepared requests are few and each is used once: warm up with a tenth of them (at most one
      // per connection), run to completion, so none is cut off mid-flight.
      const count = Math.min(spec.connections, Math.floor(spec.requests.length / 10));
      if (count > 0) await run({ ...spec, connections: count }, 120, next, count);
    }
  }
  if (remaining() <= 0) throw new Error("no prepared requests left after the warm-up");
  // The parent reads the server's CPU now (bench/lib/cpu-meter.ts) and answers when it has.
  await new Promise<void>((resolve) => {
    process.once("message", () => resolve());
    process.send?.({ measuring: true });
  });
  const cpuBefore = process.cpuUsage();
  const result = await run(spec, spec.durationSec, next, remaining());
  const cpu = process.cpuUsage(cpuBefore);
  const sorted = result.latencies.sort((a, b) => a - b);
  const at = (p: number) =>
    sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  const round = (v: number) => Math.round(v * 100) / 100;
  // Every answered request, whatever its status (autocannon's own histograms keep 2xx latencies only).
  const total = sorted.length;
  return {
    connections: spec.connections,
    durationSec: result.duration,
    requests: total,
    requestsPerSec: result.duration > 0 ? total / result.duration : 0,
    latencyMs: {
      p50: round(at(50)),
      p90: round(at(90)),
      p97_5: round(at(97.5)),
      p99: round(at(99)),
      max: round(sorted.at(-1) ?? 0),
      mean: round(sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length)),
    },
    databaseWaits: result.waits.length === 0 ? undefined : summarizeWaits(result.waits),
    loadCpuUs: cpu.user + cpu.system,
    status2xx: result["2xx"],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    samples: result.samples,
  };
}

/** Where the time of the measured requests went on the embedded database's connection. */
function summarizeWaits(waits: DatabaseWait[]): NonNullable<LoadResult["databaseWaits"]> {
  const spread = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
    return { p50: at(50), p99: at(99), max: sorted.at(-1) ?? 0 };
  };
  return {
    responses: waits.length,
    waitMs: spread(waits.map((w) => w.waitMs)),
    holdMs: spread(waits.map((w) => w.holdMs)),
    turns: spread(waits.map((w) => w.turns)),
    storeTurnMs: spread(waits.map((w) => w.storeTurnMs)),
  };
}

process.once("message", (spec: LoadSpec) => {
  main(spec).then(
    (result) => process.send?.({ ok: true, result }, () => process.exit(0)),
    (error: unknown) =>
      process.send?.({ ok: false, error: error instanceof Error ? error.stack : String(error) }, () =>
        process.exit(1),
      ),
  );
});
