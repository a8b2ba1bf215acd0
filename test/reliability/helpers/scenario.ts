/**
 * Shared steps of the process-level reliability tests: a demo store made through the admin API of a
 * running service, a client that retries a write with its Idempotency-Key until it gets a final
 * answer, and the end-of-test checks (ledger vs platform levels, events delivered, no stuck job).
 */
import assert from "node:assert/strict";
import type { TestDatabase } from "./database.ts";
import { client, type HttpClient, NetError, type Response, sleep, waitFor } from "./http.ts";
import { ADMIN_TOKEN } from "./processes.ts";

export const ALL_SCOPES = ["read", "write:purchase_orders", "write:suppliers", "write:inventory", "webhooks"];

export interface Variant {
  id: number;
  inventory_item_id: number;
  inventory_tracked: boolean;
}

export interface Shop {
  id: number;
  key: string;
  keyId: number;
  api: HttpClient;
  admin: HttpClient;
  variants: Variant[];
  locations: Array<{ id: number; name: string }>;
}

function expectStatus(res: Response, status: number, what: string): void {
  assert.equal(res.status, status, `${what}: ${res.status} ${res.text.slice(0, 500)}`);
}

export function adminClient(base: () => string): HttpClient {
  return client(base, `Bearer ${ADMIN_TOKEN}`);
}

/** A demo store (simulated platform with the demo catalog), limits lifted unless given, full-scope key. */
export async function createShop(
  base: () => string,
  options: {
    name: string;
    rateLimits?: {
      per_key_per_minute: number;
      per_store_per_minute: number;
      writes_per_store_per_minute: number;
    };
  },
): Promise<Shop> {
  const admin = adminClient(base);
  const created = await admin.post("/admin/stores", {
    name: options.name,
    currency: "USD",
    timezone: "UTC",
    owner_email: "owner@example.com",
    seed: "demo",
  });
  expectStatus(created, 201, "create store");
  const id = created.body.data.id as number;
  const limits = options.rateLimits ?? {
    per_key_per_minute: 1_000_000,
    per_store_per_minute: 1_000_000,
    writes_per_store_per_minute: 1_000_000,
  };
  expectStatus(await admin.patch(`/admin/stores/${id}`, { rate_limits: limits }), 200, "store limits");
  const key = await admin.post(`/admin/stores/${id}/keys`, { name: "reliability", scopes: ALL_SCOPES });
  expectStatus(key, 201, "create key");
  const api = client(base, `Bearer ${key.body.data.key}`);
  const variants = await api.get("/v2/variants?limit=250");
  expectStatus(variants, 200, "variants");
  const locations = await api.get("/v2/locations");
  expectStatus(locations, 200, "locations");
  return {
    id,
    key: key.body.data.key,
    keyId: key.body.data.id,
    api,
    admin,
    variants: (variants.body.data as Variant[]).filter((v) => v.inventory_tracked),
    locations: (locations.body.data as Array<{ id: number; name: string }>).sort((a, b) => a.id - b.id),
  };
}

export interface RetryStats {
  requests: number;
  attempts: number;
  netErrors: number;
  serverErrors: number;
  inProgress: number;
  rateLimited: number;
  replayed: number;
  maxMs: number;
}

export function newRetryStats(): RetryStats {
  return {
    requests: 0,
    attempts: 0,
    netErrors: 0,
    serverErrors: 0,
    inProgress: 0,
    rateLimited: 0,
    replayed: 0,
    maxMs: 0,
  };
}

/**
 * Sends one write with its Idempotency-Key until the answer is final: connection refused/reset,
 * timeouts, 5xx, 429 and 409 idempotency_in_progress are retried (the same key, the same body).
 */
export async function sendUntilFinal(
  api: HttpClient,
  method: "post" | "patch",
  path: string,
  body: unknown,
  key: string,
  stats: RetryStats,
  deadlineMs = 240_000,
): Promise<Response> {
  stats.requests++;
  const started = Date.now();
  let pause = 100;
  for (;;) {
    if (Date.now() - started > deadlineMs)
      throw new Error(`${path} (key ${key}) got no final answer in ${deadlineMs} ms`);
    stats.attempts++;
    let res: Response | null = null;
    try {
      res = await api[method](path, body, { "idempotency-key": key });
      stats.maxMs = Math.max(stats.maxMs, res.ms);
    } catch (error) {
      if (!(error instanceof NetError)) throw error;
      stats.netErrors++;
    }
    if (res) {
      const code = res.body?.error?.code;
      if (res.status >= 500) stats.serverErrors++;
      else if (res.status === 429) stats.rateLimited++;
      else if (res.status === 409 && code === "idempotency_in_progress") stats.inProgress++;
      else {
        if (res.headers["idempotent-replayed"] === "true") stats.replayed++;
        return res;
      }
    }
    await sleep(pause);
    pause = Math.min(1000, pause * 2);
  }
}

// --- Checks ------------------------------------------------------------------------------------

export interface Level {
  available: number;
  on_hand: number;
  incoming: number;
}

/** Platform-side levels of the store (the simulated platform, as pushes left them). */
export async function platformLevels(admin: HttpClient, storeId: number): Promise<Map<string, Level>> {
  const res = await admin.get(`/admin/stores/${storeId}/platform/inventory`);
  expectStatus(res, 200, "platform inventory");
  const levels = new Map<string, Level>();
  for (const l of res.body.data as Array<Level & { inventory_item_id: number; location_id: number }>) {
    levels.set(`${l.inventory_item_id}:${l.location_id}`, {
      available: l.available,
      on_hand: l.on_hand,
      incoming: l.incoming,
    });
  }
  return levels;
}

/** The highest stock movement id so far (the ledger watermark of a snapshot). */
export async function movementWatermark(db: TestDatabase, storeId: number): Promise<number> {
  const [row] = await db.query("select coalesce(max(id), 0) as id from stock_movements where store_id = $1", [
    storeId,
  ]);
  return Number(row.id);
}

export interface PushCount {
  /** Platform documents applied (idempotency keys the simulated platform holds). */
  documents: number;
  /** Movements those documents carried: each key names its movement count. */
  movementsPushed: number;
  /** Movements recorded, and of those acknowledged. */
  movements: number;
  acknowledged: number;
}

/**
 * How a store's movements reached the platform. A document's key is
 * `stockroom-<store>-movements-<first>-<last>-<count>` (or `…-movement-<id>` for one movement, or
 * `…-batch-<batch>-<count>` for several records' movements on the simulated platform), so
 * `movementsPushed === movements` means every movement went in exactly one applied document: a
 * document re-cut differently on a retry and applied twice would count its movements twice.
 */
export async function pushCount(db: TestDatabase, storeId: number): Promise<PushCount> {
  const [row] = await db.query(
    `select
       (select count(*) from sim_push_keys where store_id = $1) as documents,
       (select coalesce(sum(case when key like '%-movements-%' then split_part(key, '-', 6)::int
          when key like '%-batch-%' then split_part(key, '-', 5)::int else 1 end), 0)
          from sim_push_keys where store_id = $1) as pushed,
       (select count(*) from stock_movements where store_id = $1) as movements,
       (select count(*) from stock_movements where store_id = $1 and pushed_at is not null) as acknowledged`,
    [storeId],
  );
  return {
    documents: Number(row.documents),
    movementsPushed: Number(row.pushed),
    movements: Number(row.movements),
    acknowledged: Number(row.acknowledged),
  };
}

/**
 * Platform levels now equal the snapshot plus every movement recorded after it: nothing lost, nothing
 * pushed twice. Returns how many movements and how many levels were compared.
 */
export async function assertLevelsMatchLedger(
  db: TestDatabase,
  admin: HttpClient,
  storeId: number,
  initial: Map<string, Level>,
  watermark: number,
): Promise<{ movements: number; levels: number }> {
  const sums = await db.query(
    `select inventory_item_id, location_id, count(*) as n, sum(available_delta) as available,
       sum(on_hand_delta) as on_hand, sum(incoming_delta) as incoming,
       count(*) filter (where pushed_at is null) as unpushed
     from stock_movements where store_id = $1 and id > $2 group by 1, 2`,
    [storeId, watermark],
  );
  const now = await platformLevels(admin, storeId);
  let movements = 0;
  for (const s of sums) {
    const key = `${s.inventory_item_id}:${s.location_id}`;
    movements += Number(s.n);
    assert.equal(Number(s.unpushed), 0, `movements of ${key} left unpushed`);
    const before = initial.get(key) ?? { available: 0, on_hand: 0, incoming: 0 };
    const after = now.get(key);
    assert.ok(after, `no platform level for ${key}`);
    assert.deepEqual(
      after,
      {
        available: before.available + Number(s.available),
        on_hand: before.on_hand + Number(s.on_hand),
        incoming: before.incoming + Number(s.incoming),
      },
      `platform level of ${key} differs from the snapshot plus the ledger`,
    );
  }
  // Levels no movement touched did not move either.
  const moved = new Set(sums.map((s) => `${s.inventory_item_id}:${s.location_id}`));
  for (const [key, level] of initial) if (!moved.has(key)) assert.deepEqual(now.get(key), level, key);
  return { movements, levels: moved.size };
}

/**
 * Waits until no job (of the store, when given) is running or due soon: the workers have drained.
 * "Soon" covers the 5 s folding window of `.updated` webhook deliveries (queued a few seconds ahead),
 * not retries scheduled minutes away. Returns how long it took.
 */
export async function waitForDrained(db: TestDatabase, timeoutMs: number, storeId?: number): Promise<number> {
  const started = Date.now();
  let quietPolls = 0;
  await waitFor(
    "the job queue to drain",
    async () => {
      const [row] = await db.query(
        `select count(*) filter (where state = 'running') as running,
           count(*) filter (where state = 'queued' and run_at <= now() + interval '10 seconds') as due
         from jobs where ($1::int is null or store_id = $1)`,
        [storeId ?? null],
      );
      quietPolls = Number(row.running) === 0 && Number(row.due) === 0 ? quietPolls + 1 : 0;
      return quietPolls >= 3;
    },
    timeoutMs,
    300,
  );
  return Date.now() - started;
}

export interface JobReport {
  total: number;
  byState: Record<string, number>;
  expiredLeases: number;
  failed: Array<{ id: number; type: string; last_error: string | null }>;
  /** Jobs claimed more than once (a worker died holding them, or an infrastructure retry). */
  reclaimed: number;
}

export async function jobReport(db: TestDatabase): Promise<JobReport> {
  const states = await db.query("select state, count(*) as n from jobs group by state");
  const [expired] = await db.query(
    "select count(*) as n from jobs where state = 'running' and locked_until < now()",
  );
  const failed = await db.query("select id, type, last_error from jobs where state = 'failed' order by id");
  const [reclaimed] = await db.query("select count(*) as n from jobs where attempts > 1");
  const byState: Record<string, number> = Object.fromEntries(states.map((s) => [s.state, Number(s.n)]));
  return {
    total: Object.values(byState).reduce((a, b) => a + b, 0),
    byState,
    expiredLeases: Number(expired.n),
    failed: failed.map((f) => ({ id: Number(f.id), type: f.type, last_error: f.last_error })),
    reclaimed: Number(reclaimed.n),
  };
}

/**
 * Events of the store that a `*` subscriber created at `since` should have received and did not:
 * every lifecycle event, and for `.updated` events (which fold within 5 s) the newest of each record.
 */
export async function undeliveredEvents(
  db: TestDatabase,
  storeId: number,
  receivedIds: ReadonlySet<string>,
  sinceSeq: number,
): Promise<{ expected: number; missing: Array<{ id: string; name: string }> }> {
  const events = await db.query(
    `select id, name, subject_type, subject_id, seq from events
     where store_id = $1 and seq > $2 and name <> 'webhook.test' order by seq`,
    [storeId, sinceSeq],
  );
  const newestFolded = new Map<string, { id: string; name: string }>();
  const expected: Array<{ id: string; name: string }> = [];
  for (const e of events) {
    if (String(e.name).endsWith(".updated"))
      newestFolded.set(`${e.subject_type}:${e.subject_id}:${e.name}`, e);
    else expected.push(e);
  }
  expected.push(...newestFolded.values());
  return { expected: expected.length, missing: expected.filter((e) => !receivedIds.has(e.id)) };
}

export async function eventWatermark(db: TestDatabase, storeId: number): Promise<number> {
  const [row] = await db.query("select coalesce(max(seq), 0) as seq from events where store_id = $1", [
    storeId,
  ]);
  return Number(row.seq);
}

/** Subscribes `url` to every event; returns the webhook id. */
export async function subscribe(api: HttpClient, url: string): Promise<number> {
  const res = await api.post("/v2/webhooks", { url, events: ["*"] });
  expectStatus(res, 201, `subscribe ${url}`);
  return res.body.data.id;
}

/** A supplier and `count` ordered purchase orders with one line per variant of `quantity` units each. */
export async function orderedPurchaseOrders(
  shop: Shop,
  variants: Variant[],
  count: number,
  quantity: number,
): Promise<Array<{ id: number; lines: Array<{ id: number; variant_id: number }> }>> {
  const supplier = await shop.api.post("/v2/suppliers", { name: "Reliable Supply", currency: "USD" });
  expectStatus(supplier, 201, "supplier");
  const orders = [];
  for (let i = 0; i < count; i++) {
    const created = await shop.api.post("/v2/purchase_orders", {
      supplier_id: supplier.body.data.id,
      location_id: shop.locations[0].id,
      lines: variants.map((v) => ({ variant_id: v.id, quantity, unit_cost: 2.5 })),
    });
    expectStatus(created, 201, "purchase order");
    const ordered = await shop.api.post(`/v2/purchase_orders/${created.body.data.id}/mark_ordered`, {});
    expectStatus(ordered, 200, "mark_ordered");
    orders.push({
      id: ordered.body.data.id as number,
      lines: (ordered.body.data.lines as Array<{ id: number; variant_id: number }>).map((l) => ({
        id: l.id,
        variant_id: l.variant_id,
      })),
    });
  }
  return orders;
}
