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
import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { SecretKey } from "./keys.ts";

const FORMAT = "k1";
/**
 * A plaintext that starts with this byte is deflated text. No UTF-8 text starts with 0xff (the byte
 * never occurs in UTF-8), so values sealed before compression existed, and short ones sealed as they
 * are, still open as text.
 */
const DEFLATED = 0xff;

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

  /**
   * `compress`: deflate the text before sealing (for large values such as stored responses: a
   * 50-line receipt's answer is ~80 KB of JSON that deflates tenfold, and sealed values do not
   * compress afterwards). Not for a secret sealed again and again beside text an attacker chooses:
   * the compressed length would leak it.
   */
  seal(text: string | Buffer, context: string, options: { compress?: boolean } = {}): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.current.cipherKey, iv);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const plain = options.compress
      ? Buffer.concat([Buffer.of(DEFLATED), deflateRawSync(text, { level: 1 })])
      : typeof text === "string"
        ? Buffer.from(text, "utf8")
        : text;
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
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
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(body), decipher.final()]);
    } catch {
      throw new Error("sealed value could not be opened (altered, or sealed for another use)");
    }
    return plain[0] === DEFLATED
      ? inflateRawSync(plain.subarray(1)).toString("utf8")
      : plain.toString("utf8");
  }

  /** The `like` pattern of values sealed with the key `keyId`. */
  static patternFor(keyId: string): string {
    return `${FORMAT}.${keyId}.%`;
  }
}
