/**
 * SSRF rules for webhook targets: the address classification (address-policy.ts) and the URL check at
 * creation (url-guard.ts), issue 9 "SSRF refusals".
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { classifyAddress, isPublicAddress, parseIpv6 } from "../../src/domain/webhooks/address-policy.ts";
import { type Resolver, validateWebhookUrl } from "../../src/domain/webhooks/url-guard.ts";

describe("webhook address policy", () => {
  const refused: Array<[string, RegExp]> = [
    ["127.0.0.1", /loopback/],
    ["127.255.255.254", /loopback/],
    ["10.0.0.1", /private/],
    ["172.16.0.1", /private/],
    ["172.31.255.255", /private/],
    ["192.168.1.1", /private/],
    ["169.254.169.254", /link-local/],
    ["100.64.0.1", /carrier-grade NAT/],
    ["100.127.255.255", /carrier-grade NAT/],
    ["0.0.0.0", /unspecified/],
    ["224.0.0.1", /multicast/],
    ["239.255.255.250", /multicast/],
    ["240.0.0.1", /reserved/],
    ["255.255.255.255", /broadcast/],
    ["192.0.0.8", /IETF/],
    ["192.0.2.1", /documentation/],
    ["198.51.100.7", /documentation/],
    ["203.0.113.9", /documentation/],
    ["192.88.99.1", /6to4 relay/],
    ["198.18.0.1", /benchmarking/],
    ["198.19.255.255", /benchmarking/],
    ["::", /unspecified/],
    ["::1", /loopback/],
    ["0:0:0:0:0:0:0:1", /loopback/],
    ["::ffff:127.0.0.1", /loopback \(IPv4-mapped 127\.0\.0\.1\)/],
    ["::ffff:7f00:1", /loopback \(IPv4-mapped 127\.0\.0\.1\)/],
    ["::FFFF:A9FE:A9FE", /link-local \(IPv4-mapped 169\.254\.169\.254\)/],
    ["::ffff:0:10.0.0.1", /private \(IPv4-translated/],
    ["::127.0.0.1", /loopback \(IPv4-compatible/],
    ["::a00:1", /private \(IPv4-compatible 10\.0\.0\.1\)/],
    ["64:ff9b::a9fe:a9fe", /link-local \(NAT64 169\.254\.169\.254\)/],
    ["64:ff9b::127.0.0.1", /loopback \(NAT64/],
    ["64:ff9b:1::808:808", /local-use NAT64/],
    ["2002:7f00:1::", /loopback \(6to4 127\.0\.0\.1\)/],
    ["2002:c0a8:101::1", /private \(6to4 192\.168\.1\.1\)/],
    // Teredo: client 127.0.0.1 is stored inverted as 80ff:fffe.
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", /loopback \(Teredo 127\.0\.0\.1\)/],
    ["fe80::1", /link-local/],
    ["fe80::1%eth0", /link-local/],
    ["febf:ffff::1", /link-local/],
    ["fc00::1", /unique local/],
    ["fd12:3456:789a::1", /unique local/],
    ["ff02::1", /multicast/],
    ["2001:db8::1", /documentation/],
    ["100::1", /discard-only/],
    ["fec0::1", /site-local/],
    ["4000::1", /not global unicast/],
    ["not-an-ip", /not an IP/],
    ["127.1", /not an IP/],
    ["0x7f000001", /not an IP/],
    ["010.0.0.1", /not an IP/],
    ["[::1]", /not an IP/],
    ["", /not an IP/],
  ];
  for (const [ip, reason] of refused) {
    it(`refuses ${ip || "(empty)"}`, () => {
      assert.equal(isPublicAddress(ip), false);
      assert.match(classifyAddress(ip) ?? "", reason);
    });
  }

  const accepted = [
    "8.8.8.8",
    "1.1.1.1",
    "93.184.216.34",
    "172.32.0.1",
    "100.128.0.1",
    "192.0.3.1",
    "223.255.255.255",
    "2606:4700:4700::1111",
    "2a00:1450:4001:81a::200e",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
    "2001:0:4136:e378:8000:63bf:f7f7:f7f7", // Teredo client 8.8.8.8
  ];
  for (const ip of accepted) {
    it(`accepts ${ip}`, () => {
      assert.equal(classifyAddress(ip), null);
      assert.equal(isPublicAddress(ip), true);
    });
  }

  it("judges every IPv6 wrapping of an IPv4 address like the address itself", () => {
    fc.assert(
      fc.property(fc.ipV4(), (v4) => {
        const [a, b, c, d] = v4.split(".").map(Number);
        const hi = ((a << 8) | b).toString(16);
        const lo = ((c << 8) | d).toString(16);
        const inverted = [(~((a << 8) | b) & 0xffff).toString(16), (~((c << 8) | d) & 0xffff).toString(16)];
        const expected = isPublicAddress(v4);
        for (const wrapped of [
          `::ffff:${v4}`,
          `::ffff:${hi}:${lo}`,
          `64:ff9b::${v4}`,
          `64:ff9b::${hi}:${lo}`,
          `2002:${hi}:${lo}::1`,
          `2001:0:4136:e378:8000:63bf:${inverted[0]}:${inverted[1]}`,
        ]) {
          assert.equal(isPublicAddress(wrapped), expected, `${wrapped} vs ${v4}`);
        }
      }),
    );
  });

  it("parses IPv6 text exactly as the WHATWG URL parser canonicalises it", () => {
    fc.assert(
      fc.property(fc.ipV6(), (text) => {
        const words = parseIpv6(text);
        assert.notEqual(words, null, text);
        const canonical = new URL(`https://[${text}]/`).hostname.slice(1, -1);
        assert.deepEqual(parseIpv6(canonical), words);
        const full = words!.map((w) => w.toString(16)).join(":");
        assert.equal(new URL(`https://[${full}]/`).hostname.slice(1, -1), canonical);
      }),
    );
  });

  it("rejects malformed IPv6 text", () => {
    for (const bad of [
      "1::2::3",
      "1:2:3:4:5:6:7:8:9",
      "1:2:3:4:5:6:7",
      ":1::",
      "12345::",
      "::1.2.3",
      "g::1",
    ]) {
      assert.equal(parseIpv6(bad), null, bad);
    }
  });
});

describe("webhook URL guard", () => {
  const resolverFor =
    (table: Record<string, string[]>): Resolver =>
    async (host) => {
      const answers = table[host];
      if (answers === undefined)
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
      return answers;
    };
  const dns = resolverFor({
    "hooks.example.com": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
    "loopback.example.com": ["127.0.0.1"],
    "mixed.example.com": ["93.184.216.34", "10.1.2.3"],
    "metadata.example.com": ["::ffff:169.254.169.254"],
    "api.stockroom.test": ["93.184.216.35"],
    localhost: ["127.0.0.1", "::1"],
  });
  const strict = { allowPrivate: false, ownHostnames: ["API.Stockroom.test"], resolve: dns };
  const dev = { ...strict, allowPrivate: true };

  const refused: Array<[string, RegExp]> = [
    ["http://hooks.example.com/in", /must use https/],
    ["ftp://hooks.example.com/", /must use https/],
    ["not a url", /absolute URL/],
    ["/relative/path", /absolute URL/],
    ["https://user:pass@hooks.example.com/", /username or password/],
    ["https://0x7f000001/", /127\.0\.0\.1 is not a public address \(loopback\)/],
    ["https://127.1/", /loopback/],
    ["https://0177.0.0.1/", /loopback/],
    ["https://127.0.0.1:8443/hook", /loopback/],
    ["https://10.0.0.1/", /private/],
    ["https://169.254.169.254/latest/meta-data/", /link-local/],
    ["https://[::1]/", /loopback/],
    ["https://[::ffff:127.0.0.1]/", /loopback \(IPv4-mapped 127\.0\.0\.1\)/],
    ["https://[64:ff9b::a9fe:a9fe]/", /link-local \(NAT64 169\.254\.169\.254\)/],
    ["https://[2002:7f00:1::]/", /6to4/],
    ["https://localhost/", /loopback name/],
    ["https://hooks.LOCALHOST./", /loopback name/],
    ["https://loopback.example.com/", /resolves to 127\.0\.0\.1, which is not a public address \(loopback\)/],
    ["https://mixed.example.com/", /resolves to 10\.1\.2\.3/],
    ["https://metadata.example.com/", /link-local/],
    ["https://nowhere.example.com/", /could not be resolved \(ENOTFOUND\)/],
    ["https://api.stockroom.test/v2/hooks", /must not point at this service/],
    ["https://API.STOCKROOM.TEST./", /must not point at this service/],
    [`https://hooks.example.com/${"a".repeat(2100)}`, /at most 2048/],
  ];
  for (const [url, message] of refused) {
    it(`refuses ${url.length > 60 ? `${url.slice(0, 60)}...` : url}`, async () => {
      const result = await validateWebhookUrl(url, strict);
      assert.equal(result.ok, false);
      if (!result.ok) assert.match(result.message, message);
    });
  }

  it("accepts a name whose every address is public, and a public literal", async () => {
    for (const raw of [
      "https://hooks.example.com/in?x=1",
      "https://8.8.8.8/",
      "https://[2606:4700:4700::1111]/",
    ]) {
      const result = await validateWebhookUrl(raw, strict);
      assert.equal(result.ok, true, raw);
      if (result.ok) assert.equal(result.url.href, new URL(raw).href);
    }
  });

  it("allowPrivate lifts only the address check", async () => {
    for (const raw of [
      "https://127.0.0.1:8443/",
      "https://[::1]/",
      "https://localhost:8443/",
      "https://loopback.example.com/",
    ]) {
      assert.equal((await validateWebhookUrl(raw, dev)).ok, true, raw);
    }
    for (const [raw, message] of [
      ["http://127.0.0.1/", /https/],
      ["https://u@127.0.0.1/", /username/],
      ["https://api.stockroom.test/", /this service/],
      ["https://nowhere.example.com/", /could not be resolved/],
    ] as const) {
      const result = await validateWebhookUrl(raw, dev);
      assert.equal(result.ok, false, raw);
      if (!result.ok) assert.match(result.message, message);
    }
  });

  it("gives up on a resolver that never answers", async () => {
    const result = await validateWebhookUrl("https://slow.example.com/", {
      ...strict,
      resolve: () => new Promise(() => {}),
      resolveTimeoutMs: 50,
    });
    assert.equal(result.ok, false);
    if (!result.ok) assert.match(result.message, /timed out/);
  });
});
