import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type MovementInput, recordStockMovements } from "../../src/domain/stock/index.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { idempotencyKey, trackedVariants, type Variant } from "../helpers/factories.ts";
import { recordTestMovements } from "../helpers/stock.ts";

/**
 * Item alert rules (admin GET/PUT /alert_rules) and the item.* events: fired once per crossing, from
 * this service's movements and from platform changes alike, in the same transaction as the change; a
 * store without rules, and an untracked item, fire nothing.
 */

const CONDITION_FIELDS = [
  "available",
  "incoming",
  "inventory_item_id",
  "location",
  "on_hand",
  "product_id",
  "product_title",
  "sku",
  "threshold",
  "variant_id",
  "variant_title",
];

describe("item alerts", () => {
  let t: TestApp;
  let store: TestStore;
  let other: TestStore;
  let variants: any[];
  let tracked: Variant[];
  let locations: any[];
  let seen = 0;
  let subject = 1;

  const move = (target: TestStore, movements: MovementInput[]) =>
    recordTestMovements(t, target.id, subject++, movements, "stockroom://stock_adjustments/test");
  const platform = async (target: TestStore, changes: unknown[]) => {
    const res = await t.admin.post(`/admin/stores/${target.id}/platform/inventory`, { changes });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await t.drain();
  };
  /** Item events of the store since the last call: [name, on_hand, threshold]. */
  const newEvents = async (storeId = store.id) => {
    const rows = await t.runtime.ctx.db
      .selectFrom("events")
      .select(["seq", "name", "data", "subject_type", "subject_id"])
      .where("store_id", "=", storeId)
      .where("name", "like", "item.%")
      .where("seq", ">", seen)
      .orderBy("seq")
      .execute();
    if (rows.length > 0 && storeId === store.id) seen = rows[rows.length - 1].seq;
    return rows;
  };
  const names = (rows: any[]) => rows.map((r) => [r.name, r.data.on_hand, r.data.threshold]);

  before(async () => {
    t = await startTestApp();
    store = await t.createStore({ seed: "demo" });
    other = await t.createStore({ seed: "demo" });
    variants = (await store.api.get("/v2/variants?limit=250")).body.data;
    tracked = await trackedVariants(store.api);
    locations = (await store.api.get("/v2/locations")).body.data;
  });
  after(() => t.close());

  test("GET alert_rules: none by default; a store without rules fires no item event", async () => {
    const res = await t.admin.get(`/admin/stores/${store.id}/alert_rules`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { data: { low_stock_threshold: null, items: [] } });
    const v = tracked[0];
    const level = (
      await store.api.get(
        `/v2/inventory_levels?inventory_item_id=${v.inventory_item_id}&location_id=${locations[0].id}`,
      )
    ).body.data[0];
    await move(store, [
      {
        inventoryItemId: v.inventory_item_id,
        locationId: locations[0].id,
        availableDelta: -level.on_hand,
        reason: "shrinkage",
      },
    ]);
    await t.drain();
    assert.deepEqual(await newEvents(), []);
    assert.equal((await t.admin.get("/admin/stores/999999/alert_rules")).status, 404);
  });

  test("PUT alert_rules refuses unknown items, foreign locations and duplicates, and changes nothing", async () => {
    const v = tracked[1];
    const foreignItem = (await other.api.get("/v2/variants?limit=1")).body.data[0].inventory_item_id;
    const foreignLocation = (await other.api.get("/v2/locations")).body.data[0].id;
    const res = await t.admin.put(`/admin/stores/${store.id}/alert_rules`, {
      low_stock_threshold: 5,
      items: [
        { inventory_item_id: foreignItem, location_id: null, reorder_point: 3 },
        { inventory_item_id: v.inventory_item_id, location_id: foreignLocation, reorder_point: 3 },
        { inventory_item_id: v.inventory_item_id, reorder_point: 4 },
        { inventory_item_id: v.inventory_item_id, location_id: null, max_stock: 40 },
      ],
    });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, "validation_failed");
    assert.deepEqual(
      res.body.error.details.map((d: any) => [d.field, d.code]),
      [
        ["items.0.inventory_item_id", "not_found"],
        ["items.1.location_id", "not_found"],
        ["items.3", "duplicate"],
      ],
    );
    const typo = await t.admin.put(`/admin/stores/${store.id}/alert_rules`, {
      low_stock_threshold: 5,
      items: [],
      low_stock: 3,
    });
    assert.equal(typo.status, 422);
    const negative = await t.admin.put(`/admin/stores/${store.id}/alert_rules`, {
      low_stock_threshold: -1,
      items: [],
    });
    assert.equal(negative.status, 422);
    const missing = await t.admin.put(`/admin/stores/${store.id}/alert_rules`, { items: [] });
    assert.equal(missing.status, 422);
    assert.deepEqual((await t.admin.get(`/admin/stores/${store.id}/alert_rules`)).body, {
      data: { low_stock_threshold: null, items: [] },
    });
  });

  test("each crossing fires once, in each direction the rules define, from movements and platform changes", async () => {
    const v = tracked[2];
    const [a, b] = locations.map((l) => l.id);
    const put = await t.admin.put(`/admin/stores/${store.id}/alert_rules`, {
      low_stock_threshold: 10,
      items: [
        { inventory_item_id: v.inventory_item_id, location_id: b, reorder_point: 3 },
        { inventory_item_id: v.inventory_item_id, location_id: null, reorder_point: 8, max_stock: 50 },
      ],
    });
    assert.equal(put.status, 200);
    assert.deepEqual(put.body.data, {
      low_stock_threshold: 10,
      items: [
        { inventory_item_id: v.inventory_item_id, location_id: null, reorder_point: 8, max_stock: 50 },
        { inventory_item_id: v.inventory_item_id, location_id: b, reorder_point: 3, max_stock: null },
      ],
    });
    assert.deepEqual((await t.admin.get(`/admin/stores/${store.id}/alert_rules`)).body, put.body);

    await platform(store, [{ inventory_item_id: v.inventory_item_id, location_id: a, set: 20 }]);
    await newEvents();
    const at = (delta: number) => ({
      inventoryItemId: v.inventory_item_id,
      locationId: a,
      availableDelta: delta,
      reason: "correction",
    });

    await move(store, [at(-8)]); // 20 → 12
    assert.deepEqual(names(await newEvents()), []);
    await move(store, [at(-3)]); // 12 → 9: below the low-stock threshold
    const low = await newEvents();
    assert.deepEqual(names(low), [["item.low_stock", 9, 10]]);
    assert.deepEqual(Object.keys(low[0].data).sort(), CONDITION_FIELDS);
    assert.deepEqual(low[0].data, {
      inventory_item_id: v.inventory_item_id,
      variant_id: v.id,
      product_id: v.product_id,
      sku: v.sku,
      product_title: v.product_title,
      variant_title: v.title,
      location: { id: a, name: locations[0].name },
      available: 9,
      incoming: 0,
      on_hand: 9,
      threshold: 10,
    });
    assert.equal(low[0].subject_type, "inventory_item");
    assert.equal(low[0].subject_id, v.inventory_item_id);
    await move(store, [at(-1)]); // 9 → 8: still low (no repeat), reaches the reorder point
    assert.deepEqual(names(await newEvents()), [["item.reorder_point", 8, 8]]);
    await t.drain(); // the pushes are acknowledged: nothing visible changes, nothing fires
    assert.deepEqual(names(await newEvents()), []);

    // A sale on the platform takes it to zero.
    await platform(store, [{ inventory_item_id: v.inventory_item_id, location_id: a, adjust: -8 }]);
    const out = await newEvents();
    assert.deepEqual(names(out), [["item.out_of_stock", 0, null]]);
    assert.equal(out[0].data.threshold, null);

    // Back up: no event for leaving low stock; going down again fires again.
    await platform(store, [{ inventory_item_id: v.inventory_item_id, location_id: a, adjust: 20 }]);
    assert.deepEqual(names(await newEvents()), []);
    await move(store, [at(-15)]); // 20 → 5
    assert.deepEqual(names(await newEvents()), [
      ["item.low_stock", 5, 10],
      ["item.reorder_point", 5, 8],
    ]);

    // Incoming counts for the reorder point: 5 + 10 incoming is above it again, then falls to it.
    await move(store, [
      { inventoryItemId: v.inventory_item_id, locationId: a, incomingDelta: 10, reason: "incoming" },
    ]);
    assert.deepEqual(names(await newEvents()), []);
    await move(store, [
      { inventoryItemId: v.inventory_item_id, locationId: a, incomingDelta: -7, reason: "incoming" },
    ]);
    assert.deepEqual(names(await newEvents()), [["item.reorder_point", 5, 8]]);

    // Overstock fires going above max_stock, once, and again after coming back down. (Pushes first: a
    // level set on the platform while our deltas are in flight has them added on top.)
    await t.drain();
    assert.deepEqual(names(await newEvents()), []);
    await platform(store, [{ inventory_item_id: v.inventory_item_id, location_id: a, set: 60 }]);
    assert.deepEqual(names(await newEvents()), [["item.overstock", 60, 50]]);
    await platform(store, [{ inventory_item_id: v.inventory_item_id, location_id: a, set: 55 }]);
    await platform(store, [{ inventory_item_id: v.inventory_item_id, location_id: a, set: 50 }]);
    assert.deepEqual(names(await newEvents()), []);
    await move(store, [at(1)]);
    assert.deepEqual(names(await newEvents()), [["item.overstock", 51, 50]]);

    // One change across several thresholds fires each of them once.
    await move(store, [at(-51)]);
    assert.deepEqual(names(await newEvents()), [
      ["item.out_of_stock", 0, null],
      ["item.low_stock", 0, 10],
      ["item.reorder_point", 0, 8],
    ]);
  });

  test("a location's own rule wins over the item's all-locations rule", async () => {
    const v = tracked[2];
    const b = locations[1].id;
    await platform(store, [{ inventory_item_id: v.inventory_item_id, location_id: b, set: 30 }]);
    await newEvents();
    await move(store, [
      { inventoryItemId: v.inventory_item_id, locationId: b, availableDelta: -24, reason: "damaged" },
    ]);
    // 6 units: low stock (10), but above this location's reorder point 3 (the general 8 does not apply).
    assert.deepEqual(names(await newEvents()), [["item.low_stock", 6, 10]]);
    await move(store, [
      { inventoryItemId: v.inventory_item_id, locationId: b, availableDelta: -3, reason: "damaged" },
    ]);
    assert.deepEqual(names(await newEvents()), [["item.reorder_point", 3, 3]]);
  });

  test("untracked items never alert; events roll back with their change", async () => {
    const gift = variants.find((v) => !v.inventory_tracked);
    const a = locations[0].id;
    await move(store, [
      { inventoryItemId: gift.inventory_item_id, locationId: a, availableDelta: 20, reason: "correction" },
    ]);
    await move(store, [
      { inventoryItemId: gift.inventory_item_id, locationId: a, availableDelta: -20, reason: "correction" },
    ]);
    assert.deepEqual(await newEvents(), []);

    const v = tracked[3];
    await platform(store, [{ inventory_item_id: v.inventory_item_id, location_id: a, set: 12 }]);
    await newEvents();
    const ctx = t.runtime.ctx;
    await assert.rejects(
      ctx.db.transaction().execute(async (trx) => {
        await recordStockMovements(ctx, trx, {
          storeId: store.id,
          subjectType: "stock_adjustment",
          subjectId: 999,
          reference: "stockroom://stock_adjustments/999",
          movements: [
            { inventoryItemId: v.inventory_item_id, locationId: a, availableDelta: -12, reason: "damaged" },
          ],
        });
        throw new Error("the write failed after the movement");
      }),
    );
    assert.deepEqual(await newEvents(), []);
    const level = await store.api.get(
      `/v2/inventory_levels?inventory_item_id=${v.inventory_item_id}&location_id=${a}`,
    );
    assert.equal(level.body.data[0].on_hand, 12);
  });

  test("an apply's levels (locked with its lines, then updated by key) cross like any movement's", async () => {
    const own = await t.createStore({ seed: "demo" });
    const [v, w] = await trackedVariants(own.api);
    const loc = (await own.api.get("/v2/locations")).body.data[0].id;
    assert.equal(
      (await t.admin.put(`/admin/stores/${own.id}/alert_rules`, { low_stock_threshold: 10, items: [] }))
        .status,
      200,
    );
    await platform(own, [
      { inventory_item_id: v.inventory_item_id, location_id: loc, set: 12 },
      { inventory_item_id: w.inventory_item_id, location_id: loc, set: 30 },
    ]);
    const seq = (await newEvents(own.id)).at(-1)?.seq ?? 0;
    const draft = await own.api.post("/v2/stock_adjustments", {
      location_id: loc,
      lines: [
        { variant_id: w.id, delta: -5 },
        { variant_id: v.id, delta: -3 },
      ],
    });
    assert.equal(draft.status, 201, JSON.stringify(draft.body));
    const applied = await own.api.post(
      `/v2/stock_adjustments/${draft.body.data.id}/apply`,
      undefined,
      idempotencyKey("apply"),
    );
    assert.equal(applied.status, 200, JSON.stringify(applied.body));
    assert.deepEqual(
      applied.body.data.lines.map((l: any) => [l.variant_id, l.quantity_before, l.quantity_after]),
      [
        [w.id, 30, 25],
        [v.id, 12, 9],
      ],
    );
    // 12 → 9 crosses the threshold once; 30 → 25 crosses nothing.
    const fired = (await newEvents(own.id)).filter((e) => e.seq > seq);
    assert.deepEqual(
      fired.map((e) => [e.name, e.subject_id, e.data.available, e.data.on_hand, e.data.threshold]),
      [["item.low_stock", v.inventory_item_id, 9, 9, 10]],
    );
    for (const [item, available] of [
      [v.inventory_item_id, 9],
      [w.inventory_item_id, 25],
    ]) {
      const level = await own.api.get(`/v2/inventory_levels?location_id=${loc}&inventory_item_id=${item}`);
      assert.equal(level.status, 200, JSON.stringify(level.body));
      assert.deepEqual(
        level.body.data.map((l: any) => [l.available, l.on_hand, l.updated_at]),
        [[available, available, applied.body.data.applied_at]],
      );
    }
  });

  test("another store's rules and levels are its own", async () => {
    const v = (await other.api.get("/v2/variants?limit=1")).body.data[0];
    const loc = (await other.api.get("/v2/locations")).body.data[0].id;
    await move(other, [
      { inventoryItemId: v.inventory_item_id, locationId: loc, availableDelta: -1000, reason: "shrinkage" },
    ]);
    assert.deepEqual(await newEvents(other.id), []);
    assert.deepEqual(await newEvents(), []);
  });
});
