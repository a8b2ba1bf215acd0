/**
 * The CLI's HTTP client of the admin API (docs/decisions.md, "Stores and the admin API"): JSON in and out,
 * the admin token as a bearer token, and every failure turned into a CliError whose message a person can act
 * on.
 */

/** An error the CLI reports as `error: <message>` and exits with `exitCode` (never a stack trace). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = "CliError";
  }
}

export interface ErrorDetail {
  field: string;
  code: string;
  message: string;
}

/** A non-2xx answer of the admin API, carrying the envelope's code, message and details. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly apiMessage: string,
    readonly details: ErrorDetail[] = [],
  ) {
    const lines = [`${code} (HTTP ${status}): ${apiMessage}`];
    for (const d of details) lines.push(`  - ${d.field}: ${d.message} [${d.code}]`);
    super(lines.join("\n"));
    this.name = "ApiError";
  }
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export const DEFAULT_URL = "http://127.0.0.1:3000";
const TIMEOUT_MS = 120_000;

export class AdminClient {
  readonly baseUrl: string;

  constructor(
    url: string,
    private readonly token: string,
  ) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new CliError(`--url must be an absolute http(s) URL, got "${url}"`, 2);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
      throw new CliError(`--url must use http or https, got ${parsed.protocol}`, 2);
    this.baseUrl = parsed.href.replace(/\/+$/, "");
  }

  get<T = unknown>(path: string, query?: Query): Promise<T> {
    return this.request<T>("GET", path, undefined, query);
  }
  post<T = unknown>(path: string, body?: unknown): Promise<T> {
    return this.request<T>("POST", path, body ?? {});
  }
  put<T = unknown>(path: string, body: unknown): Promise<T> {
    return this.request<T>("PUT", path, body);
  }
  patch<T = unknown>(path: string, body: unknown): Promise<T> {
    return this.request<T>("PATCH", path, body);
  }

  async request<T>(method: string, path: string, body?: unknown, query?: Query): Promise<T> {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null && value !== "") url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.token}`,
      accept: "application/json",
    };
    if (body !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
        redirect: "manual",
      });
    } catch (error) {
      const e = error as Error & { cause?: { code?: string; message?: string } };
      if (e.name === "TimeoutError")
        throw new CliError(`The admin API at ${this.baseUrl} did not answer within ${TIMEOUT_MS / 1000} s.`);
      const reason = e.cause?.code ?? e.cause?.message ?? e.message;
      throw new CliError(
        `Cannot reach the admin API at ${this.baseUrl} (${reason}). Is the service running? Set --url or STOCKROOM_URL.`,
      );
    }
    const text = await response.text();
    let parsed: unknown;
    if (text !== "") {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    if (!response.ok) {
      const envelope = (parsed as { error?: { code?: string; message?: string; details?: ErrorDetail[] } })
        ?.error;
      if (envelope?.code) {
        let message = envelope.message ?? "";
        // The CLI always sends a token, so a 401 means the one it sent is not the service's.
        if (response.status === 401 && path.startsWith("/admin/"))
          message = `The admin token is wrong: the service at ${this.baseUrl} did not accept it (check --token / STOCKROOM_ADMIN_TOKEN).`;
        throw new ApiError(response.status, envelope.code, message, envelope.details ?? []);
      }
      throw new ApiError(
        response.status,
        "http_error",
        text.trim().slice(0, 300) || response.statusText || "no body",
      );
    }
    if (text !== "" && parsed === undefined)
      throw new CliError(`The server at ${this.baseUrl} answered ${method} ${path} with something not JSON.`);
    return parsed as T;
  }
}
