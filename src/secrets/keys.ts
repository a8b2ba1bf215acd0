/**
 * The keys that seal secrets the service must read back. A key is 32 random bytes given outside the
 * database (SECRETS_KEY, or the key file under DATA_DIR), so a copy of the database alone opens nothing.
 */
import { createHash, hkdfSync } from "node:crypto";
import { inspect } from "node:util";

export const SECRETS_KEY_BYTES = 32;

export class SecretKey {
  /** Names the key in sealed values (so a row says which key opens it) without revealing it. */
  readonly id: string;
  /** The AES-256-GCM key actually used: derived, so the configured bytes never key a cipher directly. */
  readonly cipherKey: Buffer;

  constructor(bytes: Buffer) {
    if (bytes.length !== SECRETS_KEY_BYTES)
      throw new Error(`a secrets key must be ${SECRETS_KEY_BYTES} bytes`);
    this.id = createHash("sha256")
      .update("stockroom secrets key id\0")
      .update(bytes)
      .digest("hex")
      .slice(0, 12);
    this.cipherKey = Buffer.from(hkdfSync("sha256", bytes, Buffer.alloc(0), "stockroom sealing v1", 32));
  }

  // A key must never reach a log line or a JSON dump of the configuration.
  toJSON(): string {
    return `[secrets key ${this.id}]`;
  }

  [inspect.custom](): string {
    return this.toJSON();
  }
}

/**
 * 32 bytes written as 64 hex digits or as base64 (standard or URL-safe, padding optional); null for
 * anything else. `openssl rand -base64 32` and `openssl rand -hex 32` both give a valid value.
 */
export function parseSecretKey(raw: string): SecretKey | null {
  const text = raw.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return new SecretKey(Buffer.from(text, "hex"));
  if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(text)) {
    const bytes = Buffer.from(text.replace(/-/g, "+").replace(/_/g, "/"), "base64");
    if (bytes.length === SECRETS_KEY_BYTES) return new SecretKey(bytes);
  }
  return null;
}
