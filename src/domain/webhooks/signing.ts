/**
 * Webhook signatures and the storage of signing secrets (contract "Events": Signature; docs/decisions.md,
 * "Webhooks").
 *
 * X-Service-Signature is `sha256=` + hex HMAC-SHA256, keyed with the endpoint's secret, over
 * `<X-Service-Timestamp>.<raw body bytes>`. Binding the timestamp into the MAC is what lets a receiver
 * reject replays older than 300 s; each attempt is signed afresh with the time it is sent.
 *
 * Storage: an HMAC needs the raw secret to sign, so the secret cannot be stored as a one-way hash the
 * way API keys are. It is sealed (src/secrets) under a key kept outside the database, so a database
 * dump alone does not let anyone forge deliveries.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** Receivers reject timestamps further than this from their clock (contract "Limits"). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const SIGNATURE_PREFIX = "sha256=";
const SECRET_PREFIX = "whsec_";

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

function hmacHex(secret: string, timestamp: string, rawBody: string | Buffer): string {
  return createHmac("sha256", secret).update(`${timestamp}.`, "utf8").update(rawBody).digest("hex");
}
