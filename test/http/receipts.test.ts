import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../src/clock.ts";
import { COMPRESS_FROM } from "../../src/http/plugins/sealed-text.ts";
import { type Client, type HttpResult, startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectDetails, expectInvalidTransition, expectStatus } from "../helpers/assertions.ts";
import {
  createDraftOrder,
  createOrderedOrder,
  eventsOf as eventsOfSubject,
  getOrder as getOrderOf,
  platformLevel,
  type Variant,
  variantPool,
} from "../helpers/factories.ts";

/**
 * Receipts through HTTP on the demo store: every refusal (changing nothing), worked landed costs with
 * partial receipts, surplus and rejections, unordered lines, replays, voids restoring platform-side
 * levels exactly, the list and one receipt, and the preview.
 */

const START = "2030-05-04T09:30:00.000Z";
const TODAY = "2030-05-04";

let t: TestApp;
let clock: ManualClock;
let store: TestStore;
let other: TestStore;
let variants: Variant[];
let locations: { id: number; name: string }[];
let supplierId: number;
let eurSupplierId: number;
let keyCounter = 0;

const RECEIPT_FIELDS = [
  "created_at",
  "exchange_rate",
  "id",
  "invoice",
  "lines",
  "location",
  "note",
  "platform_sync",
  "purchase_order_id",
  "received_at",
  "rejected_disposition",
  "source",
  "updated_at",
  "voided_at",
];
const RECEIPT_LINE_FIELDS = [
  "allocated_charge_amount",
  "id",
  "landed_unit_cost",
  "line_id",
  "quantity",
  "rejected_quantity",
  "surplus_quantity",
  "unit_cost",
];

const key = () => ({ "idempotency-key": `receipt-${++keyCounter}` });
const tick = () => clock.advance(1000);

const pool = variantPool(() => variants);
const freshVariant = () => pool.next();

interface OrderOptions {
  lines: Record<string, unknown>[];
  charges?: Record<string, unknown>[];
  supplier_id?: number;
  location_id?: number;
  updates_stock?: boolean;
  ordered?: boolean;
}

async function newOrder(options: OrderOptions, api: Client = store.api) {
  const { ordered = true, ...fields } = options;
  const body = { supplier_id: supplierId, ...fields };
  if (!ordered) return createDraftOrder(api, body);
  const placed = await createOrderedOrder(api, body);
  tick();
  return placed;
}

async function receive(
  orderId: number,
  body: Record<string, unknown>,
  headers: Record<string, string> = key(),
) {
  const res = await store.api.post(`/v2/purchase_orders/${orderId}/receipts`, body, headers);
  if (res.status === 201 && res.headers["idempotent-replayed"] !== "true") await assertAsStored(res);
  tick();
  return res;
}

/**
 * A recorded receipt answers with the order as it is now, not as it was read back: the answer and the
 * event payload equal GET of the order and of the receipt, field by field.
 */
async function assertAsStored(res: HttpResult) {
  const order = res.body.purchase_order;
  const receipt = res.body.data;
  assert.deepEqual(order, await getOrder(order.id));
  const one = await store.api.get(`/v2/purchase_orders/${order.id}/receipts/${receipt.id}`);
  expectStatus(one, 200);
  assert.deepEqual(receipt, one.body.data);
  const recorded = (await eventsOf("purchase_order", order.id)).filter(
    (e) => e.name === "purchase_order.receipt_recorded",
  );
  const last = recorded[recorded.length - 1];
  assert.deepEqual(last.data, order);
  assert.deepEqual((last.extra as { receipt: unknown }).receipt, receipt);
}

const platform = (itemId: number, locationId: number) => platformLevel(t, store.id, itemId, locationId);

const eventsOf = (type: string, id: number) => eventsOfSubject(t, { type, id, storeId: store.id });

async function historyTypes(orderId: number) {
  const res = await store.api.get(`/v2/purchase_orders/${orderId}/history?limit=250`);
  expectStatus(res, 200);
  return (res.body.data as { type: string; data: Record<string, unknown> }[]).reverse();
}

async function counts(orderId: number) {
  const db = t.runtime.ctx.db;
  const receipts = await db
    .selectFrom("receipts")
    .select("id")
    .where("purchase_order_id", "=", orderId)
    .execute();
  const movements = await db
    .selectFrom("stock_movements")
    .select("id")
    .where("store_id", "=", store.id)
    .where("subject_type", "=", "receipt")
    .where("subject_id", "in", receipts.length > 0 ? receipts.map((r) => r.id) : [0])
    .execute();
  return { receipts: receipts.length, movements: movements.length };
}

const getOrder = (id: number) => getOrderOf(store.api, id);

before(async () => {
  clock = new ManualClock(START);
  t = await startTestApp({ clock });
  store = await t.createStore({ seed: "demo" });
  other = await t.createStore({ seed: "demo" });
  await t.drain();
  const v = await store.api.get("/v2/variants?limit=250");
  expectStatus(v, 200);
  variants = (v.body.data as Variant[]).filter((x) => x.inventory_tracked);
  const l = await store.api.get("/v2/locations");
  locations = l.body.data.sort((a: { id: number }, b: { id: number }) => a.id - b.id);
  assert.ok(locations.length >= 2);
  const s = await store.api.post("/v2/suppliers", { name: "Acme Supply", currency: "USD" });
  expectStatus(s, 201);
  supplierId = s.body.data.id;
  expectStatus(
    await t.admin.put(`/admin/stores/${store.id}/exchange_rates`, {
      rates: [{ currency: "EUR", rate_to_base: "1.2", date: TODAY }],
    }),
    200,
  );
  const eur = await store.api.post("/v2/suppliers", { name: "Euro Parts", currency: "EUR" });
  expectStatus(eur, 201);
  eurSupplierId = eur.body.data.id;
});
after(() => t.close());

describe("POST /v2/purchase_orders/{id}/receipts: refusals change nothing", () => {
  // One placed order that every refusal below targets; each refusal is its own test, then one checks
  // that none of them changed the order.
  describe("key required, scope, states, unknown lines and locations, nothing received, other stores", () => {
    let v: Variant;
    let order: any;
    let lineId: number;
    let ok: { lines: { line_id: number; quantity: number }[] };
    let foreign: any;

    before(async () => {
      v = freshVariant();
      order = await newOrder({ lines: [{ variant_id: v.id, quantity: 5, unit_cost: 2 }] });
      lineId = order.lines[0].id;
      ok = { lines: [{ line_id: lineId, quantity: 1 }] };
      foreign = await newOrder(
        {
          supplier_id: (await other.api.post("/v2/suppliers", { name: "Theirs" })).body.data.id,
          lines: [{ product_title: "Theirs", quantity: 1 }],
        },
        other.api,
      );
    });

    test("an Idempotency-Key and the write scope are required", async () => {
      const noKey = await store.api.post(`/v2/purchase_orders/${order.id}/receipts`, ok);
      expectStatus(noKey, 400);
      assert.equal(noKey.body.error.code, "idempotency_key_required");

      const readOnly = await store.keyWithScopes(["read"]);
      const forbidden = await readOnly.post(`/v2/purchase_orders/${order.id}/receipts`, ok, key());
      expectStatus(forbidden, 403);
      assert.equal(forbidden.body.error.code, "insufficient_scope");
    });

    const refusals: Array<[string, () => Record<string, unknown>, [string, string][]]> = [
      [
        "an unknown line",
        () => ({ lines: [{ line_id: 999999, quantity: 1 }] }),
        [["lines.0.line_id", "not_found"]],
      ],
      [
        "a zero quantity",
        () => ({ lines: [{ line_id: lineId, quantity: 0 }] }),
        [["lines", "nothing_received"]],
      ],
      ["no lines at all", () => ({}), [["lines", "nothing_received"]]],
      ["an unknown location", () => ({ ...ok, location_id: 424242 }), [["location_id", "not_found"]]],
      [
        "a negative quantity",
        () => ({ lines: [{ line_id: lineId, quantity: -1 }] }),
        [["lines.0.quantity", "out_of_range"]],
      ],
      [
        "a fractional quantity",
        () => ({ lines: [{ line_id: lineId, quantity: 1.5 }] }),
        [["lines.0.quantity", "invalid_type"]],
      ],
      [
        "a zero rejected quantity",
        () => ({ lines: [{ line_id: lineId, quantity: 1, rejected: [{ quantity: 0 }] }] }),
        [["lines.0.rejected.0.quantity", "out_of_range"]],
      ],
      [
        "a unit cost with too many decimals",
        () => ({ lines: [{ line_id: lineId, quantity: 1, unit_cost: "1.123456789" }] }),
        [["lines.0.unit_cost", "too_many_decimals"]],
      ],
      ["a zero exchange rate", () => ({ ...ok, exchange_rate: 0 }), [["exchange_rate", "must_be_positive"]]],
      ["a negative exchange rate", () => ({ ...ok, exchange_rate: -1 }), [["exchange_rate", "out_of_range"]]],
      [
        "an exchange rate that rounds to zero",
        () => ({ ...ok, exchange_rate: 1e-13 }),
        [["exchange_rate", "must_be_positive"]],
      ],
      [
        "a unit cost too large",
        () => ({ lines: [{ line_id: lineId, quantity: 1, unit_cost: 1e12 }] }),
        [["lines.0.unit_cost", "out_of_range"]],
      ],
      [
        "an invoice total with too many decimals",
        () => ({ ...ok, invoice_total: "12.345" }),
        [["invoice_total", "too_many_decimals"]],
      ],
      ["an unknown field", () => ({ ...ok, surprise: true }), [["surprise", "unknown_field"]]],
      [
        "an unordered line without a title",
        () => ({ unordered: [{ quantity: 1 }] }),
        [["unordered.0.product_title", "required"]],
      ],
      [
        "an unordered line of an unknown variant",
        () => ({ unordered: [{ variant_id: 999999999, quantity: 1 }] }),
        [["unordered.0.variant_id", "not_found"]],
      ],
      // another store's line and location
      [
        "another store's line",
        () => ({ lines: [{ line_id: foreign.lines[0].id, quantity: 1 }] }),
        [["lines.0.line_id", "not_found"]],
      ],
      [
        "another store's location",
        () => ({ ...ok, location_id: foreign.location.id }),
        [["location_id", "not_found"]],
      ],
    ];
    for (const [name, body, details] of refusals) {
      test(`refused: ${name}`, async () => {
        expectDetails(await receive(order.id, body()), details);
      });
    }

    test("another store's order is 404", async () => {
      const notOurs = await receive(foreign.id, ok);
      expectStatus(notOurs, 404);
      assert.equal(notOurs.body.error.code, "not_found");
    });

    test("a draft was never placed", async () => {
      const draft = await newOrder({ lines: [{ variant_id: v.id, quantity: 1 }], ordered: false });
      expectInvalidTransition(
        await receive(draft.id, { lines: [{ line_id: draft.lines[0].id, quantity: 1 }] }),
        "draft",
      );
    });

    test("the refusals wrote no receipt, moved no stock and left the order as it was", async () => {
      assert.deepEqual(await counts(order.id), { receipts: 0, movements: 0 });
      const after = await getOrder(order.id);
      assert.equal(after.status, "ordered");
      assert.deepEqual(after.lines, order.lines);
      assert.deepEqual(after.receipts, []);
      assert.equal(after.updated_at, order.updated_at);
    });
  });

  test("received and closed orders are refused too", async () => {
    const v = freshVariant();
    const order = await newOrder({ lines: [{ variant_id: v.id, quantity: 5, unit_cost: 2 }] });
    const lineId = order.lines[0].id;
    const ok = { lines: [{ line_id: lineId, quantity: 1 }] };
    expectStatus(await receive(order.id, { lines: [{ line_id: lineId, quantity: 5 }] }), 201);
    expectInvalidTransition(await receive(order.id, ok), "received");
    expectStatus(await store.api.post(`/v2/purchase_orders/${order.id}/close`, {}), 200);
    expectInvalidTransition(await receive(order.id, ok), "closed");
    assert.equal((await counts(order.id)).receipts, 1);
  });
});

describe("landed costs and stock", () => {
  // One order received in two parts, set up once; each aspect is its own test.
  describe("partial then final receipt: value-allocated charges sum exactly, stock and costs reach the platform", () => {
    type Level = Awaited<ReturnType<typeof platform>>;
    let a: Variant;
    let b: Variant;
    let loc: number;
    let levelsBefore: { a: Level; b: Level };
    let incomingOrdered: number;
    let order: any;
    let first: HttpResult;
    let firstAt: string;
    let second: HttpResult;
    let secondAt: string;
    let r1: any;

    before(async () => {
      a = freshVariant();
      b = freshVariant();
      loc = locations[0].id;
      levelsBefore = {
        a: await platform(a.inventory_item_id, loc),
        b: await platform(b.inventory_item_id, loc),
      };
      order = await newOrder({
        location_id: loc,
        lines: [
          { variant_id: a.id, quantity: 10, unit_cost: 10 },
          { variant_id: b.id, quantity: 5, unit_cost: 20, discount_percent: 10 },
        ],
        charges: [
          { kind: "shipping", label: "Freight", amount: 19, allocation_method: "value" },
          { kind: "other", label: "Handling", amount: 5, allocation_method: "none" },
        ],
      });
      await t.drain();
      incomingOrdered = (await platform(a.inventory_item_id, loc)).incoming;
      const [la, lb] = order.lines;
      // Line values 100.00 and 90.00: the freight splits 10.00 / 9.00; handling is not allocated.
      first = await receive(order.id, {
        lines: [
          { line_id: la.id, quantity: 4 },
          { line_id: lb.id, quantity: 5 },
        ],
        invoice_reference: "INV-1",
        invoice_total: "63.00",
        invoice_date: "2030-05-01",
        note: "first pallet",
      });
      firstAt = new Date(clock.now().getTime() - 1000).toISOString();
      expectStatus(first, 201);
      r1 = first.body.data;
      second = await receive(order.id, { lines: [{ line_id: la.id, quantity: 6 }] });
      secondAt = new Date(clock.now().getTime() - 1000).toISOString();
      expectStatus(second, 201);
      await t.drain();
    });

    test("ordering pushes the incoming units", () => {
      assert.equal(incomingOrdered, levelsBefore.a.incoming + 10);
    });

    test("the first receipt: every field, the freight allocated by value, the order partial", () => {
      const [la, lb] = order.lines;
      assert.deepEqual(Object.keys(first.body).sort(), ["data", "purchase_order"]);
      assert.deepEqual(Object.keys(r1).sort(), RECEIPT_FIELDS);
      for (const l of r1.lines) assert.deepEqual(Object.keys(l).sort(), RECEIPT_LINE_FIELDS);
      assert.equal(r1.purchase_order_id, order.id);
      assert.equal(r1.received_at, firstAt);
      assert.equal(r1.voided_at, null);
      assert.equal(r1.source, "api");
      assert.deepEqual(r1.location, { id: loc, name: locations[0].name });
      assert.deepEqual(r1.invoice, { reference: "INV-1", date: "2030-05-01", total: "63.00" });
      assert.equal(r1.exchange_rate, 1);
      assert.equal(r1.rejected_disposition, "replace");
      assert.equal(r1.note, "first pallet");
      assert.equal(r1.platform_sync.state, "pending");
      // a: 10.00 × 4/10 = 4.00 → landed 10 + 1 = 11; b: 9.00 → landed 18 + 1.80 = 19.80
      assert.deepEqual(
        r1.lines.map((l: Record<string, unknown>) => [
          l.line_id,
          l.quantity,
          l.surplus_quantity,
          l.rejected_quantity,
          l.unit_cost,
          l.allocated_charge_amount,
          l.landed_unit_cost,
        ]),
        [
          [la.id, 4, 0, 0, "10.00", "4.00", "11.00"],
          [lb.id, 5, 0, 0, "18.00", "9.00", "19.80"],
        ],
      );
      const po1 = first.body.purchase_order;
      assert.equal(po1.status, "partial");
      assert.equal(po1.received_at, null);
      assert.deepEqual(
        po1.lines.map((l: Record<string, unknown>) => [
          l.received_quantity,
          l.cancelled_quantity,
          l.outstanding_quantity,
        ]),
        [
          [4, 0, 6],
          [5, 0, 0],
        ],
      );
      assert.deepEqual(po1.receipts, [r1]);
    });

    test("the final receipt takes the rest of the freight and receives the order; allocations sum to it", () => {
      const r2 = second.body.data;
      assert.deepEqual(
        r2.lines.map((l: Record<string, unknown>) => [
          l.quantity,
          l.allocated_charge_amount,
          l.landed_unit_cost,
        ]),
        [[6, "6.00", "11.00"]],
      );
      const po2 = second.body.purchase_order;
      assert.equal(po2.status, "received");
      assert.equal(po2.received_at, secondAt);
      const allocated = [...r1.lines, ...r2.lines].reduce(
        (s: number, l: { allocated_charge_amount: string }) =>
          s + Math.round(Number(l.allocated_charge_amount) * 100),
        0,
      );
      assert.equal(allocated, 1900);
    });

    test("history and events: receipt_recorded twice (the order with the receipt beside it), received once", async () => {
      const [la, lb] = order.lines;
      const r2 = second.body.data;
      const po2 = second.body.purchase_order;
      const history = await historyTypes(order.id);
      assert.deepEqual(
        history.map((h) => h.type).filter((x) => x !== "created"),
        ["ordered", "receipt_recorded", "receipt_recorded", "received"],
      );
      assert.deepEqual(history[2].data, {
        receipt_id: r1.id,
        lines: [
          { line_id: la.id, quantity: 4, surplus_quantity: 0, rejected_quantity: 0 },
          { line_id: lb.id, quantity: 5, surplus_quantity: 0, rejected_quantity: 0 },
        ],
        status: { from: "ordered", to: "partial" },
      });
      const events = await eventsOf("purchase_order", order.id);
      const names = events.map((e) => e.name);
      assert.deepEqual(
        names.filter((n) => n !== "purchase_order.created"),
        [
          "purchase_order.ordered",
          "purchase_order.receipt_recorded",
          "purchase_order.receipt_recorded",
          "purchase_order.received",
        ],
      );
      const recorded = events.filter((e) => e.name === "purchase_order.receipt_recorded");
      assert.equal((recorded[0].data as { status: string }).status, "partial");
      assert.deepEqual(recorded[0].extra, { receipt: r1 });
      assert.deepEqual(recorded[1].extra, { receipt: r2 });
      assert.deepEqual(events.at(-1)?.data, po2);
    });

    test("the platform: good units on hand, incoming back where it was, landed cost set; the price untouched", async () => {
      const before = levelsBefore;
      const nowA = await platform(a.inventory_item_id, loc);
      const nowB = await platform(b.inventory_item_id, loc);
      assert.deepEqual(
        [nowA.available, nowA.on_hand, nowA.incoming],
        [before.a.available + 10, before.a.on_hand + 10, before.a.incoming],
      );
      assert.deepEqual(
        [nowB.available, nowB.on_hand, nowB.incoming],
        [before.b.available + 5, before.b.on_hand + 5, before.b.incoming],
      );
      assert.equal(Number(nowA.unit_cost), 11);
      assert.equal(Number(nowB.unit_cost), 19.8);
      const synced = await store.api.get(`/v2/purchase_orders/${order.id}/receipts/${r1.id}`);
      expectStatus(synced, 200);
      assert.equal(synced.body.data.platform_sync.state, "synced");
      // the selling price is never touched
      const variant = await store.api.get(`/v2/variants/${a.id}`);
      const platformVariant = variants.find((x) => x.id === a.id) as unknown as { price: string };
      assert.equal(variant.body.data.price, platformVariant.price);
    });
  });

  describe("each allocation method through HTTP, in a foreign currency converted into the store's", () => {
    let a: Variant;
    let c: Variant;
    let order: any;
    let res: HttpResult;
    before(async () => {
      let b: Variant;
      [a, b, c] = [freshVariant(), freshVariant(), freshVariant()];
      // EUR order at the store's rate 1.2. Lines: a 10 × 10.00 (200 g), b 5 × 20.00 −10 % (100 g), c 2 × 5.00 (1000 g)
      order = await newOrder({
        supplier_id: eurSupplierId,
        lines: [
          { variant_id: a.id, quantity: 10, unit_cost: 10, weight_grams: 200 },
          { variant_id: b.id, quantity: 5, unit_cost: 20, discount_percent: 10, weight_grams: 100 },
          { variant_id: c.id, quantity: 2, unit_cost: 5, weight_grams: 1000 },
        ],
        charges: [
          { kind: "shipping", amount: 20, allocation_method: "value" }, // 100/90/10 of 200 → 10.00 / 9.00 / 1.00
          { kind: "other", amount: 17, allocation_method: "quantity" }, // 10/5/2 → 10.00 / 5.00 / 2.00
          { kind: "other", amount: 45, allocation_method: "weight" }, // 2000/500/2000 → 20.00 / 5.00 / 20.00
          {
            kind: "other",
            amount: 10,
            allocation_method: "custom",
            custom_split: [
              { position: 1, amount: 7 },
              { position: 3, amount: 3 },
            ],
          }, // 7.00 / 0 / 3.00
          { kind: "other", amount: 99, allocation_method: "none" },
        ],
      });
      res = await receive(order.id, {
        lines: order.lines.map((l: { id: number; quantity: number }) => ({
          line_id: l.id,
          quantity: l.quantity,
        })),
      });
      await t.drain();
    });

    test("the order is in EUR at the store's rate", () => {
      assert.equal(order.currency, "EUR");
      assert.equal(order.exchange_rate.rate, 1.2);
    });

    test("value, quantity, weight, custom and none shares add up per line; landed costs in the store's currency", () => {
      expectStatus(res, 201);
      // a: 10 + 10 + 20 + 7 = 47.00 over 10 → (10 + 4.70) × 1.2 = 17.64
      // b: 9 + 5 + 5 + 0 = 19.00 over 5 → (18 + 3.80) × 1.2 = 26.16
      // c: 1 + 2 + 20 + 3 = 26.00 over 2 → (5 + 13) × 1.2 = 21.60
      assert.deepEqual(
        res.body.data.lines.map((l: Record<string, unknown>) => [
          l.unit_cost,
          l.allocated_charge_amount,
          l.landed_unit_cost,
        ]),
        [
          ["10.00", "47.00", "17.64"],
          ["18.00", "19.00", "26.16"],
          ["5.00", "26.00", "21.60"],
        ],
      );
      assert.equal(res.body.data.exchange_rate, 1.2);
    });

    test("the landed cost reaches the platform", async () => {
      const pushed = await platform(c.inventory_item_id, order.location.id);
      assert.equal(Number(pushed.unit_cost), 21.6);
    });

    test("a receipt's own exchange rate and unit cost override the order's", async () => {
      // (9 + 4.70) × 1.5 = 20.55 (share still 47.00)
      const again = await newOrder({
        supplier_id: eurSupplierId,
        lines: [{ variant_id: a.id, quantity: 10, unit_cost: 10 }],
        charges: [{ kind: "shipping", amount: 47, allocation_method: "value" }],
      });
      const own = await receive(again.id, {
        exchange_rate: 1.5,
        lines: [{ line_id: again.lines[0].id, quantity: 10, unit_cost: 9 }],
      });
      expectStatus(own, 201);
      assert.deepEqual(
        own.body.data.lines.map((l: Record<string, unknown>) => [
          l.unit_cost,
          l.allocated_charge_amount,
          l.landed_unit_cost,
        ]),
        [["9.00", "47.00", "20.55"]],
      );
      assert.equal(own.body.data.exchange_rate, 1.5);
    });
  });

  // One order received with a surplus, then rejects replaced, then rejects removed; set up once.
  describe("surplus and both rejected dispositions", () => {
    type Levels = Record<"a" | "b" | "c", Awaited<ReturnType<typeof platform>>>;
    let replace: HttpResult;
    let remove: HttpResult;
    let levelsBefore: Levels;
    let levelsAfter: Levels;

    before(async () => {
      const [a, b, c] = [freshVariant(), freshVariant(), freshVariant()];
      const loc = locations[0].id;
      const levels = async () => ({
        a: await platform(a.inventory_item_id, loc),
        b: await platform(b.inventory_item_id, loc),
        c: await platform(c.inventory_item_id, loc),
      });
      levelsBefore = await levels();
      const order = await newOrder({
        location_id: loc,
        lines: [
          { variant_id: a.id, quantity: 10, unit_cost: 3 },
          { variant_id: b.id, quantity: 10, unit_cost: 3 },
          { variant_id: c.id, quantity: 10, unit_cost: 3 },
        ],
      });
      const [la, lb, lc] = order.lines;
      // a: 12 good (2 surplus); b: 6 good, 3 rejected, replaced (still outstanding)
      replace = await receive(order.id, {
        lines: [
          { line_id: la.id, quantity: 12 },
          { line_id: lb.id, quantity: 6, rejected: [{ quantity: 2, reason: "crushed" }, { quantity: 1 }] },
        ],
      });
      expectStatus(replace, 201);
      // c: 5 good, 4 rejected and removed → cancelled 4, outstanding 1; b: 4 rejected removed → completes it
      remove = await receive(order.id, {
        rejected_disposition: "remove",
        lines: [
          { line_id: lc.id, quantity: 5, rejected: [{ quantity: 4, reason: "wrong colour" }] },
          { line_id: lb.id, quantity: 0, rejected: [{ quantity: 4, reason: null }] },
        ],
      });
      expectStatus(remove, 201);
      await t.drain();
      levelsAfter = await levels();
    });

    test("a surplus is received beyond the line; replaced rejects stay outstanding and are stored with reasons", async () => {
      assert.deepEqual(
        replace.body.data.lines.map((l: Record<string, number>) => [
          l.quantity,
          l.surplus_quantity,
          l.rejected_quantity,
        ]),
        [
          [12, 2, 0],
          [6, 0, 3],
        ],
      );
      assert.deepEqual(
        replace.body.purchase_order.lines.map((l: Record<string, number>) => [
          l.received_quantity,
          l.cancelled_quantity,
          l.outstanding_quantity,
        ]),
        [
          [12, 0, 0],
          [6, 0, 4],
          [0, 0, 10],
        ],
      );
      const stored = await t.runtime.ctx.db
        .selectFrom("receipt_lines")
        .select(["rejected", "outstanding_before"])
        .where("receipt_id", "=", replace.body.data.id)
        .orderBy("id")
        .execute();
      assert.deepEqual(stored[1], {
        rejected: [
          { quantity: 2, reason: "crushed" },
          { quantity: 1, reason: null },
        ],
        outstanding_before: 10,
      });
    });

    test("removed rejects cancel their units: a line completes, another keeps one outstanding", () => {
      assert.equal(remove.body.data.rejected_disposition, "remove");
      assert.deepEqual(
        remove.body.purchase_order.lines.map((l: Record<string, number>) => [
          l.received_quantity,
          l.cancelled_quantity,
          l.outstanding_quantity,
        ]),
        [
          [12, 0, 0],
          [6, 4, 0],
          [5, 4, 1],
        ],
      );
      assert.equal(remove.body.purchase_order.status, "partial");
    });

    test("the platform: surplus goes to stock, incoming comes off only by what was outstanding", () => {
      const [before, now] = [levelsBefore, levelsAfter];
      assert.equal(now.a.available, before.a.available + 12);
      assert.equal(now.a.incoming, before.a.incoming);
      // b: 6 received and 4 removed → nothing incoming left; c: 5 received, 4 removed, 1 still incoming
      assert.deepEqual([now.b.available, now.b.incoming], [before.b.available + 6, before.b.incoming]);
      assert.deepEqual([now.c.available, now.c.incoming], [before.c.available + 5, before.c.incoming + 1]);
    });
  });

  test("a receipt at another location, backdated, with invoice, rate and lots answers the order as stored", async () => {
    // No unordered lines: the answer is built from what the receipt read and wrote (receive() compares
    // it and the event with GET), here with every optional field set and an earlier receipt voided.
    const [a, b] = [freshVariant(), freshVariant()];
    const [home, away] = [locations[0].id, locations[1].id];
    const order = await newOrder({
      location_id: home,
      lines: [
        { variant_id: a.id, quantity: 6, unit_cost: 2.5 },
        { variant_id: b.id, quantity: 3, unit_cost: 4, location_id: away },
      ],
      charges: [{ kind: "shipping", amount: "7.00", allocation_method: "quantity" }],
    });
    const first = await receive(order.id, { lines: [{ line_id: order.lines[0].id, quantity: 1 }] });
    expectStatus(first, 201);
    expectStatus(
      await store.api.post(`/v2/purchase_orders/${order.id}/receipts/${first.body.data.id}/void`, {}, key()),
      200,
    );
    tick();
    const res = await receive(order.id, {
      location_id: away,
      route_to_destinations: true,
      received_at: "2030-05-01",
      invoice_reference: "INV-77",
      invoice_date: "2030-04-30",
      invoice_total: "20.50",
      exchange_rate: 1.25,
      note: "partial, dock 2",
      rejected_disposition: "remove",
      lines: [
        {
          line_id: order.lines[0].id,
          quantity: 2,
          lot_number: "L-1",
          lot_expiry: "2031-02-28",
          bin_location: "B-2",
        },
        { line_id: order.lines[1].id, quantity: 1, rejected: [{ quantity: 1, reason: "dented" }] },
      ],
    });
    expectStatus(res, 201);
    const receipt = res.body.data;
    assert.deepEqual(
      [receipt.location.id, receipt.received_at, receipt.invoice, receipt.exchange_rate, receipt.note],
      [
        away,
        "2030-05-01T00:00:00.000Z",
        { reference: "INV-77", date: "2030-04-30", total: "20.50" },
        1.25,
        "partial, dock 2",
      ],
    );
    assert.equal(res.body.purchase_order.receipts.length, 2);
    assert.equal(res.body.purchase_order.status, "partial");
  });

  // One receipt with every optional part, set up once; each part is its own test.
  describe("unordered lines, route_to_destinations, received_at, lot fields", () => {
    type Levels = Record<"aAway" | "bHome" | "extraHome", Awaited<ReturnType<typeof platform>>>;
    let extra: Variant;
    let home: number;
    let away: number;
    let order: any;
    let res: HttpResult;
    let levelsBefore: Levels;
    let levelsAfter: Levels;

    before(async () => {
      const [a, b] = [freshVariant(), freshVariant()];
      extra = freshVariant();
      [home, away] = [locations[0].id, locations[1].id];
      const levels = async () => ({
        aAway: await platform(a.inventory_item_id, away),
        bHome: await platform(b.inventory_item_id, home),
        extraHome: await platform(extra.inventory_item_id, home),
      });
      levelsBefore = await levels();
      order = await newOrder({
        location_id: home,
        lines: [
          { variant_id: a.id, quantity: 4, unit_cost: 2, location_id: away },
          { variant_id: b.id, quantity: 4, unit_cost: 2 },
        ],
      });
      res = await receive(order.id, {
        route_to_destinations: true,
        received_at: "2030-05-02",
        lines: [
          {
            line_id: order.lines[0].id,
            quantity: 4,
            bin_location: "A-1",
            lot_number: "LOT-9",
            lot_expiry: "2031-01-31",
            lot_manufactured: "2030-01-01",
            lot_id: 77,
          },
          { line_id: order.lines[1].id, quantity: 2 },
        ],
        unordered: [
          { variant_id: extra.id, quantity: 3, unit_cost: 1.5 },
          { product_title: "Free sample", sku: "FS-1", quantity: 1 },
        ],
      });
      expectStatus(res, 201);
      await t.drain();
      levelsAfter = await levels();
    });

    test("unordered lines join the order as received lines; received_at as a date is the day's start", () => {
      const po = res.body.purchase_order;
      assert.equal(po.lines.length, 4);
      const [, , added, sample] = po.lines;
      assert.deepEqual(
        [
          added.position,
          added.variant_id,
          added.quantity,
          added.received_quantity,
          added.outstanding_quantity,
          added.unit_cost,
        ],
        [3, extra.id, 3, 3, 0, "1.50"],
      );
      assert.deepEqual(
        [sample.product_title, sample.sku, sample.inventory_item_id, sample.unit_cost],
        ["Free sample", "FS-1", null, "0.00"],
      );
      assert.equal(po.totals.subtotal, "20.50");
      assert.deepEqual(
        res.body.data.lines.map((l: Record<string, unknown>) => [
          l.line_id,
          l.quantity,
          l.surplus_quantity,
          l.landed_unit_cost,
        ]),
        [
          [order.lines[0].id, 4, 0, "2.00"],
          [order.lines[1].id, 2, 0, "2.00"],
          [added.id, 3, 0, "1.50"],
          [sample.id, 1, 0, "0.00"],
        ],
      );
      // received_at given as a date: the start of that day in the store's timezone (UTC here)
      assert.equal(res.body.data.received_at, "2030-05-02T00:00:00.000Z");
      assert.equal(po.status, "partial");
    });

    test("lot fields and each line's routed location are stored on the receipt lines", async () => {
      const stored = await t.runtime.ctx.db
        .selectFrom("receipt_lines")
        .select([
          "bin_location",
          "lot_number",
          "lot_expiry",
          "lot_manufactured",
          "lot_id",
          "location_id",
          "unordered",
        ])
        .where("receipt_id", "=", res.body.data.id)
        .orderBy("id")
        .execute();
      assert.deepEqual(stored[0], {
        bin_location: "A-1",
        lot_number: "LOT-9",
        lot_expiry: "2031-01-31",
        lot_manufactured: "2030-01-01",
        lot_id: 77,
        location_id: away,
        unordered: false,
      });
      assert.deepEqual(
        stored.map((s) => [s.location_id, s.unordered]),
        [
          [away, false],
          [home, false],
          [home, true],
          [home, true],
        ],
      );
    });

    test("with route_to_destinations the stock reaches each line's own location", () => {
      assert.equal(levelsAfter.aAway.available, levelsBefore.aAway.available + 4);
      assert.equal(levelsAfter.bHome.available, levelsBefore.bHome.available + 2);
      assert.equal(levelsAfter.extraHome.available, levelsBefore.extraHome.available + 3);
    });
  });

  test("an order not updating stock: the receipt is booked, nothing moves", async () => {
    const a = freshVariant();
    const quiet = await newOrder({
      updates_stock: false,
      lines: [{ variant_id: a.id, quantity: 2, unit_cost: 1 }],
    });
    const booked = await receive(quiet.id, { lines: [{ line_id: quiet.lines[0].id, quantity: 2 }] });
    expectStatus(booked, 201);
    assert.equal(booked.body.purchase_order.status, "received");
    assert.deepEqual(booked.body.data.platform_sync, { state: "synced", attempted_at: null, error: null });
    assert.equal((await counts(quiet.id)).movements, 0);
  });
});

describe("replays", () => {
  test("the same key replays the first response, creates nothing and moves no stock", async () => {
    const a = freshVariant();
    const loc = locations[0].id;
    const order = await newOrder({
      location_id: loc,
      lines: [{ variant_id: a.id, quantity: 6, unit_cost: 4 }],
    });
    const body = { lines: [{ line_id: order.lines[0].id, quantity: 2 }] };
    const headers = key();
    const first = await receive(order.id, body, headers);
    expectStatus(first, 201);
    await t.drain();
    const level = await platform(a.inventory_item_id, loc);
    const replay = await receive(order.id, body, headers);
    expectStatus(replay, 201);
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assert.deepEqual(replay.body, first.body);
    const reused = await receive(order.id, { lines: [{ line_id: order.lines[0].id, quantity: 3 }] }, headers);
    expectStatus(reused, 409);
    assert.equal(reused.body.error.code, "idempotency_key_reused");
    await t.drain();
    assert.deepEqual(await platform(a.inventory_item_id, loc), level);
    assert.deepEqual(await counts(order.id), { receipts: 1, movements: 1 });
    assert.equal((await getOrder(order.id)).lines[0].received_quantity, 2);
    const recorded = (await eventsOf("purchase_order", order.id)).filter(
      (e) => e.name === "purchase_order.receipt_recorded",
    );
    assert.equal(recorded.length, 1);
  });

  test("a long answer is stored deflated under its seal and replays byte for byte", async () => {
    const loc = locations[0].id;
    const order = await newOrder({
      location_id: loc,
      lines: Array.from({ length: 12 }, () => ({ variant_id: freshVariant().id, quantity: 5, unit_cost: 2 })),
    });
    const body = { lines: order.lines.map((l: { id: number }) => ({ line_id: l.id, quantity: 1 })) };
    const headers = key();
    const first = await receive(order.id, body, headers);
    expectStatus(first, 201);
    assert.ok(first.raw.body.length >= COMPRESS_FROM, `an answer of ${first.raw.body.length} characters`);
    const stored = await t.runtime.ctx.db
      .selectFrom("idempotency_keys")
      .select("response_body")
      .where("key", "=", headers["idempotency-key"])
      .executeTakeFirstOrThrow();
    // Sealed as it is, the answer would be a third longer (base64); deflated, a fraction of it.
    assert.ok(
      stored.response_body!.length < first.raw.body.length / 2,
      `stored ${stored.response_body!.length} characters for an answer of ${first.raw.body.length}`,
    );
    const replay = await receive(order.id, body, headers);
    expectStatus(replay, 201);
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assert.equal(replay.raw.body, first.raw.body);
  });
});

describe("void", () => {
  /**
   * An order of two variants at the second location, one partial receipt (r1), a final one with a
   * surplus (r2), then r2 voided with a note; levels on the platform at each step.
   */
  async function receivedThenVoided() {
    const [a, b] = [freshVariant(), freshVariant()];
    const loc = locations[1].id;
    const level = async () => ({
      a: await platform(a.inventory_item_id, loc),
      b: await platform(b.inventory_item_id, loc),
    });
    const start = await level();
    const order = await newOrder({
      location_id: loc,
      lines: [
        { variant_id: a.id, quantity: 5, unit_cost: 2 },
        { variant_id: b.id, quantity: 3, unit_cost: 2 },
      ],
      charges: [{ amount: 8, allocation_method: "quantity" }],
    });
    await t.drain();
    const placed = await level();
    const r1 = await receive(order.id, { lines: [{ line_id: order.lines[0].id, quantity: 2 }] });
    const r2 = await receive(order.id, {
      lines: [
        { line_id: order.lines[0].id, quantity: 4 }, // 3 outstanding + 1 surplus
        { line_id: order.lines[1].id, quantity: 3 },
      ],
    });
    expectStatus(r2, 201);
    await t.drain();
    const received = await level();
    const voided = await store.api.post(`/v2/purchase_orders/${order.id}/receipts/${r2.body.data.id}/void`, {
      note: "wrong order",
    });
    const voidedAt = clock.now().toISOString();
    tick();
    expectStatus(voided, 200);
    await t.drain();
    const after = await level();
    return { order, level, start, placed, r1, r2, received, voided, voidedAt, after };
  }

  describe("reverses the receipt's stock exactly, re-derives the status, emits receipt.voided; refusals", () => {
    let story: Awaited<ReturnType<typeof receivedThenVoided>>;
    before(async () => {
      story = await receivedThenVoided();
    });

    test("before the void: placing pushed incoming, the receipts received the order and moved stock", () => {
      const { start, placed, r2, received } = story;
      assert.equal(placed.a.incoming, start.a.incoming + 5);
      assert.equal(r2.body.purchase_order.status, "received");
      assert.equal(received.a.available, placed.a.available + 6);
      assert.equal(received.a.incoming, start.a.incoming);
    });

    test("the void answers the receipt, voided, and the order partial again", () => {
      const { r2, voided, voidedAt } = story;
      assert.deepEqual(Object.keys(voided.body).sort(), ["data", "purchase_order"]);
      const v = voided.body.data;
      assert.equal(v.voided_at, voidedAt);
      assert.deepEqual(v.lines, r2.body.data.lines);
      assert.equal(v.platform_sync.state, "pending");
      const po = voided.body.purchase_order;
      assert.equal(po.status, "partial");
      assert.equal(po.received_at, null);
      assert.deepEqual(
        po.lines.map((l: Record<string, number>) => [l.received_quantity, l.outstanding_quantity]),
        [
          [2, 3],
          [0, 3],
        ],
      );
    });

    test("the platform is exactly as after the first receipt", () => {
      const { placed, after } = story;
      // exactly as after the first receipt: 2 of a in stock, 3 of a and 3 of b incoming again
      assert.deepEqual(
        [after.a.available, after.a.on_hand, after.a.incoming],
        [placed.a.available + 2, placed.a.on_hand + 2, placed.a.incoming - 2],
      );
      assert.deepEqual(
        [after.b.available, after.b.on_hand, after.b.incoming],
        [placed.b.available, placed.b.on_hand, placed.b.incoming],
      );
    });

    test("receipt.voided carries the receipt and the order; the order emits updated and records receipt_voided", async () => {
      const { order, r2, voided } = story;
      const v = voided.body.data;
      const po = voided.body.purchase_order;
      const events = await eventsOf("receipt", r2.body.data.id);
      assert.deepEqual(
        events.map((e) => e.name),
        ["receipt.voided"],
      );
      assert.deepEqual(events[0].data, { ...v, purchase_order: po });
      const orderEvents = (await eventsOf("purchase_order", order.id)).map((e) => e.name);
      assert.equal(orderEvents.at(-1), "purchase_order.updated");
      const history = await historyTypes(order.id);
      assert.deepEqual(history.at(-1), {
        ...history.at(-1),
        type: "receipt_voided",
        data: {
          receipt_id: r2.body.data.id,
          note: "wrong order",
          status: { from: "received", to: "partial" },
        },
      });
    });

    test("voiding again is refused; an unknown receipt or another store's is 404", async () => {
      const { order, r1, r2 } = story;
      const again = await store.api.post(
        `/v2/purchase_orders/${order.id}/receipts/${r2.body.data.id}/void`,
        {},
      );
      expectInvalidTransition(again, "voided");
      expectStatus(await store.api.post(`/v2/purchase_orders/${order.id}/receipts/999999/void`, {}), 404);
      expectStatus(
        await other.api.post(`/v2/purchase_orders/${order.id}/receipts/${r1.body.data.id}/void`, {}),
        404,
      );
    });
  });

  test("re-receiving after a void allocates the charges again, exactly", async () => {
    const { order, r1 } = await receivedThenVoided();
    const r3 = await receive(order.id, {
      lines: [
        { line_id: order.lines[0].id, quantity: 3 },
        { line_id: order.lines[1].id, quantity: 3 },
      ],
    });
    expectStatus(r3, 201);
    assert.equal(r3.body.purchase_order.status, "received");
    const live = [r1.body.data, r3.body.data].flatMap((r) => r.lines);
    assert.equal(
      live.reduce(
        (s: number, l: { allocated_charge_amount: string }) => s + Number(l.allocated_charge_amount) * 100,
        0,
      ),
      800,
    );
  });

  test("a closed order must be reopened before a void; voiding every receipt goes back to ordered, stock as placed", async () => {
    const { order, level, placed, r1 } = await receivedThenVoided();
    const r3 = await receive(order.id, {
      lines: [
        { line_id: order.lines[0].id, quantity: 3 },
        { line_id: order.lines[1].id, quantity: 3 },
      ],
    });
    expectStatus(r3, 201);
    expectStatus(await store.api.post(`/v2/purchase_orders/${order.id}/close`, {}), 200);
    expectInvalidTransition(
      await store.api.post(`/v2/purchase_orders/${order.id}/receipts/${r1.body.data.id}/void`),
      "closed",
    );
    expectStatus(await store.api.post(`/v2/purchase_orders/${order.id}/reopen`, {}), 200);
    expectStatus(
      await store.api.post(`/v2/purchase_orders/${order.id}/receipts/${r3.body.data.id}/void`),
      200,
    );
    const last = await store.api.post(`/v2/purchase_orders/${order.id}/receipts/${r1.body.data.id}/void`);
    expectStatus(last, 200);
    assert.equal(last.body.purchase_order.status, "ordered");
    await t.drain();
    const end = await level();
    assert.deepEqual(end, {
      a: { ...placed.a, unit_cost: end.a.unit_cost },
      b: { ...placed.b, unit_cost: end.b.unit_cost },
    });
  });

  test("voiding a receipt that added unordered lines takes them back to nothing and out of the totals, and restores the removed rejects", async () => {
    const [a, extra] = [freshVariant(), freshVariant()];
    const order = await newOrder({ lines: [{ variant_id: a.id, quantity: 5, unit_cost: 2 }] });
    const res = await receive(order.id, {
      rejected_disposition: "remove",
      lines: [{ line_id: order.lines[0].id, quantity: 2, rejected: [{ quantity: 1, reason: "bent" }] }],
      unordered: [{ variant_id: extra.id, quantity: 2, unit_cost: 3 }],
    });
    expectStatus(res, 201);
    const shape = (po: { lines: Record<string, unknown>[]; totals: Record<string, unknown> }) => ({
      lines: po.lines.map((l) => [
        l.quantity,
        l.received_quantity,
        l.cancelled_quantity,
        l.outstanding_quantity,
        l.line_total,
      ]),
      totals: [po.totals.subtotal, po.totals.total],
    });
    assert.deepEqual(shape(res.body.purchase_order), {
      lines: [
        [5, 2, 1, 2, "10.00"],
        [2, 2, 0, 0, "6.00"],
      ],
      totals: ["16.00", "16.00"],
    });
    const voided = await store.api.post(`/v2/purchase_orders/${order.id}/receipts/${res.body.data.id}/void`);
    expectStatus(voided, 200);
    assert.equal(voided.body.purchase_order.status, "ordered");
    // Nothing of the extra item was ordered or is received any more: the line stays (the voided
    // receipt names it) at nothing, and the order costs what it cost before the delivery.
    assert.deepEqual(shape(voided.body.purchase_order), {
      lines: [
        [5, 0, 0, 5, "10.00"],
        [0, 0, 0, 0, "0.00"],
      ],
      totals: ["10.00", "10.00"],
    });
    assert.deepEqual(voided.body.purchase_order, await getOrder(order.id));
    const updated = (await eventsOf("purchase_order", order.id)).filter(
      (e) => e.name === "purchase_order.updated",
    );
    assert.deepEqual(updated.at(-1)?.data, voided.body.purchase_order);
    // A copy of the order orders what was ordered, not the item the voided delivery brought.
    const copy = await store.api.post(`/v2/purchase_orders/${order.id}/duplicate`);
    expectStatus(copy, 201);
    assert.deepEqual(
      copy.body.data.lines.map((l: { variant_id: number; quantity: number }) => [l.variant_id, l.quantity]),
      [[a.id, 5]],
    );
  });

  test("a paid order whose total an unordered line raised is paid again once that receipt is voided", async () => {
    const a = freshVariant();
    const order = await newOrder({ lines: [{ variant_id: a.id, quantity: 4, unit_cost: 2.5 }] });
    expectStatus(await store.api.post(`/v2/purchase_orders/${order.id}/mark_paid`), 200);
    tick();
    const res = await receive(order.id, {
      lines: [{ line_id: order.lines[0].id, quantity: 4 }],
      unordered: [{ product_title: "Bonus", quantity: 1, unit_cost: 5 }],
    });
    expectStatus(res, 201);
    assert.deepEqual(
      [res.body.purchase_order.totals.total, res.body.purchase_order.payment_status],
      ["15.00", "partial"],
    );
    const voided = await store.api.post(`/v2/purchase_orders/${order.id}/receipts/${res.body.data.id}/void`);
    expectStatus(voided, 200);
    assert.deepEqual(
      [voided.body.purchase_order.totals.total, voided.body.purchase_order.payment_status],
      ["10.00", "paid"],
    );
  });
});

describe("GET receipts", () => {
  test("the list pages oldest first; one receipt; 404s", async () => {
    const a = freshVariant();
    const order = await newOrder({ lines: [{ variant_id: a.id, quantity: 9, unit_cost: 1 }] });
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await receive(order.id, { lines: [{ line_id: order.lines[0].id, quantity: 1 }] });
      expectStatus(r, 201);
      ids.push(r.body.data.id);
    }
    const page1 = await store.api.get(`/v2/purchase_orders/${order.id}/receipts?limit=2`);
    expectStatus(page1, 200);
    assert.deepEqual(Object.keys(page1.body).sort(), ["data", "has_more", "next_cursor"]);
    assert.deepEqual(
      page1.body.data.map((r: { id: number }) => r.id),
      ids.slice(0, 2),
    );
    assert.equal(page1.body.has_more, true);
    const page2 = await store.api.get(
      `/v2/purchase_orders/${order.id}/receipts?limit=2&cursor=${encodeURIComponent(page1.body.next_cursor)}`,
    );
    expectStatus(page2, 200);
    assert.deepEqual(
      page2.body.data.map((r: { id: number }) => r.id),
      ids.slice(2),
    );
    assert.deepEqual(page2.body, { data: page2.body.data, has_more: false, next_cursor: null });
    const one = await store.api.get(`/v2/purchase_orders/${order.id}/receipts/${ids[1]}`);
    expectStatus(one, 200);
    assert.deepEqual(one.body, { data: page1.body.data[1] });
    assert.deepEqual((await getOrder(order.id)).receipts, [...page1.body.data, ...page2.body.data]);
    expectStatus(await store.api.get(`/v2/purchase_orders/${order.id}/receipts/999999`), 404);
    expectStatus(await other.api.get(`/v2/purchase_orders/${order.id}/receipts`), 404);
    expectStatus(await other.api.get(`/v2/purchase_orders/${order.id}/receipts/${ids[0]}`), 404);
    const bad = await store.api.get(`/v2/purchase_orders/${order.id}/receipts?cursor=nope`);
    expectStatus(bad, 400);
    assert.equal(bad.body.error.code, "invalid_cursor");
  });
});

describe("POST /v2/purchase_orders/{id}/receipts/preview: shows what would be booked, writes nothing, needs no key", () => {
  let a: Variant;
  let b: Variant;
  let order: any;
  let body: Record<string, unknown>;
  let preview: HttpResult;
  before(async () => {
    [a, b] = [freshVariant(), freshVariant()];
    order = await newOrder({
      lines: [
        { variant_id: a.id, quantity: 10, unit_cost: 10 },
        { variant_id: b.id, quantity: 5, unit_cost: 20, discount_percent: 10 },
      ],
      charges: [{ amount: 19, allocation_method: "value" }],
    });
    body = {
      rejected_disposition: "remove",
      lines: [
        { line_id: order.lines[0].id, quantity: 12 },
        { line_id: order.lines[1].id, quantity: 3, rejected: [{ quantity: 1, reason: "torn" }] },
      ],
      unordered: [{ product_title: "Bonus", quantity: 1, unit_cost: 1 }],
    };
    preview = await store.api.post(`/v2/purchase_orders/${order.id}/receipts/preview`, body);
  });

  test("an unsaved receipt (no id) for the order and the status it would leave", () => {
    expectStatus(preview, 200);
    assert.equal(preview.body.purchase_order_status_after, "partial");
    assert.equal(preview.body.data.id, null);
    assert.equal(preview.body.data.purchase_order_id, order.id);
  });

  test("each line with its surplus, rejects, allocated charge and landed cost", () => {
    // b expects 4 now: values 100 / 72 → 19 × 100/172 = 11.05, 19 × 72/172 = 7.95; b: 3 of 4 → 5.96
    assert.deepEqual(
      preview.body.data.lines.map((l: Record<string, unknown>) => [
        l.line_id,
        l.quantity,
        l.surplus_quantity,
        l.rejected_quantity,
        l.allocated_charge_amount,
        l.landed_unit_cost,
        l.unordered,
        l.cancelled_quantity_added,
      ]),
      [
        [order.lines[0].id, 12, 2, 0, "11.05", "10.92083333", false, 0],
        [order.lines[1].id, 3, 0, 1, "5.96", "19.98666667", false, 1],
        [null, 1, 0, 0, "0.00", "1.00", true, 0],
      ],
    );
  });

  test("the stock movements it would make", () => {
    assert.deepEqual(
      preview.body.stock_movements.map((m: Record<string, unknown>) => [
        m.inventory_item_id,
        m.available_delta,
        m.incoming_delta,
      ]),
      [
        [a.inventory_item_id, 12, -10],
        [b.inventory_item_id, 3, -4],
      ],
    );
  });

  test("a read-only key may preview, with the same answer; nothing is written", async () => {
    const reader = await store.keyWithScopes(["read"]);
    const again = await reader.post(`/v2/purchase_orders/${order.id}/receipts/preview`, body);
    expectStatus(again, 200);
    assert.deepEqual(again.body, preview.body);
    assert.deepEqual(await counts(order.id), { receipts: 0, movements: 0 });
    assert.deepEqual((await getOrder(order.id)).lines, order.lines);
  });

  test("the real receipt books the same numbers", async () => {
    const real = await receive(order.id, body);
    expectStatus(real, 201);
    assert.deepEqual(
      real.body.data.lines.map((l: Record<string, unknown>) => [
        l.quantity,
        l.allocated_charge_amount,
        l.landed_unit_cost,
      ]),
      preview.body.data.lines.map((l: Record<string, unknown>) => [
        l.quantity,
        l.allocated_charge_amount,
        l.landed_unit_cost,
      ]),
    );
  });

  test("refusals are the real call's: a draft, an unknown line", async () => {
    const draft = await newOrder({ lines: [{ variant_id: a.id, quantity: 1 }], ordered: false });
    expectInvalidTransition(
      await store.api.post(`/v2/purchase_orders/${draft.id}/receipts/preview`, {
        lines: [{ line_id: draft.lines[0].id, quantity: 1 }],
      }),
      "draft",
    );
    expectDetails(
      await store.api.post(`/v2/purchase_orders/${order.id}/receipts/preview`, {
        lines: [{ line_id: 1, quantity: 1 }],
      }),
      [["lines.0.line_id", "not_found"]],
    );
  });
});
