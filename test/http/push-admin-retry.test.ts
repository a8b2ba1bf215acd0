/**
 * A push that failed for good after a send whose answer was lost, then retried by an admin
 * (docs/decisions.md, "Push batches", a send's key kept). The platform may hold that send's document
 * under its key; the retry starts again from attempt 0, where a push takes the store's waiting pushes
 * along in a batch. Every later attempt must send those movements again under the same key, never
 * in a batch under a new one, or the platform applies them twice. And a record whose movements
 * reached the platform in another record's batch leaves the failed list. Through HTTP (stock
 * adjustments, the admin's retry and sync status, the simulated platform's faults) and the job worker
 * (one slot) on the simulated platform.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import type { ManualClock } from "../../src/clock.ts";
import { pushKeyAssumedMigration } from "../../src/db/migrations/044_push_key_assumed.ts";
import { syncCatalog } from "../../src/platform/catalog-sync.ts";
import type { PushHooks } from "../../src/platform/push.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import { idempotencyKey, type Variant } from "../helpers/factories.ts";
import { modulesWithPushHooks } from "../helpers/push-hooks.ts";
import { alertingDemoStore, mirrorLevelRow, platformLevelRow } from "../helpers/stock.ts";

describe("an admin's retry of a push whose answer was lost", () => {
  let t: TestApp;
  let store: TestStore;
  let clock: ManualClock;
  let pool: { next(): Variant };
  let location: number;
  const pushHooks: PushHooks = { afterPush: null };

  before(async () => {
    t = await startTestApp({
      env: { WORKER_CONCURRENCY: "1" },
      modules: modulesWithPushHooks(pushHooks),
    });
    clock = t.clock as ManualClock;
    ({ store, pool, location } = await alertingDemoStore(t));
  });
  after(() => t.close());

  /** A variant whose level is `available` on the platform and in the mirror. */
  async function levelAt(available: number): Promise<Variant> {
    const variant = pool.next();
    const res = await t.admin.post(`/admin/stores/${store.id}/platform/inventory`, {
      changes: [{ inventory_item_id: variant.inventory_item_id, location_id: location, set: available }],
    });
    expectStatus(res, 200);
    await t.drain();
    await syncCatalog(t.runtime.ctx, store.id);
    assert.equal(await shown(variant), available);
    return variant;
  }

  /** An applied stock adjustment of `delta` at the variant (its push queued); answers its id. */
  async function adjusted(variant: Variant, delta: number): Promise<number> {
    const created = await store.api.post("/v2/stock_adjustments", {
      location_id: location,
      reason: "correction",
      lines: [{ variant_id: variant.id, delta }],
    });
    expectStatus(created, 201);
    const id: number = created.body.data.id;
    expectStatus(
      await store.api.post(`/v2/stock_adjustments/${id}/apply`, {}, idempotencyKey("admin-retry")),
      200,
    );
    return id;
  }

  const shown = async (v: Variant) =>
    (await mirrorLevelRow(store.api, v.inventory_item_id, location)).available;
  const onPlatform = async (v: Variant) =>
    (await platformLevelRow(t, store.id, v.inventory_item_id, location)).available;
  const fault = async (mode: "down" | "reject", count = 1) =>
    expectStatus(await t.admin.post(`/admin/stores/${store.id}/platform/faults`, { mode, count }), 200);
  const syncState = async (adjustment: number) => {
    const res = await store.api.get(`/v2/stock_adjustments/${adjustment}`);
    expectStatus(res, 200);
    return res.body.data.platform_sync.state;
  };
  /** The failed pushes the admin sees, by the adjustment they are about: [adjustment, job id]. */
  async function failedList(): Promise<Array<[number, number]>> {
    const res = await t.admin.get(`/admin/stores/${store.id}/sync`);
    expectStatus(res, 200);
    return res.body.data.failed.map((f: { subject_id: number; job_id: number }) => [f.subject_id, f.job_id]);
  }
  const retry = async (jobId: number) => {
    const res = await t.admin.post(`/admin/stores/${store.id}/sync/${jobId}/retry`);
    expectStatus(res, 200);
  };
  /** The next send is applied by the platform and its answer lost (a timeout); `then` runs first. */
  const answerLostOnce = (then: () => Promise<void> = async () => {}) => {
    pushHooks.afterPush = async () => {
      pushHooks.afterPush = null;
      await then();
      throw new Error("the platform's answer timed out");
    };
  };

  test("a document sent alone goes again under its key, not in the batch the retry makes: 20 − 3 = 17", async () => {
    const item = await levelAt(20);
    const other = await levelAt(20);
    const adjustment = await adjusted(item, -3);
    answerLostOnce();
    await t.drain(); // sent alone (nothing waits), applied: 17; the answer lost
    assert.equal(await onPlatform(item), 17);
    await fault("reject");
    clock.advance(10_000);
    await t.drain(); // refused: the push fails for good
    const [[subject, jobId]] = await failedList();
    assert.equal(subject, adjustment);
    // Another adjustment's push waits: the retry, a first attempt again, takes it along in a batch.
    const second = await adjusted(other, 4);
    await retry(jobId);
    await t.drain();
    assert.equal(await onPlatform(item), 17, "sent in the batch under a new key, the −3 is applied twice");
    assert.equal(await onPlatform(other), 24);
    await syncCatalog(t.runtime.ctx, store.id);
    assert.equal(await shown(item), 17);
    assert.equal(await shown(other), 24);
    assert.deepEqual([await syncState(adjustment), await syncState(second)], ["synced", "synced"]);
    assert.deepEqual(await failedList(), []);
  });

  test("a push failed for good before migration 042 (no key kept): after 044 the retry sends it alone, 20 − 3 = 17", async () => {
    const item = await levelAt(20);
    const other = await levelAt(20);
    const adjustment = await adjusted(item, -3);
    answerLostOnce();
    await t.drain(); // sent alone, applied: 17; the answer lost
    await fault("reject");
    clock.advance(10_000);
    await t.drain(); // refused: the push fails for good
    const [[, jobId]] = await failedList();
    // As a release before 042 left it: the final failure took the in-flight mark off and kept no
    // record of the send (042 found nothing to copy). Then the upgrade runs 044.
    const { db } = t.runtime.ctx;
    const of = sql`store_id = ${store.id} and subject_type = 'stock_adjustment' and subject_id = ${adjustment}`;
    const { rows } = await sql<{ marked: boolean }>`update stock_movements set push_key_sent_at = null
      where ${of} returning push_sent_at is not null as marked`.execute(db);
    assert.deepEqual(rows, [{ marked: false }]);
    for (const statement of pushKeyAssumedMigration) await sql.raw(statement).execute(db);
    const second = await adjusted(other, 4); // waiting: the retry, a first attempt, would batch both
    await retry(jobId);
    await t.drain();
    assert.equal(await onPlatform(item), 17, "sent in the batch under a new key, the −3 is applied twice");
    assert.equal(await onPlatform(other), 24);
    assert.deepEqual([await syncState(adjustment), await syncState(second)], ["synced", "synced"]);
    assert.deepEqual(await failedList(), []);
  });

  test("a record another record's push sent in their batch leaves the failed list", async () => {
    const item = await levelAt(20);
    const other = await levelAt(20);
    const first = await adjusted(item, -3);
    const second = await adjusted(other, 4); // waiting: the first push takes it along as one batch
    // The batch applied and its answer lost; the other record's push, handed back, sends it again:
    // refused (the platform down). At the next attempts the leader's push is refused for good, then
    // the other's sends the batch again: answered under its key, both records acknowledged.
    answerLostOnce(() => fault("down"));
    await t.drain();
    await fault("reject");
    clock.advance(10_000);
    await t.drain();
    assert.deepEqual([await onPlatform(item), await onPlatform(other)], [17, 24]);
    assert.deepEqual([await syncState(first), await syncState(second)], ["synced", "synced"]);
    assert.deepEqual(await failedList(), [], "the first adjustment reached the platform");
    const status = await t.admin.get(`/admin/stores/${store.id}/sync`);
    assert.equal(status.body.data.counts.failed, 0);
  });
});
