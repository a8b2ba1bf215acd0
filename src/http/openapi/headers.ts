/**
 * The headers the /v2 API reads and sends beyond each route's schemas: the Idempotency-Key every write
 * takes, and the response headers the plugins set (request id, rate limits, replays, Retry-After) and
 * the PDF's Content-Disposition. Named once in `components.headers` and referenced.
 */

const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export function isWrite(method: string): boolean {
  return WRITE_METHODS.has(method.toUpperCase());
}

/** The header parameter of a write, as a route `headers` schema for @fastify/swagger. */
export function idempotencyKeyHeaders(required: boolean) {
  return {
    type: "object",
    properties: {
      "Idempotency-Key": {
        type: "string",
        minLength: 1,
        maxLength: 255,
        description: required
          ? "Required: this call moves stock. Any unique string of at most 255 characters (not blank); without it the call is 400 `idempotency_key_required`. The first response is stored for 24 hours: a retry with the same key and body gets it again (header `Idempotent-Replayed: true`) and nothing runs twice; the same key with another body is 409 `idempotency_key_reused`, and while the first is still running 409 `idempotency_in_progress`. A 5xx or 429 answer does not claim the key."
          : "Optional: any unique string of at most 255 characters (not blank) that makes a retry safe. The first response is stored for 24 hours: a retry with the same key and body gets it again (header `Idempotent-Replayed: true`) and nothing runs twice; the same key with another body is 409 `idempotency_key_reused`, and while the first is still running 409 `idempotency_in_progress`. A 5xx or 429 answer does not claim the key.",
      },
    },
    required: required ? ["Idempotency-Key"] : [],
  };
}

export const RESPONSE_HEADERS = {
  "X-Request-Id": {
    description:
      "This request's id: the `X-Request-Id` the client sent when it is 1 to 64 of `A-Za-z0-9._:-`, otherwise one the service made. Quote it when reporting a problem.",
    schema: { type: "string" },
  },
  "RateLimit-Limit": {
    description:
      "The request budget nearest to running out (per key 120 a minute, per store 300, writes per store 60, unless the store's plan says otherwise).",
    schema: { type: "integer" },
  },
  "RateLimit-Remaining": {
    description: "Requests left in that budget.",
    schema: { type: "integer" },
  },
  "RateLimit-Reset": {
    description: "Seconds until that budget is full again.",
    schema: { type: "integer" },
  },
  "Retry-After": {
    description: "Seconds to wait before trying again.",
    schema: { type: "integer" },
  },
  "Idempotent-Replayed": {
    description:
      "`true` when this is the stored response of an earlier request with the same Idempotency-Key and body; absent otherwise.",
    schema: { type: "string", enum: ["true"] },
  },
  "Content-Disposition": {
    description:
      '`inline; filename="<order number>.pdf"` (`<order number>-receiving.pdf` for the receiving copy).',
    schema: { type: "string" },
  },
} as const;

type HeaderName = keyof typeof RESPONSE_HEADERS;

/** The response headers of one operation's answer with this status. */
export function responseHeaderNames(method: string, path: string, status: string): HeaderName[] {
  const names: HeaderName[] = ["X-Request-Id"];
  const code = Number(status);
  // The rate limits are counted once the key is known: every answer but the authentication refusals.
  if (code !== 401 && code !== 402 && code !== 403)
    names.push("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset");
  if (code === 429) names.push("Retry-After");
  // Stored answers: 5xx and 429 never are, nor refusals before the key is claimed.
  if (isWrite(method) && ((code >= 200 && code < 300) || code === 404 || code === 422))
    names.push("Idempotent-Replayed");
  if (method === "get" && path.endsWith("/pdf") && code === 200) names.push("Content-Disposition");
  return names;
}
