import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../src/clock.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectDetails, expectInvalidTransition, expectStatus } from "../helpers/assertions.ts";
import { createDraftOrder, createOrderedOrder } from "../helpers/factories.ts";

/**
 * Payments through HTTP: list, add (part payments, deposits on drafts), delete, mark_paid, mark_unpaid,
 * payment_status and paid_at through every path, history rows, events, refusals changing nothing.
 */

// 02:00 UTC is still the previous day in New York: paid_on defaults to the store's date.
const START = "2030-05-04T02:00:00.000Z";
const STORE_TODAY = "2030-05-03";
const PAYMENT_FIELDS = ["amount", "created_at", "currency", "id", "method", "note", "paid_on", "reference"];

let t: TestApp;
let clock: ManualClock;
let store: TestStore;
let other: TestStore;
let supplierId: number;

/** An order of `total` (one custom line), a draft unless `ordered`. */
async function order(total: number, ordered = false) {
  const body = {
    supplier_id: supplierId,
    lines: [{ product_title: "Widget", quantity: 1, unit_cost: total }],
  };
  return ordered ? createOrderedOrder(store.api, body) : createDraftOrder(store.api, body);
}

async function call(method: "post" | "delete", url: string, body?: unknown) {
  clock.advance(1000);
  return method === "post" ? store.api.post(url, body) : store.api.delete(url);
}

const status = (po: { payment_status: string; paid_at: string | null }) => [po.payment_status, po.paid_at];

async function history(id: number) {
  const res = await store.api.get(`/v2/purchase_orders/${id}/history?limit=250`);
  expectStatus(res, 200);
  return (res.body.data as { type: string; data: Record<string, unknown> }[])
    .reverse()
    .filter((h) => h.type.includes("paid") || h.type.startsWith("payment"));
}

async function updatedEvents(id: number) {
  return t.runtime.ctx.db
    .selectFrom("events")
    .select(["name", "data"])
    .where("subject_type", "=", "purchase_order")
    .where("subject_id", "=", id)
    .where("name", "=", "purchase_order.updated")
    .orderBy("seq")
    .execute();
}

before(async () => {
  clock = new ManualClock(START);
  t = await startTestApp({ clock });
  store = await t.createStore({ seed: "demo", timezone: "America/New_York" });
  other = await t.createStore({ seed: "demo" });
  const s = await store.api.post("/v2/suppliers", { name: "Acme Supply", currency: "USD" });
  expectStatus(s, 201);
  supplierId = s.body.data.id;
});
after(() => t.close());

describe("payments", () => {
  test("a draft takes a deposit; part payments, delete, mark_paid, mark_unpaid move the status", async () => {
    const po = await order(100);
    assert.deepEqual(status(po), ["unpaid", null]);
    const empty = await store.api.get(`/v2/purchase_orders/${po.id}/payments`);
    expectStatus(empty, 200);
    assert.deepEqual(empty.body, { data: [] });

    // deposit on the draft, defaults filled
    const deposit = await call("post", `/v2/purchase_orders/${po.id}/payments`, { amount: 30 });
    expectStatus(deposit, 201);
    assert.deepEqual(Object.keys(deposit.body).sort(), ["data", "purchase_order"]);
    const p1 = deposit.body.data;
    assert.deepEqual(Object.keys(p1).sort(), PAYMENT_FIELDS);
    assert.deepEqual(
      { ...p1, id: 0 },
      {
        id: 0,
        amount: "30.00",
        currency: "USD",
        paid_on: STORE_TODAY,
        method: "other",
        reference: null,
        note: null,
        created_at: clock.now().toISOString(),
      },
    );
    assert.equal(deposit.body.purchase_order.status, "draft");
    assert.deepEqual(status(deposit.body.purchase_order), ["partial", null]);
    assert.deepEqual(deposit.body.purchase_order.payments, [p1]);

    // the rest, as a string, with every field
    const rest = await call("post", `/v2/purchase_orders/${po.id}/payments`, {
      amount: "70.00",
      paid_on: "2030-04-30",
      method: "wire",
      reference: "TX-9",
      note: "balance",
      currency: "USD",
    });
    expectStatus(rest, 201);
    const p2 = rest.body.data;
    assert.deepEqual(
      [p2.amount, p2.paid_on, p2.method, p2.reference, p2.note],
      ["70.00", "2030-04-30", "wire", "TX-9", "balance"],
    );
    assert.deepEqual(status(rest.body.purchase_order), ["paid", p2.created_at]);

    const listed = await store.api.get(`/v2/purchase_orders/${po.id}/payments`);
    assert.deepEqual(listed.body, { data: [p1, p2] });
    expectInvalidTransition(await call("post", `/v2/purchase_orders/${po.id}/mark_paid`, {}), "paid");

    // deleting the payment that made it paid: partial again
    const deleted = await call("delete", `/v2/purchase_orders/${po.id}/payments/${p2.id}`);
    expectStatus(deleted, 200);
    assert.deepEqual(Object.keys(deleted.body).sort(), ["data", "purchase_order"]);
    assert.deepEqual(deleted.body.data, { id: p2.id, deleted: true });
    assert.deepEqual(status(deleted.body.purchase_order), ["partial", null]);
    assert.deepEqual(deleted.body.purchase_order.payments, [p1]);
    const gone = await call("delete", `/v2/purchase_orders/${po.id}/payments/${p2.id}`);
    expectStatus(gone, 404);
    assert.equal(gone.body.error.code, "not_found");

    // mark_paid: one payment for the balance, today, "other"
    const marked = await call("post", `/v2/purchase_orders/${po.id}/mark_paid`, {});
    expectStatus(marked, 200);
    assert.deepEqual(Object.keys(marked.body), ["data"]);
    const m = marked.body.data;
    assert.equal(m.payments.length, 2);
    const p3 = m.payments[1];
    assert.deepEqual([p3.amount, p3.paid_on, p3.method], ["70.00", STORE_TODAY, "other"]);
    assert.deepEqual(status(m), ["paid", p3.created_at]);

    // mark_unpaid: every payment goes
    const unpaid = await call("post", `/v2/purchase_orders/${po.id}/mark_unpaid`, {});
    expectStatus(unpaid, 200);
    assert.deepEqual(status(unpaid.body.data), ["unpaid", null]);
    assert.deepEqual(unpaid.body.data.payments, []);
    expectInvalidTransition(await call("post", `/v2/purchase_orders/${po.id}/mark_unpaid`), "unpaid");

    // mark_paid with a date and method, from unpaid
    const full = await call("post", `/v2/purchase_orders/${po.id}/mark_paid`, {
      paid_on: "2030-05-01",
      method: "card",
    });
    expectStatus(full, 200);
    assert.deepEqual(
      full.body.data.payments.map((p: Record<string, string>) => [p.amount, p.paid_on, p.method]),
      [["100.00", "2030-05-01", "card"]],
    );
    assert.deepEqual(status(full.body.data), ["paid", full.body.data.payments[0].created_at]);

    // history rows and one purchase_order.updated per change, each carrying the order as returned
    assert.deepEqual(
      (await history(po.id)).map((h) => h.type),
      ["payment_added", "payment_added", "payment_deleted", "marked_paid", "marked_unpaid", "marked_paid"],
    );
    const rows = await history(po.id);
    assert.deepEqual(rows[0].data, {
      payment_id: p1.id,
      amount: "30.00",
      currency: "USD",
      paid_on: STORE_TODAY,
      method: "other",
    });
    assert.deepEqual(rows[2].data, { payment_id: p2.id, amount: "70.00", currency: "USD" });
    assert.deepEqual(rows[4].data, { deleted_payment_ids: [p1.id, p3.id] });
    const events = await updatedEvents(po.id);
    assert.equal(events.length, 6);
    assert.deepEqual(events[0].data, deposit.body.purchase_order);
    assert.deepEqual(events.at(-1)?.data, full.body.data);
  });

  test("overpayment, zero totals, totals raised by a receipt, closed orders", async () => {
    const po = await order(100, true);
    const over = await call("post", `/v2/purchase_orders/${po.id}/payments`, { amount: 150 });
    expectStatus(over, 201);
    assert.deepEqual(status(over.body.purchase_order), ["paid", over.body.data.created_at]);
    const more = await call("post", `/v2/purchase_orders/${po.id}/payments`, { amount: 1 });
    assert.deepEqual(status(more.body.purchase_order), ["paid", over.body.data.created_at]);
    expectInvalidTransition(await call("post", `/v2/purchase_orders/${po.id}/mark_paid`), "paid");

    // a paid order whose total a receipt raises (an unordered line) is partial again
    const exact = await order(10, true);
    expectStatus(await call("post", `/v2/purchase_orders/${exact.id}/mark_paid`), 200);
    clock.advance(1000);
    const receipt = await store.api.post(
      `/v2/purchase_orders/${exact.id}/receipts`,
      {
        lines: [{ line_id: exact.lines[0].id, quantity: 1 }],
        unordered: [{ product_title: "Extra", quantity: 2, unit_cost: 2.5 }],
      },
      { "idempotency-key": "raise-total" },
    );
    expectStatus(receipt, 201);
    assert.equal(receipt.body.purchase_order.totals.total, "15.00");
    assert.deepEqual(status(receipt.body.purchase_order), ["partial", null]);
    const balance = await call("post", `/v2/purchase_orders/${exact.id}/mark_paid`);
    expectStatus(balance, 200);
    assert.equal(balance.body.data.payments.at(-1).amount, "5.00");
    assert.equal(balance.body.data.payment_status, "paid");

    // a zero total: nothing to pay; a payment on it is partial
    const zero = await order(0);
    expectInvalidTransition(await call("post", `/v2/purchase_orders/${zero.id}/mark_paid`), "nothing to pay");
    const tip = await call("post", `/v2/purchase_orders/${zero.id}/payments`, { amount: "1" });
    assert.deepEqual(status(tip.body.purchase_order), ["partial", null]);

    // a closed order still takes and loses payments
    expectStatus(await call("post", `/v2/purchase_orders/${exact.id}/close`, {}), 200);
    const late = await call("post", `/v2/purchase_orders/${exact.id}/payments`, { amount: 1 });
    expectStatus(late, 201);
    expectStatus(await call("delete", `/v2/purchase_orders/${exact.id}/payments/${late.body.data.id}`), 200);
  });

  test("refusals change nothing; replays; scopes and other stores", async () => {
    const po = await order(100);
    const url = `/v2/purchase_orders/${po.id}/payments`;
    expectDetails(await call("post", url, { amount: 0 }), [["amount", "must_be_positive"]]);
    expectDetails(await call("post", url, { amount: -5 }), [["amount", "must_be_positive"]]);
    expectDetails(await call("post", url, { amount: "1.001" }), [["amount", "too_many_decimals"]]);
    expectDetails(await call("post", url, { amount: "ten" }), [["amount", "invalid_decimal"]]);
    expectDetails(await call("post", url, { amount: 5, currency: "EUR" }), [
      ["currency", "currency_mismatch"],
    ]);
    expectDetails(await call("post", url, {}), [["amount", "required"]]);
    expectDetails(await call("post", url, { amount: 5, paid_on: "yesterday" }), [
      ["paid_on", "invalid_format"],
    ]);
    expectDetails(await call("post", url, { amount: 5, extra: 1 }), [["extra", "unknown_field"]]);
    expectDetails(await call("post", `/v2/purchase_orders/${po.id}/mark_paid`, { method: "" }), [
      ["method", "invalid_length"],
    ]);
    expectDetails(await call("post", `/v2/purchase_orders/${po.id}/mark_unpaid`, { now: true }), [
      ["now", "unknown_field"],
    ]);

    const readOnly = await store.keyWithScopes(["read"]);
    const denied = await readOnly.post(url, { amount: 5 });
    expectStatus(denied, 403);
    assert.equal(denied.body.error.code, "insufficient_scope");
    expectStatus(await readOnly.get(url), 200);
    expectStatus(await other.api.get(url), 404);
    expectStatus(await other.api.post(url, { amount: 5 }), 404);
    expectStatus(await other.api.post(`/v2/purchase_orders/${po.id}/mark_paid`, {}), 404);
    expectStatus(await store.api.get("/v2/purchase_orders/999999/payments"), 404);

    const now = await store.api.get(`/v2/purchase_orders/${po.id}`);
    assert.deepEqual(now.body.data.payments, []);
    assert.equal(now.body.data.payment_status, "unpaid");
    assert.equal(now.body.data.updated_at, po.updated_at);
    assert.deepEqual(await history(po.id), []);

    // a replayed key adds nothing
    const headers = { "idempotency-key": "pay-once" };
    const first = await store.api.post(url, { amount: 10 }, headers);
    expectStatus(first, 201);
    const replay = await store.api.post(url, { amount: 10 }, headers);
    expectStatus(replay, 201);
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assert.deepEqual(replay.body, first.body);
    assert.equal((await store.api.get(url)).body.data.length, 1);

    // a payment of another order is not found on this one
    const second = await order(5);
    const foreign = await call("post", `/v2/purchase_orders/${second.id}/payments`, { amount: 1 });
    expectStatus(await call("delete", `/v2/purchase_orders/${po.id}/payments/${foreign.body.data.id}`), 404);
  });
});
