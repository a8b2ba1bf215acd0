/** A small JSON client for seeding through the service's own API (admin and /v2). */

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export class Api {
  /** Seeding calls that answered 500 and were retried (reported in the output). */
  static retried500 = 0;
  /** Reads that answered 503 (database unavailable) and were retried (reported in the output). */
  static unavailable503 = 0;

  constructor(
    readonly origin: string,
    readonly token: string,
  ) {}

  async call<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply<T>> {
    const send = () =>
      fetch(`${this.origin}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(300_000),
      });
    let res: Response;
    try {
      res = await send();
    } catch (error) {
      // A keep-alive socket the server closed just as it was reused: a GET is sent again (a write
      // is not, since it may have run).
      if (method !== "GET") throw withCause(error, method, path);
      await new Promise((r) => setTimeout(r, 500));
      try {
        res = await send();
      } catch (again) {
        throw withCause(again, method, path);
      }
    }
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get("content-type") ?? "").includes("application/json") && text !== "") {
      parsed = JSON.parse(text);
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  /** The call, which must answer one of `expect`; otherwise throws with the answer. */
  async ok<T = any>(
    method: string,
    path: string,
    body?: unknown,
    expect: number[] = [200, 201],
    headers: Record<string, string> = {},
  ): Promise<T> {
    let reply = await this.call<T>(method, path, body, headers);
    // A 500 rolled its transaction back; seeding retries it (and says so: see the PGlite note in
    // docs/performance.md) rather than abandoning the run.
    for (let attempt = 1; reply.status === 500 && attempt <= 3; attempt++) {
      Api.retried500++;
      await new Promise((r) => setTimeout(r, 200 * attempt));
      reply = await this.call<T>(method, path, body, headers);
    }
    // 503: the service lost its database for a moment (on a shared server, someone restarted it); a
    // read waits for it to come back, up to a minute, and the run reports that it happened.
    for (let attempt = 1; reply.status === 503 && method === "GET" && attempt <= 60; attempt++) {
      Api.unavailable503++;
      await new Promise((r) => setTimeout(r, 1000));
      reply = await this.call<T>(method, path, body, headers);
    }
    if (!expect.includes(reply.status)) {
      const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body);
      throw new Error(`${method} ${path} answered ${reply.status}: ${text.slice(0, 600)}`);
    }
    return reply.body;
  }

  get = <T = any>(path: string) => this.ok<T>("GET", path, undefined, [200]);
  post = <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
    this.ok<T>("POST", path, body, [200, 201, 202], headers);
  patch = <T = any>(path: string, body?: unknown) => this.ok<T>("PATCH", path, body, [200]);
  put = <T = any>(path: string, body?: unknown) => this.ok<T>("PUT", path, body, [200]);
}

function withCause(error: unknown, method: string, path: string): Error {
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return new Error(`${method} ${path}: ${error instanceof Error ? error.message : String(error)}${cause}`);
}

/** Runs `fn` over `items` with at most `limit` in flight; results in input order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  });
  await Promise.all(workers);
  return results;
}

/** Every page of a /v2 list. */
export async function listAll<T = any>(api: Api, path: string): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | null = null;
  const sep = path.includes("?") ? "&" : "?";
  for (;;) {
    const page: { data: T[]; next_cursor: string | null } = await api.get(
      `${path}${sep}limit=250${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    out.push(...page.data);
    if (!page.next_cursor) return out;
    cursor = page.next_cursor;
  }
}
