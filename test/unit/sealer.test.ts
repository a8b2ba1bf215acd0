/** The sealing of stored secrets (src/secrets): format, key ids, contexts, previous keys, key parsing. */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { inspect } from "node:util";
import { parseSecretKey, Sealer, SecretKey } from "../../src/secrets/index.ts";

const keyA = new SecretKey(randomBytes(32));
const keyB = new SecretKey(randomBytes(32));

describe("sealer", () => {
  it("seals so that only the same key and context open, naming the key", () => {
    const sealer = new Sealer(keyA);
    const plain = "whsec_plain-secret-value";
    const stored = sealer.seal(plain, "webhook:7");
    assert.match(stored, new RegExp(`^k1\\.${keyA.id}\\.[\\w-]{16}\\.[\\w-]{22}\\.[\\w-]+$`));
    assert.ok(!stored.includes("plain-secret"));
    assert.notEqual(sealer.seal(plain, "webhook:7"), stored, "fresh IV each time");
    assert.equal(sealer.open(stored, "webhook:7"), plain);
    assert.throws(() => sealer.open(stored, "webhook:8"), /could not be opened/);
    assert.throws(() => new Sealer(keyB).open(stored, "webhook:7"), /not given/);
    const parts = stored.split(".");
    const body = Buffer.from(parts[4], "base64url");
    body[0] ^= 1;
    parts[4] = body.toString("base64url");
    assert.throws(() => sealer.open(parts.join("."), "webhook:7"), /could not be opened/);
    assert.throws(() => sealer.open("plain-text", "webhook:7"), /not a sealed value/);
  });

  it("deflates a long value when asked, and opens it, or one sealed as it is, to the same text", () => {
    const sealer = new Sealer(keyA);
    const text = JSON.stringify({
      lines: Array.from({ length: 200 }, (_, i) => ({ id: i, sku: `SKU-${i}`, note: "é ✓" })),
    });
    const deflated = sealer.seal(text, "idempotency", { compress: true });
    const plain = sealer.seal(text, "idempotency");
    assert.match(deflated, new RegExp(`^k1\\.${keyA.id}\\.`));
    assert.ok(deflated.length < plain.length / 4, `${deflated.length} against ${plain.length}`);
    assert.equal(sealer.open(deflated, "idempotency"), text);
    assert.equal(sealer.open(plain, "idempotency"), text);
    assert.throws(() => sealer.open(deflated, "webhook:1"), /could not be opened/);
  });

  it("opens with the previous key and seals with the current one", () => {
    const old = new Sealer(keyA).seal("secret", "idempotency");
    const rotated = new Sealer(keyB, [keyA]);
    assert.equal(rotated.open(old, "idempotency"), "secret");
    assert.equal(rotated.seal("secret", "idempotency").split(".")[1], keyB.id);
    assert.deepEqual(rotated.keyIds, [keyB.id, keyA.id]);
  });

  it("reads a key as 64 hex digits or base64 of 32 bytes, and never prints it", () => {
    const bytes = randomBytes(32);
    const fromHex = parseSecretKey(bytes.toString("hex"));
    const fromBase64 = parseSecretKey(bytes.toString("base64"));
    const fromBase64Url = parseSecretKey(`${bytes.toString("base64url")}\n`);
    assert.ok(fromHex && fromBase64 && fromBase64Url);
    assert.equal(fromHex.id, fromBase64.id);
    assert.equal(fromHex.id, fromBase64Url.id);
    for (const bad of [
      "",
      "short",
      bytes.subarray(0, 31).toString("base64"),
      "g".repeat(64),
      randomBytes(33).toString("hex"),
    ])
      assert.equal(parseSecretKey(bad), null, bad);
    assert.ok(!JSON.stringify({ key: fromHex }).includes(bytes.toString("hex")));
    assert.ok(!inspect({ key: fromHex }).includes(bytes.toString("hex").slice(0, 8)));
    assert.equal(JSON.stringify(fromHex), `"[secrets key ${fromHex.id}]"`);
  });
});
