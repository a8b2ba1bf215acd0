import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ConfigError, loadConfig } from "../../src/config.ts";

describe("config", () => {
  test("defaults match the decisions: 127.0.0.1:3000, ./data, demo bootstrap, workers on", () => {
    const c = loadConfig({});
    assert.equal(c.host, "127.0.0.1");
    assert.equal(c.port, 3000);
    assert.match(c.dataDir, /data$/);
    assert.equal(c.databaseUrl, null);
    assert.equal(c.bootstrap, "demo");
    assert.equal(c.workers, "on");
    assert.equal(c.webhookAllowPrivate, false);
    assert.ok(Object.isFrozen(c));
  });

  test("bad values are refused with a message naming the variable", () => {
    const bad: Array<[Record<string, string>, RegExp]> = [
      [{ PORT: "70000" }, /PORT/],
      [{ PORT: "abc" }, /PORT/],
      [{ DATABASE_URL: "mysql://x" }, /DATABASE_URL/],
      [{ DATABASE_URL: "not a url" }, /DATABASE_URL/],
      [{ WORKERS: "maybe" }, /WORKERS/],
      [{ WEBHOOK_ALLOW_PRIVATE: "perhaps" }, /WEBHOOK_ALLOW_PRIVATE/],
      [{ WEBHOOK_RETRY_SCHEDULE: "1m,soon" }, /WEBHOOK_RETRY_SCHEDULE/],
      [{ ADMIN_TOKEN: "short" }, /ADMIN_TOKEN/],
      [{ ADMIN_TOKEN: "x".repeat(31) }, /^ADMIN_TOKEN must be at least 32 characters, got 31$/],
      [{ REDIS_URL: "http://x" }, /REDIS_URL/],
      [
        { SHOPIFY_API_KEY: "k", SHOPIFY_APP_URL: "https://a.example" },
        /^SHOPIFY_API_KEY is set without SHOPIFY_API_SECRET$/,
      ],
      [{ SHOPIFY_API_KEY: "k", SHOPIFY_API_SECRET: "s" }, /^SHOPIFY_APP_URL is required/],
      [{ SHOPIFY_APP_URL: "http://a.example" }, /^SHOPIFY_APP_URL must use https:, got http:$/],
      [{ SHOPIFY_APP_URL: "https://a.example/?x=1" }, /^SHOPIFY_APP_URL must be a base URL/],
      [{ SHOPIFY_SCOPES: "read_products, write inventory" }, /^SHOPIFY_SCOPES must be/],
      [{ SHOPIFY_API_VERSION: "latest" }, /SHOPIFY_API_VERSION/],
      [{ SHOPIFY_ADMIN_ORIGIN: "http://127.0.0.1:4500/admin" }, /SHOPIFY_ADMIN_ORIGIN/],
    ];
    for (const [env, pattern] of bad) {
      assert.throws(
        () => loadConfig(env),
        (e: unknown) => e instanceof ConfigError && pattern.test(e.message),
        JSON.stringify(env),
      );
    }
  });

  test("an ADMIN_TOKEN of 32 characters is accepted", () => {
    assert.equal(loadConfig({ ADMIN_TOKEN: "x".repeat(32) }).adminToken, "x".repeat(32));
  });

  test("Shopify: no app by default; the decisions' version and scopes", () => {
    assert.deepEqual(loadConfig({}).shopify, {
      apiKey: null,
      apiSecret: null,
      appUrl: null,
      scopes: ["read_products", "read_inventory", "write_inventory", "read_locations"],
      apiVersion: "2026-10",
      adminOrigin: null,
      reconcileIntervalMs: 15 * 60_000,
    });
  });

  test("Shopify: an http SHOPIFY_APP_URL is accepted only beside a SHOPIFY_ADMIN_ORIGIN (the stand-in)", () => {
    const c = loadConfig({
      SHOPIFY_API_KEY: "client-id",
      SHOPIFY_API_SECRET: "secret",
      SHOPIFY_APP_URL: "http://127.0.0.1:3000/",
      SHOPIFY_ADMIN_ORIGIN: "http://127.0.0.1:4500",
      SHOPIFY_SCOPES: "read_products,write_inventory",
      SHOPIFY_RECONCILE_INTERVAL: "2h",
    });
    assert.deepEqual(c.shopify, {
      apiKey: "client-id",
      apiSecret: "secret",
      appUrl: "http://127.0.0.1:3000",
      scopes: ["read_products", "write_inventory"],
      apiVersion: "2026-10",
      adminOrigin: "http://127.0.0.1:4500",
      reconcileIntervalMs: 2 * 3_600_000,
    });
    assert.ok(Object.isFrozen(c.shopify));
  });

  test("Shopify: SHOPIFY_RECONCILE_INTERVAL takes a number and a unit, from a minute to a day", () => {
    assert.equal(loadConfig({ SHOPIFY_RECONCILE_INTERVAL: "90s" }).shopify.reconcileIntervalMs, 90_000);
    for (const bad of ["15", "15 m", "1.5h", "30s", "25h", "0m"])
      assert.throws(
        () => loadConfig({ SHOPIFY_RECONCILE_INTERVAL: bad }),
        (e: Error) => e instanceof ConfigError && e.message.startsWith("SHOPIFY_RECONCILE_INTERVAL must be"),
        bad,
      );
  });

  test(":memory: keeps nothing and sends mail to a temporary outbox", () => {
    const c = loadConfig({ DATA_DIR: ":memory:" });
    assert.equal(c.dataDir, ":memory:");
    assert.match(c.outboxDir, /stockroom-outbox$/);
  });
});
