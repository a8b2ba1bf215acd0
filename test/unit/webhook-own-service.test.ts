/**
 * The webhook own-service rule (issue 18 item 5): a URL is refused when it reaches this service's own
 * listener (its port on any address of this machine, by literal or resolved address) or names one of
 * PUBLIC_HOSTNAMES; other loopback ports pass when private targets are allowed.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isLocalAddress } from "../../src/domain/webhooks/address-policy.ts";
import { createWebhookSender } from "../../src/domain/webhooks/http-client.ts";
import { validateWebhookUrl } from "../../src/domain/webhooks/url-guard.ts";

const interfaces = ["10.1.2.3", "fd00::5", "fe80::1%eth0"];
const dns: Record<string, string[]> = {
  localhost: ["127.0.0.1", "::1"],
  "self.example.com": ["93.184.216.34", "10.1.2.3"],
  "hooks.example.com": ["93.184.216.34"],
  "api.stockroom.test": ["93.184.216.35"],
};
const base = {
  ownHostnames: ["api.stockroom.test"],
  ownPort: 3000,
  interfaceAddresses: () => interfaces,
  resolve: async (host: string) => dns[host] ?? [],
};
const dev = { ...base, allowPrivate: true };
const strict = { ...base, allowPrivate: false };

describe("isLocalAddress", () => {
  it("is loopback, unspecified, mapped forms of them, and this machine's interfaces", () => {
    for (const ip of ["127.0.0.1", "127.4.5.6", "0.0.0.0", "::1", "::", "::ffff:127.0.0.1", "::ffff:7f00:1"])
      assert.equal(isLocalAddress(ip, []), true, ip);
    for (const ip of ["10.1.2.3", "::ffff:10.1.2.3", "fd00:0:0::5", "fe80::1"])
      assert.equal(isLocalAddress(ip, interfaces), true, ip);
    for (const ip of ["10.1.2.4", "8.8.8.8", "fd00::6", "::2", "not an ip"])
      assert.equal(isLocalAddress(ip, interfaces), false, ip);
  });
});

describe("webhook own-service rule", () => {
  const refusedEverywhere: Array<[string, string]> = [
    ["https://127.0.0.1:3000/hook", "url must not point at this service (127.0.0.1:3000)"],
    ["https://[::1]:3000/", "url must not point at this service ([::1]:3000)"],
    ["https://0.0.0.0:3000/", "url must not point at this service (0.0.0.0:3000)"],
    ["https://[::ffff:127.0.0.1]:3000/", "url must not point at this service ([::ffff:7f00:1]:3000)"],
    ["https://127.9.9.9:3000/", "url must not point at this service (127.9.9.9:3000)"],
    ["https://10.1.2.3:3000/", "url must not point at this service (10.1.2.3:3000)"],
    ["https://[fd00::5]:3000/", "url must not point at this service ([fd00::5]:3000)"],
    [
      "https://localhost:3000/",
      "url must not point at this service (localhost resolves to 127.0.0.1, port 3000)",
    ],
    [
      "https://self.example.com:3000/",
      "url must not point at this service (self.example.com resolves to 10.1.2.3, port 3000)",
    ],
    ["https://api.stockroom.test:8443/", "url must not point at this service (api.stockroom.test)"],
    ["https://API.stockroom.test./", "url must not point at this service (api.stockroom.test)"],
  ];
  for (const [url, message] of refusedEverywhere) {
    it(`refuses ${url}, private targets allowed or not`, async () => {
      assert.deepEqual(await validateWebhookUrl(url, dev), { ok: false, message });
      const strictResult = await validateWebhookUrl(url, strict);
      assert.equal(strictResult.ok, false);
    });
  }

  it("with private targets allowed, other ports of loopback and of this machine pass", async () => {
    for (const url of [
      "https://127.0.0.1:8443/hook",
      "https://localhost:8443/",
      "https://[::1]:3001/",
      "https://0.0.0.0:8443/",
      "https://10.1.2.3:8443/",
      "https://self.example.com/",
      "https://hooks.example.com:3000/",
    ]) {
      const result = await validateWebhookUrl(url, dev);
      assert.equal(result.ok, true, url);
    }
  });

  it("a URL without a port is judged on its scheme's (443)", async () => {
    const on443 = { ...dev, ownPort: 443 };
    assert.deepEqual(await validateWebhookUrl("https://localhost/", on443), {
      ok: false,
      message: "url must not point at this service (localhost resolves to 127.0.0.1, port 443)",
    });
    assert.equal((await validateWebhookUrl("https://localhost:443/", dev)).ok, true);
  });

  it("the sender refuses at delivery a name that now resolves to this machine on the service's port", async () => {
    const sender = createWebhookSender({
      allowPrivate: true,
      ownPort: 3000,
      lookup: async () => ["127.0.0.1"],
      timeoutMs: 2000,
    });
    try {
      const literal = await sender.send({ url: "https://[::1]:3000/x", headers: {}, body: "{}" });
      assert.equal(literal.ok, false);
      assert.equal(literal.error, "url must not point at this service ([::1]:3000)");
      const rebound = await sender.send({ url: "https://hooks.example.com:3000/x", headers: {}, body: "{}" });
      assert.equal(rebound.ok, false);
      assert.match(
        rebound.error ?? "",
        /hooks\.example\.com resolves to 127\.0\.0\.1, this service's own port/,
      );
    } finally {
      await sender.close();
    }
  });
});
