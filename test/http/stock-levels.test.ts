import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import {
  createOrderedOrder,
  createSupplier,
  listLocations,
  trackedVariants,
  type Variant,
} from "../helpers/factories.ts";
import { allPages } from "../helpers/paging.ts";

/**
 * GET /v2/stock_levels (beyond the contract): levels named for people, searched by words of title, SKU
 * or barcode, narrowed to the low-stock ones by the store's alert rules, with the store's own open
 * orders, a suggested quantity and the primary supplier; and the alert rules refusing a reorder point
 * above the max stock.
 */
describe("stock levels", () => {
  let t: TestApp;
  let store: TestStore;
  let other: TestStore;
  let tracked: Variant[];
  let locations: { id: number; name: string }[];

  const setLevel = async (target: TestStore, item: number, location: number, quantity: number) => {
    const res = await t.admin.post(`/admin/stores/${target.id}/platform/inventory`, {
      changes: [{ inventory_item_id: item, location_id: location, set: quantity }],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await t.drain();
  };
  const putRules = (target: TestStore, body: unknown) =>
    t.admin.put(`/admin/stores/${target.id}/alert_rules`, body);

  before(async () => {
    t = await startTestApp();
    store = await t.createStore({ seed: "demo" });
    other = await t.createStore({ seed: "demo" });
    tracked = await trackedVariants(store.api);
    locations = await listLocations(store.api);
  });
  after(() => t.close());

  test("every level once, named, with the same quantities as /inventory_levels", async () => {
    const rows = await allPages(store.api, "/v2/stock_levels?limit=7");
    const levels = await allPages(store.api, "/v2/inventory_levels?limit=250");
    assert.equal(rows.length, levels.length);
    assert.deepEqual(new Set(rows.map((r: any) => r.id)).size, rows.length);
    const byId = new Map(levels.map((l: any) => [l.id, l]));
    const row = rows.find((r: any) => r.inventory_item_id === tracked[0].inventory_item_id) as any;
    const level = byId.get(row.id) as any;
    assert.deepEqual(Object.keys(row).sort(), [
      "available",
      "barcode",
      "below",
      "committed",
      "id",
      "incoming",
      "inventory_item_id",
      "location",
      "low_stock_threshold",
      "max_stock",
      "on_hand",
      "on_order",
      "primary_supplier",
      "product_id",
      "product_title",
      "reorder_point",
      "sku",
      "suggested_quantity",
      "updated_at",
      "variant_id",
      "variant_title",
    ]);
    assert.equal(row.available, level.available);
    assert.equal(row.on_hand, level.on_hand);
    assert.equal(row.incoming, level.incoming);
    assert.equal(row.variant_id, tracked[0].id);
    assert.equal(row.product_title, tracked[0].product_title);
    assert.equal(row.sku, tracked[0].sku);
    assert.deepEqual(row.location, {
      id: level.location_id,
      name: locations.find((l) => l.id === level.location_id)?.name,
    });
    assert.deepEqual(
      [row.low_stock_threshold, row.reorder_point, row.max_stock, row.below, row.suggested_quantity],
      [null, null, null, [], null],
    );
  });

  test("q finds items by words of the title in any case, by SKU and by barcode; a cursor keeps the search", async () => {
    const v = tracked.find((x) => x.sku && x.barcode) as Variant;
    const word = v.product_title.split(/\s+/)[0].toUpperCase();
    const byWord = await allPages(store.api, `/v2/stock_levels?q=${encodeURIComponent(word)}&limit=1`);
    assert.ok(byWord.length > 0);
    for (const r of byWord as any[])
      assert.ok(
        `${r.product_title} ${r.variant_title} ${r.sku} ${r.barcode}`
          .toLowerCase()
          .includes(word.toLowerCase()),
      );
    assert.ok(byWord.some((r: any) => r.inventory_item_id === v.inventory_item_id));
    for (const term of [v.sku as string, v.barcode as string]) {
      const res = await store.api.get(`/v2/stock_levels?q=${encodeURIComponent(term)}`);
      assert.equal(res.status, 200);
      assert.ok(
        res.body.data.some((r: any) => r.inventory_item_id === v.inventory_item_id),
        term,
      );
      for (const r of res.body.data)
        assert.ok(`${r.sku} ${r.barcode}`.toLowerCase().includes(term.toLowerCase()), term);
    }
    const listed = await store.api.get(
      `/v2/stock_levels?inventory_item_id=${tracked[0].inventory_item_id},${tracked[1].inventory_item_id}&limit=250`,
    );
    assert.deepEqual(
      [...new Set(listed.body.data.map((r: any) => r.inventory_item_id))].sort(),
      [tracked[0].inventory_item_id, tracked[1].inventory_item_id].sort(),
    );
    const tooBig = await store.api.get("/v2/stock_levels?inventory_item_id=1,9007199254740993");
    assert.equal(tooBig.status, 400);
    assert.equal(tooBig.body.error.code, "invalid_filter");
    const none = await store.api.get("/v2/stock_levels?q=%25");
    assert.equal(none.status, 400);
    assert.equal(none.body.error.code, "invalid_filter");
    assert.deepEqual(none.body.error.details, [
      { field: "q", code: "no_words", message: "needs at least one letter or digit" },
    ]);
    const first = await store.api.get(`/v2/stock_levels?q=${encodeURIComponent(word)}&limit=1`);
    if (first.body.next_cursor) {
      const wrong = await store.api.get(`/v2/stock_levels?q=other&cursor=${first.body.next_cursor}`);
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.error.code, "invalid_cursor");
    }
    const bad = await store.api.get("/v2/stock_levels?low_stock=maybe");
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error.code, "validation_failed");
  });

  test("q matches the start of words (as /v2/variants), every word must match, and gives the same items as /v2/variants", async () => {
    const v = tracked.find(
      (x) => x.sku && x.barcode && x.product_title.split(/\s+/)[0].length >= 4,
    ) as Variant;
    const word = v.product_title.split(/\s+/)[0];
    const prefix = word.slice(0, 3).toLowerCase();
    const inside = word.slice(1).toLowerCase();
    const items = (rows: any[]) => [...new Set(rows.map((r) => r.inventory_item_id))].sort((a, b) => a - b);
    const levels = await allPages(store.api, `/v2/stock_levels?q=${prefix}&limit=250`);
    const variants = await allPages(store.api, `/v2/variants?q=${prefix}&limit=250`);
    assert.ok(levels.some((r: any) => r.inventory_item_id === v.inventory_item_id));
    // The levels of exactly the items the variants search finds (only items with a level are listed).
    const withLevel = new Set(
      (await allPages(store.api, "/v2/stock_levels?limit=250")).map((r: any) => r.inventory_item_id),
    );
    assert.deepEqual(items(levels), items(variants.filter((x: any) => withLevel.has(x.inventory_item_id))));
    // Inside a word is not a match: "hirt" does not find "Shirt" (a substring scan would).
    const insideMatches = await allPages(
      store.api,
      `/v2/stock_levels?q=${encodeURIComponent(inside)}&limit=250`,
    );
    for (const r of insideMatches as any[])
      assert.ok(
        `${r.product_title} ${r.variant_title} ${r.sku} ${r.barcode}`
          .toLowerCase()
          .split(/[^\p{L}\p{N}]+/u)
          .some((w: string) => w.startsWith(inside)),
        `${inside} matched ${r.product_title} inside a word`,
      );
    // Every word must start a word: a second word nothing has leaves the list empty.
    const both = await store.api.get(`/v2/stock_levels?q=${prefix}%20zzqqxx`);
    assert.equal(both.status, 200);
    assert.deepEqual(both.body, { data: [], next_cursor: null, has_more: false });
    // Another store's items never show, even on a word both catalogs share.
    const mine = new Set(tracked.map((x) => x.inventory_item_id));
    const theirs = await allPages(other.api, `/v2/stock_levels?q=${prefix}&limit=250`);
    assert.ok(theirs.length > 0);
    assert.ok(theirs.every((r: any) => !mine.has(r.inventory_item_id)));
  });

  test("low_stock: at or below the threshold (on hand) or the reorder point (available + incoming), with a suggestion and the primary supplier", async () => {
    const [a, b, c] = tracked.slice(0, 3);
    const loc = locations[0].id;
    await setLevel(store, a.inventory_item_id, loc, 2);
    await setLevel(store, b.inventory_item_id, loc, 4);
    await setLevel(store, c.inventory_item_id, loc, 50);
    const put = await putRules(store, {
      low_stock_threshold: 3,
      items: [
        { inventory_item_id: b.inventory_item_id, reorder_point: 5, max_stock: 20 },
        { inventory_item_id: c.inventory_item_id, location_id: loc, reorder_point: 10 },
      ],
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const supplier = await createSupplier(store.api, { name: "Primary Co" });
    const second = await createSupplier(store.api, { name: "Second Co" });
    assert.equal(
      (
        await store.api.put(`/v2/suppliers/${second.id}/catalog`, {
          rows: [{ inventory_item_id: a.inventory_item_id }],
        })
      ).status,
      200,
    );
    assert.equal(
      (
        await store.api.put(`/v2/suppliers/${supplier.id}/catalog`, {
          rows: [{ inventory_item_id: a.inventory_item_id, is_primary: true }],
        })
      ).status,
      200,
    );
    const low = (await allPages(store.api, `/v2/stock_levels?low_stock=true&location_id=${loc}`)) as any[];
    const at = (v: Variant) => low.find((r) => r.inventory_item_id === v.inventory_item_id);
    const ra = at(a);
    assert.deepEqual(
      [ra.on_hand, ra.below, ra.low_stock_threshold, ra.reorder_point, ra.primary_supplier],
      [2, ["low_stock"], 3, null, { id: supplier.id, name: "Primary Co" }],
    );
    assert.equal(ra.suggested_quantity, Math.max(0, 4 - (ra.available + ra.incoming)));
    const rb = at(b);
    assert.deepEqual([rb.below, rb.max_stock, rb.primary_supplier], [["reorder_point"], 20, null]);
    assert.equal(rb.suggested_quantity, Math.max(0, 20 - (rb.available + rb.incoming)));
    assert.equal(at(c), undefined, "50 on hand is above both lines");
    for (const r of low) assert.ok(r.below.length > 0);
    // An order placed for b brings it above the reorder point: incoming counts, and on_order shows it.
    await createOrderedOrder(store.api, {
      supplier_id: supplier.id,
      location_id: loc,
      lines: [{ inventory_item_id: b.inventory_item_id, quantity: 9, unit_cost: 1 }],
    });
    await t.drain();
    const after = (await allPages(store.api, `/v2/stock_levels?low_stock=true&location_id=${loc}`)) as any[];
    assert.equal(
      after.find((r) => r.inventory_item_id === b.inventory_item_id),
      undefined,
    );
    const all = (await allPages(store.api, `/v2/stock_levels?location_id=${loc}`)) as any[];
    const rowB = all.find((r) => r.inventory_item_id === b.inventory_item_id);
    assert.deepEqual([rowB.on_order, rowB.below, rowB.suggested_quantity], [9, [], null]);
    // Another store sees none of it.
    const foreign = (await allPages(other.api, "/v2/stock_levels?low_stock=true")) as any[];
    assert.deepEqual(foreign, []);
  });

  test("alert rules refuse a reorder point above the max stock (422, the row's field) and change nothing", async () => {
    const before = (await t.admin.get(`/admin/stores/${store.id}/alert_rules`)).body;
    const v = tracked[5];
    const res = await putRules(store, {
      low_stock_threshold: 1,
      items: [{ inventory_item_id: v.inventory_item_id, reorder_point: 30, max_stock: 20 }],
    });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, "validation_failed");
    assert.deepEqual(res.body.error.details, [
      {
        field: "items.0.reorder_point",
        code: "above_max_stock",
        message: "must be at most the max stock (20)",
      },
    ]);
    assert.deepEqual((await t.admin.get(`/admin/stores/${store.id}/alert_rules`)).body, before);
    const equal = await putRules(store, {
      ...before.data,
      items: [
        ...before.data.items,
        { inventory_item_id: v.inventory_item_id, reorder_point: 20, max_stock: 20 },
      ],
    });
    assert.equal(equal.status, 200, JSON.stringify(equal.body));
  });
});
