import { createHmac, timingSafeEqual } from "node:crypto";

/** A SHA-256 digest in base64 is 43 characters and one `=`; anything else cannot be a signature. */
const BASE64_SHA256 = /^[A-Za-z0-9+/]{43}=$/;

/**
 * Whether `header` (X-Shopify-Hmac-Sha256) is the base64 HMAC-SHA256 of the raw body with `secret`.
 * The body is the bytes as received, never a re-serialized parse (key order and escapes would change
 * the digest). The header must be canonical base64: Node's decoder skips stray characters, which would
 * let many headers stand for one digest. Compared in constant time.
 */
export function webhookHmacMatches(rawBody: Buffer, header: string | undefined, secret: string): boolean {
  if (typeof header !== "string" || !BASE64_SHA256.test(header)) return false;
  const expected = createHmac("sha256", secret).update(rawBody).digest();
  const given = Buffer.from(header, "base64");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
