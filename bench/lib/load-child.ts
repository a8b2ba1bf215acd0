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
  onResponse?: (status: number, body: string) => void;
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
): Promise<AutocannonResult> {
  const samples: string[] = [];
  const latencies: number[] = [];
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
      onResponse(status, body) {
        if ((status < 200 || status > 299) && samples.length < 5)
          samples.push(`${status} ${body.slice(0, 300)}`);
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
      else resolve(Object.assign(result, { samples, latencies }));
    });
    // autocannon's own histogram keeps whole milliseconds; this keeps the exact times of every response.
    instance.on("response", (_client, _status, _bytes, ms) => {
      latencies.push(ms);
    });
  });
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
    if (!spec.once) await run(spec, spec.warmupSec, next, remaining());
    else {
      // Prepared requests are few and each is used once: warm up with a tenth of them (at most one
      // per connection), run to completion, so none is cut off mid-flight.
      const count = Math.min(spec.connections, Math.floor(spec.requests.length / 10));
      if (count > 0) await run({ ...spec, connections: count }, 120, next, count);
    }
  }
  if (remaining() <= 0) throw new Error("no prepared requests left after the warm-up");
  const result = (await run(spec, spec.durationSec, next, remaining())) as AutocannonResult & {
    samples: string[];
    latencies: number[];
  };
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
    status2xx: result["2xx"],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    samples: result.samples,
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
