/**
 * One way to seal what the service stores but must read back (webhook signing secrets, stored
 * idempotent responses, platform access tokens): AES-256-GCM under a key kept outside the database.
 *
 * A sealed value is `k1.<key id>.<iv>.<tag>.<ciphertext>` (base64url parts). The key id says which key
 * opens it, so after a rotation the previous key still opens old rows and the start-up pass finds the
 * rows to re-seal (secrets/startup.ts). `context` (for example `webhook:<store id>`) is authenticated but
 * not stored: a value copied to another row or another use does not open there.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { SecretKey } from "./keys.ts";

const FORMAT = "k1";

export class Sealer {
  private readonly keys: ReadonlyMap<string, SecretKey>;

  constructor(
    readonly current: SecretKey,
    readonly previous: readonly SecretKey[] = [],
  ) {
    this.keys = new Map([...previous, current].map((k) => [k.id, k]));
  }

  /** The ids of every key this sealer opens with, the current one first. */
  get keyIds(): string[] {
    return [this.current.id, ...this.previous.map((k) => k.id).filter((id) => id !== this.current.id)];
  }

  seal(text: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.current.cipherKey, iv);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const body = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
    return [
      FORMAT,
      this.current.id,
      ...[iv, cipher.getAuthTag(), body].map((b) => b.toString("base64url")),
    ].join(".");
  }

  /** Opens a sealed value; throws when it is not one, its key is not given, or it was altered. */
  open(stored: string, context: string): string {
    const parts = stored.split(".");
    if (parts.length !== 5 || parts[0] !== FORMAT) throw new Error("not a sealed value");
    const key = this.keys.get(parts[1]);
    if (!key)
      throw new Error(`sealed with key ${parts[1]}, which is not given (SECRETS_KEY, SECRETS_KEY_PREVIOUS)`);
    const [iv, tag, body] = parts.slice(2).map((p) => Buffer.from(p, "base64url"));
    if (iv.length !== 12 || tag.length !== 16) throw new Error("not a sealed value");
    const decipher = createDecipheriv("aes-256-gcm", key.cipherKey, iv);
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
    } catch {
      throw new Error("sealed value could not be opened (altered, or sealed for another use)");
    }
  }

  /** The `like` pattern of values sealed with the key `keyId`. */
  static patternFor(keyId: string): string {
    return `${FORMAT}.${keyId}.%`;
  }
}
