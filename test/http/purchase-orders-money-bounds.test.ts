/**
 * Money beyond what an order's columns hold, and incoming stock beyond what a level holds, is a 422
 * `out_of_range` on the field (it was a database error, a 500) and changes nothing.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type HttpResult, startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectDetails, expectStatus } from "../helpers/assertions.ts";
import {
  createDraftOrder,
  createOrderedOrder,
  createSupplier,
  customLine,
  eventsOf,
  getOrder,
  platformLevel,
  trackedVariants,
  type Variant,
} from "../helpers/factories.ts";

let t: TestApp;
let store: TestStore;
let supplierId: number;
let variant: Variant;
let locationId: number;

before(async () => {
  t = await startTestApp();
  store = await t.createStore({ seed: "demo" });
  await t.drain();
  supplierId = (await createSupplier(store.api)).id;
  variant = (await trackedVariants(store.api))[0];
  const locations = await store.api.get("/v2/locations");
  locationId = Math.min(...locations.body.data.map((l: { id: number }) => l.id));
  const rates = await t.admin.put(`/admin/stores/${store.id}/exchange_rates`, {
    rates: [{ currency: "EUR", rate_to_base: "1.10" }],
  });
  expectStatus(rates, 200);
});
after(() => t.close());

async function orderCount(): Promise<number> {
  const row = await t.runtime.ctx.db
    .selectFrom("purchase_orders")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("store_id", "=", store.id)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The refusal is exactly these details, and no order was created. */
async function refusedCreate(body: Record<string, unknown>, details: [string, string][]) {
  const before = await orderCount();
  const res = await store.api.post("/v2/purchase_orders", { supplier_id: supplierId, ...body });
  expectDetails(res, details);
  assert.equal(await orderCount(), before);
}

/** The order, its history and its events are as they were before `act`, which is refused with `details`. */
async function unchangedAfter(id: number, act: () => Promise<HttpResult>, details: [string, string][]) {
  const order = await getOrder(store.api, id);
  const history = (await store.api.get(`/v2/purchase_orders/${id}/history`)).body.data;
  const events = await eventsOf(t, { type: "purchase_order", id });
  expectDetails(await act(), details);
  assert.deepEqual(await getOrder(store.api, id), order);
  assert.deepEqual((await store.api.get(`/v2/purchase_orders/${id}/history`)).body.data, history);
  assert.deepEqual(await eventsOf(t, { type: "purchase_order", id }), events);
}

describe("order money within what the columns hold", () => {
  test("create: a unit cost of 10^12 or more is refused on the line", async () => {
    await refusedCreate({ lines: [customLine(1, 1e12)] }, [["lines.0.unit_cost", "out_of_range"]]);
    await refusedCreate({ lines: [customLine(1, "1000000000000.5")] }, [
      ["lines.0.unit_cost", "out_of_range"],
    ]);
    // The largest unit cost is taken.
    const order = await createDraftOrder(store.api, {
      supplier_id: supplierId,
      lines: [customLine(1, "999999999999.99999999")],
    });
    assert.equal(order.lines[0].unit_cost, "999999999999.99999999");
  });

  test("create: a line total of 10^15 or more (quantity × unit cost) is refused on the line", async () => {
    await refusedCreate({ lines: [customLine(100_000_000, 1e9)] }, [["lines.0.unit_cost", "out_of_range"]]);
    await refusedCreate({ lines: [customLine(1, 1), customLine(1_000_000, 1e9)] }, [
      ["lines.1.unit_cost", "out_of_range"],
    ]);
  });

  test("create: lines each within, whose sum is 10^15 or more, are refused on lines", async () => {
    await refusedCreate({ lines: [customLine(100_000_000, 9e6), customLine(100_000_000, 9e6)] }, [
      ["lines", "out_of_range"],
    ]);
  });

  test("create: tax on top of lines near the bound takes the total beyond it: refused on lines", async () => {
    const rate = await t.admin.put(`/admin/stores/${store.id}/tax_rates`, {
      rates: [{ name: "Full", rate_percent: 100 }],
    });
    expectStatus(rate, 200);
    const taxRateId = rate.body.data[0].id;
    // 6 × 10^14 of lines, plus 100 % tax on top: the total is 1.2 × 10^15.
    await refusedCreate({ tax_rate_id: taxRateId, lines: [customLine(100_000_000, 6e6)] }, [
      ["lines", "out_of_range"],
    ]);
  });

  test("create: a charge of 10^15 or more is refused on its amount", async () => {
    await refusedCreate({ lines: [customLine()], charges: [{ amount: 1e16 }] }, [
      ["charges.0.amount", "out_of_range"],
    ]);
    await refusedCreate({ lines: [customLine()], charges: [{ amount: "1000000000000000" }] }, [
      ["charges.0.amount", "out_of_range"],
    ]);
  });

  test("create: an exchange rate of 10^12 or more is refused", async () => {
    await refusedCreate({ currency: "EUR", exchange_rate: 1e12, lines: [customLine()] }, [
      ["exchange_rate", "out_of_range"],
    ]);
  });

  test("create: a charge whose rate to a tiny order rate is 10^12 or more is refused on its currency", async () => {
    // 1 USD = 1.10 EUR-store-units / 10^-12: a rate of 1.1 × 10^12 from EUR to the order currency.
    await refusedCreate(
      {
        currency: "EUR",
        exchange_rate: "0.000000000001",
        lines: [customLine()],
        charges: [{ amount: 1, currency: "USD" }],
      },
      [["charges.0.currency", "out_of_range"]],
    );
  });

  test("PATCH: the same bounds on a draft, which stays as it was", async () => {
    const draft = await createDraftOrder(store.api, { supplier_id: supplierId, lines: [customLine(2, 5)] });
    const patch = (body: Record<string, unknown>) => () =>
      store.api.patch(`/v2/purchase_orders/${draft.id}`, body);
    await unchangedAfter(draft.id, patch({ lines: [customLine(1, 1e12)] }), [
      ["lines.0.unit_cost", "out_of_range"],
    ]);
    await unchangedAfter(draft.id, patch({ lines: [customLine(100_000_000, 1e9)] }), [
      ["lines.0.unit_cost", "out_of_range"],
    ]);
    await unchangedAfter(draft.id, patch({ charges: [{ amount: 1e16 }] }), [
      ["charges.0.amount", "out_of_range"],
    ]);
    await unchangedAfter(draft.id, patch({ currency: "EUR", exchange_rate: 1e12 }), [
      ["exchange_rate", "out_of_range"],
    ]);
  });

  test("POST lines: a new line beyond the bounds is refused on its index, the order unchanged", async () => {
    const order = await createOrderedOrder(store.api, { supplier_id: supplierId, lines: [customLine(2, 5)] });
    const add = (lines: unknown[]) => () =>
      store.api.post(`/v2/purchase_orders/${order.id}/lines`, { lines });
    await unchangedAfter(order.id, add([customLine(1, 1), customLine(1, 1e12)]), [
      ["lines.1.unit_cost", "out_of_range"],
    ]);
    await unchangedAfter(order.id, add([customLine(100_000_000, 1e9)]), [
      ["lines.0.unit_cost", "out_of_range"],
    ]);
  });
});

describe("incoming stock within what a level holds", () => {
  test("mark_ordered: 22 lines of 100,000,000 of one item is refused, the draft and the platform unchanged", async () => {
    const line = { variant_id: variant.id, quantity: 100_000_000, unit_cost: "0.01" };
    const draft = await createDraftOrder(store.api, {
      supplier_id: supplierId,
      location_id: locationId,
      lines: Array.from({ length: 22 }, () => line),
    });
    const incoming = (await platformLevel(t, store.id, variant.inventory_item_id, locationId)).incoming;
    await unchangedAfter(draft.id, () => store.api.post(`/v2/purchase_orders/${draft.id}/mark_ordered`, {}), [
      ["lines", "out_of_range"],
    ]);
    await t.drain();
    assert.equal(
      (await platformLevel(t, store.id, variant.inventory_item_id, locationId)).incoming,
      incoming,
    );
    // 21 such lines fit (2,100,000,000 is below 2^31): the same order with one line fewer is placed.
    const fits = await store.api.patch(`/v2/purchase_orders/${draft.id}`, {
      lines: draft.lines.slice(1).map((l: { id: number }) => ({ id: l.id })),
    });
    expectStatus(fits, 200);
    const ordered = await store.api.post(`/v2/purchase_orders/${draft.id}/mark_ordered`, {});
    expectStatus(ordered, 200);
    assert.equal(ordered.body.data.status, "ordered");
  });
});

describe("incoming stock a level already holds", () => {
  test("mark_ordered that takes an item's incoming level beyond an integer is refused, the level unchanged", async () => {
    const item = (await trackedVariants(store.api))[1];
    const lines = (n: number) =>
      Array.from({ length: n }, () => ({ variant_id: item.id, quantity: 100_000_000, unit_cost: "0.01" }));
    await createOrderedOrder(store.api, {
      supplier_id: supplierId,
      location_id: locationId,
      lines: lines(21),
    });
    await t.drain();
    const incoming = (await platformLevel(t, store.id, item.inventory_item_id, locationId)).incoming;
    const draft = await createDraftOrder(store.api, {
      supplier_id: supplierId,
      location_id: locationId,
      lines: lines(1),
    });
    await unchangedAfter(draft.id, () => store.api.post(`/v2/purchase_orders/${draft.id}/mark_ordered`, {}), [
      ["lines", "out_of_range"],
    ]);
    await t.drain();
    assert.equal((await platformLevel(t, store.id, item.inventory_item_id, locationId)).incoming, incoming);
  });
});
