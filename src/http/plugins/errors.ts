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
      headers: error.headers,
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
    return reply
      .code(404)
      .type("application/json; charset=utf-8")
      .send(errorBody("not_found", `No route ${request.method} ${request.url.split("?")[0]}.`));
  });
}
