import type { FastifyInstance } from "fastify";
import type { ConsoleActor } from "../http/console-actors.ts";

/**
 * The console is a client of the admin API, in process: each call is `app.inject` into `/admin/...`
 * with the session's admin token, so every admin validation, error and rule applies unchanged.
 */

export interface ErrorDetail {
  field: string;
  code: string;
  message: string;
}

/** A non-2xx answer of the admin API. */
export class AdminError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = "AdminError";
  }
}

/** The admin route behind a console page does not exist in this build yet. */
export class FeatureUnavailable extends Error {
  constructor(readonly feature: string) {
    super(`${feature} is not available yet`);
    this.name = "FeatureUnavailable";
  }
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: Buffer;
}

export class AdminApi {
  constructor(
    private readonly app: FastifyInstance,
    /** The operator's admin token, or the console actor (a store's owner) the call is made as. */
    private readonly credentials: string | ConsoleActor,
    /** The browser's address, so the admin API's failed-token throttle counts the right client. */
    private readonly remoteAddress?: string,
  ) {}

  /** Whether the admin API has a route for this method and concrete path. */
  has(method: string, path: string): boolean {
    return this.app.findRoute({ method: method as "GET", url: path.split("?")[0] }) !== null;
  }

  /** Throws FeatureUnavailable (naming `feature`) when the route is missing. */
  require(method: string, path: string, feature: string): void {
    if (!this.has(method, path)) throw new FeatureUnavailable(feature);
  }

  async raw(method: string, path: string, body?: unknown): Promise<RawResponse> {
    const credentials = this.credentials;
    if (typeof credentials === "string") return this.send(`Bearer ${credentials}`, method, path, body);
    return this.app.consoleActors.with(credentials, (authorization) =>
      this.send(authorization, method, path, body),
    );
  }

  private async send(authorization: string, method: string, path: string, body?: unknown) {
    const res = await this.app.inject({
      method: method as "GET",
      url: path,
      ...(this.remoteAddress !== undefined && { remoteAddress: this.remoteAddress }),
      headers: {
        authorization,
        ...(body !== undefined && { "content-type": "application/json" }),
      },
      ...(body !== undefined && { payload: JSON.stringify(body) }),
    });
    return { status: res.statusCode, headers: res.headers, body: res.rawPayload };
  }

  /** JSON call; a non-2xx answer throws AdminError with the envelope's code, message and details. */
  async call<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    return parseAnswer<T>(await this.raw(method, path, body), "admin API");
  }

  get<T = unknown>(path: string): Promise<T> {
    return this.call<T>("GET", path);
  }
  post<T = unknown>(path: string, body: unknown = {}): Promise<T> {
    return this.call<T>("POST", path, body);
  }
  put<T = unknown>(path: string, body: unknown): Promise<T> {
    return this.call<T>("PUT", path, body);
  }
  patch<T = unknown>(path: string, body: unknown): Promise<T> {
    return this.call<T>("PATCH", path, body);
  }
}

/** A JSON answer of an in-process API call; a non-2xx answer throws AdminError with the envelope's code, message and details. */
export function parseAnswer<T>(res: RawResponse, api: string): T {
  const text = res.body.toString("utf8");
  let parsed: unknown;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (res.status < 200 || res.status >= 300) {
    const envelope = (parsed as { error?: { code?: string; message?: string; details?: ErrorDetail[] } })
      ?.error;
    throw new AdminError(
      res.status,
      envelope?.code ?? "http_error",
      envelope?.message ?? `The ${api} answered ${res.status}.`,
      envelope?.details ?? [],
    );
  }
  return parsed as T;
}
