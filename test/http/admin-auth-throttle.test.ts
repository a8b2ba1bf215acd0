import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { createConnection, createServer, type Server } from "node:net";
import { after, before, describe, test } from "node:test";
import { Redis } from "ioredis";
import { ADMIN_TOKEN, startTestApp, type TestApp } from "../helpers/app.ts";

const REDIS_URL = process.env.REDIS_URL || "redis://127.0.0.1:6379";

/** An admin API call from a given client address (inject's remoteAddress is what request.ip reads). */
async function adminCall(t: TestApp, address: string, authorization?: string) {
  const res = await t.runtime.app.inject({
    method: "GET",
    url: "/admin/stores",
    remoteAddress: address,
    headers: authorization === undefined ? {} : { authorization },
  });
  return { status: res.statusCode, headers: res.headers, body: res.json() };
}

function assertThrottled(res: Awaited<ReturnType<typeof adminCall>>) {
  assert.equal(res.status, 429);
  assert.equal(res.body.error.code, "rate_limited");
  assert.match(
    res.body.error.message,
    /^Too many failed admin authentications from this address; retry in \d+ s\.$/,
  );
  const retryAfter = Number(res.headers["retry-after"]);
  assert.ok(retryAfter >= 1 && retryAfter <= 900, `retry-after ${res.headers["retry-after"]}`);
}

/** A cookie-keeping console sign-in attempt from one address (the form's nonce first). */
async function consoleSignIn(t: TestApp, address: string, token: string) {
  const form = await t.runtime.app.inject({ method: "GET", url: "/console/login", remoteAddress: address });
  const nonce = /name="_csrf" value="([^"]*)"/.exec(form.body)?.[1] ?? "";
  const cookie = String(form.headers["set-cookie"]).split(";")[0];
  const res = await t.runtime.app.inject({
    method: "POST",
    url: "/console/login",
    remoteAddress: address,
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    payload: new URLSearchParams({
      _csrf: decodeURIComponent(nonce),
      token,
      next: "/console/stores",
    }).toString(),
  });
  return res.statusCode;
}

describe("admin authentication throttle", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  test("ten wrong tokens from one address, then that address is refused 429 whatever it sends", async () => {
    for (let i = 0; i < 10; i++) {
      const wrong = await adminCall(t, "10.1.0.1", `Bearer wrong-token-${i}`);
      assert.equal(wrong.status, 401, `attempt ${i + 1}`);
      assert.equal(wrong.body.error.code, "unauthorized");
    }
    assertThrottled(await adminCall(t, "10.1.0.1", "Bearer wrong-token-10"));
    // The right token from the throttled address is refused too: otherwise guessing would go on.
    assertThrottled(await adminCall(t, "10.1.0.1", `Bearer ${ADMIN_TOKEN}`));
    // Another address is not affected.
    const other = await adminCall(t, "10.1.0.2", `Bearer ${ADMIN_TOKEN}`);
    assert.equal(other.status, 200);
    assert.deepEqual(other.body.data, []);
  });

  test("requests without a token are not guesses and do not count", async () => {
    for (let i = 0; i < 15; i++) {
      assert.equal((await adminCall(t, "10.1.0.3")).status, 401);
      assert.equal((await adminCall(t, "10.1.0.3", "Basic abc")).status, 401);
    }
    assert.equal((await adminCall(t, "10.1.0.3", `Bearer ${ADMIN_TOKEN}`)).status, 200);
  });

  test("concurrent wrong tokens cannot get past the allowance", async () => {
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => adminCall(t, "10.1.0.4", `Bearer concurrent-${i}`)),
    );
    assert.equal(results.filter((r) => r.status === 401).length, 10);
    assert.equal(results.filter((r) => r.status === 429).length, 30);
  });

  test("the console's failed sign-ins count against the browser's address, not the service's own", async () => {
    for (let i = 0; i < 10; i++) assert.equal(await consoleSignIn(t, "10.1.0.5", `not-it-${i}`), 401);
    assert.equal(await consoleSignIn(t, "10.1.0.5", ADMIN_TOKEN), 429);
    assertThrottled(await adminCall(t, "10.1.0.5", `Bearer ${ADMIN_TOKEN}`));
    assert.equal((await adminCall(t, "127.0.0.1", `Bearer ${ADMIN_TOKEN}`)).status, 200);
    assert.equal(await consoleSignIn(t, "10.1.0.6", ADMIN_TOKEN), 303);
  });

  test("an address the admin API throttles is told so by the console's sign-in, not that the token is wrong", async () => {
    for (let i = 0; i < 10; i++)
      assert.equal((await adminCall(t, "10.1.0.7", `Bearer guess-${i}`)).status, 401);
    assert.equal(await consoleSignIn(t, "10.1.0.7", ADMIN_TOKEN), 429);
  });
});

/**
 * A TCP proxy to Redis that holds each connection `delayMs` before passing bytes either way: a Redis
 * slow to accept, as on a loaded host, where a process could take requests before it was connected.
 */
async function slowRedisProxy(delayMs: number): Promise<{ url: string; server: Server }> {
  const target = new URL(REDIS_URL);
  const server = createServer((client) => {
    client.pause();
    setTimeout(() => {
      const upstream = createConnection(Number(target.port || 6379), target.hostname);
      client.pipe(upstream).pipe(client);
      client.resume();
      const close = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on("error", close).on("close", close);
      upstream.on("error", close).on("close", close);
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `redis://127.0.0.1:${port}`, server };
}

describe("admin authentication throttle with Redis", () => {
  test("two API processes sharing Redis count the same failures, from their first request", async () => {
    // A fresh address per run: the counters outlive the test in Redis for the window.
    const address = `10.2.${randomInt(256)}.${randomInt(1, 255)}`;
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    await redis.del(`rl:admin-auth:${address}`);
    // Redis slow to answer: a process that took requests before it was connected counted them in its
    // own memory, and neither reached the allowance.
    const proxy = await slowRedisProxy(400);
    const one = await startTestApp({ env: { REDIS_URL: proxy.url } });
    const two = await startTestApp({ env: { REDIS_URL: proxy.url } });
    try {
      for (let i = 0; i < 10; i++) {
        const app = i % 2 === 0 ? one : two;
        assert.equal((await adminCall(app, address, `Bearer wrong-${i}`)).status, 401, `attempt ${i + 1}`);
      }
      assertThrottled(await adminCall(one, address, `Bearer ${ADMIN_TOKEN}`));
      assertThrottled(await adminCall(two, address, `Bearer ${ADMIN_TOKEN}`));
      assert.equal(Number(await redis.get(`rl:admin-auth:${address}`)), 10);
    } finally {
      await one.close();
      await two.close();
      await redis.del(`rl:admin-auth:${address}`);
      redis.disconnect();
      proxy.server.close();
    }
  });
});
