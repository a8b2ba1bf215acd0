import { createHash, randomFillSync, timingSafeEqual } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * Random bytes drawn from a buffer the CSPRNG refills 4 KiB at a time: one request id or event id
 * costs a few array reads instead of a call into the OS (randomUUID caches the same way).
 */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function nextRandomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++];
}

const BASE62_CODES = Buffer.from(BASE62, "latin1");
/** Where a string is put together before it is made (one at a time: nothing here awaits). */
const scratch = Buffer.alloc(256);

/**
 * `prefix` then `length` uniform base62 characters (rejection sampling keeps every character equally
 * likely), made as one flat string: appended a character at a time (and the prefix put before) it was
 * a chain of ~10 string pieces, ~600 bytes allocated and ~300 kept per request id, which the request
 * log keeps through young-generation collections until its flush (docs/performance.md, "PDFs beside
 * whoami"). The prefix is ASCII.
 */
export function randomBase62(length: number, prefix = ""): string {
  const size = prefix.length + length;
  const out = size <= scratch.length ? scratch : Buffer.alloc(size);
  out.write(prefix, 0, "latin1");
  for (let at = prefix.length; at < size; ) {
    const byte = nextRandomByte();
    if (byte < 248) out[at++] = BASE62_CODES[byte % 62];
  }
  return out.toString("latin1", 0, size);
}

export const API_KEY_PREFIX = "sr2_";
export const API_KEY_PATTERN = /^sr2_[0-9A-Za-z]{40}$/;

/** A new API key: shown once; only its hash is kept. */
export function generateApiKey(): { key: string; prefix: string; hash: string } {
  const key = API_KEY_PREFIX + randomBase62(40);
  return { key, prefix: key.slice(0, 12), hash: hashSecret(key) };
}

/**
 * Keys carry ~238 bits of randomness, so a fast unsalted SHA-256 is safe here (no dictionary to
 * attack) and lets the lookup be a single indexed equality on every request.
 */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

export function safeEqualHex(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}
