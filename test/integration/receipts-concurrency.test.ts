import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import { createOrderedOrder, platformLevel } from "../helpers/factories.ts";

/**
 * Receipts posted at the same time for the same order, with different keys. The order row is locked
 * (FOR UPDATE) before anything is read, so on PostgreSQL the receipts run one after the other and each
 * sees what the previous one booked (on PGlite requests serialize anyway): no negative outstanding,
 * no unit counted twice, one purchase_order.received, charges allocated exactly, and the platform's
 * levels match what was booked.
 */

let t: TestApp;
let store: TestStore;
let supplierId: number;
let items: { id: number; inventory_item_id: number }[];
let locationId: number;
let keyCounter = 0;

const placed = (lines: Record<string, unknown>[], charges: Record<string, unknown>[] = []) =>
  createOrderedOrder(store.api, { supplier_id: supplierId, location_id: locationId, lines, charges });

const receive = (orderId: number, lines: { line_id: number; quantity: number }[]) =>
  store.api.post(
    `/v2/purchase_orders/${orderId}/receipts`,
    { lines },
    { "idempotency-key": `c-${++keyCounter}` },
  );

async function platform(itemId: number) {
  const { available, incoming } = await platformLevel(t, store.id, itemId, locationId);
  return { available, incoming };
}

async function receivedEvents(orderId: number) {
  const rows = await t.runtime.ctx.db
    .selectFrom("events")
    .select("name")
    .where("subject_type", "=", "purchase_order")
    .where("subject_id", "=", orderId)
    .where("name", "in", ["purchase_order.received", "purchase_order.receipt_recorded"])
    .execute();
  return {
    received: rows.filter((r) => r.name === "purchase_order.received").length,
    recorded: rows.filter((r) => r.name === "purchase_order.receipt_recorded").length,
  };
}

before(async () => {
  t = await startTestApp();
  store = await t.createStore({ seed: "demo" });
  await t.drain();
  const s = await store.api.post("/v2/suppliers", { name: "Race Supply", currency: "USD" });
  expectStatus(s, 201);
  supplierId = s.body.data.id;
  const v = await store.api.get("/v2/variants?limit=250");
  items = (v.body.data as { id: number; inventory_item_id: number; inventory_tracked: boolean }[]).filter(
    (x) => x.inventory_tracked,
  );
  locationId = (await store.api.get("/v2/locations")).body.data[0].id;
});
after(() => t.close());

describe(`concurrent receipts (${process.env.TEST_DATABASE_URL ? "PostgreSQL" : "PGlite"})`, () => {
  test("two keys for the last outstanding units: one books them, the other is refused; nothing counted twice", async () => {
    const item = items[0];
    const start = await platform(item.inventory_item_id);
    const order = await placed([{ variant_id: item.id, quantity: 5, unit_cost: 3 }]);
    const lineId = order.lines[0].id;
    expectStatus(await receive(order.id, [{ line_id: lineId, quantity: 3 }]), 201);

    const results = await Promise.all([
      receive(order.id, [{ line_id: lineId, quantity: 2 }]),
      receive(order.id, [{ line_id: lineId, quantity: 2 }]),
    ]);
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [201, 422], JSON.stringify(results.map((r) => r.body)));
    const refused = results.find((r) => r.status === 422)!;
    assert.equal(refused.body.error.code, "invalid_transition");
    assert.match(refused.body.error.message, /\breceived\b/);

    const now = (await store.api.get(`/v2/purchase_orders/${order.id}`)).body.data;
    assert.equal(now.status, "received");
    assert.deepEqual(
      [now.lines[0].received_quantity, now.lines[0].cancelled_quantity, now.lines[0].outstanding_quantity],
      [5, 0, 0],
    );
    assert.equal(now.receipts.length, 2);
    assert.deepEqual(await receivedEvents(order.id), { received: 1, recorded: 2 });
    await t.drain();
    const end = await platform(item.inventory_item_id);
    assert.deepEqual(end, { available: start.available + 5, incoming: start.incoming });
  });

  test("many receipts at once on a few orders: each sees the previous, charges allocated exactly", async () => {
    const starts = await Promise.all([1, 2, 3].map((n) => platform(items[n].inventory_item_id)));
    const orders = await Promise.all(
      [1, 2, 3].map((n) =>
        placed(
          [
            { variant_id: items[n].id, quantity: 5, unit_cost: 2 },
            { variant_id: items[n + 3].id, quantity: 3, unit_cost: 7 },
          ],
          [{ amount: 10, allocation_method: "quantity" }],
        ),
      ),
    );
    // four receipts of 2 units of the first line and one of the whole second line, per order, all at once
    const calls = orders.flatMap((o) => [
      ...[1, 2, 3, 4].map(() => receive(o.id, [{ line_id: o.lines[0].id, quantity: 2 }])),
      receive(o.id, [{ line_id: o.lines[1].id, quantity: 3 }]),
    ]);
    const results = await Promise.all(calls);
    for (const r of results) assert.ok(r.status === 201 || r.status === 422, JSON.stringify(r.body));
    await t.drain();
    for (const [i, o] of orders.entries()) {
      const mine = results.slice(i * 5, i * 5 + 5);
      const booked = mine.filter((r) => r.status === 201);
      const refused = mine.filter((r) => r.status === 422);
      for (const r of refused) assert.equal(r.body.error.code, "invalid_transition");
      const now = (await store.api.get(`/v2/purchase_orders/${o.id}`)).body.data;
      const units = (lineId: number) =>
        booked
          .flatMap((r) => r.body.data.lines)
          .filter((l: { line_id: number }) => l.line_id === lineId)
          .reduce((s: number, l: { quantity: number }) => s + l.quantity, 0);
      // what the line says is exactly what the booked receipts hold; outstanding never negative
      for (const line of now.lines) {
        assert.equal(line.received_quantity, units(line.id));
        assert.ok(line.outstanding_quantity >= 0);
      }
      const surplus = booked
        .flatMap((r) => r.body.data.lines)
        .reduce((s: number, l: { surplus_quantity: number }) => s + l.surplus_quantity, 0);
      assert.equal(surplus, now.lines[0].received_quantity - 5);
      const events = await receivedEvents(o.id);
      assert.equal(events.recorded, booked.length);
      assert.equal(events.received, now.status === "received" ? 1 : 0);
      if (now.status === "received") {
        const cents = booked
          .flatMap((r) => r.body.data.lines)
          .reduce(
            (s: number, l: { allocated_charge_amount: string }) =>
              s + Math.round(Number(l.allocated_charge_amount) * 100),
            0,
          );
        assert.equal(cents, 1000);
      }
      const level = await platform(o.lines[0].inventory_item_id);
      assert.equal(level.available, starts[i].available + now.lines[0].received_quantity);
      assert.equal(level.incoming, starts[i].incoming + now.lines[0].outstanding_quantity);
    }
  });
});
