import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { ManualClock } from "../../src/clock.ts";
import { type Client, type HttpResult, startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import {
  eventsOf as eventsOfSubject,
  platformLevel as platformLevelOf,
  type Variant,
  variantPool,
} from "../helpers/factories.ts";
import { mirrorLevelRow } from "../helpers/stock.ts";

/**
 * Stock adjustments through HTTP on the demo store: drafts filled from the mirror, every refusal,
 * apply moving the mirror at once and the platform once (even with a replayed key), quantity_before
 * under platform-side sales and unpushed movements, and the expected_before guard.
 */

let t: TestApp;
let clock: ManualClock;
let store: TestStore;
let other: TestStore;
let variants: Variant[];
let locationId: number;
let secondLocationId: number;
let hiddenLocationId: number;
let otherLocationId: number;
let otherVariant: Variant;
let keyCounter = 0;

const ADJ_FIELDS = [
  "applied_at",
  "cancelled_at",
  "created_at",
  "id",
  "lines",
  "location",
  "note",
  "number",
  "platform_sync",
  "reason",
  "reason_label",
  "reversal_of_id",
  "sequential_id",
  "source",
  "status",
  "stocktake_id",
  "updated_at",
];
const LINE_FIELDS = [
  "barcode",
  "delta",
  "expected_before",
  "id",
  "inventory_item_id",
  "lot_id",
  "lot_number",
  "lot_units",
  "position",
  "product_title",
  "quantity_after",
  "quantity_before",
  "sku",
  "unit_cost",
  "variant_id",
  "variant_title",
];

const newKey = () => ({ "idempotency-key": `apply-${++keyCounter}-${Date.now()}` });
const tick = () => clock.advance(1000);

/** A tracked variant not used by any earlier test, so each test reasons about its own levels. */
const pool = variantPool(() => variants);
const freshVariant = () => pool.next();

async function platformLevel(storeId: number, itemId: number, location: number) {
  const { available, on_hand } = await platformLevelOf(t, storeId, itemId, location);
  return { available, on_hand };
}

async function mirrorLevel(api: Client, itemId: number, location: number) {
  const row = (await mirrorLevelRow(api, itemId, location)) ?? { available: 0, on_hand: 0 };
  return { available: row.available as number, on_hand: row.on_hand as number };
}

async function platformSale(storeId: number, itemId: number, location: number, units: number) {
  const res = await t.admin.post(`/admin/stores/${storeId}/platform/inventory`, {
    changes: [{ inventory_item_id: itemId, location_id: location, adjust: -units }],
  });
  expectStatus(res, 200);
}

async function movementCount(storeId: number, adjustmentId: number): Promise<number> {
  const rows = await t.runtime.ctx.db
    .selectFrom("stock_movements")
    .select("id")
    .where("store_id", "=", storeId)
    .where("subject_type", "=", "stock_adjustment")
    .where("subject_id", "=", adjustmentId)
    .execute();
  return rows.length;
}

const eventsOf = (storeId: number, adjustmentId: number) =>
  eventsOfSubject(t, { type: "stock_adjustment", id: adjustmentId, storeId });

async function createDraft(body: Record<string, unknown>, api: Client = store.api) {
  const res = await api.post("/v2/stock_adjustments", body);
  expectStatus(res, 201);
  return res.body.data;
}

async function listAll(query = ""): Promise<any[]> {
  const res = await store.api.get(`/v2/stock_adjustments?limit=250${query}`);
  expectStatus(res, 200);
  return res.body.data;
}

before(async () => {
  t = await startTestApp();
  clock = t.clock as ManualClock;
  store = await t.createStore({ seed: "demo" });
  other = await t.createStore({ seed: "demo" });
  const locations = await store.api.get("/v2/locations");
  assert.equal(locations.status, 200);
  assert.equal(locations.body.data.length, 2);
  [locationId, secondLocationId] = locations.body.data.map((l: { id: number }) => l.id);
  const hidden = await t.runtime.ctx.db
    .selectFrom("locations")
    .select("id")
    .where("store_id", "=", store.id)
    .where("hidden", "=", true)
    .executeTakeFirstOrThrow();
  hiddenLocationId = Number(hidden.id);
  const listed = await store.api.get("/v2/variants?limit=250");
  assert.equal(listed.status, 200);
  variants = (listed.body.data as Variant[]).filter((v) => v.inventory_tracked);
  assert.ok(variants.length >= 40);
  const otherLocations = await other.api.get("/v2/locations");
  otherLocationId = otherLocations.body.data[0].id;
  otherVariant = (await other.api.get("/v2/variants?limit=1")).body.data[0];
});
after(() => t.close());

describe("POST /v2/stock_adjustments", () => {
  test("creates a numbered draft, lines filled from the mirror, every contract field present", async () => {
    const v = freshVariant();
    const level = await mirrorLevel(store.api, v.inventory_item_id, locationId);
    const res = await store.api.post("/v2/stock_adjustments", {
      location_id: locationId,
      note: "Found a box in the back",
      lines: [{ variant_id: v.id, delta: 4, lot_number: "L-1", lot_units: 4 }],
    });
    expectStatus(res, 201);
    assert.deepEqual(Object.keys(res.body), ["data"]);
    const a = res.body.data;
    assert.deepEqual(Object.keys(a).sort(), ADJ_FIELDS);
    assert.equal(a.sequential_id, 1);
    assert.equal(a.number, "SA-0001");
    assert.equal(a.status, "draft");
    assert.equal(a.source, "api");
    assert.equal(a.reason, "correction");
    assert.equal(a.reason_label, "Correction");
    assert.equal(a.note, "Found a box in the back");
    assert.equal(a.location.id, locationId);
    assert.equal(typeof a.location.name, "string");
    assert.ok(a.location.name.length > 0);
    assert.equal(a.stocktake_id, null);
    assert.equal(a.reversal_of_id, null);
    assert.deepEqual(a.platform_sync, { state: "synced", attempted_at: null, error: null });
    assert.equal(a.applied_at, null);
    assert.equal(a.cancelled_at, null);
    assert.equal(a.created_at, clock.now().toISOString());
    assert.equal(a.updated_at, a.created_at);
    assert.equal(a.lines.length, 1);
    const line = a.lines[0];
    assert.deepEqual(Object.keys(line).sort(), LINE_FIELDS);
    assert.equal(typeof line.id, "number");
    assert.equal(line.position, 1);
    assert.equal(line.product_title, v.product_title);
    assert.equal(line.variant_title, v.title);
    assert.equal(line.sku, v.sku);
    assert.equal(line.barcode, v.barcode);
    assert.equal(line.inventory_item_id, v.inventory_item_id);
    assert.equal(line.variant_id, v.id);
    assert.equal(line.delta, 4);
    assert.equal(line.quantity_before, null);
    assert.equal(line.quantity_after, null);
    assert.equal(line.unit_cost, v.unit_cost);
    assert.match(line.unit_cost, /^\d+\.\d{2,8}$/);
    assert.equal(line.lot_id, null);
    assert.equal(line.lot_number, "L-1");
    assert.equal(line.lot_units, 4);
    assert.equal(line.expected_before, null);
    // A draft moves nothing.
    assert.deepEqual(await mirrorLevel(store.api, v.inventory_item_id, locationId), level);
    assert.equal(await movementCount(store.id, a.id), 0);
    // Creation is announced as stock_adjustment.updated (the catalogue has no .created), data = GET.
    const events = await eventsOf(store.id, a.id);
    assert.deepEqual(
      events.map((e) => e.name),
      ["stock_adjustment.updated"],
    );
    assert.deepEqual(events[0].data, a);
    const got = await store.api.get(`/v2/stock_adjustments/${a.id}`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, { data: a });
  });

  test("names items by inventory_item_id, takes reason and sent titles, numbers on", async () => {
    tick();
    const [v1, v2] = [freshVariant(), freshVariant()];
    const a = await createDraft({
      location_id: secondLocationId,
      reason: "cycle_count_available",
      lines: [
        { inventory_item_id: v1.inventory_item_id, delta: -2 },
        { variant_id: v2.id, inventory_item_id: v2.inventory_item_id, delta: 7, sku: "OWN-SKU" },
      ],
    });
    assert.equal(a.number, "SA-0002");
    assert.equal(a.sequential_id, 2);
    assert.equal(a.reason, "cycle_count_available");
    assert.equal(a.reason_label, "Cycle count (available)");
    assert.equal(a.note, null);
    assert.equal(a.location.id, secondLocationId);
    assert.deepEqual(
      a.lines.map((l: any) => [l.position, l.variant_id, l.inventory_item_id, l.delta, l.sku]),
      [
        [1, v1.id, v1.inventory_item_id, -2, v1.sku],
        [2, v2.id, v2.inventory_item_id, 7, "OWN-SKU"],
      ],
    );
  });

  test("follows the store's numbering prefix", async () => {
    const shop = await t.createStore({ seed: "demo" });
    const patched = await t.admin.patch(`/admin/stores/${shop.id}`, {
      numbering: { purchase_order_prefix: "PO-", stock_adjustment_prefix: "ADJ-" },
    });
    expectStatus(patched, 200);
    const loc = (await shop.api.get("/v2/locations")).body.data[0].id;
    const v = (await shop.api.get("/v2/variants?limit=1")).body.data[0];
    const first = await createDraft({ location_id: loc, lines: [{ variant_id: v.id, delta: 1 }] }, shop.api);
    const second = await createDraft({ location_id: loc, lines: [{ variant_id: v.id, delta: 1 }] }, shop.api);
    assert.deepEqual([first.number, second.number], ["ADJ-0001", "ADJ-0002"]);
    // The counter set forward skips numbers; set back below an issued one, it never repeats one.
    await t.admin.patch(`/admin/stores/${shop.id}`, { numbering: { next_stock_adjustment_number: 120 } });
    const third = await createDraft({ location_id: loc, lines: [{ variant_id: v.id, delta: 1 }] }, shop.api);
    assert.equal(third.number, "ADJ-0120");
    await t.admin.patch(`/admin/stores/${shop.id}`, {
      numbering: { stock_adjustment_prefix: "SA-", next_stock_adjustment_number: 2 },
    });
    const fourth = await createDraft({ location_id: loc, lines: [{ variant_id: v.id, delta: 1 }] }, shop.api);
    assert.deepEqual([fourth.sequential_id, fourth.number], [121, "SA-0121"]);
    const store2 = await t.admin.get(`/admin/stores/${shop.id}`);
    assert.equal(store2.body.data.numbering.next_stock_adjustment_number, 122);
  });

  // One test per refused body, so one wrong code hides no other; then that none of them wrote anything.
  describe("refuses bad requests with exact codes and writes nothing", () => {
    let countBefore: number;
    before(async () => {
      countBefore = (await listAll()).length;
    });
    const v = () => variants[0];
    const cases: Array<[string, () => Record<string, unknown>, Array<[string, string]>]> = [
      [
        "a zero delta: lines.0.delta invalid_value",
        () => ({ location_id: locationId, lines: [{ variant_id: v().id, delta: 0 }] }),
        [["lines.0.delta", "invalid_value"]],
      ],
      [
        "an unknown reason: reason invalid_value",
        () => ({ location_id: locationId, reason: "lost", lines: [{ variant_id: v().id, delta: 1 }] }),
        [["reason", "invalid_value"]],
      ],
      [
        "an unknown field: colour unknown_field",
        () => ({ location_id: locationId, colour: "red", lines: [{ variant_id: v().id, delta: 1 }] }),
        [["colour", "unknown_field"]],
      ],
      [
        "an unknown line field: lines.0.quantity unknown_field",
        () => ({ location_id: locationId, lines: [{ variant_id: v().id, delta: 1, quantity: 3 }] }),
        [["lines.0.quantity", "unknown_field"]],
      ],
      [
        "no location: location_id required",
        () => ({ lines: [{ variant_id: v().id, delta: 1 }] }),
        [["location_id", "required"]],
      ],
      ["no lines: lines required", () => ({ location_id: locationId }), [["lines", "required"]]],
      [
        "an empty line list: lines invalid_length",
        () => ({ location_id: locationId, lines: [] }),
        [["lines", "invalid_length"]],
      ],
      [
        "no delta: lines.0.delta required",
        () => ({ location_id: locationId, lines: [{ variant_id: v().id }] }),
        [["lines.0.delta", "required"]],
      ],
      [
        "a string delta: lines.0.delta invalid_type",
        () => ({ location_id: locationId, lines: [{ variant_id: v().id, delta: "3" }] }),
        [["lines.0.delta", "invalid_type"]],
      ],
      [
        "a fractional delta: lines.0.delta invalid_type",
        () => ({ location_id: locationId, lines: [{ variant_id: v().id, delta: 1.5 }] }),
        [["lines.0.delta", "invalid_type"]],
      ],
      [
        "no item: lines.0.variant_id required",
        () => ({ location_id: locationId, lines: [{ delta: 2 }] }),
        [["lines.0.variant_id", "required"]],
      ],
      // Another store's item, by either id: not_found on that field.
      [
        "another store's variant: lines.0.variant_id not_found",
        () => ({ location_id: locationId, lines: [{ variant_id: otherVariant.id, delta: 1 }] }),
        [["lines.0.variant_id", "not_found"]],
      ],
      [
        "another store's item: lines.1.inventory_item_id not_found",
        () => ({
          location_id: locationId,
          lines: [
            { variant_id: v().id, delta: 1 },
            { inventory_item_id: otherVariant.inventory_item_id, delta: 1 },
          ],
        }),
        [["lines.1.inventory_item_id", "not_found"]],
      ],
      [
        "an unknown variant: lines.0.variant_id not_found",
        () => ({ location_id: locationId, lines: [{ variant_id: 999_999_999, delta: 1 }] }),
        [["lines.0.variant_id", "not_found"]],
      ],
      [
        "a variant and another item: lines.0.inventory_item_id mismatch",
        () => ({
          location_id: locationId,
          lines: [{ variant_id: v().id, inventory_item_id: variants[1].inventory_item_id, delta: 1 }],
        }),
        [["lines.0.inventory_item_id", "mismatch"]],
      ],
      [
        "one item twice: lines.1.inventory_item_id duplicate",
        () => ({
          location_id: locationId,
          lines: [
            { variant_id: v().id, delta: 1 },
            { inventory_item_id: v().inventory_item_id, delta: 2 },
          ],
        }),
        [["lines.1.inventory_item_id", "duplicate"]],
      ],
      // Another store's location, the store's hidden location, an unknown one.
      [
        "another store's location: location_id not_found",
        () => ({ location_id: otherLocationId, lines: [{ variant_id: v().id, delta: 1 }] }),
        [["location_id", "not_found"]],
      ],
      [
        "the hidden location: location_id not_found",
        () => ({ location_id: hiddenLocationId, lines: [{ variant_id: v().id, delta: 1 }] }),
        [["location_id", "not_found"]],
      ],
      // Every problem at once.
      [
        "every problem at once: location_id not_found, lines.0.delta invalid_value, lines.0.variant_id not_found",
        () => ({ location_id: 999_999_999, lines: [{ variant_id: otherVariant.id, delta: 0 }] }),
        [
          ["location_id", "not_found"],
          ["lines.0.delta", "invalid_value"],
          ["lines.0.variant_id", "not_found"],
        ],
      ],
    ];
    for (const [name, body, expected] of cases) {
      test(name, async () => {
        const res = await store.api.post("/v2/stock_adjustments", body());
        assert.equal(res.status, 422, `${JSON.stringify(body())} -> ${JSON.stringify(res.body)}`);
        assert.equal(res.body.error.code, "validation_failed");
        assert.deepEqual(
          res.body.error.details.map((d: { field: string; code: string }) => [d.field, d.code]),
          expected,
          JSON.stringify(body()),
        );
      });
    }
    test("the refused attempts wrote nothing and used no numbers", async () => {
      assert.equal((await listAll()).length, countBefore);
      const next = await createDraft({ location_id: locationId, lines: [{ variant_id: v().id, delta: 1 }] });
      assert.equal(next.sequential_id, countBefore + 1);
      await store.api.post(`/v2/stock_adjustments/${next.id}/cancel`);
    });
  });

  test("needs write:inventory", async () => {
    const v = variants[0];
    const body = { location_id: locationId, lines: [{ variant_id: v.id, delta: 1 }] };
    for (const scopes of [["read"], ["write:purchase_orders", "write:suppliers"]]) {
      const api = await store.keyWithScopes(scopes);
      const res = await api.post("/v2/stock_adjustments", body);
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, "insufficient_scope");
    }
    const reader = await store.keyWithScopes(["read"]);
    assert.equal((await reader.get("/v2/stock_adjustments")).status, 200);
  });
});

describe("GET /v2/stock_adjustments: pages oldest update first, filters by status and location, refuses unknown statuses", () => {
  let a: any;
  let b: any;
  let c: any;
  let patched: HttpResult;
  let cancelled: HttpResult;
  let all: any[];
  let ids: number[];
  before(async () => {
    const v = variants[0];
    tick();
    a = await createDraft({ location_id: locationId, lines: [{ variant_id: v.id, delta: 1 }] });
    tick();
    b = await createDraft({ location_id: secondLocationId, lines: [{ variant_id: v.id, delta: 2 }] });
    tick();
    c = await createDraft({ location_id: locationId, lines: [{ variant_id: v.id, delta: 3 }] });
    tick();
    // Updating `a` moves it to the end of the feed.
    patched = await store.api.patch(`/v2/stock_adjustments/${a.id}`, { note: "moved" });
    tick();
    cancelled = await store.api.post(`/v2/stock_adjustments/${c.id}/cancel`);
    all = await listAll();
    ids = all.map((x) => x.id);
  });

  test("oldest update first (an update moves a row to the end); rows are whole adjustments", () => {
    assert.equal(patched.status, 200);
    assert.equal(cancelled.status, 200);
    assert.deepEqual(ids.slice(-3), [b.id, a.id, c.id]);
    const times = all.map((x) => `${x.updated_at}|${String(x.id).padStart(9, "0")}`);
    assert.deepEqual(times, [...times].sort());
    // List rows are whole adjustments, lines included.
    assert.deepEqual(all.at(-1), cancelled.body.data);
    assert.deepEqual(all.at(-2), patched.body.data);
  });

  test("status filters one status or several", async () => {
    const drafts = await listAll("&status=draft");
    assert.ok(drafts.every((x) => x.status === "draft"));
    assert.ok(drafts.some((x) => x.id === a.id) && !drafts.some((x) => x.id === c.id));
    const both = await listAll("&status=draft,cancelled");
    assert.ok(both.some((x) => x.id === a.id) && both.some((x) => x.id === c.id));
    assert.ok(both.every((x) => x.status === "draft" || x.status === "cancelled"));
  });

  test("location_id filters, alone and with status", async () => {
    const atSecond = await listAll(`&location_id=${secondLocationId}`);
    assert.ok(atSecond.length >= 2);
    assert.ok(atSecond.every((x) => x.location.id === secondLocationId));
    assert.ok(atSecond.some((x) => x.id === b.id));
    const combined = await listAll(`&status=cancelled&location_id=${locationId}`);
    assert.ok(combined.some((x) => x.id === c.id));
    assert.ok(combined.every((x) => x.status === "cancelled" && x.location.id === locationId));
  });

  test("unknown statuses are 400 invalid_filter; a bad location_id is 422 on its field", async () => {
    for (const bad of ["open", "draft,open", ","]) {
      const res = await store.api.get(`/v2/stock_adjustments?status=${bad}`);
      assert.equal(res.status, 400, bad);
      assert.equal(res.body.error.code, "invalid_filter");
    }
    const badLocation = await store.api.get("/v2/stock_adjustments?location_id=abc");
    assert.equal(badLocation.status, 422);
    assert.equal(badLocation.body.error.details[0].field, "location_id");
  });

  test("walking the feed one row at a time yields the same order", async () => {
    const walked: number[] = [];
    let cursor: string | null = null;
    do {
      const res: HttpResult = await store.api.get(
        `/v2/stock_adjustments?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      assert.equal(res.status, 200);
      walked.push(...res.body.data.map((x: { id: number }) => x.id));
      assert.equal(res.body.has_more, res.body.next_cursor !== null);
      cursor = res.body.next_cursor;
    } while (cursor);
    assert.deepEqual(walked, ids);
  });

  test("a cursor is bound to its filters", async () => {
    const first = await store.api.get("/v2/stock_adjustments?limit=1&status=draft");
    const reused = await store.api.get(
      `/v2/stock_adjustments?limit=1&status=cancelled&cursor=${encodeURIComponent(first.body.next_cursor)}`,
    );
    assert.equal(reused.status, 400);
    assert.equal(reused.body.error.code, "invalid_cursor");
  });

  test("another store sees none of them", async () => {
    const theirs = await other.api.get("/v2/stock_adjustments");
    assert.deepEqual(theirs.body.data, []);
  });
});

describe("GET /v2/stock_adjustments/{id}", () => {
  test("GET one: another store's adjustment and a missing one are 404", async () => {
    const a = await createDraft({
      location_id: locationId,
      lines: [{ variant_id: variants[0].id, delta: 1 }],
    });
    for (const [api, id] of [
      [other.api, a.id],
      [store.api, 999_999],
    ] as const) {
      const res = await api.get(`/v2/stock_adjustments/${id}`);
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, "not_found");
    }
    const bad = await store.api.get("/v2/stock_adjustments/abc");
    assert.equal(bad.status, 422);
  });
});

describe("PATCH /v2/stock_adjustments/{id}", () => {
  test("changes a draft; lines replaces the set; an empty PATCH writes nothing", async () => {
    const [v1, v2, v3] = [freshVariant(), freshVariant(), freshVariant()];
    const a = await createDraft({
      location_id: locationId,
      lines: [
        { variant_id: v1.id, delta: 1 },
        { variant_id: v2.id, delta: 2 },
      ],
    });
    tick();
    const res = await store.api.patch(`/v2/stock_adjustments/${a.id}`, {
      reason: "damaged",
      note: "Water damage",
      location_id: secondLocationId,
      lines: [
        { variant_id: v3.id, delta: -5, expected_before: 12 },
        { inventory_item_id: v1.inventory_item_id, delta: -1 },
      ],
    });
    expectStatus(res, 200);
    const p = res.body.data;
    assert.equal(p.status, "draft");
    assert.equal(p.reason, "damaged");
    assert.equal(p.reason_label, "Damaged");
    assert.equal(p.note, "Water damage");
    assert.equal(p.location.id, secondLocationId);
    assert.equal(p.number, a.number);
    assert.equal(p.created_at, a.created_at);
    assert.equal(p.updated_at, clock.now().toISOString());
    assert.notEqual(p.updated_at, a.updated_at);
    assert.deepEqual(
      p.lines.map((l: any) => [l.position, l.variant_id, l.delta, l.expected_before]),
      [
        [1, v3.id, -5, 12],
        [2, v1.id, -1, null],
      ],
    );
    const oldLineIds = new Set(a.lines.map((l: { id: number }) => l.id));
    assert.ok(p.lines.every((l: { id: number }) => !oldLineIds.has(l.id)));

    // Only the fields sent change.
    tick();
    const noteOnly = await store.api.patch(`/v2/stock_adjustments/${a.id}`, { note: null });
    assert.equal(noteOnly.status, 200);
    assert.deepEqual({ ...noteOnly.body.data, note: "Water damage", updated_at: p.updated_at }, p);
    assert.equal(noteOnly.body.data.note, null);
    // Nothing sent, nothing written.
    tick();
    const empty = await store.api.patch(`/v2/stock_adjustments/${a.id}`, {});
    assert.equal(empty.status, 200);
    assert.deepEqual(empty.body.data, noteOnly.body.data);
    const events = await eventsOf(store.id, a.id);
    assert.deepEqual(
      events.map((e) => e.name),
      ["stock_adjustment.updated", "stock_adjustment.updated", "stock_adjustment.updated"],
    );
    assert.deepEqual(events[1].data, p);
    assert.deepEqual(events[2].data, noteOnly.body.data);
  });

  test("refuses bad fields, other stores' records and items, and writes nothing", async () => {
    const v = freshVariant();
    const a = await createDraft({ location_id: locationId, lines: [{ variant_id: v.id, delta: 1 }] });
    const cases: Array<[Record<string, unknown>, Array<[string, string]>]> = [
      [{ status: "applied" }, [["status", "unknown_field"]]],
      [{ lines: [{ variant_id: v.id, delta: 0 }] }, [["lines.0.delta", "invalid_value"]]],
      [{ lines: [{ variant_id: otherVariant.id, delta: 1 }] }, [["lines.0.variant_id", "not_found"]]],
      [{ location_id: otherLocationId }, [["location_id", "not_found"]]],
      [{ reason: "theft" }, [["reason", "invalid_value"]]],
    ];
    for (const [body, expected] of cases) {
      const res = await store.api.patch(`/v2/stock_adjustments/${a.id}`, body);
      expectStatus(res, 422);
      assert.equal(res.body.error.code, "validation_failed");
      assert.deepEqual(
        res.body.error.details.map((d: { field: string; code: string }) => [d.field, d.code]),
        expected,
      );
    }
    const theirs = await other.api.patch(`/v2/stock_adjustments/${a.id}`, { note: "mine" });
    assert.equal(theirs.status, 404);
    assert.equal(theirs.body.error.code, "not_found");
    const reader = await store.keyWithScopes(["read"]);
    const denied = await reader.patch(`/v2/stock_adjustments/${a.id}`, { note: "x" });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.error.code, "insufficient_scope");
    const got = await store.api.get(`/v2/stock_adjustments/${a.id}`);
    assert.deepEqual(got.body.data, a);
    assert.equal((await eventsOf(store.id, a.id)).length, 1);
  });
});

describe("POST /v2/stock_adjustments/{id}/cancel", () => {
  test("cancels a draft, moves nothing; cancelled ones refuse every move", async () => {
    const v = freshVariant();
    const a = await createDraft({ location_id: locationId, lines: [{ variant_id: v.id, delta: 9 }] });
    const level = await mirrorLevel(store.api, v.inventory_item_id, locationId);
    tick();
    const res = await store.api.post(`/v2/stock_adjustments/${a.id}/cancel`);
    expectStatus(res, 200);
    const c = res.body.data;
    assert.equal(c.status, "cancelled");
    assert.equal(c.cancelled_at, clock.now().toISOString());
    assert.equal(c.updated_at, c.cancelled_at);
    assert.equal(c.applied_at, null);
    assert.equal(c.lines[0].quantity_before, null);
    const events = await eventsOf(store.id, a.id);
    assert.deepEqual(
      events.map((e) => e.name),
      ["stock_adjustment.updated", "stock_adjustment.cancelled"],
    );
    assert.deepEqual(events[1].data, c);

    tick();
    const refusals = [
      await store.api.post(`/v2/stock_adjustments/${a.id}/cancel`),
      await store.api.post(`/v2/stock_adjustments/${a.id}/apply`, undefined, newKey()),
      await store.api.patch(`/v2/stock_adjustments/${a.id}`, { note: "again" }),
    ];
    for (const r of refusals) {
      expectStatus(r, 422);
      assert.equal(r.body.error.code, "invalid_transition");
      assert.match(r.body.error.message, /cancelled/);
    }
    assert.deepEqual((await store.api.get(`/v2/stock_adjustments/${a.id}`)).body.data, c);
    assert.equal((await eventsOf(store.id, a.id)).length, 2);
    assert.equal(await movementCount(store.id, a.id), 0);
    await t.drain();
    assert.deepEqual(await mirrorLevel(store.api, v.inventory_item_id, locationId), level);

    const bodyRefused = await store.api.post(`/v2/stock_adjustments/${a.id}/cancel`, { now: true });
    assert.equal(bodyRefused.status, 422);
    assert.equal(bodyRefused.body.error.details[0].code, "unknown_field");
    const theirs = await other.api.post(`/v2/stock_adjustments/${a.id}/cancel`);
    assert.equal(theirs.status, 404);
  });
});

describe("POST /v2/stock_adjustments/{id}/apply", () => {
  /** A draft taking 3 of one fresh variant and adding 11 of another at the first location. */
  async function twoLineDraft() {
    const [v1, v2] = [freshVariant(), freshVariant()];
    const a = await createDraft({
      location_id: locationId,
      reason: "shrinkage",
      lines: [
        { variant_id: v1.id, delta: -3 },
        { variant_id: v2.id, delta: 11 },
      ],
    });
    return { a, v1, v2 };
  }

  test("apply needs a key, the inventory scope and the store's own adjustment; refusals move nothing", async () => {
    const { a } = await twoLineDraft();
    const noKey = await store.api.post(`/v2/stock_adjustments/${a.id}/apply`);
    assert.equal(noKey.status, 400);
    assert.equal(noKey.body.error.code, "idempotency_key_required");
    const reader = await store.keyWithScopes(["read"]);
    const denied = await reader.post(`/v2/stock_adjustments/${a.id}/apply`, undefined, newKey());
    assert.equal(denied.status, 403);
    assert.equal(denied.body.error.code, "insufficient_scope");
    const theirs = await other.api.post(`/v2/stock_adjustments/${a.id}/apply`, undefined, newKey());
    assert.equal(theirs.status, 404);
    assert.equal(theirs.body.error.code, "not_found");
    assert.equal(await movementCount(store.id, a.id), 0);
  });

  test("moves the mirror at once and the platform once, even with a replayed key", async () => {
    const [v1, v2] = [freshVariant(), freshVariant()];
    await t.drain();
    const m1 = await mirrorLevel(store.api, v1.inventory_item_id, locationId);
    const m2 = await mirrorLevel(store.api, v2.inventory_item_id, locationId);
    const p1 = await platformLevel(store.id, v1.inventory_item_id, locationId);
    const p2 = await platformLevel(store.id, v2.inventory_item_id, locationId);
    assert.deepEqual([m1, m2], [p1, p2]);
    assert.ok(p1.available > 3);
    const a = await createDraft({
      location_id: locationId,
      reason: "shrinkage",
      lines: [
        { variant_id: v1.id, delta: -3 },
        { variant_id: v2.id, delta: 11 },
      ],
    });

    tick();
    const key = newKey();
    const res = await store.api.post(`/v2/stock_adjustments/${a.id}/apply`, undefined, key);
    expectStatus(res, 200);
    assert.equal(res.headers["idempotent-replayed"], undefined);
    const applied = res.body.data;
    assert.equal(applied.status, "applied");
    assert.equal(applied.applied_at, clock.now().toISOString());
    assert.equal(applied.updated_at, applied.applied_at);
    assert.equal(applied.cancelled_at, null);
    assert.equal(applied.platform_sync.state, "pending");
    assert.deepEqual(
      applied.lines.map((l: any) => [l.delta, l.quantity_before, l.quantity_after]),
      [
        [-3, m1.available, m1.available - 3],
        [11, m2.available, m2.available + 11],
      ],
    );
    assert.equal(await movementCount(store.id, a.id), 2);
    // The mirror shows the change at once; the platform after the push.
    assert.deepEqual(await mirrorLevel(store.api, v1.inventory_item_id, locationId), {
      available: m1.available - 3,
      on_hand: m1.on_hand - 3,
    });
    assert.deepEqual(await platformLevel(store.id, v1.inventory_item_id, locationId), p1);

    // Replay before and after the push: the stored answer, nothing runs again.
    const replay = await store.api.post(`/v2/stock_adjustments/${a.id}/apply`, undefined, key);
    assert.equal(replay.status, 200);
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assert.deepEqual(replay.body, res.body);
    await t.drain();
    const replayAgain = await store.api.post(`/v2/stock_adjustments/${a.id}/apply`, undefined, key);
    assert.equal(replayAgain.headers["idempotent-replayed"], "true");
    assert.deepEqual(replayAgain.body, res.body);
    await t.drain();
    assert.equal(await movementCount(store.id, a.id), 2);

    const after1 = { available: p1.available - 3, on_hand: p1.on_hand - 3 };
    const after2 = { available: p2.available + 11, on_hand: p2.on_hand + 11 };
    assert.deepEqual(await platformLevel(store.id, v1.inventory_item_id, locationId), after1);
    assert.deepEqual(await platformLevel(store.id, v2.inventory_item_id, locationId), after2);
    assert.deepEqual(await mirrorLevel(store.api, v1.inventory_item_id, locationId), after1);
    assert.deepEqual(await mirrorLevel(store.api, v2.inventory_item_id, locationId), after2);
    // Only this location moved.
    const elsewhere = await platformLevel(store.id, v1.inventory_item_id, secondLocationId);
    assert.deepEqual(await mirrorLevel(store.api, v1.inventory_item_id, secondLocationId), elsewhere);

    const synced = (await store.api.get(`/v2/stock_adjustments/${a.id}`)).body.data;
    assert.equal(synced.platform_sync.state, "synced");
    assert.equal(synced.platform_sync.error, null);
    assert.equal(typeof synced.platform_sync.attempted_at, "string");
    assert.deepEqual({ ...synced, platform_sync: applied.platform_sync }, applied);

    const events = await eventsOf(store.id, a.id);
    assert.deepEqual(
      events.map((e) => e.name),
      ["stock_adjustment.updated", "stock_adjustment.applied"],
    );
    assert.deepEqual(events[1].data, applied);
  });

  test("an applied adjustment is final: apply with a new key, cancel and PATCH refuse and nothing moves", async () => {
    const { a, v1 } = await twoLineDraft();
    tick();
    expectStatus(await store.api.post(`/v2/stock_adjustments/${a.id}/apply`, undefined, newKey()), 200);
    await t.drain();
    const after1 = await platformLevel(store.id, v1.inventory_item_id, locationId);
    const synced = (await store.api.get(`/v2/stock_adjustments/${a.id}`)).body.data;
    // Apply (new key), cancel and PATCH refuse, naming the state.
    tick();
    const refusals = [
      await store.api.post(`/v2/stock_adjustments/${a.id}/apply`, undefined, newKey()),
      await store.api.post(`/v2/stock_adjustments/${a.id}/cancel`),
      await store.api.patch(`/v2/stock_adjustments/${a.id}`, { note: "late" }),
      await store.api.patch(`/v2/stock_adjustments/${a.id}`, {
        lines: [{ variant_id: v1.id, delta: 100 }],
      }),
    ];
    for (const r of refusals) {
      expectStatus(r, 422);
      assert.equal(r.body.error.code, "invalid_transition");
      assert.match(r.body.error.message, /is applied/);
    }
    await t.drain();
    assert.equal(await movementCount(store.id, a.id), 2);
    assert.deepEqual(await platformLevel(store.id, v1.inventory_item_id, locationId), after1);
    assert.deepEqual((await store.api.get(`/v2/stock_adjustments/${a.id}`)).body.data, synced);
    assert.equal((await eventsOf(store.id, a.id)).length, 2);
  });

  test("cycle_count_available moves available and on_hand alike", async () => {
    const v = freshVariant();
    await t.drain();
    const p = await platformLevel(store.id, v.inventory_item_id, secondLocationId);
    const a = await createDraft({
      location_id: secondLocationId,
      reason: "cycle_count_available",
      lines: [{ inventory_item_id: v.inventory_item_id, delta: -1 }],
    });
    // An empty JSON object is "no body" too.
    const res = await store.api.post(`/v2/stock_adjustments/${a.id}/apply`, {}, newKey());
    expectStatus(res, 200);
    assert.equal(res.body.data.reason_label, "Cycle count (available)");
    await t.drain();
    assert.deepEqual(await platformLevel(store.id, v.inventory_item_id, secondLocationId), {
      available: p.available - 1,
      on_hand: p.on_hand - 1,
    });
  });

  test("quantity_before reads the level at that moment: platform sales synced, and unpushed movements", async () => {
    const v = freshVariant();
    await t.drain();
    const start = await platformLevel(store.id, v.inventory_item_id, locationId);
    // A sale on the platform side, then the mirror sync.
    await platformSale(store.id, v.inventory_item_id, locationId, 4);
    await t.drain();
    assert.equal(
      (await mirrorLevel(store.api, v.inventory_item_id, locationId)).available,
      start.available - 4,
    );
    const a = await createDraft({ location_id: locationId, lines: [{ variant_id: v.id, delta: 10 }] });
    // Another sale lands on the platform after the draft was written, before apply.
    await platformSale(store.id, v.inventory_item_id, locationId, 1);
    await t.drain();
    const applied = await store.api.post(`/v2/stock_adjustments/${a.id}/apply`, undefined, newKey());
    assert.equal(applied.status, 200);
    assert.deepEqual(
      [applied.body.data.lines[0].quantity_before, applied.body.data.lines[0].quantity_after],
      [start.available - 5, start.available + 5],
    );
    // A second adjustment before the first is pushed counts from the level including it.
    const b = await createDraft({ location_id: locationId, lines: [{ variant_id: v.id, delta: -2 }] });
    const second = await store.api.post(`/v2/stock_adjustments/${b.id}/apply`, undefined, newKey());
    assert.equal(second.status, 200);
    assert.deepEqual(
      [second.body.data.lines[0].quantity_before, second.body.data.lines[0].quantity_after],
      [start.available + 5, start.available + 3],
    );
    // A sale racing the pushes: everything adds up on both sides once the queue is drained.
    await platformSale(store.id, v.inventory_item_id, locationId, 1);
    await t.drain();
    await t.drain();
    const expected = { available: start.available + 2, on_hand: start.on_hand + 2 };
    assert.deepEqual(await platformLevel(store.id, v.inventory_item_id, locationId), expected);
    assert.deepEqual(await mirrorLevel(store.api, v.inventory_item_id, locationId), expected);
  });

  test("concurrent applies queue on the level rows: each counts from the other's result, each applies once", async () => {
    const [v1, v2] = [freshVariant(), freshVariant()];
    await t.drain();
    const l1 = (await mirrorLevel(store.api, v1.inventory_item_id, locationId)).available;
    const l2 = (await mirrorLevel(store.api, v2.inventory_item_id, locationId)).available;
    const p1 = await platformLevel(store.id, v1.inventory_item_id, locationId);
    const a = await createDraft({
      location_id: locationId,
      lines: [
        { variant_id: v1.id, delta: 5 },
        { variant_id: v2.id, delta: -1 },
      ],
    });
    const b = await createDraft({
      location_id: locationId,
      lines: [
        { variant_id: v2.id, delta: 2 },
        { variant_id: v1.id, delta: -7 },
      ],
    });
    // The same draft twice with different keys, and another draft on the same items, all at once.
    const [ra, ra2, rb] = await Promise.all([
      store.api.post(`/v2/stock_adjustments/${a.id}/apply`, undefined, newKey()),
      store.api.post(`/v2/stock_adjustments/${a.id}/apply`, undefined, newKey()),
      store.api.post(`/v2/stock_adjustments/${b.id}/apply`, undefined, newKey()),
    ]);
    expectStatus(rb, 200);
    assert.deepEqual([ra.status, ra2.status].sort(), [200, 422]);
    const refused = ra.status === 422 ? ra : ra2;
    assert.equal(refused.body.error.code, "invalid_transition");
    const appliedA = (ra.status === 200 ? ra : ra2).body.data;
    const appliedB = rb.body.data;
    const byItem = (adj: any, item: number) => adj.lines.find((l: any) => l.inventory_item_id === item);
    const aFirst = byItem(appliedA, v1.inventory_item_id).quantity_before === l1;
    const [first, second] = aFirst ? [appliedA, appliedB] : [appliedB, appliedA];
    for (const item of [v1.inventory_item_id, v2.inventory_item_id]) {
      const start = item === v1.inventory_item_id ? l1 : l2;
      assert.equal(byItem(first, item).quantity_before, start);
      assert.equal(byItem(second, item).quantity_before, byItem(first, item).quantity_after);
    }
    assert.equal(await movementCount(store.id, a.id), 2);
    await t.drain();
    assert.deepEqual(await platformLevel(store.id, v1.inventory_item_id, locationId), {
      available: p1.available - 2,
      on_hand: p1.on_hand - 2,
    });
    assert.equal((await mirrorLevel(store.api, v2.inventory_item_id, locationId)).available, l2 + 1);
  });

  test("an item the mirror has no level for at the location counts from 0", async () => {
    const v = freshVariant();
    const { ctx } = t.runtime;
    // The platform has the item unstocked at the second location and the mirror has no row for it.
    await ctx.db
      .deleteFrom("inventory_levels")
      .where("store_id", "=", store.id)
      .where("inventory_item_id", "=", v.inventory_item_id)
      .where("location_id", "=", secondLocationId)
      .execute();
    const before = await platformLevel(store.id, v.inventory_item_id, secondLocationId);
    const a = await createDraft({ location_id: secondLocationId, lines: [{ variant_id: v.id, delta: 6 }] });
    const res = await store.api.post(`/v2/stock_adjustments/${a.id}/apply`, undefined, newKey());
    expectStatus(res, 200);
    assert.deepEqual([res.body.data.lines[0].quantity_before, res.body.data.lines[0].quantity_after], [0, 6]);
    await t.drain();
    assert.deepEqual(await platformLevel(store.id, v.inventory_item_id, secondLocationId), {
      available: before.available + 6,
      on_hand: before.on_hand + 6,
    });
  });

  describe("expected_before: a changed level refuses the whole apply and moves nothing", () => {
    let v1: Variant;
    let v2: Variant;
    let l1: any;
    let l2: any;
    let p1: any;
    let p2: any;
    let a: any;
    let key: ReturnType<typeof newKey>;
    let refused: HttpResult;
    before(async () => {
      [v1, v2] = [freshVariant(), freshVariant()];
      await t.drain();
      l1 = await mirrorLevel(store.api, v1.inventory_item_id, locationId);
      l2 = await mirrorLevel(store.api, v2.inventory_item_id, locationId);
      a = await createDraft({
        location_id: locationId,
        reason: "cycle_count_available",
        lines: [
          { variant_id: v1.id, delta: -1, expected_before: l1.available },
          { variant_id: v2.id, delta: 3, expected_before: l2.available },
        ],
      });
      // A sale of the second item after it was counted.
      await platformSale(store.id, v2.inventory_item_id, locationId, 2);
      await t.drain();
      p1 = await platformLevel(store.id, v1.inventory_item_id, locationId);
      p2 = await platformLevel(store.id, v2.inventory_item_id, locationId);
      key = newKey();
      refused = await store.api.post(`/v2/stock_adjustments/${a.id}/apply`, undefined, key);
    });

    test("the apply is 422 stock_changed on the changed line only, naming the level now", () => {
      expectStatus(refused, 422);
      assert.equal(refused.body.error.code, "validation_failed");
      assert.equal(refused.body.error.details.length, 1);
      const detail = refused.body.error.details[0];
      assert.equal(detail.field, "lines.1.expected_before");
      assert.equal(detail.code, "stock_changed");
      assert.match(detail.message, new RegExp(`\\b${l2.available - 2}\\b`));
    });

    test("nothing is written: still a draft, no movement, no event, both sides untouched", async () => {
      const still = (await store.api.get(`/v2/stock_adjustments/${a.id}`)).body.data;
      assert.deepEqual(still, a);
      assert.equal(await movementCount(store.id, a.id), 0);
      assert.equal((await eventsOf(store.id, a.id)).length, 1);
      await t.drain();
      assert.deepEqual(await platformLevel(store.id, v1.inventory_item_id, locationId), p1);
      assert.deepEqual(await platformLevel(store.id, v2.inventory_item_id, locationId), p2);
      assert.deepEqual(await mirrorLevel(store.api, v1.inventory_item_id, locationId), p1);
    });

    test("the refusal is the key's stored answer", async () => {
      const replay = await store.api.post(`/v2/stock_adjustments/${a.id}/apply`, undefined, key);
      assert.equal(replay.status, 422);
      assert.equal(replay.headers["idempotent-replayed"], "true");
    });

    test("recounted, the draft takes the new number and applies", async () => {
      const patched = await store.api.patch(`/v2/stock_adjustments/${a.id}`, {
        lines: [
          { variant_id: v1.id, delta: -1, expected_before: l1.available },
          { variant_id: v2.id, delta: 3, expected_before: l2.available - 2 },
        ],
      });
      assert.equal(patched.status, 200);
      const ok = await store.api.post(`/v2/stock_adjustments/${a.id}/apply`, undefined, newKey());
      expectStatus(ok, 200);
      assert.deepEqual(
        ok.body.data.lines.map((l: any) => [l.quantity_before, l.quantity_after, l.expected_before]),
        [
          [l1.available, l1.available - 1, l1.available],
          [l2.available - 2, l2.available + 1, l2.available - 2],
        ],
      );
      await t.drain();
      assert.deepEqual(await platformLevel(store.id, v2.inventory_item_id, locationId), {
        available: p2.available + 3,
        on_hand: p2.on_hand + 3,
      });
    });
  });

  test("an adjustment of many lines records every level and applies in one go", async () => {
    const shop = await t.createStore({ seed: "demo" });
    const loc = (await shop.api.get("/v2/locations")).body.data[0].id;
    const all = (await shop.api.get("/v2/variants?limit=250")).body.data as Variant[];
    assert.ok(all.length >= 80);
    const lines = all.slice(0, 80).map((v, i) => ({ variant_id: v.id, delta: (i % 7) + 1 }));
    const a = await createDraft({ location_id: loc, lines }, shop.api);
    assert.equal(a.lines.length, 80);
    const levels = await shop.api.get(`/v2/inventory_levels?location_id=${loc}&limit=250`);
    const before = new Map<number, number>(
      levels.body.data.map((l: { inventory_item_id: number; available: number }) => [
        l.inventory_item_id,
        l.available,
      ]),
    );
    const res = await shop.api.post(`/v2/stock_adjustments/${a.id}/apply`, undefined, newKey());
    assert.equal(res.status, 200);
    for (const line of res.body.data.lines) {
      assert.equal(line.quantity_before, before.get(line.inventory_item_id));
      assert.equal(line.quantity_after, line.quantity_before + line.delta);
    }
    assert.equal(await movementCount(shop.id, a.id), 80);
    await t.drain();
    const synced = (await shop.api.get(`/v2/stock_adjustments/${a.id}`)).body.data;
    assert.equal(synced.platform_sync.state, "synced");
    const sample = all[5];
    assert.equal(
      (await platformLevel(shop.id, sample.inventory_item_id, loc)).available,
      (before.get(sample.inventory_item_id) ?? 0) + 6,
    );
  });
});
