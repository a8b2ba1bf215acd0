import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type ManualClock, systemClock } from "../../src/clock.ts";
import { type MovementInput, platformSyncOf } from "../../src/domain/stock/index.ts";
import type { PeriodicTask } from "../../src/jobs/worker.ts";
import { syncCatalog } from "../../src/platform/catalog-sync.ts";
import { PlatformPermanentError, PlatformTransientError } from "../../src/platform/connector.ts";
import { movementIdempotencyKey, type PushHooks } from "../../src/platform/push.ts";
import { connectorForStore } from "../../src/platform/registry.ts";
import { changeSimInventory } from "../../src/platform/simulated/index.ts";
import { SYNC_SCAN_TASK } from "../../src/platform/sync-jobs.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { trackedVariants, type Variant } from "../helpers/factories.ts";
import { modulesWithPushHooks } from "../helpers/push-hooks.ts";
import { mirrorLevelRow, platformLevelRow, recordTestMovements } from "../helpers/stock.ts";

/**
 * The platform loop on the simulated platform: admin controls, the mirror sync (platform changes reach
 * GET /inventory_levels), and the stock push queue (pending → synced, retries under outages with the
 * the contract decisions on platform sync backoff, failure on refusal or after 6 attempts, admin retry, exactly-once stock moves
 * even when a worker dies between the push and its acknowledgement).
 */

const SEC = 1000;

describe("platform sync", () => {
  let t: TestApp;
  let clock: ManualClock;
  let store: TestStore;
  let tracked: Variant[];
  let locationIds: number[];
  let hiddenLocationId: number;
  let subjectCounter = 100;
  /** This app's push fault injection (a test sets afterPush and clears it). */
  const pushHooks: PushHooks = { afterPush: null };

  const level = (itemId: number, locationId: number) => mirrorLevelRow(store.api, itemId, locationId);
  const platformLevel = (itemId: number, locationId: number) =>
    platformLevelRow(t, store.id, itemId, locationId);
  /** Where the store's mirror has read the platform's change feed up to. */
  const watermark = async () =>
    (
      await t.runtime.ctx.db
        .selectFrom("mirror_sync_states")
        .select("watermark")
        .where("store_id", "=", store.id)
        .executeTakeFirstOrThrow()
    ).watermark;
  const move = async (movements: MovementInput[], subjectId = ++subjectCounter) => {
    await recordTestMovements(t, store.id, subjectId, movements);
    return subjectId;
  };
  const syncOf = async (subjectId: number) =>
    (await platformSyncOf(t.runtime.ctx.db, store.id, "stock_adjustment", [subjectId])).get(subjectId)!;

  before(async () => {
    t = await startTestApp({
      modules: modulesWithPushHooks(pushHooks),
    });
    clock = t.clock as ManualClock;
    store = await t.createStore({ seed: "demo" });
    tracked = await trackedVariants(store.api);
    const locations = (await t.admin.get(`/admin/stores/${store.id}/locations`)).body.data;
    locationIds = locations.filter((l: any) => !l.hidden).map((l: any) => l.id);
    hiddenLocationId = locations.find((l: any) => l.hidden).id;
  });
  after(() => t.close());

  test("POST platform/products creates products with variants, levels at 0; the mirror pulls them", async () => {
    const res = await t.admin.post(`/admin/stores/${store.id}/platform/products`, {
      products: [
        {
          title: "Field Notebook",
          vendor: "Paper Mill",
          product_type: "Stationery",
          tags: ["paper"],
          variants: [
            { title: "Dot", sku: "NB-DOT", barcode: "4006381333931", price: 12.5, unit_cost: "3.2" },
            { title: "Blank", sku: "NB-BLANK", price: "12.50", inventory_tracked: false },
          ],
        },
      ],
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.data.length, 1);
    const product = res.body.data[0];
    assert.equal(product.title, "Field Notebook");
    assert.equal(product.status, "active");
    assert.equal(product.variants_count, 2);
    assert.deepEqual(product.options, [{ name: "Title", position: 1, values: ["Dot", "Blank"] }]);
    assert.deepEqual(
      product.variants.map((v: any) => [v.sku, v.price, v.unit_cost, v.inventory_tracked, v.position]),
      [
        ["NB-DOT", "12.50", "3.20", true, 1],
        ["NB-BLANK", "12.50", null, false, 2],
      ],
    );
    const item = product.variants[0].inventory_item_id;
    const platform = await t.admin.get(
      `/admin/stores/${store.id}/platform/inventory?inventory_item_id=${item}`,
    );
    assert.deepEqual(
      platform.body.data.map((l: any) => [l.location_id, l.available, l.on_hand, l.incoming, l.unit_cost]),
      [...locationIds, hiddenLocationId].map((id) => [id, 0, 0, 0, "3.20000000"]),
    );

    // Not in the mirror until the sync runs (the platform's change notification queued it).
    assert.equal((await store.api.get(`/v2/products/${product.id}`)).status, 404);
    await t.drain();
    const mirrored = await store.api.get(`/v2/products/${product.id}`);
    assert.equal(mirrored.status, 200);
    assert.deepEqual(
      mirrored.body.data.variants.map((v: any) => v.sku),
      ["NB-DOT", "NB-BLANK"],
    );
    assert.equal(mirrored.body.data.variants[0].product_title, "Field Notebook");
    assert.equal((await level(item, locationIds[0])).available, 0);
  });

  test("POST platform/products refuses bad input and writes nothing", async () => {
    const before = (await t.admin.get(`/admin/stores/${store.id}/platform/inventory`)).body.data.length;
    const noVariants = await t.admin.post(`/admin/stores/${store.id}/platform/products`, {
      products: [{ title: "Nothing", variants: [] }],
    });
    assert.equal(noVariants.status, 422);
    assert.equal(noVariants.body.error.code, "validation_failed");
    const badPrice = await t.admin.post(`/admin/stores/${store.id}/platform/products`, {
      products: [{ title: "Bad", variants: [{ title: "A", price: "12.5.0" }] }],
    });
    assert.equal(badPrice.status, 422);
    assert.deepEqual(
      badPrice.body.error.details.map((d: any) => d.field),
      ["products.0.variants.0.price"],
    );
    const unknown = await t.admin.post(`/admin/stores/${store.id}/platform/products`, {
      products: [{ title: "X", colour: "red", variants: [{ title: "A", price: 1 }] }],
    });
    assert.equal(unknown.status, 422);
    assert.equal(
      (await t.admin.get(`/admin/stores/${store.id}/platform/inventory`)).body.data.length,
      before,
    );
    const noStore = await t.admin.post("/admin/stores/999999/platform/products", {
      products: [{ title: "X", variants: [{ title: "A", price: 1 }] }],
    });
    assert.equal(noStore.status, 404);
  });

  test("POST platform/inventory sets and adjusts platform-side quantities; a sale reaches the mirror", async () => {
    const v = tracked[0];
    const loc = locationIds[0];
    const start = await platformLevel(v.inventory_item_id, loc);
    assert.equal((await level(v.inventory_item_id, loc)).available, start.available);

    const sale = await t.admin.post(`/admin/stores/${store.id}/platform/inventory`, {
      changes: [{ inventory_item_id: v.inventory_item_id, location_id: loc, adjust: -3 }],
    });
    assert.equal(sale.status, 200);
    assert.deepEqual(sale.body.data, [
      {
        inventory_item_id: v.inventory_item_id,
        location_id: loc,
        available: start.available - 3,
        on_hand: start.on_hand - 3,
        committed: start.committed,
        incoming: start.incoming,
        unit_cost: "8.50000000",
      },
    ]);
    await t.drain();
    const mirrored = await level(v.inventory_item_id, loc);
    assert.equal(mirrored.available, start.available - 3);
    assert.equal(mirrored.on_hand, start.on_hand - 3);

    const more = await t.admin.post(`/admin/stores/${store.id}/platform/inventory`, {
      changes: [
        { inventory_item_id: v.inventory_item_id, location_id: loc, name: "incoming", set: 12 },
        { inventory_item_id: v.inventory_item_id, location_id: loc, name: "on_hand", set: 40 },
        { inventory_item_id: v.inventory_item_id, location_id: loc, name: "available", adjust: 2 },
      ],
    });
    assert.equal(more.status, 200);
    assert.equal(more.body.data.length, 1);
    assert.deepEqual(
      [more.body.data[0].available, more.body.data[0].on_hand, more.body.data[0].incoming],
      [40 - start.committed + 2, 42, 12],
    );
    await t.drain();
    const after = await level(v.inventory_item_id, loc);
    assert.deepEqual([after.available, after.on_hand, after.incoming], [40 - start.committed + 2, 42, 12]);
  });

  test("POST platform/inventory refuses unknown items, foreign locations and ambiguous changes", async () => {
    const other = await t.createStore({ seed: "empty" });
    const foreignLocation = (await t.admin.get(`/admin/stores/${other.id}/locations`)).body.data[0].id;
    const v = tracked[1];
    const before = await platformLevel(v.inventory_item_id, locationIds[0]);
    const cases: Array<[unknown, string, string]> = [
      [
        { inventory_item_id: 424242, location_id: locationIds[0], adjust: 1 },
        "changes.0.inventory_item_id",
        "not_found",
      ],
      [
        { inventory_item_id: v.inventory_item_id, location_id: foreignLocation, adjust: 1 },
        "changes.0.location_id",
        "not_found",
      ],
      [
        { inventory_item_id: v.inventory_item_id, location_id: locationIds[0], adjust: 1, set: 3 },
        "changes.0",
        "invalid_value",
      ],
      [{ inventory_item_id: v.inventory_item_id, location_id: locationIds[0] }, "changes.0", "invalid_value"],
    ];
    for (const [change, field, code] of cases) {
      const res = await t.admin.post(`/admin/stores/${store.id}/platform/inventory`, { changes: [change] });
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.error.code, "validation_failed");
      assert.deepEqual(
        res.body.error.details.map((d: any) => [d.field, d.code]),
        [[field, code]],
      );
    }
    const badName = await t.admin.post(`/admin/stores/${store.id}/platform/inventory`, {
      changes: [
        { inventory_item_id: v.inventory_item_id, location_id: locationIds[0], name: "committed", set: 1 },
      ],
    });
    assert.equal(badName.status, 422);
    assert.deepEqual(await platformLevel(v.inventory_item_id, locationIds[0]), before);
  });

  test("a movement shows in the mirror at once, reaches the platform once, and the record ends synced", async () => {
    const v = tracked[2];
    const loc = locationIds[1];
    const start = await platformLevel(v.inventory_item_id, loc);
    const subject = await move([
      {
        inventoryItemId: v.inventory_item_id,
        locationId: loc,
        availableDelta: 5,
        incomingDelta: -5,
        unitCost: "9.12345678",
        unitCostCurrency: "USD",
        reason: "received",
      },
    ]);
    // The record is final at once: the mirror already counts it; the platform does not yet.
    const mirrored = await level(v.inventory_item_id, loc);
    assert.deepEqual(
      [mirrored.available, mirrored.on_hand, mirrored.incoming],
      [start.available + 5, start.on_hand + 5, start.incoming - 5],
    );
    assert.deepEqual(await syncOf(subject), { state: "pending", attempted_at: null, error: null });
    assert.equal((await platformLevel(v.inventory_item_id, loc)).available, start.available);

    await t.drain();
    const pushed = await platformLevel(v.inventory_item_id, loc);
    assert.deepEqual(
      [pushed.available, pushed.on_hand, pushed.incoming, pushed.unit_cost],
      [start.available + 5, start.on_hand + 5, start.incoming - 5, "9.12345678"],
    );
    const state = await syncOf(subject);
    assert.equal(state.state, "synced");
    assert.equal(state.error, null);
    assert.equal(state.attempted_at, clock.now().toISOString());
    // Acknowledged: the mirror still shows the same numbers (now as the platform's own report).
    const after = await level(v.inventory_item_id, loc);
    assert.deepEqual(
      [after.available, after.on_hand, after.incoming],
      [mirrored.available, mirrored.on_hand, mirrored.incoming],
    );
    // The new item unit cost comes back through the sync.
    const variant = await store.api.get(`/v2/variants/${v.id}`);
    assert.equal(variant.body.data.unit_cost, "9.12345678");
    // Draining again moves nothing twice.
    await t.drain();
    assert.deepEqual(await platformLevel(v.inventory_item_id, loc), pushed);
  });

  test("a pushed unit cost is the item's: the feed reports the cost, not the variant, and a sync applies it", async () => {
    const v = tracked[4];
    const loc = locationIds[0];
    await syncCatalog(t.runtime.ctx, store.id);
    const before = (await store.api.get(`/v2/variants/${v.id}`)).body.data;
    const mark = await watermark();
    await move([
      {
        inventoryItemId: v.inventory_item_id,
        locationId: loc,
        availableDelta: 1,
        unitCost: "3.25",
        unitCostCurrency: "USD",
        reason: "received",
      },
    ]);
    await t.drain();
    // Acknowledged: the mirror shows the cost at once.
    const acknowledged = (await store.api.get(`/v2/variants/${v.id}`)).body.data;
    assert.equal(acknowledged.unit_cost, "3.25");
    const connector = await connectorForStore(t.runtime.ctx, t.runtime.ctx.db, store.id);
    const feed = await connector.listChanges(mark, 1000);
    assert.deepEqual(feed.itemCosts, [
      { inventoryItemId: v.inventory_item_id, unitCost: "3.25000000", currency: "USD" },
    ]);
    assert.deepEqual(feed.variants, [], "the variant itself did not change");
    // A mirror that missed it (here: overwritten) gets the cost back from the next sync.
    await t.runtime.ctx.db
      .updateTable("variants")
      .set({ unit_cost: before.unit_cost })
      .where("store_id", "=", store.id)
      .where("id", "=", v.id)
      .execute();
    await t.runtime.ctx.db
      .updateTable("mirror_sync_states")
      .set({ watermark: mark })
      .where("store_id", "=", store.id)
      .execute();
    await syncCatalog(t.runtime.ctx, store.id);
    assert.equal((await store.api.get(`/v2/variants/${v.id}`)).body.data.unit_cost, "3.25");
  });

  test("mirror = platform report + unacknowledged movements, whatever the order", async () => {
    const v = tracked[3];
    const loc = locationIds[0];
    const start = (await level(v.inventory_item_id, loc)).available;
    await move([
      { inventoryItemId: v.inventory_item_id, locationId: loc, availableDelta: 7, reason: "correction" },
    ]);
    // A sale on the platform while the movement waits: the sync adds the pending +7 to the report.
    await changeSimInventory(t.runtime.ctx.db, clock, store.id, [
      { inventory_item_id: v.inventory_item_id, location_id: loc, adjust: -2 },
    ]);
    await syncCatalog(t.runtime.ctx, store.id);
    assert.equal((await level(v.inventory_item_id, loc)).available, start + 7 - 2);
    await t.drain();
    assert.equal((await level(v.inventory_item_id, loc)).available, start + 5);
    assert.equal((await platformLevel(v.inventory_item_id, loc)).available, start + 5);
  });

  test("a push under `down` faults is retried on the contract decisions on platform sync schedule and ends synced", async () => {
    const v = tracked[4];
    const loc = locationIds[0];
    const start = await platformLevel(v.inventory_item_id, loc);
    const faults = await t.admin.post(`/admin/stores/${store.id}/platform/faults`, {
      mode: "down",
      count: 2,
    });
    assert.deepEqual(faults.body, { data: { mode: "down", remaining: 2 } });
    const subject = await move([
      { inventoryItemId: v.inventory_item_id, locationId: loc, availableDelta: -4, reason: "damaged" },
    ]);
    await t.drain();
    const first = await syncOf(subject);
    assert.equal(first.state, "pending");
    assert.equal(first.attempted_at, clock.now().toISOString());
    assert.match(first.error ?? "", /unavailable/);
    clock.advance(9 * SEC);
    assert.equal(await t.drain(), 0, "not before 10 s");
    clock.advance(1 * SEC);
    await t.drain();
    assert.equal((await syncOf(subject)).state, "pending");
    clock.advance(29 * SEC);
    assert.equal(await t.drain(), 0, "not before 30 s more");
    clock.advance(1 * SEC);
    await t.drain();
    assert.deepEqual(await syncOf(subject), {
      state: "synced",
      attempted_at: clock.now().toISOString(),
      error: null,
    });
    assert.equal((await platformLevel(v.inventory_item_id, loc)).available, start.available - 4);
    assert.deepEqual((await t.admin.get(`/admin/stores/${store.id}/platform/faults`)).body.data, {
      mode: "ok",
      remaining: null,
    });
  });

  test("a push under `reject` ends failed with the error; the admin sees it and can retry it", async () => {
    const v = tracked[5];
    const loc = locationIds[1];
    const start = await platformLevel(v.inventory_item_id, loc);
    await t.admin.post(`/admin/stores/${store.id}/platform/faults`, { mode: "reject", count: 1 });
    const subject = await move([
      { inventoryItemId: v.inventory_item_id, locationId: loc, availableDelta: 3, reason: "restock" },
    ]);
    await t.drain();
    const failed = await syncOf(subject);
    assert.equal(failed.state, "failed");
    assert.equal(failed.attempted_at, clock.now().toISOString());
    assert.equal(failed.error, "rejected by the platform (simulated refusal)");
    assert.equal((await platformLevel(v.inventory_item_id, loc)).available, start.available);
    // The service's record stands: the mirror keeps counting the movement.
    assert.equal((await level(v.inventory_item_id, loc)).available, start.available + 3);

    const status = await t.admin.get(`/admin/stores/${store.id}/sync`);
    assert.equal(status.status, 200);
    assert.deepEqual(Object.keys(status.body.data).sort(), ["counts", "failed", "mirror", "reconciliation"]);
    // The simulated platform loses no change: nothing to reconcile.
    assert.equal(status.body.data.reconciliation, null);
    assert.ok(status.body.data.counts.failed >= 1);
    assert.ok(status.body.data.counts.synced >= 1);
    const row = status.body.data.failed.find((f: any) => f.subject_id === subject);
    assert.deepEqual(Object.keys(row).sort(), [
      "attempted_at",
      "attempts",
      "error",
      "job_id",
      "purchase_order_id",
      "subject_id",
      "subject_number",
      "subject_type",
    ]);
    assert.equal(row.subject_type, "stock_adjustment");
    // A made-up subject: no adjustment of that id, so no number (console-sync-records tests real ones).
    assert.deepEqual([row.subject_number, row.purchase_order_id], [null, null]);
    assert.equal(row.error, "rejected by the platform (simulated refusal)");
    assert.equal(row.attempts, 1);
    assert.equal(typeof status.body.data.mirror.watermark, "string");

    const retry = await t.admin.post(`/admin/stores/${store.id}/sync/${row.job_id}/retry`);
    assert.equal(retry.status, 200);
    assert.deepEqual(retry.body.data, {
      job_id: row.job_id,
      state: "queued",
      subject_type: "stock_adjustment",
      subject_id: subject,
    });
    assert.equal((await syncOf(subject)).state, "pending");
    const again = await t.admin.post(`/admin/stores/${store.id}/sync/${row.job_id}/retry`);
    assert.equal(again.status, 422);
    assert.equal(again.body.error.code, "invalid_transition");
    await t.drain();
    assert.deepEqual(await syncOf(subject), {
      state: "synced",
      attempted_at: clock.now().toISOString(),
      error: null,
    });
    assert.equal((await platformLevel(v.inventory_item_id, loc)).available, start.available + 3);
    assert.equal((await level(v.inventory_item_id, loc)).available, start.available + 3);
    const missing = await t.admin.post(`/admin/stores/${store.id}/sync/99999999/retry`);
    assert.equal(missing.status, 404);
  });

  test("an unknown item on the platform is a permanent refusal", async () => {
    const subject = await move([
      { inventoryItemId: 77777777, locationId: locationIds[0], availableDelta: 1, reason: "correction" },
    ]);
    await t.drain();
    const state = await syncOf(subject);
    assert.equal(state.state, "failed");
    assert.equal(state.error, "unknown inventory item 77777777");
  });

  test("after 6 failed attempts the record is failed", async () => {
    const v = tracked[6];
    const loc = locationIds[0];
    await t.admin.post(`/admin/stores/${store.id}/platform/faults`, { mode: "down" });
    const subject = await move([
      { inventoryItemId: v.inventory_item_id, locationId: loc, availableDelta: 1, reason: "correction" },
    ]);
    await t.drain();
    for (const delay of [10, 30, 120, 600, 3600]) {
      assert.equal((await syncOf(subject)).state, "pending");
      clock.advance(delay * SEC - 1);
      assert.equal(await t.drain(), 0);
      clock.advance(1);
      assert.equal(await t.drain(), 1);
    }
    const state = await syncOf(subject);
    assert.equal(state.state, "failed");
    assert.equal(state.attempted_at, clock.now().toISOString());
    assert.equal(state.error, "platform unavailable (simulated outage)");
    const status = await t.admin.get(`/admin/stores/${store.id}/sync`);
    assert.equal(status.body.data.failed.find((f: any) => f.subject_id === subject).attempts, 6);
    await t.admin.post(`/admin/stores/${store.id}/platform/faults`, { mode: "ok" });
  });

  test("a worker dying between push and acknowledgement never moves platform stock twice", async () => {
    const v = tracked[7];
    const loc = locationIds[1];
    const start = await platformLevel(v.inventory_item_id, loc);
    let crashes = 0;
    pushHooks.afterPush = () => {
      crashes++;
      pushHooks.afterPush = null;
      throw new Error("worker died after the push");
    };
    const subject = await move([
      { inventoryItemId: v.inventory_item_id, locationId: loc, availableDelta: 6, reason: "received" },
      { inventoryItemId: v.inventory_item_id, locationId: loc, incomingDelta: 4, reason: "incoming" },
    ]);
    try {
      await t.drain();
    } finally {
      pushHooks.afterPush = null;
    }
    assert.equal(crashes, 1);
    // The platform took the first movement; it was never acknowledged.
    assert.equal((await platformLevel(v.inventory_item_id, loc)).available, start.available + 6);
    assert.equal((await syncOf(subject)).state, "pending");
    clock.advance(10 * SEC);
    await t.drain();
    const after = await platformLevel(v.inventory_item_id, loc);
    assert.equal(after.available, start.available + 6, "moved once");
    assert.equal(after.incoming, start.incoming + 4);
    assert.equal((await syncOf(subject)).state, "synced");
    const mirrored = await level(v.inventory_item_id, loc);
    assert.deepEqual([mirrored.available, mirrored.incoming], [after.available, after.incoming]);
  });

  test("a record's movements reach the platform as few documents as fit; a crash between them moves nothing twice", async () => {
    const ctx = t.runtime.ctx;
    const items = [tracked[9], tracked[10], tracked[11]].map((v) => v.inventory_item_id);
    const loc = locationIds[0];
    const starts = await Promise.all(items.map((item) => platformLevel(item, loc)));
    const pushKeys = async () =>
      (
        await ctx.db
          .selectFrom("sim_push_keys")
          .select("key")
          .where("store_id", "=", store.id)
          .orderBy("key")
          .execute()
      ).map((r) => r.key);
    const keysBefore = new Set(await pushKeys());
    // 130 movements of two changes each: 260 changes, so two documents (250 changes at most each).
    const movements: MovementInput[] = Array.from({ length: 130 }, (_, i) => ({
      inventoryItemId: items[i % 3],
      locationId: loc,
      availableDelta: 1,
      incomingDelta: -1,
      reason: "received",
    }));
    let crashes = 0;
    pushHooks.afterPush = (ids) => {
      crashes++;
      assert.equal(ids.length, 125);
      pushHooks.afterPush = null;
      throw new Error("worker died after the first document");
    };
    const subject = await move(movements);
    try {
      await t.drain();
    } finally {
      pushHooks.afterPush = null;
    }
    assert.equal(crashes, 1);
    assert.equal((await syncOf(subject)).state, "pending");
    clock.advance(10 * SEC);
    await t.drain();
    assert.equal((await syncOf(subject)).state, "synced");
    const added = (await pushKeys()).filter((k) => !keysBefore.has(k));
    assert.equal(added.length, 2, "two platform documents, the first sent twice under one key");
    const counts = [44, 43, 43];
    for (const [i, item] of items.entries()) {
      const after = await platformLevel(item, loc);
      assert.equal(after.available, starts[i].available + counts[i], "each unit moved once");
      assert.equal(after.incoming, starts[i].incoming - counts[i]);
      const mirrored = await level(item, loc);
      assert.deepEqual([mirrored.available, mirrored.incoming], [after.available, after.incoming]);
    }
  });

  test("a push job queued before grouping still pushes one movement per document, under its key", async () => {
    const ctx = t.runtime.ctx;
    const v = tracked[12];
    const loc = locationIds[1];
    const start = await platformLevel(v.inventory_item_id, loc);
    const subject = ++subjectCounter;
    const ids = await ctx.db.transaction().execute(async (trx) => {
      const rows = await trx
        .insertInto("stock_movements")
        .values(
          [2, 3].map((delta) => ({
            store_id: store.id,
            subject_type: "stock_adjustment",
            subject_id: subject,
            inventory_item_id: v.inventory_item_id,
            location_id: loc,
            available_delta: delta,
            on_hand_delta: delta,
            incoming_delta: 0,
            unit_cost: null,
            unit_cost_currency: null,
            reason: "correction",
            reference: `stockroom://stock_adjustments/${subject}`,
            created_at: clock.now(),
          })),
        )
        .returning("id")
        .execute();
      const movementIds = rows.map((r) => r.id);
      await ctx.jobs.enqueue(
        trx,
        "platform.push",
        {
          store_id: store.id,
          subject_type: "stock_adjustment",
          subject_id: subject,
          movement_ids: movementIds,
        },
        { storeId: store.id, maxAttempts: 6 },
      );
      return movementIds;
    });
    await t.drain();
    const keys = await ctx.db
      .selectFrom("sim_push_keys")
      .select("key")
      .where("store_id", "=", store.id)
      .where(
        "key",
        "in",
        ids.map((id) => movementIdempotencyKey(store.id, id)),
      )
      .execute();
    assert.equal(keys.length, 2);
    assert.equal((await platformLevel(v.inventory_item_id, loc)).available, start.available + 5);
    assert.equal((await syncOf(subject)).state, "synced");
  });

  test("the platform honours idempotency keys: the same key twice moves stock once", async () => {
    const v = tracked[8];
    const loc = locationIds[0];
    const start = await platformLevel(v.inventory_item_id, loc);
    const connector = await connectorForStore(t.runtime.ctx, t.runtime.ctx.db, store.id);
    const adjustment = {
      idempotencyKey: movementIdempotencyKey(store.id, 987654),
      reason: "correction",
      referenceDocumentUri: "stockroom://stock_adjustments/1",
      changes: [
        { name: "available" as const, inventoryItemId: v.inventory_item_id, locationId: loc, delta: 2 },
      ],
      itemCosts: [],
    };
    const first = await connector.adjustInventory(adjustment);
    const second = await connector.adjustInventory(adjustment);
    assert.equal(first.replayed, false);
    assert.equal(second.replayed, true);
    assert.deepEqual(second.levels, first.levels);
    assert.equal((await platformLevel(v.inventory_item_id, loc)).available, start.available + 2);
    await assert.rejects(
      connector.adjustInventory({ ...adjustment, idempotencyKey: "" }),
      (e) => e instanceof PlatformPermanentError,
    );
    await t.admin.post(`/admin/stores/${store.id}/platform/faults`, { mode: "down", count: 1 });
    await assert.rejects(
      connector.adjustInventory({ ...adjustment, idempotencyKey: "another" }),
      (e) => e instanceof PlatformTransientError,
    );
    await t.drain();
  });

  test("the sync is idempotent: pulling everything again rewrites nothing", async () => {
    await syncCatalog(t.runtime.ctx, store.id);
    const before = (await store.api.get("/v2/inventory_levels?limit=250")).body.data;
    const products = (await store.api.get("/v2/products?limit=250")).body.data;
    clock.advance(60 * SEC);
    await t.runtime.ctx.db
      .updateTable("mirror_sync_states")
      .set({ watermark: null })
      .where("store_id", "=", store.id)
      .execute();
    const result = await syncCatalog(t.runtime.ctx, store.id, { batchSize: 50 });
    assert.ok(result.batches > 3);
    assert.deepEqual((await store.api.get("/v2/inventory_levels?limit=250")).body.data, before);
    assert.deepEqual((await store.api.get("/v2/products?limit=250")).body.data, products);
  });

  test("POST platform/catalog/generate bulk-creates a catalog the sync imports", async () => {
    const bulk = await t.createStore({ seed: "empty" });
    const res = await t.admin.post(`/admin/stores/${bulk.id}/platform/catalog/generate`, {
      products: 30,
      variants_per_product: 4,
    });
    assert.equal(res.status, 201);
    assert.deepEqual(res.body, { data: { products: 30, variants: 120 } });
    await t.drain();
    const variants = await bulk.api.get("/v2/variants?limit=250");
    assert.equal(variants.body.data.length, 120);
    assert.equal((await bulk.api.get("/v2/locations")).body.data.length, 3);
    const levels = await bulk.api.get("/v2/inventory_levels?limit=250");
    assert.equal(levels.body.data.length, 250);
    assert.equal(levels.body.has_more, true);
    const bySku = await bulk.api.get("/v2/variants?sku=BULK-000007-2");
    assert.equal(bySku.body.data.length, 1);
    const tooMany = await t.admin.post(`/admin/stores/${bulk.id}/platform/catalog/generate`, {
      products: 0,
      variants_per_product: 4,
    });
    assert.equal(tooMany.status, 422);
  });

  test("the periodic scan queues a sync for a store whose platform changed", async () => {
    const v = tracked[9];
    const loc = locationIds[0];
    const start = (await level(v.inventory_item_id, loc)).available;
    await changeSimInventory(t.runtime.ctx.db, clock, store.id, [
      { inventory_item_id: v.inventory_item_id, location_id: loc, adjust: -1 },
    ]);
    assert.equal(await t.drain(), 0, "no notification, nothing queued yet");
    await t.runtime.worker.runPeriodic("catalog.sync-scan");
    assert.equal(await t.drain(), 1);
    assert.equal((await level(v.inventory_item_id, loc)).available, start - 1);
    await t.runtime.worker.runPeriodic("catalog.sync-scan");
    assert.equal(await t.drain(), 0, "nothing new to pull");
  });

  test("a push's acknowledgement moves the mirror past its own changes; a platform change before it is still pulled", async () => {
    const [v, w] = [tracked[10], tracked[11]];
    const loc = locationIds[0];
    const changeSeq = async () =>
      String(
        (
          await t.runtime.ctx.db
            .selectFrom("sim_stores")
            .select("change_seq")
            .where("store_id", "=", store.id)
            .executeTakeFirstOrThrow()
        ).change_seq,
      );
    await t.runtime.worker.runPeriodic("catalog.sync-scan");
    await t.drain();
    assert.equal(await watermark(), await changeSeq(), "the mirror has pulled everything");

    // The mirror stands right before the push's changes: its acknowledgement moves it past them.
    const start = await level(v.inventory_item_id, loc);
    await move([
      {
        inventoryItemId: v.inventory_item_id,
        locationId: loc,
        availableDelta: 4,
        unitCost: "2.75",
        unitCostCurrency: "USD",
        reason: "received",
      },
    ]);
    assert.equal(await t.drain(), 1, "the push alone");
    assert.equal(await watermark(), await changeSeq());
    await t.runtime.worker.runPeriodic("catalog.sync-scan");
    assert.equal(await t.drain(), 0, "no sync queued: nothing of the push to read back");
    const pushed = await level(v.inventory_item_id, loc);
    const onPlatform = await platformLevel(v.inventory_item_id, loc);
    assert.deepEqual([pushed.available, pushed.on_hand], [start.available + 4, start.on_hand + 4]);
    assert.deepEqual([onPlatform.available, onPlatform.on_hand], [pushed.available, pushed.on_hand]);
    assert.equal((await store.api.get(`/v2/variants/${v.id}`)).body.data.unit_cost, "2.75");

    // A sale on the platform before the push: the mirror is behind it, so the watermark stays and the
    // sync brings the sale and reads the push's level back without counting anything twice.
    const before = await watermark();
    const other = await level(w.inventory_item_id, loc);
    await changeSimInventory(t.runtime.ctx.db, clock, store.id, [
      { inventory_item_id: w.inventory_item_id, location_id: loc, adjust: -3 },
    ]);
    await move([
      { inventoryItemId: v.inventory_item_id, locationId: loc, availableDelta: 2, reason: "correction" },
    ]);
    assert.equal(await t.drain(), 1);
    assert.equal(await watermark(), before, "left to the sync");
    await t.runtime.worker.runPeriodic("catalog.sync-scan");
    assert.equal(await t.drain(), 1, "the sync");
    assert.equal(await watermark(), await changeSeq());
    assert.equal((await level(w.inventory_item_id, loc)).available, other.available - 3);
    assert.equal((await level(v.inventory_item_id, loc)).available, start.available + 6);
    assert.equal((await platformLevel(v.inventory_item_id, loc)).available, start.available + 6);
  });

  test("an acknowledgement does not wait for a mirror row a sync holds: it leaves the watermark to it", async (c) => {
    // Only PostgreSQL has a second connection to hold the row from.
    if (t.runtime.database.kind === "pglite") return c.skip("one connection");
    const v = tracked[12];
    const loc = locationIds[0];
    await t.runtime.worker.runPeriodic("catalog.sync-scan");
    await t.drain();
    const before = await watermark();
    const subject = await move([
      { inventoryItemId: v.inventory_item_id, locationId: loc, availableDelta: 1, reason: "correction" },
    ]);
    await t.runtime.ctx.db.transaction().execute(async (trx) => {
      await trx
        .selectFrom("mirror_sync_states")
        .select("store_id")
        .where("store_id", "=", store.id)
        .forUpdate()
        .execute();
      assert.equal(await t.drain(), 1);
      assert.equal((await syncOf(subject)).state, "synced", "acknowledged while the row is held");
    });
    assert.equal(await watermark(), before, "left to the sync");
    await t.runtime.worker.runPeriodic("catalog.sync-scan");
    assert.equal(await t.drain(), 1);
    assert.notEqual(await watermark(), before);
  });

  // Its own app with real workers and the system clock (started inside a test: on PostgreSQL two apps
  // must not run their migrations at the same moment). The bound is counted in runs of the
  // once-a-second scan, not in milliseconds: a busy machine slows the scan and the sync alike.
  test("with real workers, a sale set on the platform shows in GET /inventory_levels within 3 scans", async () => {
    const live = await startTestApp({ clock: systemClock });
    try {
      const { periodic } = live.runtime.worker as unknown as { periodic: PeriodicTask[] };
      const scan = periodic.find((task) => task.name === SYNC_SCAN_TASK);
      assert.ok(scan, "the scan is a periodic task");
      let scans = 0;
      const runScan = scan.run.bind(scan);
      scan.run = async (ctx) => {
        await runScan(ctx);
        scans++;
      };
      live.runtime.worker.start();
      const liveStore = await live.createStore({ seed: "demo" });
      const waitFor = async (check: () => Promise<boolean>, maxScans: number) => {
        const from = scans;
        for (;;) {
          const scansSoFar = scans - from;
          if (await check()) return;
          if (scansSoFar >= maxScans) assert.fail(`not within ${maxScans} scans`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      const variant = (await liveStore.api.get("/v2/variants?sku=MUG-SAGE")).body.data[0];
      const loc = (await liveStore.api.get("/v2/locations")).body.data[1].id;
      const url = `/v2/inventory_levels?inventory_item_id=${variant.inventory_item_id}&location_id=${loc}`;
      const start = (await liveStore.api.get(url)).body.data[0].available;
      const sale = await live.admin.post(`/admin/stores/${liveStore.id}/platform/inventory`, {
        changes: [{ inventory_item_id: variant.inventory_item_id, location_id: loc, adjust: -2 }],
      });
      assert.equal(sale.status, 200);
      await waitFor(async () => (await liveStore.api.get(url)).body.data[0].available === start - 2, 3);

      // Without a change notification, the once-a-second scan finds the change.
      await changeSimInventory(live.runtime.ctx.db, systemClock, liveStore.id, [
        { inventory_item_id: variant.inventory_item_id, location_id: loc, set: 1 },
      ]);
      await waitFor(async () => (await liveStore.api.get(url)).body.data[0].available === 1, 3);
    } finally {
      await live.close();
    }
  });
});
