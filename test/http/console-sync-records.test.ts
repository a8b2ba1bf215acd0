/**
 * The platform sync page names a failed push's record as people know it (issue 20 item 8: "internal
 * ids never shown where a number exists, and every record name links to it"): a stock adjustment by
 * its number, a delivery by its order's number, each linked; the admin API's sync status carries the
 * numbers (read in three statements whatever the count) and the order a receipt belongs to.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import { ConsoleAgent, pageText as text } from "../helpers/console-agent.ts";
import {
  createOrderedOrder,
  createSupplier,
  idempotencyKey,
  listLocations,
  trackedVariants,
} from "../helpers/factories.ts";

describe("failed pushes named by their records' numbers", () => {
  let t: TestApp;
  let store: TestStore;
  let agent: ConsoleAgent;
  let order: { id: number; number: string; lines: { id: number }[] };
  let adjustment: { id: number; number: string };
  let receiptId: number;

  before(async () => {
    t = await startTestApp();
    store = await t.createStore({ seed: "demo" });
    await t.drain();
    const [item, other] = await trackedVariants(store.api);
    const [location] = await listLocations(store.api);
    const supplier = await createSupplier(store.api, { name: "Push Failures Ltd" });
    order = await createOrderedOrder(store.api, {
      supplier_id: supplier.id,
      location_id: location.id,
      lines: [{ variant_id: item.id, quantity: 4, unit_cost: "2.00" }],
    });
    await t.drain();
    // From here every push to the platform is refused for good.
    expectStatus(
      await t.admin.post(`/admin/stores/${store.id}/platform/faults`, { mode: "reject", count: 100 }),
      200,
    );
    const receipt = await store.api.post(
      `/v2/purchase_orders/${order.id}/receipts`,
      { lines: [{ line_id: order.lines[0].id, quantity: 4 }] },
      idempotencyKey("receipt"),
    );
    expectStatus(receipt, 201);
    receiptId = receipt.body.data.id;
    const draft = await store.api.post("/v2/stock_adjustments", {
      location_id: location.id,
      reason: "damaged",
      lines: [{ variant_id: other.id, delta: -1 }],
    });
    expectStatus(draft, 201);
    adjustment = draft.body.data;
    expectStatus(
      await store.api.post(
        `/v2/stock_adjustments/${adjustment.id}/apply`,
        undefined,
        idempotencyKey("apply"),
      ),
      200,
    );
    await t.drain();
    agent = new ConsoleAgent(t);
    assert.equal((await agent.login()).status, 303);
  });
  after(() => t.close());

  test("the admin status gives each failed record's number and order", async () => {
    const failed = (await t.admin.get(`/admin/stores/${store.id}/sync`)).body.data.failed;
    const byType = new Map(failed.map((f: any) => [f.subject_type, f]));
    assert.deepEqual([...byType.keys()].sort(), ["receipt", "stock_adjustment"], JSON.stringify(failed));
    const receipt: any = byType.get("receipt");
    assert.equal(receipt.subject_id, receiptId);
    assert.deepEqual([receipt.subject_number, receipt.purchase_order_id], [order.number, order.id]);
    const adjusted: any = byType.get("stock_adjustment");
    assert.deepEqual(
      [adjusted.subject_id, adjusted.subject_number, adjusted.purchase_order_id],
      [adjustment.id, adjustment.number, null],
    );
  });

  test("the sync page shows and links the numbers, not the internal ids", async () => {
    const page = await agent.get(`/console/stores/${store.id}/sync`);
    assert.equal(page.status, 200);
    assert.ok(
      page.body.includes(
        `Stock adjustment <a href="/console/stores/${store.id}/stock_adjustments/${adjustment.id}">${adjustment.number}</a>`,
      ),
      "the adjustment by its number, linked",
    );
    assert.ok(
      page.body.includes(
        `A delivery on <a href="/console/stores/${store.id}/purchase_orders/${order.id}#receipts">${order.number}</a>`,
      ),
      "the receipt by its order's number, linked to the order's deliveries",
    );
    const shown = text(page.body);
    assert.doesNotMatch(shown, new RegExp(`stock adjustment ${adjustment.id}\\b`));
    assert.doesNotMatch(shown, new RegExp(`receipt ${receiptId}\\b`));
  });
});
