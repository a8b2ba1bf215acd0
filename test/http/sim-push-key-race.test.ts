/**
 * The simulated platform's idempotency under a concurrent duplicate (docs/decisions.md, "Catalog
 * mirror and the simulated platform"): one document sent twice at once, under one key, is applied
 * once and the second send answered with the first one's result (`replayed: true`), as a platform's
 * idempotent mutation does; no send fails. Nothing in the HTTP surface sends a document, so the two
 * sends go through the store's connector (what a push calls); the shop is made and read through the
 * admin routes.
 *
 * On PostgreSQL the test holds the shop's row locked until both sends wait for it, so both have looked
 * for the key before either wrote it: the order in which the second, seeing no key, applied the
 * document again and the key's primary key failed it (`sim_push_keys_pkey`). On PGlite (one
 * connection, one transaction at a time) the sends cannot interleave: the same test checks the
 * sequential answer there.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import type { InventoryAdjustment } from "../../src/platform/connector.ts";
import { movementIdempotencyKey } from "../../src/platform/push.ts";
import { connectorForStore } from "../../src/platform/registry.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { listLocations, platformLevel, trackedVariants } from "../helpers/factories.ts";

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

describe("the same document sent twice at once", () => {
  let t: TestApp;
  let store: TestStore;

  before(async () => {
    t = await startTestApp();
    store = await t.createStore({ seed: "demo" });
    await t.drain();
  });
  after(() => t.close());

  /** Runs `sends` while the shop's row is held locked, released once `waiting` sends wait for it. */
  async function withShopHeld<T>(waiting: number, sends: () => Promise<T>): Promise<T> {
    if (!onPostgres) return sends();
    const db = t.runtime.ctx.db;
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holderPid = 0;
    const held = new Promise<void>((locked, failed) => {
      db.transaction()
        .execute(async (trx) => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid from sim_stores
            where store_id = ${store.id} for update`.execute(trx);
          holderPid = rows[0].pid;
          locked();
          await released;
        })
        .catch(failed);
    });
    await held;
    const result = sends();
    // Released once the sends wait behind the holder; the sends' answers are awaited after.
    const deadline = Date.now() + 10_000;
    for (;;) {
      // The first waits for the holder, the next for the first (the row's lock queue).
      const { rows } = await sql<{ n: number }>`with recursive behind(pid) as (
          select pid from pg_stat_activity where ${holderPid}::int = any(pg_blocking_pids(pid))
          union
          select a.pid from pg_stat_activity a join behind b on b.pid = any(pg_blocking_pids(a.pid)))
        select count(*)::int as n from behind`.execute(db);
      if (rows[0].n >= waiting) break;
      if (Date.now() > deadline) {
        release();
        throw new Error(`only ${rows[0].n} of ${waiting} sends waited for the shop's lock`);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    release();
    return result;
  }

  test("both answered, the second replayed with the first's levels; stock moved once", async () => {
    const [variant] = await trackedVariants(store.api);
    const [location] = await listLocations(store.api);
    const start = await platformLevel(t, store.id, variant.inventory_item_id, location.id);
    const connector = await connectorForStore(t.runtime.ctx, t.runtime.ctx.db, store.id);
    const document: InventoryAdjustment = {
      idempotencyKey: movementIdempotencyKey(store.id, 424242),
      reason: "correction",
      referenceDocumentUri: "stockroom://stock_adjustments/1",
      changes: [
        { name: "available", inventoryItemId: variant.inventory_item_id, locationId: location.id, delta: 3 },
      ],
      itemCosts: [],
    };
    const answers = await withShopHeld(2, () =>
      Promise.allSettled([connector.adjustInventory(document), connector.adjustInventory(document)]),
    );
    const failed = answers.flatMap((a) => (a.status === "rejected" ? [String(a.reason)] : []));
    assert.deepEqual(failed, [], "no send fails");
    const [a, b] = answers.map((a) => (a.status === "fulfilled" ? a.value : assert.fail()));
    const first = a.replayed ? b : a;
    const second = a.replayed ? a : b;
    assert.deepEqual([first.replayed, second.replayed], [false, true]);
    assert.deepEqual(second.levels, first.levels);
    assert.equal(second.feed, undefined, "a replay reports no change numbers of its own");
    const [level] = first.levels;
    assert.equal(level.available, start.available + 3);
    const now = await platformLevel(t, store.id, variant.inventory_item_id, location.id);
    assert.equal(now.available, start.available + 3, "moved once");
    const keys = await t.runtime.ctx.db
      .selectFrom("sim_push_keys")
      .select("key")
      .where("store_id", "=", store.id)
      .where("key", "=", document.idempotencyKey)
      .execute();
    assert.equal(keys.length, 1);
  });
});
