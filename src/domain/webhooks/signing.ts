/**
 * Webhook signatures and the storage of signing secrets (contract "Events": Signature; decisions §10).
 *
 * X-Service-Signature is `sha256=` + hex HMAC-SHA256, keyed with the endpoint's secret, over
 * `<X-Service-Timestamp>.<raw body bytes>`. Binding the timestamp into the MAC is what lets a receiver
 * reject replays older than 300 s; each attempt is signed afresh with the time it is sent.
 *
 * Storage: an HMAC needs the raw secret to sign, so the secret cannot be stored as a one-way hash the
 * way API keys are. It is stored encrypted with AES-256-GCM under a server-held master key
 * (`encryptSecret`/`decryptSecret`), so a database dump alone does not let anyone forge deliveries.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from "node:crypto";

/** Receivers reject timestamps further than this from their clock (contract "Limits"). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const SIGNATURE_PREFIX = "sha256=";
const SECRET_PREFIX = "whsec_";
const ENCRYPTED_PREFIX = "v1";

/** The X-Service-Signature value for one attempt. */
export function signatureHeader(secret: string, timestampSeconds: number, rawBody: string | Buffer): string {
  return SIGNATURE_PREFIX + hmacHex(secret, String(timestampSeconds), rawBody);
}

/**
 * What receivers are told to do, and what the tests use: recompute the HMAC over the raw body bytes,
 * compare in constant time, and refuse a timestamp more than `toleranceSeconds` away from now (in either
 * direction, so a clock running ahead cannot mint signatures valid for longer).
 */
export function verifySignature(
  secret: string,
  timestampHeader: string | null | undefined,
  signatureHeaderValue: string | null | undefined,
  rawBody: string | Buffer,
  nowSeconds: number,
  toleranceSeconds: number = SIGNATURE_TOLERANCE_SECONDS,
): boolean {
  if (typeof timestampHeader !== "string" || !/^\d{1,12}$/.test(timestampHeader)) return false;
  if (typeof signatureHeaderValue !== "string") return false;
  if (Math.abs(nowSeconds - Number(timestampHeader)) > toleranceSeconds) return false;

  const match = /^sha256=([0-9a-f]{64})$/i.exec(signatureHeaderValue.trim());
  if (match === null) return false;
  const given = Buffer.from(match[1], "hex");
  const expected = Buffer.from(hmacHex(secret, timestampHeader, rawBody), "hex");
  return timingSafeEqual(given, expected);
}

/** A fresh signing secret: `whsec_` + 32 random bytes, base64url (shown once, at creation). */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64url");
}

/**
 * A 32-byte key for secret encryption derived from a longer-lived server secret (HKDF-SHA256 with a
 * purpose label), so one configured secret can serve several purposes without key reuse.
 */
export function deriveSecretKey(rootSecret: string | Buffer): Buffer {
  return Buffer.from(
    hkdfSync("sha256", rootSecret, Buffer.alloc(0), "stockroom webhook signing secret v1", 32),
  );
}

/**
 * Encrypts a signing secret for storage: `v1.<iv>.<tag>.<ciphertext>`, base64url parts. `context`
 * (for example the store id) is authenticated but not stored, so a ciphertext copied to another row
 * does not decrypt there.
 */
export function encryptSecret(secret: string, masterKey: Buffer, context = ""): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", checkKey(masterKey), iv);
  cipher.setAAD(Buffer.from(context, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return [ENCRYPTED_PREFIX, iv, cipher.getAuthTag(), ciphertext]
    .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
    .join(".");
}

/** Reverses encryptSecret; throws if the value was altered or the key or context differ. */
export function decryptSecret(stored: string, masterKey: Buffer, context = ""): string {
  const parts = stored.split(".");
  if (parts.length !== 4 || parts[0] !== ENCRYPTED_PREFIX) {
    throw new Error("encrypted webhook secret has an unknown format");
  }
  const [iv, tag, ciphertext] = parts.slice(1).map((p) => Buffer.from(p, "base64url"));
  if (iv.length !== 12 || tag.length !== 16)
    throw new Error("encrypted webhook secret has an unknown format");
  const decipher = createDecipheriv("aes-256-gcm", checkKey(masterKey), iv);
  decipher.setAAD(Buffer.from(context, "utf8"));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString("utf8");
  } catch {
    throw new Error("encrypted webhook secret could not be decrypted (wrong key or altered value)");
  }
}

function hmacHex(secret: string, timestamp: string, rawBody: string | Buffer): string {
  return createHmac("sha256", secret).update(`${timestamp}.`, "utf8").update(rawBody).digest("hex");
}

function checkKey(key: Buffer): Buffer {
  if (key.length !== 32) throw new Error("webhook secret master key must be 32 bytes");
  return key;
}
