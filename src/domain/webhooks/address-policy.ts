/**
 * Which IP addresses a webhook may be delivered to (contract "Webhooks" rules, docs/decisions.md,
 * "Webhooks").
 *
 * A webhook URL is chosen by a merchant, so delivery is a server-side request to an address an outsider
 * picked. Anything that is not plainly a public unicast address is refused: loopback, private, link-local
 * (cloud metadata lives at 169.254.169.254), CGNAT, multicast, reserved and documentation ranges. IPv6
 * forms that carry an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo) are unwrapped and
 * the embedded IPv4 address is judged, because the kernel or a translator on the path would deliver the
 * packet to that IPv4 address.
 *
 * Pure functions, no I/O: callers resolve names and pass the resulting addresses here.
 */
import { isIP } from "node:net";

/** An IPv4 range as the numeric network address, prefix length and the reason used in messages. */
type Ipv4Range = readonly [network: number, prefix: number, reason: string];

const IPV4_REFUSED: readonly Ipv4Range[] = [
  [ipv4("0.0.0.0"), 8, "unspecified or 'this network'"],
  [ipv4("10.0.0.0"), 8, "private"],
  [ipv4("100.64.0.0"), 10, "carrier-grade NAT"],
  [ipv4("127.0.0.0"), 8, "loopback"],
  [ipv4("169.254.0.0"), 16, "link-local"],
  [ipv4("172.16.0.0"), 12, "private"],
  [ipv4("192.0.0.0"), 24, "IETF protocol assignments"],
  [ipv4("192.0.2.0"), 24, "documentation"],
  [ipv4("192.88.99.0"), 24, "6to4 relay anycast"],
  [ipv4("192.168.0.0"), 16, "private"],
  [ipv4("198.18.0.0"), 15, "benchmarking"],
  [ipv4("198.51.100.0"), 24, "documentation"],
  [ipv4("203.0.113.0"), 24, "documentation"],
  [ipv4("224.0.0.0"), 4, "multicast"],
  // 240/4 includes 255.255.255.255 (limited broadcast); listed first so the message names it.
  [ipv4("255.255.255.255"), 32, "broadcast"],
  [ipv4("240.0.0.0"), 4, "reserved"],
];

/** An IPv6 range as its leading 16-bit words (the rest zero), prefix length and reason. */
type Ipv6Range = readonly [words: readonly number[], prefix: number, reason: string];

// Ranges inside 2000::/3 (global unicast) that are still not reachable public destinations. Everything
// outside 2000::/3 is refused anyway (see classifyIpv6); the explicit entries below only give a
// clearer message for the well-known ones.
const IPV6_REFUSED: readonly Ipv6Range[] = [
  [[0x0100], 64, "discard-only"],
  [[0xfc00], 7, "unique local (private)"],
  [[0xfe80], 10, "link-local"],
  [[0xfec0], 10, "site-local"],
  [[0xff00], 8, "multicast"],
  [[0x2001, 0x0db8], 32, "documentation"],
  [[0x3fff], 20, "documentation"],
  [[0x2001, 0x0002, 0x0000], 48, "benchmarking"],
  [[0x2001, 0x0010], 28, "ORCHID"],
  [[0x2001, 0x0020], 28, "ORCHIDv2"],
  [[0x5f00], 16, "segment routing"],
];

/**
 * Null when `ip` is a public unicast address a webhook may be sent to; otherwise a short English reason
 * for error messages ("loopback", "private (IPv4-mapped 10.0.0.1)", "not an IP address").
 * Accepts IPv4 dotted quads and IPv6 text (with or without a `%zone` suffix, without brackets).
 */
export function classifyAddress(ip: string): string | null {
  switch (isIP(ip)) {
    case 4:
      return classifyIpv4(parseIpv4(ip)!);
    case 6: {
      const words = parseIpv6(ip);
      return words === null ? "not an IP address" : classifyIpv6(words);
    }
    default:
      return "not an IP address";
  }
}

/** True when `ip` is a public unicast address (see classifyAddress). */
export function isPublicAddress(ip: string): boolean {
  return classifyAddress(ip) === null;
}

/**
 * True when a connection to `ip` stays on this machine: loopback, the unspecified address (which
 * connects locally), or one of `interfaceAddresses` (this machine's own; the caller lists them).
 * IPv4-mapped IPv6 addresses are judged as their IPv4 address.
 */
export function isLocalAddress(ip: string, interfaceAddresses: readonly string[]): boolean {
  const plain = unmapped(ip);
  if (plain === null) return false;
  if (isIP(plain) === 4) {
    const address = parseIpv4(plain)!;
    if (inIpv4Range(address, ipv4("127.0.0.0"), 8) || inIpv4Range(address, ipv4("0.0.0.0"), 8)) return true;
  } else {
    const words = parseIpv6(plain)!;
    if (words.slice(0, 7).every((x) => x === 0) && (words[7] === 0 || words[7] === 1)) return true;
  }
  return interfaceAddresses.some((candidate) => sameAddress(unmapped(candidate), plain));
}

/** `ip` as text with an IPv4-mapped IPv6 address turned into its IPv4 address; null if not an address. */
function unmapped(ip: string): string | null {
  if (isIP(ip) === 4) return ip;
  if (isIP(ip) !== 6) return null;
  const w = parseIpv6(ip);
  if (w === null) return null;
  if (w.slice(0, 5).every((x) => x === 0) && w[5] === 0xffff) return formatIpv4(((w[6] << 16) | w[7]) >>> 0);
  return ip.split("%")[0];
}

function sameAddress(a: string | null, b: string): boolean {
  if (a === null || isIP(a) !== isIP(b)) return false;
  if (isIP(a) === 4) return a === b;
  return parseIpv6(a)!.every((word, i) => word === parseIpv6(b)![i]);
}

function classifyIpv4(address: number): string | null {
  for (const [network, prefix, reason] of IPV4_REFUSED) {
    if (inIpv4Range(address, network, prefix)) return reason;
  }
  return null;
}

function classifyIpv6(w: readonly number[]): string | null {
  const embedded = embeddedIpv4(w);
  if (embedded !== null) {
    const reason = classifyIpv4(embedded.address);
    return reason === null ? null : `${reason} (${embedded.kind} ${formatIpv4(embedded.address)})`;
  }
  if (w.every((x) => x === 0)) return "unspecified";
  if (w.slice(0, 7).every((x) => x === 0) && w[7] === 1) return "loopback";
  // 64:ff9b:1::/48 is the local-use NAT64 prefix (RFC 8215): never globally routed, and where the IPv4
  // address sits inside it depends on a locally chosen prefix length, so the whole range is refused.
  if (inIpv6Range(w, [0x0064, 0xff9b, 0x0001], 48)) return "local-use NAT64";
  for (const [network, prefix, reason] of IPV6_REFUSED) {
    if (inIpv6Range(w, network, prefix)) return reason;
  }
  // Only 2000::/3 is allocated as global unicast; the rest is reserved or special-purpose.
  if (!inIpv6Range(w, [0x2000], 3)) return "reserved (not global unicast)";
  return null;
}

/**
 * The IPv4 address carried by an IPv6 address, for the forms a host or translator would actually
 * forward to that IPv4 address. Checked before the plain IPv6 ranges so that, say, `::ffff:8.8.8.8` is
 * judged as 8.8.8.8 and `::ffff:127.0.0.1` as loopback.
 */
function embeddedIpv4(w: readonly number[]): { kind: string; address: number } | null {
  const low32 = ((w[6] << 16) | w[7]) >>> 0;
  const zeros = (from: number, to: number) => w.slice(from, to).every((x) => x === 0);
  // ::ffff:a.b.c.d, IPv4-mapped: the socket layer talks IPv4 to a.b.c.d.
  if (zeros(0, 5) && w[5] === 0xffff) return { kind: "IPv4-mapped", address: low32 };
  // ::ffff:0:a.b.c.d, IPv4-translated (SIIT, RFC 2765).
  if (zeros(0, 4) && w[4] === 0xffff && w[5] === 0) return { kind: "IPv4-translated", address: low32 };
  // ::a.b.c.d, deprecated IPv4-compatible. :: and ::1 are excluded so they keep their own names.
  if (zeros(0, 6) && low32 > 1) return { kind: "IPv4-compatible", address: low32 };
  // 64:ff9b::/96, well-known NAT64 prefix (RFC 6052): the translator forwards to the low 32 bits.
  if (w[0] === 0x0064 && w[1] === 0xff9b && zeros(2, 6)) return { kind: "NAT64", address: low32 };
  // 2002::/16, 6to4 (RFC 3056): the IPv4 address is bits 16-47.
  if (w[0] === 0x2002) return { kind: "6to4", address: ((w[1] << 16) | w[2]) >>> 0 };
  // 2001::/32, Teredo (RFC 4380): the client's public IPv4 address is stored bit-inverted in the last
  // 32 bits.
  if (w[0] === 0x2001 && w[1] === 0) return { kind: "Teredo", address: ~low32 >>> 0 };
  return null;
}

function inIpv4Range(address: number, network: number, prefix: number): boolean {
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return (address & mask) >>> 0 === network;
}

function inIpv6Range(w: readonly number[], network: readonly number[], prefix: number): boolean {
  for (let i = 0; i * 16 < prefix; i++) {
    const bits = Math.min(16, prefix - i * 16);
    const mask = (0xffff << (16 - bits)) & 0xffff;
    if ((w[i] & mask) !== ((network[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** Dotted-quad IPv4 to an unsigned 32-bit number; null unless exactly four decimal octets 0-255. */
export function parseIpv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    // No leading zeros: "010" means octal to some parsers and decimal to others.
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value;
}

function formatIpv4(address: number): string {
  return [address >>> 24, (address >>> 16) & 0xff, (address >>> 8) & 0xff, address & 0xff].join(".");
}

/**
 * IPv6 text to its eight 16-bit words; null when malformed. Handles `::` compression, an embedded
 * dotted quad in the last 32 bits (`::ffff:1.2.3.4`) and drops a `%zone` suffix.
 */
export function parseIpv6(text: string): number[] | null {
  let rest = text;
  const zone = rest.indexOf("%");
  if (zone >= 0) rest = rest.slice(0, zone);

  let tail: number[] = [];
  const lastColon = rest.lastIndexOf(":");
  if (lastColon < 0) return null;
  if (rest.includes(".", lastColon)) {
    const v4 = parseIpv4(rest.slice(lastColon + 1));
    if (v4 === null) return null;
    tail = [v4 >>> 16, v4 & 0xffff];
    // Keep a "::" that ends right before the quad; drop a single separating ":".
    rest = rest.endsWith("::", lastColon + 1) ? rest.slice(0, lastColon + 1) : rest.slice(0, lastColon);
  }

  const halves = rest.split("::");
  if (halves.length > 2) return null;
  const head = parseGroups(halves[0]);
  if (head === null) return null;
  if (halves.length === 1) {
    const words = [...head, ...tail];
    return words.length === 8 ? words : null;
  }
  const after = parseGroups(halves[1]);
  if (after === null) return null;
  const missing = 8 - head.length - after.length - tail.length;
  // "::" stands for at least one zero group.
  if (missing < 1) return null;
  return [...head, ...new Array<number>(missing).fill(0), ...after, ...tail];
}

function parseGroups(part: string): number[] | null {
  if (part === "") return [];
  const words: number[] = [];
  for (const group of part.split(":")) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return null;
    words.push(Number.parseInt(group, 16));
  }
  return words;
}

function ipv4(text: string): number {
  return parseIpv4(text)!;
}
