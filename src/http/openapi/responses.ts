import { RESPONSE_HEADERS, responseHeaderNames } from "./headers.ts";

/** What each status means on this API; the codes are the error envelope's `code` values. */
const STATUS_DESCRIPTIONS: Record<string, string> = {
  200: "OK",
  201: "Created",
  202: "Accepted: queued for delivery",
  204: "Done; no body",
  400: "`bad_request` (malformed JSON, unknown query parameter, bad header), `idempotency_key_required`, `invalid_cursor` or `invalid_filter`",
  401: "`unauthorized`: a bad, missing, revoked or expired key",
  402: "`feature_not_enabled`: the store has no API access",
  403: "`insufficient_scope`: the key lacks this route's scope",
  404: "`not_found`: no such record in this store",
  409: "`idempotency_key_reused` (the key was used with another body) or `idempotency_in_progress` (the first request with the key is still running)",
  413: "`bad_request`: the body is larger than 1 MiB",
  415: "`bad_request`: the body is not `application/json` (UTF-8)",
  422: "`validation_failed` (`details` lists every field), `invalid_transition` (the message names the state), `limit_reached`, `webhook_not_active` or `merge_network_blocked`",
  429: "`rate_limited`: over a request budget; retry after `Retry-After` seconds",
  500: "`internal_error`: a server fault; a write that carried an Idempotency-Key is safe to retry",
};

// biome-ignore lint/suspicious/noExplicitAny: the document as @fastify/swagger builds it, plain JSON.
type Json = any;

/**
 * Gives every /v2 response a description of its status and the headers it carries (by `$ref` to
 * `components.headers`). Runs on the document @fastify/swagger built, whose response objects are its
 * own (the schemas inside them are the routes' and are left alone).
 */
export function describeResponses(document: Json): Json {
  document.components ??= {};
  document.components.headers = { ...document.components.headers, ...RESPONSE_HEADERS };
  for (const [path, item] of Object.entries<Json>(document.paths ?? {})) {
    if (!path.startsWith("/v2/")) continue;
    for (const [method, operation] of Object.entries<Json>(item)) {
      for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
        if (response.description === "Default Response" && STATUS_DESCRIPTIONS[status])
          response.description = STATUS_DESCRIPTIONS[status];
        const names = responseHeaderNames(method, path, status);
        response.headers = {
          ...response.headers,
          ...Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }])),
        };
      }
    }
  }
  return document;
}
