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

/** Uniform base62 string: rejection sampling keeps every character equally likely. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const byte = nextRandomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
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
