/**
 * Webhook signatures (contract "Events": Signature) and signing secrets (their sealing: sealer.test.ts).
 * The expected values are computed here with node:crypto directly, not through the module under test.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  generateWebhookSecret,
  SIGNATURE_TOLERANCE_SECONDS,
  signatureHeader,
  verifySignature,
} from "../../src/domain/webhooks/signing.ts";

const secret = "whsec_test_secret";
const body = '{"id":"evt_1","event":"purchase_order.created","api_version":2,"data":{"note":"caf\u00e9"}}';
const now = 1_767_225_600;

describe("webhook signature", () => {
  it("is sha256= and the hex HMAC-SHA256 of '<timestamp>.<raw body>'", () => {
    const expected = createHmac("sha256", secret)
      .update(Buffer.from(`${now}.${body}`, "utf8"))
      .digest("hex");
    assert.equal(signatureHeader(secret, now, body), `sha256=${expected}`);
    assert.equal(signatureHeader(secret, now, Buffer.from(body, "utf8")), `sha256=${expected}`);
  });

  it("matches a fixed vector", () => {
    // HMAC-SHA256(key "secret", "1700000000.{}"), computed once with node:crypto.
    const expected = createHmac("sha256", "secret").update("1700000000.{}").digest("hex");
    assert.equal(signatureHeader("secret", 1_700_000_000, "{}"), `sha256=${expected}`);
  });

  it("verifies a signature it made, within the tolerance on both sides", () => {
    const signature = signatureHeader(secret, now, body);
    assert.equal(verifySignature(secret, String(now), signature, body, now), true);
    assert.equal(verifySignature(secret, String(now), signature, Buffer.from(body), now + 300), true);
    assert.equal(
      verifySignature(secret, String(now), signature.toUpperCase().replace("SHA256", "sha256"), body, now),
      true,
    );
  });

  it("rejects a one-byte change anywhere in the body", () => {
    const raw = Buffer.from(body, "utf8");
    const signature = signatureHeader(secret, now, raw);
    for (let i = 0; i < raw.length; i++) {
      const changed = Buffer.from(raw);
      changed[i] ^= 0x01;
      assert.equal(verifySignature(secret, String(now), signature, changed, now), false, `byte ${i}`);
    }
  });

  it("rejects a timestamp older (or further ahead) than 300 s", () => {
    const signature = signatureHeader(secret, now, body);
    assert.equal(SIGNATURE_TOLERANCE_SECONDS, 300);
    assert.equal(verifySignature(secret, String(now), signature, body, now + 301), false);
    assert.equal(verifySignature(secret, String(now), signature, body, now - 301), false);
  });

  it("rejects a changed timestamp, another secret and malformed headers", () => {
    const signature = signatureHeader(secret, now, body);
    assert.equal(verifySignature(secret, String(now + 1), signature, body, now), false);
    assert.equal(verifySignature("whsec_other", String(now), signature, body, now), false);
    for (const bad of [
      undefined,
      null,
      "",
      "sha256=",
      signature.slice(7),
      `sha1=${signature.slice(7)}`,
      `${signature}00`,
    ]) {
      assert.equal(verifySignature(secret, String(now), bad, body, now), false, String(bad));
    }
    for (const ts of [undefined, null, "", "abc", "-1", `${now}.5`, "1e9"]) {
      assert.equal(verifySignature(secret, ts, signature, body, now), false, String(ts));
    }
  });

  it("round-trips for any secret, body and time", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.uint8Array(),
        fc.integer({ min: 0, max: 4_000_000_000 }),
        (s, b, t) => {
          const raw = Buffer.from(b);
          assert.equal(verifySignature(s, String(t), signatureHeader(s, t, raw), raw, t), true);
        },
      ),
    );
  });
});

describe("webhook secrets", () => {
  it("generates whsec_ secrets of 32 random bytes", () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    assert.match(a, /^whsec_[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(a.slice(6), "base64url").length, 32);
    assert.notEqual(a, b);
  });
});
