/**
 * The integrator's guide: the document's `info.description`, which the docs page (/docs) shows above
 * the operations. It carries what no single operation does: authentication, errors, paging,
 * idempotency, rate limits, and webhooks (catalogue, envelope, signature, receiver contract).
 */
import { EVENTS } from "./webhook-events.ts";

const NODE_VERIFY = `\`\`\`js
import { createHmac, timingSafeEqual } from "node:crypto";

// rawBody: the request body exactly as received (a Buffer), before any JSON parsing.
export function verify(secret, headers, rawBody, nowSeconds = Math.floor(Date.now() / 1000)) {
  const timestamp = headers["x-service-timestamp"];
  const signature = headers["x-service-signature"] ?? "";
  if (!/^\\d+$/.test(timestamp ?? "") || Math.abs(nowSeconds - Number(timestamp)) > 300) return false;
  const expected = "sha256=" + createHmac("sha256", secret)
    .update(\`\${timestamp}.\`).update(rawBody).digest("hex");
  const a = Buffer.from(signature);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
\`\`\``;

const PYTHON_VERIFY = `\`\`\`python
import hashlib, hmac, time

# raw_body: the request body exactly as received (bytes), before any JSON parsing.
def verify(secret: str, headers, raw_body: bytes, now=None) -> bool:
    timestamp = headers.get("X-Service-Timestamp", "")
    signature = headers.get("X-Service-Signature", "")
    now = int(time.time()) if now is None else now
    if not timestamp.isdigit() or abs(now - int(timestamp)) > 300:
        return False
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + raw_body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(signature, "sha256=" + digest)
\`\`\``;

function eventCatalogue(): string {
  const rows = Object.entries(EVENTS).map(
    ([name, event]) => `| \`${name}\` | ${event.fires} | \`${event.payload}\` |`,
  );
  return ["| Event | Fires when | Body |", "|---|---|---|", ...rows].join("\n");
}

export function integratorGuide(): string {
  return `Suppliers, purchase orders, receipts, payments, stock adjustments, a read-only catalog mirror and signed webhooks.

## Authentication
Every request carries \`Authorization: Bearer <API key>\`. A key is \`sr2_\` followed by 40 letters and digits, shown once when it is created. Every key can read; writes need the scope named in each operation. A bad, missing, revoked or expired key is 401 \`unauthorized\`, a store without API access 402 \`feature_not_enabled\`, a key without the route's scope 403 \`insufficient_scope\`. \`GET /v2/whoami\` shows the store and the key's scopes.

## Errors
Every answer that is not 2xx is the envelope \`{"error": {"code", "message", "details"?}}\` (schema \`Error\`): branch on \`code\`, never on \`message\`. A 422 \`validation_failed\` lists every field problem in \`details\` (\`field\` is a dotted path such as \`lines.0.quantity\`, \`code\` says what is wrong); nothing was changed. Quote the \`X-Request-Id\` header when reporting a problem.

## Paging
Lists answer \`{data, next_cursor, has_more}\`. \`limit\` is 1 to 250 (default 50); pass \`next_cursor\` as \`cursor\` for the next page until \`has_more\` is false (then \`next_cursor\` is null). A cursor is opaque and valid only with the filters that produced it; an unreadable one is 400 \`invalid_cursor\`. Lists of documents with lines (orders, receipts, adjustments) may end a page early to keep it bounded: follow the cursor rather than counting rows. \`updated_at_min\` is the change feed: overlap windows by a minute or two and be idempotent on the record id.

## Idempotency
Every write takes an \`Idempotency-Key\` header (any unique string, at most 255 characters); recording a receipt and applying a stock adjustment require one (else 400 \`idempotency_key_required\`). The first answer is stored for 24 hours: a retry with the same key and body gets it again with \`Idempotent-Replayed: true\` and nothing runs twice. The same key with another body is 409 \`idempotency_key_reused\`; while the first request still runs, 409 \`idempotency_in_progress\`. A 5xx or 429 answer does not claim the key, so retry those with the same key.

## Rate limits
Per key 120 requests a minute, per store 300, writes per store 60 (unless the store's plan says otherwise). Every answer carries \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\` for the budget nearest to running out; over it, 429 \`rate_limited\` with \`Retry-After\` (seconds). PDFs render on a shared pool: 4 at once per store, then 429 with \`Retry-After: 2\`.

## Webhooks
Create an endpoint with \`POST /v2/webhooks\` (an https URL on a public address; at most 10 per store) and keep the \`secret\` it answers: it is shown only then. The service then POSTs each subscribed event as JSON; the document's \`webhooks\` section describes each one.

### Event catalogue
${eventCatalogue()}

\`item.*\` events come from the store's own alert rules, per item and location, on the crossing only.

### Envelope and headers
The body is \`{"id", "event", "api_version", "occurred_at", "shop": {"id", "domain"}, "data"}\`; \`data\` is the object as its GET returns it at that moment (\`purchase_order.receipt_recorded\` adds \`receipt\` beside it). Headers: \`X-Service-Event\` (the name), \`X-Service-Event-Id\` (= \`id\`), \`X-Service-Delivery-Id\` (this attempt), \`X-Service-Webhook-Id\`, \`X-Service-Timestamp\` (Unix seconds), \`X-Service-Signature\`, \`User-Agent: Stockroom-Webhooks/2\`.

### Signature
\`X-Service-Signature\` is \`sha256=\` and the hex HMAC-SHA256, keyed with the endpoint's secret, of the string \`<X-Service-Timestamp>.<raw body bytes>\`. Hash the raw bytes as received (not re-serialized JSON), compare in constant time, and refuse a timestamp more than 300 seconds from your clock.

Node:
${NODE_VERIFY}

Python:
${PYTHON_VERIFY}

### Receiver contract
Answer **any 2xx with an empty body within 10 seconds**: that alone counts as delivered. Anything else is a failed delivery: another status, a redirect (never followed), no answer within 10 s, and also a 2xx that carries a body, so \`200 ok\` is a failure. Answer first and do the work afterwards (queue the event).

### Retries, folding, the slow lane
A failed delivery is retried after 1 minute, 5 minutes, 30 minutes, 2 hours, 12 hours, then once a day three times; after about three and a half days of failures the endpoint becomes \`disabled\` (\`PATCH\` it with \`status: active\` to resume). Delivery is at least once and unordered: deduplicate on the event \`id\` and compare \`occurred_at\` or \`data.updated_at\`. Changes to one record within 5 seconds fold into one \`.updated\` event with the latest state; lifecycle events never fold. A store past 1,000 events in an hour has its deliveries moved to a slower lane: later, never dropped.

### Redelivery and the log
\`GET /v2/webhooks/{id}/deliveries\` lists every attempt (kept 30 days). \`POST /v2/webhooks/{id}/deliveries/{delivery_id}/redeliver\` sends one again; \`POST /v2/webhooks/{id}/redeliver\` with \`event_id\`, or with \`since\` to catch up after an outage (newest 500 events, each as a fresh attempt); \`POST /v2/webhooks/{id}/test\` sends a \`webhook.test\` event to that endpoint only.`;
}
