import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError, type ErrorDetail } from "../../domain/errors.ts";
import { ajvErrorsToDetails } from "../validation.ts";

/** The contract's envelope. `details` only on validation failures. */
export function errorBody(code: string, message: string, details?: ErrorDetail[]) {
  return details ? { error: { code, message, details } } : { error: { code, message } };
}

// PostgreSQL / driver failures that mean "the database is not there right now": the client should
// retry shortly, so they answer 503 with Retry-After instead of a bare 500.
const UNAVAILABLE_SQLSTATES = new Set([
  "57P01",
  "57P02",
  "57P03",
  "08000",
  "08003",
  "08006",
  "08001",
  "08004",
]);
const UNAVAILABLE_ERRNOS = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT"]);

function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  if (typeof e?.code === "string" && (UNAVAILABLE_SQLSTATES.has(e.code) || UNAVAILABLE_ERRNOS.has(e.code)))
    return true;
  const message = e?.message ?? "";
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
    message,
  );
}

/** Converts anything thrown during a request into the envelope; the single place that does so. */
export function toErrorResponse(error: unknown): {
  status: number;
  body: object;
  headers?: Record<string, string>;
} {
  if (error instanceof AppError) {
    return {
      status: error.status,
      body: errorBody(error.code, error.message, error.details),
      // RFC 9110: a 401 names the scheme that would be accepted.
      headers: error.status === 401 ? { ...error.headers, "www-authenticate": "Bearer" } : error.headers,
    };
  }
  const fe = error as FastifyError & { validationContext?: string };
  if (fe?.validation) {
    const details = ajvErrorsToDetails(fe.validation as never, fe.validationContext ?? "body");
    const message =
      details.length === 1 ? `${details[0].field}: ${details[0].message}` : "Some fields are invalid.";
    return { status: 422, body: errorBody("validation_failed", message, details) };
  }
  switch (fe?.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return { status: 413, body: errorBody("bad_request", "The request body is larger than 1 MiB.") };
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return { status: 415, body: errorBody("bad_request", "Send the body as application/json.") };
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return {
        status: 400,
        body: errorBody("bad_request", "The body is empty; send a JSON object or no Content-Type."),
      };
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return {
        status: 400,
        body: errorBody("bad_request", "The Content-Length header does not match the body."),
      };
  }
  if (fe instanceof SyntaxError || fe?.code === "FST_ERR_CTP_INVALID_JSON_BODY") {
    return { status: 400, body: errorBody("bad_request", "The body is not valid JSON.") };
  }
  if (isDatabaseUnavailable(error)) {
    return {
      status: 503,
      body: errorBody("internal_error", "The service is briefly unavailable; retry shortly."),
      headers: { "retry-after": "2" },
    };
  }
  if (typeof fe?.statusCode === "number" && fe.statusCode >= 400 && fe.statusCode < 500) {
    return { status: fe.statusCode, body: errorBody("bad_request", "The request could not be read.") };
  }
  return {
    status: 500,
    body: errorBody("internal_error", "Something went wrong on our side; the request can be retried."),
  };
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const { status, body, headers } = toErrorResponse(error);
    if (status >= 500) request.log.error({ err: error }, "request failed");
    if (headers) reply.headers(headers);
    return reply.code(status).type("application/json; charset=utf-8").send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0];
    const allowed = ROUTE_METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
    if (allowed.length > 0) {
      return reply
        .code(405)
        .header("allow", allowed.join(", "))
        .type("application/json; charset=utf-8")
        .send(
          errorBody("bad_request", `${path} does not accept ${request.method}; use ${allowed.join(", ")}.`),
        );
    }
    return reply
      .code(404)
      .type("application/json; charset=utf-8")
      .send(errorBody("not_found", `No route ${request.method} ${path}.`));
  });
}

const ROUTE_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/**
 * Errors the router raises before any route or hook runs (Fastify's `frameworkErrors`): a path that is
 * not valid percent-encoding, or a path segment longer than the router reads.
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const [status, message] =
    error.code === "FST_ERR_MAX_PARAM_LENGTH"
      ? [414, "A segment of the URL path is too long."]
      : error.code === "FST_ERR_BAD_URL"
        ? [400, "The URL is not valid: check its percent-encoding."]
        : [400, "The request could not be read."];
  return reply
    .code(status)
    .header("x-request-id", String(request.id))
    .type("application/json; charset=utf-8")
    .send(errorBody("bad_request", message));
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (Fastify's `clientErrorHandler`):
 * too slow (408), headers too large (431), malformed request line or headers (400). Answered in the
 * envelope, then the connection is closed as Node would.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody to answer.
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const [status, message] =
    error.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? [408, "The request was not received in time."]
      : error.code === "HPE_HEADER_OVERFLOW"
        ? [431, "The request headers are too large."]
        : [400, "The request could not be read: its request line or headers are malformed."];
  const body = JSON.stringify(errorBody("bad_request", message));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
