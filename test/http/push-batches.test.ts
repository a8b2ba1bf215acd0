/**
 * Push batches (issue 22 item 1: the platform pushes keeping up with 32 concurrent receipts): a push
 * that finds more pushes of its store waiting takes their movements along, as one document to the
 * simulated platform. Each movement still reaches the platform once: the batch is fixed before it is
 * sent, a retry sends it again under the same key, and a refused batch is taken apart so each record
 * goes again alone. The worker here has one slot, so the receipts' pushes wait behind the first.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { ManualClock } from "../../src/clock.ts";
import type { PushHooks } from "../../src/platform/push.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import {
  createOrderedOrder,
  createSupplier,
  idempotencyKey,
  listLocations,
  trackedVariants,
} from "../helpers/factories.ts";
import { modulesWithPushHooks } from "../helpers/push-hooks.ts";
import { platformLevelRow } from "../helpers/stock.ts";

describe("push batches", () => {
  let t: TestApp;
  let store: TestStore;
  let clock: ManualClock;
  const pushHooks: PushHooks = { afterPush: null };

  before(async () => {
    t = await startTestApp({
      env: { WORKER_CONCURRENCY: "1" },
      modules: modulesWithPushHooks(pushHooks),
    });
    clock = t.clock as ManualClock;
    store = await t.createStore({ seed: "demo" });
    await t.drain();
  });
  after(() => t.close());

  /** Two tracked variants ordered (10 each, drained), then `count` receipts of 1 a line: pushes queued. */
  async function receiptsQueued(count: number, variantsFrom: number) {
    const variants = (await trackedVariants(store.api)).slice(variantsFrom, variantsFrom + 2);
    const [location] = await listLocations(store.api);
    const order = await createOrderedOrder(store.api, {
      supplier_id: (await createSupplier(store.api)).id,
      location_id: location.id,
      lines: variants.map((v) => ({ variant_id: v.id, quantity: 10, unit_cost: "2.50" })),
    });
    await t.drain();
    const levels = async () =>
      Promise.all(
        variants.map(async (v) => {
          const row = await platformLevelRow(t, store.id, v.inventory_item_id, location.id);
          return { available: row.available, incoming: row.incoming };
        }),
      );
    const before = await levels();
    const receipts: number[] = [];
    for (let i = 0; i < count; i++) {
      const res = await store.api.post(
        `/v2/purchase_orders/${order.id}/receipts`,
        { lines: order.lines.map((l: { id: number }) => ({ line_id: l.id, quantity: 1 })) },
        idempotencyKey("batch"),
      );
      expectStatus(res, 201);
      receipts.push(res.body.data.id);
    }
    const syncStates = async () => {
      const res = await store.api.get(`/v2/purchase_orders/${order.id}`);
      expectStatus(res, 200);
      return res.body.data.receipts.map(
        (r: { id: number; platform_sync: { state: string; error: string | null } }) => [
          r.id,
          r.platform_sync.state,
          r.platform_sync.error,
        ],
      );
    };
    return { receipts, before, levels, syncStates };
  }

  async function pushKeys(): Promise<string[]> {
    const rows = await t.runtime.ctx.db
      .selectFrom("sim_push_keys")
      .select("key")
      .where("store_id", "=", store.id)
      .orderBy("created_at")
      .orderBy("key")
      .execute();
    return rows.map((r) => r.key);
  }

  async function pushJobStates(receipts: number[]): Promise<string[]> {
    const rows = await t.runtime.ctx.db
      .selectFrom("jobs")
      .select(["state", "payload"])
      .where("type", "=", "platform.push")
      .where("store_id", "=", store.id)
      .orderBy("id")
      .execute();
    return rows
      .filter(
        (r) => r.payload.subject_type === "receipt" && receipts.includes(r.payload.subject_id as number),
      )
      .map((r) => r.state);
  }

  test("three receipts' waiting pushes reach the platform as one document; each receipt synced, stock moved once", async () => {
    const { receipts, before, levels, syncStates } = await receiptsQueued(3, 0);
    const keysBefore = await pushKeys();

    const ran = await t.drain();
    assert.equal(ran, 1, "the first push took the two waiting ones along");
    const sent = (await pushKeys()).filter((k) => !keysBefore.includes(k));
    assert.equal(sent.length, 1, sent.join(", "));
    assert.match(sent[0], new RegExp(`^stockroom-${store.id}-batch-\\d+-6$`));
    assert.deepEqual(
      await levels(),
      before.map((l) => ({ available: l.available + 3, incoming: l.incoming - 3 })),
    );
    assert.deepEqual(
      await syncStates(),
      receipts.map((id) => [id, "synced", null]),
    );
    assert.deepEqual(await pushJobStates(receipts), ["done", "done", "done"]);
  });

  test("a worker dying after the platform took a batch: the next push sends the same batch, and it moves nothing again", async () => {
    const { receipts, before, levels, syncStates } = await receiptsQueued(3, 2);
    const keysBefore = await pushKeys();
    let crashes = 0;
    pushHooks.afterPush = () => {
      crashes++;
      pushHooks.afterPush = null;
      throw new Error("worker died after the push");
    };
    try {
      // The first push fails after the platform took the batch; the two it took along go back to
      // the queue at once, and the first of them sends the same batch (answered, not applied again).
      await t.drain();
    } finally {
      pushHooks.afterPush = null;
    }
    assert.equal(crashes, 1);
    const sent = (await pushKeys()).filter((k) => !keysBefore.includes(k));
    assert.equal(sent.length, 1, sent.join(", "));
    const moved = before.map((l) => ({ available: l.available + 3, incoming: l.incoming - 3 }));
    assert.deepEqual(await levels(), moved);
    assert.deepEqual(
      await syncStates(),
      receipts.map((id) => [id, "synced", null]),
    );
    // The failed first push runs again after its backoff and finds nothing to send.
    clock.advance(10_000);
    await t.drain();
    assert.deepEqual(
      (await pushKeys()).filter((k) => !keysBefore.includes(k)),
      sent,
    );
    assert.deepEqual(await levels(), moved);
    assert.deepEqual(await pushJobStates(receipts), ["done", "done", "done"]);
  });

  test("a batch the platform refuses moves nothing; each record goes again alone, none failed for another's refusal", async () => {
    const { receipts, before, levels, syncStates } = await receiptsQueued(3, 4);
    const keysBefore = await pushKeys();
    expectStatus(
      await t.admin.post(`/admin/stores/${store.id}/platform/faults`, { mode: "reject", count: 1 }),
      200,
    );
    // The first push's batch is refused and taken apart: that push waits for its next attempt; the
    // two it had taken along go back to the queue, and the first of them takes the other along.
    await t.drain();
    const refused = "rejected by the platform (simulated refusal)";
    assert.deepEqual(await syncStates(), [
      [receipts[0], "pending", refused],
      [receipts[1], "synced", null],
      [receipts[2], "synced", null],
    ]);
    assert.deepEqual(
      await levels(),
      before.map((l) => ({ available: l.available + 2, incoming: l.incoming - 2 })),
    );
    clock.advance(10_000);
    await t.drain();
    assert.deepEqual(
      await syncStates(),
      receipts.map((id) => [id, "synced", null]),
    );
    assert.deepEqual(
      await levels(),
      before.map((l) => ({ available: l.available + 3, incoming: l.incoming - 3 })),
    );
    const sent = (await pushKeys()).filter((k) => !keysBefore.includes(k));
    assert.equal(sent.length, 2, sent.join(", "));
    assert.equal(sent.filter((k) => /-batch-\d+-4$/.test(k)).length, 1, "the two records' batch");
    assert.deepEqual(await pushJobStates(receipts), ["done", "done", "done"]);
  });
});
