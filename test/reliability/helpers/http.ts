/**
 * A real HTTP client for spawned services: every call is bounded (default 10 s, the "never hang"
 * bound of the reliability tests) and reports connection failures as `NetError`, which the callers
 * treat like a 5xx (retry with the same Idempotency-Key).
 */
import { Agent, request } from "undici";

export interface Response<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  text: string;
  ms: number;
}

export class NetError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly ms: number,
  ) {
    super(message);
  }
}

// No keep-alive reuse across a killed server: a fresh connection per request keeps failures local.
const agent = new Agent({ keepAliveTimeout: 1, pipelining: 0, connections: 64 });

export async function call<T = any>(
  method: string,
  url: string,
  options: {
    body?: unknown;
    rawBody?: Buffer | string;
    headers?: Record<string, string>;
    timeoutMs?: number;
  } = {},
): Promise<Response<T>> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const started = performance.now();
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Buffer | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  try {
    const res = await request(url, {
      method: method as "GET",
      headers,
      body,
      dispatcher: agent,
      signal: AbortSignal.timeout(timeoutMs),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const text = await res.body.text();
    let parsed: unknown = text;
    if (String(res.headers["content-type"] ?? "").includes("json") && text !== "") {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return {
      status: res.statusCode,
      headers: res.headers,
      body: parsed as T,
      text,
      ms: performance.now() - started,
    };
  } catch (error) {
    const e = error as { code?: string; name?: string; message?: string; cause?: { code?: string } };
    const code = e.cause?.code ?? e.code ?? e.name ?? "ERROR";
    throw new NetError(`${method} ${url}: ${e.message ?? String(error)}`, code, performance.now() - started);
  }
}

/** A client bound to a base URL and an Authorization header. */
export function client(base: () => string, authorization: string) {
  const go = <T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    call<T>(method, `${base()}${path}`, { body, headers: { authorization, ...headers } });
  return {
    get: <T = any>(path: string, headers?: Record<string, string>) => go<T>("GET", path, undefined, headers),
    post: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
      go<T>("POST", path, body ?? {}, headers),
    patch: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
      go<T>("PATCH", path, body ?? {}, headers),
    put: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
      go<T>("PUT", path, body ?? {}, headers),
    delete: <T = any>(path: string, headers?: Record<string, string>) =>
      go<T>("DELETE", path, undefined, headers),
  };
}

export type HttpClient = ReturnType<typeof client>;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `wait` (a waitFor); when it times out, the error carries `explain`'s answer (the rows and log
 * lines that say where the awaited work stopped), so a failure on CI can be read without a rerun.
 */
export async function explainTimeout<T>(wait: () => Promise<T>, explain: () => Promise<unknown>): Promise<T> {
  try {
    return await wait();
  } catch (error) {
    let detail: string;
    try {
      detail = JSON.stringify(await explain(), null, 1);
    } catch (explainError) {
      detail = `(could not explain: ${String(explainError)})`;
    }
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${detail}`);
  }
}

/** Polls `check` until it returns a truthy value or `timeoutMs` passes (then throws with `what`). */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | null | undefined | false>,
  timeoutMs: number,
  intervalMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    await sleep(intervalMs);
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ""}`,
  );
}
