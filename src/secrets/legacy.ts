/**
 * Opening values sealed before the key left the database: the key was `service_settings.secrets_key`
 * (64 hex characters) and each use derived its own AES-256-GCM key from it. Only the start-up migration
 * uses this, to re-seal such rows with the current key (secrets/startup.ts).
 */
import { createDecipheriv, createHash, hkdfSync } from "node:crypto";

/** Webhook signing secrets: `v1.<iv>.<tag>.<ciphertext>`, HKDF key, store context authenticated. */
export function openLegacyWebhookSecret(stored: string, legacyKey: string, storeId: number): string {
  const key = Buffer.from(
    hkdfSync("sha256", legacyKey, Buffer.alloc(0), "stockroom webhook signing secret v1", 32),
  );
  return openGcm(stored, "v1", key, `webhook:${storeId}`);
}

/** Stored idempotent responses: `s1.<iv>.<tag>.<ciphertext>`, SHA-256 key, nothing authenticated. */
export function openLegacyResponse(stored: string, legacyKey: string): string {
  const key = createHash("sha256").update(`idempotency:${legacyKey}`).digest();
  return openGcm(stored, "s1", key, "");
}

function openGcm(stored: string, format: string, key: Buffer, context: string): string {
  const parts = stored.split(".");
  if (parts.length !== 4 || parts[0] !== format) throw new Error(`not a ${format} sealed value`);
  const [iv, tag, body] = parts.slice(1).map((p) => Buffer.from(p, "base64url"));
  const decipher = createDecipheriv("aes-256-gcm", key, iv);
  decipher.setAAD(Buffer.from(context, "utf8"));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
}
