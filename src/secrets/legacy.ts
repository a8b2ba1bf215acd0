/**
 * Opening values sealed before the key left the database: the key was `service_settings.secrets_key`
 * (64 hex characters) and each use derived its own AES-256-GCM key from it. Only the start-up migration
 * uses this, to re-seal such rows with the current key (secrets/startup.ts).
 */
import { createDecipheriv, createHash, hkdfSync } from "node:crypto";

/** The formats of those days: `v1.` webhook signing secrets, `s1.` stored idempotent responses. */
export const LEGACY_PATTERNS = { webhookSecret: "v1.%", storedResponse: "s1.%" } as const;

/**
 * Opens `stored`, given the old key and the context it would be sealed with today: webhook secrets
 * authenticated that same context (`webhook:<store id>`) under an HKDF key; stored responses nothing,
 * under a SHA-256 key.
 */
export function openLegacy(stored: string, legacyKey: string, context: string): string {
  if (stored.startsWith("v1.")) {
    const key = Buffer.from(
      hkdfSync("sha256", legacyKey, Buffer.alloc(0), "stockroom webhook signing secret v1", 32),
    );
    return openGcm(stored, key, context);
  }
  if (stored.startsWith("s1.")) {
    return openGcm(stored, createHash("sha256").update(`idempotency:${legacyKey}`).digest(), "");
  }
  throw new Error("not a value sealed with the old in-database key");
}

function openGcm(stored: string, key: Buffer, context: string): string {
  const parts = stored.split(".");
  if (parts.length !== 4) throw new Error("not a value sealed with the old in-database key");
  const [iv, tag, body] = parts.slice(1).map((p) => Buffer.from(p, "base64url"));
  const decipher = createDecipheriv("aes-256-gcm", key, iv);
  decipher.setAAD(Buffer.from(context, "utf8"));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
}
