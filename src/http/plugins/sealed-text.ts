import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/**
 * Stored responses can hold secrets shown once (a webhook's signing secret), so they are kept
 * encrypted at rest (AES-256-GCM) rather than in plain text for their 24 hours.
 */
export function sealingKey(installationSecret: string, purpose: string): Buffer {
  return createHash("sha256").update(`${purpose}:${installationSecret}`).digest();
}

export function seal(text: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
  return `s1.${iv.toString("base64url")}.${cipher.getAuthTag().toString("base64url")}.${body.toString("base64url")}`;
}

export function unseal(stored: string, key: Buffer): string {
  const [version, iv, tag, body] = stored.split(".");
  if (version !== "s1" || !iv || !tag || body === undefined) throw new Error("not a sealed value");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
}
