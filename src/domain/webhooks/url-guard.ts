/**
 * Validation of a webhook URL when it is created or changed (contract "Webhooks" rules, issue 9 item 2).
 *
 * Rules, in order:
 *  1. It parses as an absolute WHATWG URL. The WHATWG parser also canonicalises tricky hosts
 *     (`0x7f000001`, `127.1`, `0177.0.0.1` all become 127.0.0.1; `[::ffff:127.0.0.1]` becomes
 *     `[::ffff:7f00:1]`), so the checks below see the address the HTTP client would use.
 *  2. The scheme is https, also when private addresses are allowed (docs/decisions.md, "Webhooks").
 *  3. No username or password: they would be sent as Basic credentials to whatever host answers, and
 *     they end up in logs and delivery listings.
 *  4. The host is not one of the service's own hostnames (PUBLIC_HOSTNAMES, any port), and the URL
 *     does not reach the service's own listener: its port on any address of this machine (loopback,
 *     0.0.0.0, its interfaces), judged on the literal or on every resolved address. Always refused.
 *  5. The host is not `localhost` or `*.localhost` (RFC 6761 names for loopback).
 *  6. An IP literal must be public; a name must resolve, and every A and AAAA answer must be public.
 *     One private answer is enough to refuse: the client may pick any of them.
 *
 * `allowPrivate` (WEBHOOK_ALLOW_PRIVATE, for local development and tests) lifts only the address class
 * checks, 5 and the "public" part of 6. It does not lift https (docs/decisions.md, "Webhooks") nor the
 * own-service rule: that rule is about the service calling itself (webhook loops, reaching its own internal
 * routes), which is as wrong in development as in production. Other ports of loopback (a local receiver at
 * `https://127.0.0.1:8443`) are allowed then. The name must still resolve, so a typo is caught at creation
 * rather than as a stream of failed deliveries.
 *
 * This check at creation is advisory against DNS rebinding (the name may resolve elsewhere later); the
 * binding check is the one the sender makes on the address it actually connects to (http-client.ts).
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";
import type { Config } from "../../config.ts";
import { classifyAddress, isLocalAddress } from "./address-policy.ts";

/** Resolves a host name to every address it has (A and AAAA), as text. */
export type Resolver = (hostname: string) => Promise<string[]>;

export interface UrlGuardOptions {
  /** WEBHOOK_ALLOW_PRIVATE: accept loopback/private/link-local targets (development only). */
  allowPrivate: boolean;
  /** Hostnames the service itself answers on; compared case-insensitively, a trailing dot ignored. */
  ownHostnames: readonly string[];
  /** The port this service listens on: refused on every address of this machine. */
  ownPort?: number;
  /** This machine's interface addresses; default os.networkInterfaces(). */
  interfaceAddresses?: () => readonly string[];
  /** Injected in tests; defaults to the system resolver (`systemResolve`). */
  resolve?: Resolver;
  /** Upper bound on name resolution, so a slow resolver cannot hold a request open. Default 5000. */
  resolveTimeoutMs?: number;
}

export type UrlGuardResult = { ok: true; url: URL } | { ok: false; message: string };

/** Long enough for any real endpoint; keeps pathological values out of storage and logs. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * The system resolver: getaddrinfo through `dns.lookup`, which is what a plain Node client would use, so
 * /etc/hosts entries are honoured too. `verbatim` keeps the resolver's order (IPv4 and IPv6 mixed).
 */
export const systemResolve: Resolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => a.address);
};

/** Full check of a webhook URL at creation or update, including DNS resolution. */
export async function validateWebhookUrl(raw: string, opts: UrlGuardOptions): Promise<UrlGuardResult> {
  const pre = precheckWebhookUrl(raw, opts);
  if (!pre.ok) return pre;
  const { url, host } = pre;
  if (isIP(host) !== 0) return pre; // literal already judged by the precheck

  let addresses: string[];
  try {
    addresses = await resolveWithTimeout(opts.resolve ?? systemResolve, host, opts.resolveTimeoutMs ?? 5000);
  } catch (err) {
    const detail = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    return { ok: false, message: `url host ${host} could not be resolved (${detail})` };
  }
  if (addresses.length === 0) return { ok: false, message: `url host ${host} could not be resolved` };
  const port = portOf(url);
  const own = addresses.find((address) => reachesOwnListener(address, port, opts));
  if (own !== undefined)
    return {
      ok: false,
      message: `url must not point at this service (${host} resolves to ${own}, port ${port})`,
    };
  if (!opts.allowPrivate) {
    for (const address of addresses) {
      const reason = classifyAddress(address);
      if (reason !== null) {
        return {
          ok: false,
          message: `url host ${host} resolves to ${address}, which is not a public address (${reason})`,
        };
      }
    }
  }
  return { ok: true, url };
}

/**
 * Every rule that needs no DNS: syntax, https, credentials, own hostnames, localhost, and the address
 * class of an IP literal. The sender runs this again before each delivery (the stored URL was checked
 * under the configuration of its day). `host` is the hostname without IPv6 brackets or trailing dot.
 */
export function precheckWebhookUrl(
  raw: string | URL,
  opts: Pick<UrlGuardOptions, "allowPrivate" | "ownHostnames" | "ownPort" | "interfaceAddresses">,
): { ok: true; url: URL; host: string } | { ok: false; message: string } {
  const text = String(raw);
  if (text.length > MAX_WEBHOOK_URL_LENGTH) {
    return { ok: false, message: `url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters` };
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: "url must be an absolute URL" };
  }
  if (url.protocol !== "https:") return { ok: false, message: "url must use https" };
  if (url.username !== "" || url.password !== "") {
    return { ok: false, message: "url must not contain a username or password" };
  }
  const host = bareHost(url);
  if (host === "") return { ok: false, message: "url must have a host" };

  const own = opts.ownHostnames.map(normaliseName);
  if (own.includes(host)) return { ok: false, message: `url must not point at this service (${host})` };
  if (isIP(host) !== 0 && reachesOwnListener(host, portOf(url), opts))
    return { ok: false, message: `url must not point at this service (${url.host})` };
  if (opts.allowPrivate) return { ok: true, url, host };

  if (host === "localhost" || host.endsWith(".localhost")) {
    return { ok: false, message: `url host ${host} is a loopback name` };
  }
  if (isIP(host) !== 0) {
    const reason = classifyAddress(host);
    if (reason !== null)
      return { ok: false, message: `url host ${host} is not a public address (${reason})` };
  }
  return { ok: true, url, host };
}

/** The service's own names and port, as the webhook rules take them from the configuration. */
export function ownServiceOf(config: Pick<Config, "publicHostnames" | "port">) {
  return { ownHostnames: config.publicHostnames, ownPort: config.port };
}

/**
 * Whether a connection to `address`:`port` would reach this service's own listener: its port on an
 * address of this machine. Whatever HOST it is bound to, all of them are refused: 0.0.0.0 listens on
 * every one, and `localhost`, `[::1]` or `0.0.0.0` reach a 127.0.0.1 listener as surely as 127.0.0.1.
 */
export function reachesOwnListener(
  address: string,
  port: number,
  opts: Pick<UrlGuardOptions, "ownPort" | "interfaceAddresses">,
): boolean {
  if (opts.ownPort === undefined || opts.ownPort === 0 || port !== opts.ownPort) return false;
  return isLocalAddress(address, (opts.interfaceAddresses ?? machineAddresses)());
}

function machineAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}

/** The URL's port, its scheme's default when none is written (url.port is "" then). */
export function portOf(url: URL): number {
  if (url.port !== "") return Number(url.port);
  return url.protocol === "http:" ? 80 : 443;
}

/** URL hostname without IPv6 brackets and without the trailing dot of a fully qualified name. */
function bareHost(url: URL): string {
  const h = url.hostname;
  return h.startsWith("[") && h.endsWith("]") ? h.slice(1, -1) : normaliseName(h);
}

function normaliseName(name: string): string {
  return name.trim().toLowerCase().replace(/\.+$/, "");
}

/**
 * `resolve(host)` bounded in time: getaddrinfo has no timeout of its own, and a lookup that never
 * settles would hold a request (or a connection slot of the sender) forever.
 */
export function resolveWithTimeout(resolve: Resolver, host: string, ms: number): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`DNS lookup of ${host} timed out`)), ms);
  });
  return Promise.race([resolve(host), timeout]).finally(() => clearTimeout(timer));
}
