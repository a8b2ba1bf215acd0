/**
 * What POST …/send does to the order (the email itself is the documents test's): a draft is placed as
 * mark_ordered places it, an open order only gets a new sent_at; the history rows, events and incoming
 * stock of each, exactly.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { ManualClock } from "../../src/clock.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import {
  createDraftOrder,
  createSupplier,
  eventsOf,
  getOrder,
  platformLevel,
  trackedVariants,
  type Variant,
} from "../helpers/factories.ts";

const START = "2030-03-10T12:00:00.000Z";

let t: TestApp;
let clock: ManualClock;
let store: TestStore;
let supplierId: number;
let variants: Variant[];
let locationId: number;

before(async () => {
  clock = new ManualClock(START);
  t = await startTestApp({ clock });
  store = await t.createStore({ seed: "demo" });
  await t.drain();
  supplierId = (
    await createSupplier(store.api, { email: "orders@supplier.test", email_cc: ["ap@supplier.test"] })
  ).id;
  variants = await trackedVariants(store.api);
  const locations = await store.api.get("/v2/locations");
  locationId = Math.min(...locations.body.data.map((l: { id: number }) => l.id));
});
after(() => t.close());

async function history(id: number) {
  const res = await store.api.get(`/v2/purchase_orders/${id}/history`);
  expectStatus(res, 200);
  return (res.body.data as { type: string; at: string; data: Record<string, unknown> }[]).map((h) => ({
    type: h.type,
    at: h.at,
    data: h.data,
  }));
}

const incoming = async (v: Variant) =>
  (await platformLevel(t, store.id, v.inventory_item_id, locationId)).incoming;

test("sending a draft places it: sent_at and ordered_at, the sent then ordered history, one ordered event, incoming pushed", async () => {
  const variant = variants[0];
  const draft = await createDraftOrder(store.api, {
    supplier_id: supplierId,
    location_id: locationId,
    lines: [{ variant_id: variant.id, quantity: 7, unit_cost: 2 }],
  });
  const before = await incoming(variant);
  clock.advance(60_000);
  const res = await store.api.post(`/v2/purchase_orders/${draft.id}/send`, {});
  expectStatus(res, 200);
  const at = clock.now().toISOString();
  assert.equal(res.body.data.status, "ordered");
  assert.equal(res.body.data.sent_at, at);
  assert.equal(res.body.data.ordered_at, at);
  assert.equal(res.body.data.updated_at, at);
  assert.deepEqual(res.body.data, await getOrder(store.api, draft.id));
  assert.deepEqual(await history(draft.id), [
    { type: "ordered", at, data: { ordered_at: at } },
    { type: "sent", at, data: { to: ["orders@supplier.test"], cc: ["ap@supplier.test"] } },
    { type: "created", at: START, data: { number: draft.number, status: "draft" } },
  ]);
  const events = await eventsOf(t, { type: "purchase_order", id: draft.id });
  assert.deepEqual(
    events.map((e) => e.name),
    ["purchase_order.created", "purchase_order.ordered"],
  );
  assert.deepEqual(events[1].data, res.body.data);
  await t.drain();
  assert.equal(await incoming(variant), before + 7);
});

test("sending an open order keeps its status: a new sent_at, one sent row, one updated event, no stock moved", async () => {
  const variant = variants[1];
  const draft = await createDraftOrder(store.api, {
    supplier_id: supplierId,
    location_id: locationId,
    lines: [{ variant_id: variant.id, quantity: 4, unit_cost: 2 }],
  });
  expectStatus(await store.api.post(`/v2/purchase_orders/${draft.id}/mark_ordered`, {}), 200);
  const orderedAt = clock.now().toISOString();
  await t.drain();
  const before = await incoming(variant);
  clock.advance(60_000);
  const res = await store.api.post(`/v2/purchase_orders/${draft.id}/send`, { to: ["buyer@elsewhere.test"] });
  expectStatus(res, 200);
  const at = clock.now().toISOString();
  assert.equal(res.body.data.status, "ordered");
  assert.equal(res.body.data.sent_at, at);
  assert.equal(res.body.data.ordered_at, orderedAt);
  assert.deepEqual(res.body.data, await getOrder(store.api, draft.id));
  assert.deepEqual((await history(draft.id)).slice(0, 2), [
    { type: "sent", at, data: { to: ["buyer@elsewhere.test"], cc: ["ap@supplier.test"] } },
    { type: "ordered", at: orderedAt, data: { ordered_at: orderedAt } },
  ]);
  const events = await eventsOf(t, { type: "purchase_order", id: draft.id });
  assert.deepEqual(
    events.map((e) => e.name),
    ["purchase_order.created", "purchase_order.ordered", "purchase_order.updated"],
  );
  assert.deepEqual(events[2].data, res.body.data);
  await t.drain();
  assert.equal(await incoming(variant), before);
});
