/**
 * The Shopify connector's GraphQL client against the stand-in (issue 19 items 1 and 5): the endpoint
 * and headers, the cost budget (waits from throttleStatus, THROTTLED retried after the computed wait,
 * shared through Redis), and how failures are classified for the jobs.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { Redis } from "ioredis";
import type { Dispatcher } from "undici";
import { PlatformPermanentError, PlatformTransientError } from "../../src/platform/connector.ts";
import { InProcessCostBudget, waitForCost } from "../../src/platform/shopify/budget.ts";
import { type AccessTokenSource, ShopifyClient } from "../../src/platform/shopify/client.ts";
import { ShopifyUnauthorizedError } from "../../src/platform/shopify/errors.ts";
import { createShopifyAgent } from "../../src/platform/shopify/http.ts";
import { RedisCostBudget } from "../../src/platform/shopify/redis-budget.ts";
import { graphqlUrl, shopifyEndpointSettings } from "../../src/platform/shopify/settings.ts";
import { type ShopifyStandin, startShopifyStandin } from "../shopify-standin/index.ts";

const REDIS_URL = process.env.REDIS_URL || "redis://127.0.0.1:6379";
const PRODUCTS_45 = "query Products { products(first: 45) { nodes { id title } } }";

let clock = Date.parse("2026-11-02T10:00:00Z");
const now = () => clock;
let standin: ShopifyStandin;
let token: string;
let agent: Dispatcher;

function clientFor(
  options: { accessToken?: string | AccessTokenSource; budget?: InProcessCostBudget; retries?: number } = {},
) {
  const sleeps: number[] = [];
  const client = new ShopifyClient({
    shop: "north.myshopify.com",
    accessToken: options.accessToken ?? token,
    settings: shopifyEndpointSettings({ SHOPIFY_ADMIN_ORIGIN: standin.origin }),
    budget: options.budget ?? new InProcessCostBudget(now),
    dispatcher: agent,
    throttleRetries: options.retries,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock += ms;
    },
  });
  return { client, sleeps };
}

/** Spends the shop's bucket behind the client's back (another request of the same app). */
async function spend(query: string) {
  const response = await fetch(`${standin.origin}/admin/api/2026-10/graphql.json`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-shopify-access-token": token },
    body: JSON.stringify({ query }),
  });
  return (await response.json()) as any;
}

before(async () => {
  standin = await startShopifyStandin({ now, bucket: { maximumAvailable: 100, restoreRate: 10 } });
  const added = standin.addShop("north.myshopify.com", { name: "North", currency: "EUR" });
  token = added.accessToken;
  added.shop.seed({ products: 45 });
  agent = createShopifyAgent(5_000);
});

after(async () => {
  await agent.close();
  await standin.close();
});

describe("the endpoint", () => {
  it("goes to SHOPIFY_ADMIN_ORIGIN when set, else to the shop, at the configured version", () => {
    assert.deepEqual(shopifyEndpointSettings({}), { adminOrigin: null, apiVersion: "2026-10" });
    assert.equal(
      graphqlUrl(shopifyEndpointSettings({ SHOPIFY_API_VERSION: "2026-07" }), "north.myshopify.com"),
      "https://north.myshopify.com/admin/api/2026-07/graphql.json",
    );
    assert.equal(
      graphqlUrl(
        shopifyEndpointSettings({ SHOPIFY_ADMIN_ORIGIN: "http://127.0.0.1:4500" }),
        "a.myshopify.com",
      ),
      "http://127.0.0.1:4500/admin/api/2026-10/graphql.json",
    );
    assert.throws(() => shopifyEndpointSettings({ SHOPIFY_API_VERSION: "latest" }), /SHOPIFY_API_VERSION/);
    assert.throws(() => shopifyEndpointSettings({ SHOPIFY_ADMIN_ORIGIN: "http://x/admin" }), /origin/);
  });

  it("answers the shop's data with the cost Shopify reports", async () => {
    const { client, sleeps } = clientFor();
    const answer = await client.graphql<{ shop: { name: string; currencyCode: string } }>(
      "query Shop { shop { name currencyCode ianaTimezone } }",
      {},
      1,
    );
    assert.deepEqual(answer.data, {
      shop: { name: "North", currencyCode: "EUR", ianaTimezone: "America/New_York" },
    });
    assert.equal(answer.cost?.requestedQueryCost, 1);
    assert.equal(answer.cost?.throttleStatus.restoreRate, 10);
    assert.deepEqual(sleeps, []);
  });
});

describe("the cost budget", () => {
  it("computes the wait from what is available, the cost and the restore rate", () => {
    assert.equal(waitForCost(50, 47, 10), 0);
    assert.equal(waitForCost(6, 47, 10), 4100);
    assert.equal(waitForCost(-47, 47, 100), 940);
  });

  it("retries a THROTTLED answer after the computed wait, then waits before sending instead", async () => {
    clock += 60_000; // a full bucket
    assert.equal((await spend(PRODUCTS_45)).extensions.cost.throttleStatus.currentlyAvailable, 53);
    assert.equal((await spend(PRODUCTS_45)).extensions.cost.throttleStatus.currentlyAvailable, 6);
    const { client, sleeps } = clientFor();
    const first = await client.graphql<{ products: { nodes: unknown[] } }>(PRODUCTS_45, {}, 47);
    assert.equal(first.data.products.nodes.length, 45);
    // THROTTLED with 6 available: (47 - 6) / 10 per second.
    assert.deepEqual(sleeps, [4100]);
    assert.equal(first.cost?.throttleStatus.currentlyAvailable, 0);
    // The budget now knows the bucket is empty: the next call waits first and is not throttled.
    const second = await client.graphql<{ products: { nodes: unknown[] } }>(PRODUCTS_45, {}, 47);
    assert.equal(second.data.products.nodes.length, 45);
    assert.deepEqual(sleeps, [4100, 4700]);
  });

  it("gives up after the bounded retries with a transient error", async () => {
    clock += 60_000;
    await spend(PRODUCTS_45);
    await spend(PRODUCTS_45);
    const sleeps: number[] = [];
    const client = new ShopifyClient({
      shop: "north.myshopify.com",
      accessToken: token,
      settings: shopifyEndpointSettings({ SHOPIFY_ADMIN_ORIGIN: standin.origin }),
      budget: new InProcessCostBudget(now),
      dispatcher: agent,
      throttleRetries: 2,
      sleep: async (ms) => {
        sleeps.push(ms); // the clock stands still: the bucket never refills
      },
    });
    await assert.rejects(
      client.graphql(PRODUCTS_45, {}, 47),
      (error: Error) =>
        error instanceof PlatformTransientError &&
        error.message === "Shopify throttled north.myshopify.com 3 times in a row",
    );
    // The first try knew nothing; each THROTTLED answer reported 6 available again, and Shopify's
    // figures replace the budget's: (47 - 6) / 10 per second before each retry.
    assert.deepEqual(sleeps, [4100, 4100]);
  });

  it("is shared by every process through Redis", async () => {
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    const prefix = `test:shopify:cost:${process.pid}:`;
    try {
      const one = new RedisCostBudget(redis, now, prefix);
      const two = new RedisCostBudget(redis, now, prefix);
      const first = await one.reserve("a.myshopify.com", 500);
      assert.equal(first.waitMs, 0, "an unknown shop is not waited for");
      await one.settle("a.myshopify.com", first, {
        status: { maximumAvailable: 1000, currentlyAvailable: 100, restoreRate: 50 },
        spent: 500,
      });
      assert.equal((await one.reserve("a.myshopify.com", 100)).waitMs, 0);
      assert.equal(
        (await two.reserve("a.myshopify.com", 100)).waitMs,
        2000,
        "the second process waits behind the first",
      );
      assert.equal((await one.reserve("b.myshopify.com", 100)).waitMs, 0, "another shop has its own bucket");
      clock += 4000; // 200 points restored: -100 + 200
      assert.equal((await two.reserve("a.myshopify.com", 150)).waitMs, 1000);
      clock += 3600_000;
      assert.equal((await one.reserve("a.myshopify.com", 900)).waitMs, 0, "refills up to the bucket's size");
      assert.equal((await one.reserve("a.myshopify.com", 100)).waitMs, 0);
      assert.equal((await one.reserve("a.myshopify.com", 10)).waitMs, 200);
    } finally {
      await redis.del(`${prefix}a.myshopify.com`, `${prefix}a.myshopify.com:flight`);
      await redis.del(`${prefix}b.myshopify.com`, `${prefix}b.myshopify.com:flight`);
      redis.disconnect();
    }
  });

  // Shopify's figure in an answer counts the calls it has seen; the budget takes off the calls other
  // callers reserved and have not settled, else their points would be handed out twice. Answers also
  // settle out of order, so a figure only ever lowers the budget's own reckoning.
  for (const kind of ["in process", "through Redis"] as const) {
    it(`an answer's figures leave out the calls still in flight and never raise the budget (${kind})`, async () => {
      const redis = kind === "through Redis" ? new Redis(REDIS_URL, { maxRetriesPerRequest: 1 }) : null;
      const prefix = `test:shopify:flight:${process.pid}:`;
      const budget = redis ? new RedisCostBudget(redis, now, prefix) : new InProcessCostBudget(now);
      const shop = "c.myshopify.com";
      const full = { maximumAvailable: 1000, restoreRate: 100 };
      const answered = (currentlyAvailable: number, spent: number | null) => ({
        status: { ...full, currentlyAvailable },
        spent,
      });
      try {
        const seed = await budget.reserve(shop, 10);
        await budget.settle(shop, seed, answered(1000, 10));
        const a = await budget.reserve(shop, 400);
        const b = await budget.reserve(shop, 400);
        assert.deepEqual([a.waitMs, b.waitMs], [0, 0]);
        // Shopify answers a having seen only a: 600 left. b is still out: 200 are free, not 600.
        await budget.settle(shop, a, answered(600, 400));
        const c = await budget.reserve(shop, 300);
        assert.equal(c.waitMs, 1000, "(300 - 200) / 100 per second");
        // b failed without an answer: its 400 points come back (-100 + 400).
        await budget.settle(shop, b, null);
        clock += 1000;
        // Shopify charged a and c and refilled 100 meanwhile: 400 left, as the budget reckons.
        await budget.settle(shop, c, answered(400, 300));
        const e = await budget.reserve(shop, 400);
        assert.equal(e.waitMs, 0);
        await budget.settle(shop, e, answered(0, 400));

        // f and g go out together; Shopify answers f first (100 left), then g (0 left), but g's answer
        // is settled first. f's figure comes last and stale: it must not hand out 100 points Shopify
        // no longer has (before this rule the next call went out at once and was THROTTLED).
        clock += 2000;
        const f = await budget.reserve(shop, 100);
        const g = await budget.reserve(shop, 100);
        assert.deepEqual([f.waitMs, g.waitMs], [0, 0]);
        await budget.settle(shop, g, answered(0, 100));
        await budget.settle(shop, f, answered(100, 100));
        const h = await budget.reserve(shop, 100);
        // f counted twice (in flight when g settled, then spent): a second more than needed, the safe
        // side. Shopify's own bucket had 0: a call sent at once would have been refused.
        assert.equal(h.waitMs, 2000, "(100 + 100) / 100 per second");
        await budget.settle(shop, h, null);

        // A call that cost less than it asked for gives the difference back (Shopify's refund).
        clock += 60_000;
        const cheap = await budget.reserve(shop, 500);
        assert.equal(cheap.waitMs, 0);
        await budget.settle(shop, cheap, answered(900, 100));
        assert.equal((await budget.reserve(shop, 900)).waitMs, 0, "500 reckoned + 400 unspent");

        // A reservation never settled (its process died) stops counting a minute after it was due.
        clock += 60_000;
        const lost = await budget.reserve(shop, 900);
        assert.equal(lost.waitMs, 0);
        const d = await budget.reserve(shop, 100);
        assert.equal(d.waitMs, 0);
        clock += 60_000;
        const late = await budget.reserve(shop, 10);
        await budget.settle(shop, late, answered(890, 10));
        assert.equal((await budget.reserve(shop, 890)).waitMs, 0, "the lost reservation no longer counts");
      } finally {
        if (redis) {
          await redis.del(`${prefix}${shop}`, `${prefix}${shop}:flight`);
          redis.disconnect();
        }
      }
    });
  }
});

describe("failures", () => {
  it("a 401 is ShopifyUnauthorizedError, transient for the jobs", async () => {
    const { client } = clientFor({ accessToken: "shpat_revoked" });
    await assert.rejects(
      client.graphql("query Shop { shop { name } }", {}, 1),
      (error: Error) =>
        error instanceof ShopifyUnauthorizedError &&
        error instanceof PlatformTransientError &&
        error.message === "Shopify refused the access token of north.myshopify.com (401)",
    );
  });

  it("a 5xx and a refused connection are transient", async () => {
    const { client } = clientFor();
    await standin.startOutage("5xx", 1);
    await assert.rejects(
      client.graphql("query Shop { shop { name } }", {}, 1),
      (error: Error) =>
        error instanceof PlatformTransientError &&
        error.message === "Shopify answered 503 for north.myshopify.com",
    );
    await standin.startOutage("refused");
    try {
      await assert.rejects(
        client.graphql("query Shop { shop { name } }", {}, 1),
        (error: Error) =>
          error instanceof PlatformTransientError &&
          error.message.startsWith("Shopify unreachable for north.myshopify.com: "),
      );
    } finally {
      await standin.endOutage();
    }
    const answer = await client.graphql<{ shop: { name: string } }>("query Shop { shop { name } }", {}, 1);
    assert.equal(answer.data.shop.name, "North");
  });

  it("a 429 is transient", async () => {
    const server = createServer((_request, response) => {
      response.writeHead(429, { "retry-after": "2" }).end("{}");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const client = new ShopifyClient({
        shop: "north.myshopify.com",
        accessToken: token,
        settings: shopifyEndpointSettings({
          SHOPIFY_ADMIN_ORIGIN: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        }),
        budget: new InProcessCostBudget(now),
        dispatcher: agent,
      });
      await assert.rejects(
        client.graphql("query Shop { shop { name } }", {}, 1),
        (error: Error) =>
          !(error instanceof ShopifyUnauthorizedError) &&
          error instanceof PlatformTransientError &&
          error.message === "Shopify answered 429 for north.myshopify.com",
      );
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("a document the schema refuses is permanent, with Shopify's message", async () => {
    const { client } = clientFor();
    await assert.rejects(
      client.graphql("query Shop { shop { nme } }", {}, 1),
      (error: Error) =>
        error instanceof PlatformPermanentError &&
        error.message === "Shopify refused the request: Field 'nme' doesn't exist on type 'Shop'",
    );
  });
});

describe("a token source (an expiring token, refreshed)", () => {
  const SHOP = "query Shop { shop { name } }";

  /** A source that records what the client asked, answering `replacement` after a 401. */
  function recordingSource(first: string, replacement: string | null) {
    const calls: string[] = [];
    const source: AccessTokenSource = {
      async current() {
        calls.push("current");
        return first;
      },
      async afterUnauthorized(used) {
        calls.push(`afterUnauthorized ${used}`);
        return replacement;
      },
      async refused(used) {
        calls.push(`refused ${used}`);
      },
    };
    return { source, calls };
  }

  it("calls with the source's current token, asking nothing more when it is taken", async () => {
    const { source, calls } = recordingSource(token, null);
    const { client } = clientFor({ accessToken: source });
    const answer = await client.graphql<{ shop: { name: string } }>(SHOP, {}, 1);
    assert.equal(answer.data.shop.name, "North");
    assert.deepEqual(calls, ["current"]);
  });

  it("after a 401 tries once more with the token the source gives", async () => {
    const { source, calls } = recordingSource("shpat_expired", token);
    const { client } = clientFor({ accessToken: source });
    const answer = await client.graphql<{ shop: { name: string } }>(SHOP, {}, 1);
    assert.equal(answer.data.shop.name, "North");
    assert.deepEqual(calls, ["current", "afterUnauthorized shpat_expired"]);
  });

  it("a source with no other token leaves the 401 as it was", async () => {
    const { source, calls } = recordingSource("shpat_expired", null);
    const { client } = clientFor({ accessToken: source });
    await assert.rejects(client.graphql(SHOP, {}, 1), ShopifyUnauthorizedError);
    assert.deepEqual(calls, ["current", "afterUnauthorized shpat_expired"]);
  });

  it("a 401 to the second token too is reported to the source as refused, and not tried a third time", async () => {
    const { source, calls } = recordingSource("shpat_expired", "shpat_revoked_too");
    const { client } = clientFor({ accessToken: source });
    await assert.rejects(client.graphql(SHOP, {}, 1), ShopifyUnauthorizedError);
    assert.deepEqual(calls, ["current", "afterUnauthorized shpat_expired", "refused shpat_revoked_too"]);
  });
});
