/**
 * The acknowledgement's read of other pushes in flight (docs/decisions.md, "A report adopted only when
 * no push of its level is in flight"), skipped where nothing else is unacknowledged: each level counts
 * its unacknowledged movements (`inventory_levels.unacknowledged`, migration 040; recording adds, the
 * acknowledgement subtracts), and an acknowledgement reads the ledger only for the levels its own
 * movements do not leave at zero. Statements read at the driver, through the job worker (one slot, so
 * a push takes the waiting ones along as a batch) on the simulated platform.
 */
import "../helpers/statements.ts";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { ManualClock } from "../../src/clock.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import type { Variant } from "../helpers/factories.ts";
import { countStatements } from "../helpers/statements.ts";
import { alertingDemoStore, mirrorLevelRow, recordTestMovements } from "../helpers/stock.ts";

/** The in-flight read: the ledger's sent and unacknowledged movements of some levels (not their sums). */
const IN_FLIGHT_READ = /push_sent_at"? is not null/;

describe("an acknowledgement reads other pushes in flight only where something else is unacknowledged", () => {
  let t: TestApp;
  let store: TestStore;
  let pool: { next(): Variant };
  let location: number;
  let subject = 9000;

  before(async () => {
    t = await startTestApp({ env: { WORKER_CONCURRENCY: "1" } });
    ({ store, pool, location } = await alertingDemoStore(t));
  });
  after(() => t.close());

  const moved = (item: number, delta: number) =>
    recordTestMovements(t, store.id, ++subject, [
      { inventoryItemId: item, locationId: location, availableDelta: delta, reason: "correction" },
    ]);
  const unacknowledged = async (item: number) =>
    (
      await t.runtime.ctx.db
        .selectFrom("inventory_levels")
        .select("unacknowledged")
        .where("store_id", "=", store.id)
        .where("inventory_item_id", "=", item)
        .where("location_id", "=", location)
        .executeTakeFirstOrThrow()
    ).unacknowledged;
  const inFlightReads = (all: readonly string[]) =>
    all.filter((s) => IN_FLIGHT_READ.test(s) && !/\bsum\(/.test(s));

  test("levels with nothing else unacknowledged: no read", async () => {
    const [a, b] = [pool.next().inventory_item_id, pool.next().inventory_item_id];
    const before = [
      (await mirrorLevelRow(store.api, a, location)).available,
      (await mirrorLevelRow(store.api, b, location)).available,
    ];
    await moved(a, -1);
    await moved(b, -2);
    await moved(a, -3);
    assert.deepEqual([await unacknowledged(a), await unacknowledged(b)], [2, 1]);

    const { all } = await countStatements(() => t.drain());
    assert.deepEqual(inFlightReads(all), []);
    assert.deepEqual([await unacknowledged(a), await unacknowledged(b)], [0, 0]);
    assert.equal((await mirrorLevelRow(store.api, a, location)).available, before[0] - 4);
    assert.equal((await mirrorLevelRow(store.api, b, location)).available, before[1] - 2);
  });

  test("a level with another push unacknowledged (refused, waiting for its retry): read, and counted again", async () => {
    const item = pool.next().inventory_item_id;
    const start = (await mirrorLevelRow(store.api, item, location)).available;
    await moved(item, -1);
    const fault = await t.admin.post(`/admin/stores/${store.id}/platform/faults`, { mode: "down", count: 1 });
    assert.equal(fault.status, 200);
    await t.drain(); // refused before applying; its job waits 10 s for the next attempt
    await moved(item, -2);
    assert.equal(await unacknowledged(item), 2);

    const { all } = await countStatements(() => t.drain());
    assert.equal(inFlightReads(all).length, 1, all.join("\n"));
    assert.equal(await unacknowledged(item), 1);

    (t.clock as ManualClock).advance(10_000);
    await t.drain();
    assert.equal(await unacknowledged(item), 0);
    assert.equal((await mirrorLevelRow(store.api, item, location)).available, start - 3);
  });
});
