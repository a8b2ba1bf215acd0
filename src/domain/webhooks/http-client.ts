/**
 * The HTTP sender for webhook deliveries, with the address check done at connection time
 * (contract "Events" and "Webhooks" rules, docs/decisions.md, "Webhooks").
 *
 * Why the check lives in the connector: a URL that resolved to a public address when it was saved can
 * resolve to 127.0.0.1 or 169.254.169.254 at delivery time (DNS rebinding), and a client that checks a
 * name and then lets the socket layer look it up again can be handed a different answer the second
 * time. So the connector resolves the name once, refuses the connection if ANY answer is not public,
 * and then connects to one of exactly those checked addresses, giving the name only as TLS `servername`
 * (SNI and certificate validation still use the name). After connecting it checks the socket's peer
 * address as well, as defence in depth.
 *
 * Receiver contract: success is a 2xx with an empty body; anything else, including a 3xx (redirects are
 * never followed), is a failure. The whole exchange (connect, headers, body) is bounded by `timeoutMs`,
 * and at most `maxResponseBytes` of a response body are read. Connections are kept alive and reused per
 * origin, which is what makes hundreds of deliveries per second possible; reuse is safe because every
 * pooled connection was made to a checked address.
 */
import diagnostics from "node:diagnostics_channel";
import { readFileSync } from "node:fs";
import { isIP, type Socket } from "node:net";
import { createSecureContext, rootCertificates, type SecureContext } from "node:tls";
import type { buildConnector } from "undici";
import { undici } from "../../undici.ts";
import { classifyAddress } from "./address-policy.ts";
import {
  precheckWebhookUrl,
  type Resolver,
  reachesOwnListener,
  resolveWithTimeout,
  systemResolve,
} from "./url-guard.ts";

export interface WebhookSenderOptions {
  /** WEBHOOK_ALLOW_PRIVATE: connect to loopback/private addresses too (development and tests). */
  allowPrivate: boolean;
  /** Bound on the whole exchange: DNS, connect, request, response headers and body. Default 10 s. */
  timeoutMs?: number;
  /** Most response-body bytes read before giving up on the response. Default 64 KiB. */
  maxResponseBytes?: number;
  /**
   * Extra trusted CA certificates (PEM), added to Node's bundled roots and NODE_EXTRA_CA_CERTS. Without
   * it the defaults apply, which already include NODE_EXTRA_CA_CERTS.
   */
  ca?: string | Buffer | ReadonlyArray<string | Buffer>;
  /** Name resolution used at connect time (all A and AAAA answers). Default: `dns.lookup` with all. */
  lookup?: Resolver;
  /** The service's own hostnames, refused at every delivery as at creation. Default none. */
  ownHostnames?: readonly string[];
  /** The service's own port: refused on this machine's addresses at every delivery (url-guard.ts). */
  ownPort?: number;
}

export interface WebhookRequest {
  url: string | URL;
  /** Extra headers (event, ids, timestamp, signature, user agent); `content-type` is always JSON. */
  headers: Readonly<Record<string, string>>;
  /** The exact bytes that were signed. */
  body: string;
}

export interface WebhookSendResult {
  ok: boolean;
  /** The receiver's status, or null when no response arrived (refused, unreachable, timeout). */
  statusCode: number | null;
  durationMs: number;
  /** Null on success; otherwise a short English reason for the delivery log. */
  error: string | null;
  /** The peer address the request went to, when known. */
  remoteAddress?: string;
}

export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookSendResult>;
  /** Closes pooled connections once in-flight deliveries finish. */
  close(): Promise<void>;
}

/** Raised by the connector when an address is not allowed; its message goes to the delivery log. */
export class BlockedAddressError extends Error {
  readonly code = "WEBHOOK_ADDRESS_BLOCKED";
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

// Set by undici itself from the URL and body, or meaningless for a single POST; a caller passing one of
// these would only confuse the framing (undici refuses some of them outright).
const RESERVED_HEADERS = new Set([
  "host",
  "content-length",
  "content-type",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "upgrade",
  "expect",
  "te",
  "trailer",
  "proxy-connection",
]);

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const ownHostnames = options.ownHostnames ?? [];
  const connect = createGuardedConnector({
    allowPrivate: options.allowPrivate,
    lookup: options.lookup ?? systemResolve,
    ownPort: options.ownPort,
    timeoutMs,
    secureContext: options.ca === undefined ? undefined : trustStoreWith(options.ca),
  });
  // headersTimeout/bodyTimeout are idle timers and only a backstop; the AbortController below bounds
  // the total. Redirects are not followed: undici's Agent has no redirect interceptor unless added.
  const { Agent } = undici();
  const agent = new Agent({ connect, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  enablePeerTracking();

  async function send(request: WebhookRequest): Promise<WebhookSendResult> {
    const started = performance.now();
    const peer: PeerProbe = {};
    let statusCode: number | null = null;
    const done = (ok: boolean, error: string | null): WebhookSendResult => ({
      ok,
      statusCode,
      durationMs: Math.round(performance.now() - started),
      error,
      ...(peer.remoteAddress === undefined ? {} : { remoteAddress: peer.remoteAddress }),
    });

    const pre = precheckWebhookUrl(request.url, {
      allowPrivate: options.allowPrivate,
      ownHostnames,
      ownPort: options.ownPort,
    });
    if (!pre.ok) return done(false, pre.message);
    const { url } = pre;

    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const response = await withPeerProbe(peer, () =>
        agent.request({
          origin: url.origin,
          path: url.pathname + url.search,
          method: "POST",
          headers: outgoingHeaders(request.headers),
          body: request.body,
          signal: controller.signal,
        }),
      );
      statusCode = response.statusCode;
      const body = await readAtMost(response.body, maxResponseBytes);
      return done(...judge(response.statusCode, body, maxResponseBytes));
    } catch (err) {
      return done(false, controller.signal.aborted || isIdleTimeout(err) ? "timeout" : describeError(err));
    } finally {
      clearTimeout(timer);
    }
  }

  return { send, close: () => agent.close() };
}

/** Success only for a 2xx with an empty body (contract "Receiver contract"). */
function judge(
  status: number,
  body: { bytes: number; cutOff: boolean },
  limit: number,
): [boolean, string | null] {
  if (status >= 200 && status < 300) {
    if (body.bytes === 0) return [true, null];
    return [
      false,
      body.cutOff
        ? `response body must be empty; got more than ${limit} bytes (cut off)`
        : `response body must be empty; got ${body.bytes} bytes`,
    ];
  }
  if (status >= 300 && status < 400) return [false, `redirect not followed (${status})`];
  return [false, `HTTP ${status}`];
}

/**
 * Reads a response body up to `limit` bytes. Reading it to the end (rather than discarding it) lets the
 * connection go back to the pool; past the limit the stream is destroyed, which closes the connection.
 */
async function readAtMost(body: AsyncIterable<Buffer> & { destroy(): unknown }, limit: number) {
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.length;
    if (bytes > limit) {
      body.destroy();
      return { bytes, cutOff: true };
    }
  }
  return { bytes, cutOff: false };
}

function outgoingHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (!RESERVED_HEADERS.has(lower)) out[lower] = value;
  }
  out["content-type"] = "application/json";
  return out;
}

/**
 * undici's own idle timers (headers, body) are set to the same limit as the abort timer, and its
 * coarse timers can fire first under load: the receiver still took too long, so it is a timeout too.
 */
function isIdleTimeout(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException)?.code;
  return code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT";
}

function describeError(err: unknown): string {
  if (err instanceof BlockedAddressError) return err.message;
  const e = err as NodeJS.ErrnoException;
  const message = typeof e?.message === "string" && e.message !== "" ? e.message : String(err);
  const text = e?.code && !message.includes(e.code) ? `${e.code}: ${message}` : message;
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}

/**
 * Node's bundled roots, NODE_EXTRA_CA_CERTS and `extra`: a `ca` option replaces the default trust store
 * rather than adding to it, so the defaults are put back explicitly. Built once, because parsing the
 * bundle per connection would cost more than the delivery.
 */
function trustStoreWith(extra: string | Buffer | ReadonlyArray<string | Buffer>): SecureContext {
  const fromEnv: string[] = [];
  const envFile = process.env.NODE_EXTRA_CA_CERTS;
  if (envFile) {
    try {
      fromEnv.push(readFileSync(envFile, "utf8"));
    } catch {
      // Node itself warns about an unreadable NODE_EXTRA_CA_CERTS at start; nothing to add here.
    }
  }
  const added = typeof extra === "string" || Buffer.isBuffer(extra) ? [extra] : [...extra];
  return createSecureContext({ ca: [...rootCertificates, ...fromEnv, ...added] });
}

interface ConnectorOptions {
  allowPrivate: boolean;
  lookup: Resolver;
  ownPort: number | undefined;
  timeoutMs: number;
  secureContext: SecureContext | undefined;
}

/**
 * An undici connector that resolves the host itself, refuses unless every answer is public, and then
 * dials a checked address. Addresses are tried in resolver order, the next one only when a connection
 * attempt fails.
 */
function createGuardedConnector(opts: ConnectorOptions): buildConnector.connector {
  const base = undici().buildConnector({
    timeout: opts.timeoutMs,
    ...(opts.secureContext === undefined ? {} : { secureContext: opts.secureContext }),
  });
  const dial = (options: buildConnector.Options, address: string, servername: string | undefined) =>
    new Promise<Socket>((resolve, reject) => {
      base({ ...options, hostname: address, servername }, (err, socket) => {
        if (err) reject(err);
        else resolve(socket as Socket);
      });
    });

  async function connect(options: buildConnector.Options): Promise<Socket> {
    const host = options.hostname; // undici has already removed IPv6 brackets
    const literal = isIP(host) !== 0;
    const addresses = literal ? [host] : await resolveWithTimeout(opts.lookup, host, opts.timeoutMs);
    if (addresses.length === 0) throw new Error(`${host} did not resolve to any address`);
    // A name may resolve to this machine now though it did not at creation (allowed private or not).
    const port = Number(options.port) || (options.protocol === "http:" ? 80 : 443);
    const own = addresses.find((address) => reachesOwnListener(address, port, { ownPort: opts.ownPort }));
    if (own !== undefined)
      throw new BlockedAddressError(
        `address not allowed: ${host} resolves to ${own}, this service's own port`,
      );
    if (!opts.allowPrivate) {
      for (const address of addresses) {
        const reason = classifyAddress(address);
        if (reason !== null) {
          const what = literal ? address : `${host} resolves to ${address}, which`;
          throw new BlockedAddressError(`address not allowed: ${what} is not a public address (${reason})`);
        }
      }
    }
    // For an IP literal there is no name to send; TLS then validates the certificate against the IP.
    const servername = literal ? undefined : host;
    let firstError: unknown;
    for (const address of addresses) {
      let socket: Socket;
      try {
        socket = await dial(options, address, servername);
      } catch (err) {
        firstError ??= err;
        continue;
      }
      if (!opts.allowPrivate) {
        const peer = socket.remoteAddress;
        const reason = peer === undefined ? "peer address unknown" : classifyAddress(peer);
        if (reason !== null) {
          socket.destroy();
          throw new BlockedAddressError(`address not allowed: connected peer ${peer} (${reason})`);
        }
      }
      return socket;
    }
    throw firstError;
  }

  return (options, callback) => {
    connect(options).then(
      (socket) => callback(null, socket),
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), null),
    );
  };
}

/*
 * Which peer served a given request. undici does not hand the socket to a request's caller, so the
 * request object is tagged through its diagnostics channels: `undici:request:create` fires synchronously
 * inside `agent.request()` (an Agent without interceptors dispatches synchronously), and
 * `undici:client:sendHeaders` names the socket the request is written to. If undici ever stops doing
 * either, `remoteAddress` is simply left out of the result; nothing else depends on it.
 */
interface PeerProbe {
  remoteAddress?: string;
}

let pendingProbe: PeerProbe | null = null;
const probes = new WeakMap<object, PeerProbe>();
let trackingEnabled = false;

function enablePeerTracking(): void {
  if (trackingEnabled) return;
  trackingEnabled = true;
  diagnostics.subscribe("undici:request:create", (message) => {
    if (pendingProbe === null) return;
    probes.set((message as { request: object }).request, pendingProbe);
    pendingProbe = null;
  });
  diagnostics.subscribe("undici:client:sendHeaders", (message) => {
    const { request, socket } = message as { request: object; socket: Socket };
    const probe = probes.get(request);
    if (probe !== undefined) probe.remoteAddress = socket.remoteAddress;
  });
}

function withPeerProbe<T>(probe: PeerProbe, start: () => Promise<T>): Promise<T> {
  pendingProbe = probe;
  try {
    return start();
  } finally {
    pendingProbe = null;
  }
}
