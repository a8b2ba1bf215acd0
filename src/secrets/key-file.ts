/**
 * The key of an installation without SECRETS_KEY: a file created at first start under DATA_DIR, beside
 * (not inside) the embedded database's directory, readable by its owner only. A backup of the database
 * files alone does not carry it.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { parseSecretKey, SECRETS_KEY_BYTES, type SecretKey } from "./keys.ts";
import { SecretsRefusal } from "./refusal.ts";

export const KEY_FILE_NAME = "secrets.key";

export function keyFilePath(dataDir: string): string {
  return path.join(dataDir, KEY_FILE_NAME);
}

/** Reads the key file, creating it (mode 0600) when there is none. */
export function loadOrCreateKeyFile(dataDir: string): SecretKey {
  const file = keyFilePath(dataDir);
  if (!fs.existsSync(file)) create(file);
  const key = parseSecretKey(fs.readFileSync(file, "utf8"));
  if (!key) throw new SecretsRefusal(`${file} does not hold a secrets key (32 bytes, base64 or hex)`);
  return key;
}

/**
 * Written whole to a private temporary file, then linked into place: the API and the worker starting
 * together never read a half-written key, and the one that loses the race reads the winner's.
 */
function create(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
  fs.writeFileSync(temporary, `${randomBytes(SECRETS_KEY_BYTES).toString("base64")}\n`, {
    mode: 0o600,
    flag: "wx",
  });
  try {
    fs.linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    fs.unlinkSync(temporary);
  }
}
