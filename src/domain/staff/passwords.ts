import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/**
 * Staff passwords: scrypt (N = 2^14, r = 8, p = 1, 32-byte salt, 64-byte key), stored as
 * `scrypt$N$r$p$salt$hash` so the cost can rise later without invalidating stored hashes.
 */
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 200;

const COST = { N: 16384, r: 8, p: 1 };
const KEY_LENGTH = 64;

function derive(password: string, salt: Buffer, cost: typeof COST): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(
      password.normalize("NFKC"),
      salt,
      KEY_LENGTH,
      { ...cost, maxmem: 64 * 1024 * 1024 },
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(32);
  const key = await derive(password, salt, COST);
  return ["scrypt", COST.N, COST.r, COST.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/** Whether the password matches the stored hash; with no hash, spends the same time and says no. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = stored?.split("$") ?? [];
  if (parts.length !== 6 || parts[0] !== "scrypt") {
    await derive(password, randomBytes(32), COST);
    return false;
  }
  const cost = { N: Number(parts[1]), r: Number(parts[2]), p: Number(parts[3]) };
  const expected = Buffer.from(parts[5], "base64url");
  const key = await derive(password, Buffer.from(parts[4], "base64url"), cost);
  return key.length === expected.length && timingSafeEqual(key, expected);
}
