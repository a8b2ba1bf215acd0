/**
 * One push per store at a time (issue 22 item 3): on the simulated platform a store's pushes run one
 * at a time, so the first takes along every push of its store waiting behind it (push batches). When
 * a worker of 8 slots claimed 8 waiting pushes of one store at once, each was running, none waiting,
 * and each went to the platform alone: a burst of receipts made as many documents as receipts.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import {
  createOrderedOrder,
  createSupplier,
  idempotencyKey,
  listLocations,
  trackedVariants,
} from "../helpers/factories.ts";
import { platformLevelRow } from "../helpers/stock.ts";

describe("one push per store at a time", () => {
  let t: TestApp;
  let store: TestStore;

  before(async () => {
    t = await startTestApp({ env: { WORKER_CONCURRENCY: "8" } });
    store = await t.createStore({ seed: "demo" });
    await t.drain();
  });
  after(() => t.close());

  async function pushKeys(): Promise<string[]> {
    const rows = await t.runtime.ctx.db
      .selectFrom("sim_push_keys")
      .select("key")
      .where("store_id", "=", store.id)
      .execute();
    return rows.map((r) => r.key);
  }

  async function pushesLeft(): Promise<number> {
    const rows = await t.runtime.ctx.db
      .selectFrom("jobs")
      .select("id")
      .where("type", "=", "platform.push")
      .where("state", "in", ["queued", "running"])
      .execute();
    return rows.length;
  }

  test("eight receipts' pushes waiting for a worker of eight slots reach the platform as one document", async () => {
    const variants = (await trackedVariants(store.api)).slice(0, 2);
    const [location] = await listLocations(store.api);
    const order = await createOrderedOrder(store.api, {
      supplier_id: (await createSupplier(store.api)).id,
      location_id: location.id,
      lines: variants.map((v) => ({ variant_id: v.id, quantity: 10, unit_cost: "2.50" })),
    });
    await t.drain();
    const levels = () =>
      Promise.all(
        variants.map(async (v) => {
          const row = await platformLevelRow(t, store.id, v.inventory_item_id, location.id);
          return { available: row.available, incoming: row.incoming };
        }),
      );
    const levelsBefore = await levels();
    const keysBefore = await pushKeys();
    for (let i = 0; i < 8; i++)
      expectStatus(
        await store.api.post(
          `/v2/purchase_orders/${order.id}/receipts`,
          { lines: order.lines.map((l: { id: number }) => ({ line_id: l.id, quantity: 1 })) },
          idempotencyKey("one-per-store"),
        ),
        201,
      );
    assert.equal(await pushesLeft(), 8);

    t.runtime.worker.start();
    for (let attempt = 0; attempt < 1000 && (await pushesLeft()) > 0; attempt++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    await t.runtime.worker.stop();

    assert.equal(await pushesLeft(), 0);
    const sent = (await pushKeys()).filter((k) => !keysBefore.includes(k));
    assert.equal(sent.length, 1, sent.join(", "));
    assert.match(sent[0], new RegExp(`^stockroom-${store.id}-batch-\\d+-16$`));
    assert.deepEqual(
      await levels(),
      levelsBefore.map((l) => ({ available: l.available + 8, incoming: l.incoming - 8 })),
    );
  });
});
