/**
 * The Shopify path under process failures (issue 19, "Tests must show"), on PostgreSQL and Redis with
 * the Shopify stand-in in this process:
 * - the service (API and in-process workers) is killed with SIGKILL at random moments while receipts
 *   (two inventoryAdjustQuantities calls each: available and incoming) and adjustments are pushed to a
 *   shop attached by token, and restarted; afterwards the shop's levels equal the snapshot plus the
 *   ledger: nothing lost, nothing moved twice, every record synced;
 * - two worker processes beside an API process without workers push one shop's documents through one
 *   cost budget in Redis; every push ends synced and the shop's levels match the ledger.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type ShopifyStandin, startShopifyStandin } from "../../shopify-standin/index.ts";
import type { ShopState } from "../../shopify-standin/state.ts";
import { createDatabase, type TestDatabase } from "../helpers/database.ts";
import { client, sleep, waitFor } from "../helpers/http.ts";
import { freePort, ServiceProcess } from "../helpers/processes.ts";
import {
  ALL_SCOPES,
  adminClient,
  jobReport,
  movementWatermark,
  newRetryStats,
  orderedPurchaseOrders,
  type Shop,
  sendUntilFinal,
  type Variant,
  waitForDrained,
} from "../helpers/scenario.ts";

type Levels = Map<string, { available: number; on_hand: number; incoming: number }>;

/** The Shopify side's levels of every item at every location, keyed `item:location` (platform ids). */
function shopLevels(shop: ShopState): Levels {
  const levels: Levels = new Map();
  for (const level of shop.levels.values()) {
    const { available, on_hand, incoming } = level.quantities;
    levels.set(`${level.itemId}:${level.locationId}`, { available, on_hand, incoming });
  }
  return levels;
}

/**
 * The shop's levels now equal `initial` plus every movement recorded after `watermark`, each pushed;
 * levels no movement touched did not move.
 */
async function assertShopMatchesLedger(
  db: TestDatabase,
  shop: ShopState,
  storeId: number,
  initial: Levels,
  watermark: number,
): Promise<number> {
  const sums = await db.query(
    `select inventory_item_id, location_id, count(*) as n, sum(available_delta) as available,
       sum(on_hand_delta) as on_hand, sum(incoming_delta) as incoming,
       count(*) filter (where pushed_at is null) as unpushed
     from stock_movements where store_id = $1 and id > $2 group by 1, 2`,
    [storeId, watermark],
  );
  const now = shopLevels(shop);
  let movements = 0;
  for (const s of sums) {
    const key = `${s.inventory_item_id}:${s.location_id}`;
    movements += Number(s.n);
    assert.equal(Number(s.unpushed), 0, `movements of ${key} left unpushed`);
    const was = initial.get(key) ?? { available: 0, on_hand: 0, incoming: 0 };
    assert.deepEqual(
      now.get(key),
      {
        available: was.available + Number(s.available),
        on_hand: was.on_hand + Number(s.on_hand),
        incoming: was.incoming + Number(s.incoming),
      },
      `Shopify's level of ${key} differs from the snapshot plus the ledger`,
    );
  }
  const moved = new Set(sums.map((s) => `${s.inventory_item_id}:${s.location_id}`));
  for (const [key, level] of initial) if (!moved.has(key)) assert.deepEqual(now.get(key), level, key);
  return movements;
}

/** A stand-in shop attached to a new store by token, imported, with a full-scope key. */
async function attachShop(base: () => string, standin: ShopifyStandin, domain: string) {
  const { shop, accessToken } = standin.addShop(domain, { currency: "USD" });
  shop.seed({ products: 4, variantsPerProduct: 2, locations: 2, available: 50 });
  const admin = adminClient(base);
  const created = await admin.post("/admin/stores", {
    platform: "shopify",
    shopify: { shop: domain, access_token: accessToken },
  });
  assert.equal(created.status, 201, created.text);
  const id = created.body.data.id as number;
  const limits = {
    per_key_per_minute: 1_000_000,
    per_store_per_minute: 1_000_000,
    writes_per_store_per_minute: 1_000_000,
  };
  assert.equal((await admin.patch(`/admin/stores/${id}`, { rate_limits: limits })).status, 200);
  await waitFor(
    "the initial import",
    async () => (await admin.get(`/admin/stores/${id}`)).body?.data?.shopify?.status === "connected",
    120_000,
    300,
  );
  const key = await admin.post(`/admin/stores/${id}/keys`, { name: "reliability", scopes: ALL_SCOPES });
  assert.equal(key.status, 201, key.text);
  const api = client(base, `Bearer ${key.body.data.key}`);
  const variants = (await api.get("/v2/variants?limit=250")).body.data as Variant[];
  const locations = ((await api.get("/v2/locations")).body.data as Array<{ id: number; name: string }>).sort(
    (a, b) => a.id - b.id,
  );
  assert.equal(variants.length, 8);
  assert.equal(locations.length, 2);
  const store: Shop = {
    id,
    key: key.body.data.key,
    keyId: key.body.data.id,
    api,
    admin,
    variants,
    locations,
  };
  return { shop, store };
}

function shopifyEnv(standin: ShopifyStandin): Record<string, string> {
  return {
    SHOPIFY_ADMIN_ORIGIN: standin.origin,
    SHOPIFY_API_SECRET: standin.apiSecret,
    // The stand-in's webhooks go nowhere: these tests watch pushes, not the mirror's inbound path.
    SHOPIFY_APP_URL: "http://127.0.0.1:9",
  };
}

async function unsynced(db: TestDatabase, storeId: number): Promise<number> {
  const [row] = await db.query(
    "select count(*) as n from platform_sync_states where store_id = $1 and state <> 'synced'",
    [storeId],
  );
  return Number(row.n);
}

describe("Shopify pushes through SIGKILL (PostgreSQL)", () => {
  const RECEIPTS = 40;
  const ADJUSTMENTS = 20;
  const KILLS = 4;
  let standin: ShopifyStandin;
  let db: TestDatabase;
  let server: ServiceProcess;

  before(async () => {
    standin = await startShopifyStandin();
    db = await createDatabase();
    server = new ServiceProcess({
      kind: "server",
      name: "shopify-crash-server",
      databaseUrl: db.url,
      port: await freePort(),
      env: shopifyEnv(standin),
    });
    await server.start();
  });

  after(async () => {
    await server?.stop();
    await db?.drop();
    await standin?.close();
  });

  test("receipts and adjustments pushed while the service is killed reach Shopify exactly once", {
    timeout: 300_000,
  }, async (t) => {
    const base = () => server.baseUrl;
    const { shop, store } = await attachShop(base, standin, `crash-${process.pid}.myshopify.com`);
    const orders = await orderedPurchaseOrders(store, store.variants, 2, 10_000);
    await waitForDrained(db, 60_000, store.id);
    assert.equal(await unsynced(db, store.id), 0, "the orders' incoming reached Shopify");
    const initial = shopLevels(shop);
    const watermark = await movementWatermark(db, store.id);
    const callsBefore = standin.adjustCalls(shop.domain).length;

    type Task = { kind: "receipt" | "adjustment"; i: number };
    const tasks: Task[] = [];
    for (let i = 0; i < RECEIPTS; i++) tasks.push({ kind: "receipt", i });
    for (let i = 0; i < ADJUSTMENTS; i++) tasks.splice(i * 3, 0, { kind: "adjustment", i });
    const stats = newRetryStats();
    let next = 0;
    let done = false;
    const runClient = async () => {
      while (next < tasks.length) {
        const task = tasks[next++];
        if (task.kind === "receipt") {
          const order = orders[task.i % orders.length];
          const lines = [
            { line_id: order.lines[task.i % 8].id, quantity: 1 },
            { line_id: order.lines[(task.i + 3) % 8].id, quantity: 2 },
          ];
          const res = await sendUntilFinal(
            store.api,
            "post",
            `/v2/purchase_orders/${order.id}/receipts`,
            { lines },
            `shopify-receipt-${task.i}`,
            stats,
          );
          assert.equal(res.status, 201, `receipt ${task.i}: ${res.text}`);
        } else {
          const body = {
            location_id: store.locations[task.i % 2].id,
            reason: "correction",
            lines: [{ variant_id: store.variants[(task.i * 5) % 8].id, delta: task.i % 2 === 0 ? 3 : -1 }],
          };
          const created = await sendUntilFinal(
            store.api,
            "post",
            "/v2/stock_adjustments",
            body,
            `shopify-adjustment-${task.i}`,
            stats,
          );
          assert.equal(created.status, 201, `adjustment ${task.i}: ${created.text}`);
          const applied = await sendUntilFinal(
            store.api,
            "post",
            `/v2/stock_adjustments/${created.body.data.id}/apply`,
            {},
            `shopify-apply-${task.i}`,
            stats,
          );
          assert.equal(applied.status, 200, `apply ${task.i}: ${applied.text}`);
        }
      }
    };
    // Kills are paced by the clients' progress, not by the clock: at each KILLS-th part of the tasks
    // (and a moment later, so a request or a push is in flight), whatever the machine's speed. On a
    // quiet machine the 80 requests once finished before a timed first kill (400 ms or more) came.
    let kills = 0;
    const killAt = Array.from({ length: KILLS }, (_, k) =>
      Math.floor(((k + 1) * tasks.length) / (KILLS + 1)),
    );
    const chaos = (async () => {
      for (const at of killAt) {
        while (!done && next < at) await sleep(5);
        await sleep(Math.random() * 50);
        await server.kill("SIGKILL");
        kills++;
        await server.start();
      }
    })();
    try {
      await Promise.all(Array.from({ length: 4 }, runClient));
    } finally {
      done = true;
      await chaos;
    }
    // Pushes a kill interrupted wait out their lease and retry: give them time to settle.
    await waitFor("every record synced", async () => (await unsynced(db, store.id)) === 0, 180_000, 500);
    await waitForDrained(db, 60_000, store.id);

    const movements = await assertShopMatchesLedger(db, shop, store.id, initial, watermark);
    assert.equal(movements, RECEIPTS * 2 + ADJUSTMENTS, "one movement per receipt line and per adjustment");
    const jobs = await jobReport(db);
    assert.deepEqual(jobs.failed, []);
    assert.equal(jobs.byState.running ?? 0, 0);

    const calls = standin.adjustCalls(shop.domain).slice(callsBefore);
    const keys = new Map<string, number>();
    for (const call of calls) keys.set(String(call.key), (keys.get(String(call.key)) ?? 0) + 1);
    t.diagnostic(
      `figures ${JSON.stringify({
        kills,
        requests: stats.requests,
        attempts: stats.attempts,
        adjustCalls: calls.length,
        distinctKeys: keys.size,
        keysSentAgain: [...keys.values()].filter((n) => n > 1).length,
        jobsReclaimed: jobs.reclaimed,
      })}`,
    );
    assert.ok(kills >= 3, `only ${kills} kills happened`);
  });
});

describe("two worker processes share one shop's cost budget through Redis (PostgreSQL)", () => {
  const ADJUSTMENTS = 40;
  let standin: ShopifyStandin;
  let db: TestDatabase;
  let api: ServiceProcess;
  let workers: ServiceProcess[] = [];

  before(async () => {
    // A small bucket (Shopify's figures scaled down) so the two workers must wait for it together.
    standin = await startShopifyStandin({ bucket: { maximumAvailable: 200, restoreRate: 50 } });
    db = await createDatabase();
    const env = shopifyEnv(standin);
    api = new ServiceProcess({
      kind: "server",
      name: "shopify-budget-api",
      databaseUrl: db.url,
      port: await freePort(),
      env: { ...env, WORKERS: "off" },
    });
    await api.start();
    workers = [1, 2].map(
      (n) =>
        new ServiceProcess({ kind: "worker", name: `shopify-budget-worker-${n}`, databaseUrl: db.url, env }),
    );
    await Promise.all(workers.map((w) => w.start()));
  });

  after(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await api?.stop();
    await db?.drop();
    await standin?.close();
  });

  test("every push ends synced and Shopify's levels match the ledger", { timeout: 300_000 }, async (t) => {
    const base = () => api.baseUrl;
    const { shop, store } = await attachShop(base, standin, `budget-${process.pid}.myshopify.com`);
    await waitForDrained(db, 60_000, store.id);
    const initial = shopLevels(shop);
    const watermark = await movementWatermark(db, store.id);
    const callsBefore = standin.adjustCalls(shop.domain).length;
    const stats = newRetryStats();
    await Promise.all(
      Array.from({ length: ADJUSTMENTS }, async (_, i) => {
        const created = await sendUntilFinal(
          store.api,
          "post",
          "/v2/stock_adjustments",
          {
            location_id: store.locations[i % 2].id,
            reason: "correction",
            lines: store.variants.map((v) => ({ variant_id: v.id, delta: 1 })),
          },
          `budget-adjustment-${i}`,
          stats,
        );
        assert.equal(created.status, 201, created.text);
        const applied = await sendUntilFinal(
          store.api,
          "post",
          `/v2/stock_adjustments/${created.body.data.id}/apply`,
          {},
          `budget-apply-${i}`,
          stats,
        );
        assert.equal(applied.status, 200, applied.text);
      }),
    );
    await waitFor("every record synced", async () => (await unsynced(db, store.id)) === 0, 180_000, 500);
    await waitForDrained(db, 60_000, store.id);
    const movements = await assertShopMatchesLedger(db, shop, store.id, initial, watermark);
    assert.equal(movements, ADJUSTMENTS * 8);
    const jobs = await jobReport(db);
    assert.deepEqual(jobs.failed, []);
    const calls = standin.adjustCalls(shop.domain).slice(callsBefore);
    const keys = new Set(calls.map((c) => String(c.key)));
    const throttled = standin.bucketOf(shop.domain)?.throttled ?? 0;
    t.diagnostic(
      `figures ${JSON.stringify({ adjustCalls: calls.length, distinctKeys: keys.size, throttled })}`,
    );
    // One bucket in Redis for both workers, with each one's calls in flight taken off what Shopify
    // reports: neither hands out points the other has reserved, so Shopify never refuses a call.
    assert.equal(throttled, 0, "no call answered THROTTLED");
    assert.equal(calls.length, keys.size, "each call sent once");
  });
});
