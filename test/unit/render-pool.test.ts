import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { renderPurchaseOrderPdf } from "../../src/domain/documents/purchase-order-pdf.ts";
import type { PurchaseOrderDocument } from "../../src/domain/documents/purchase-order-view.ts";
import { PER_STORE, RenderPool } from "../../src/domain/documents/render-pool.ts";
import { AppError } from "../../src/domain/errors.ts";

function order(number: string, lineCount: number): PurchaseOrderDocument {
  return {
    number,
    status: "draft",
    notes: null,
    expected_at: null,
    ordered_at: null,
    created_at: "2026-03-02T10:00:00.000Z",
    updated_at: "2026-03-02T10:00:00.000Z",
    location: { id: 1, name: "Warehouse" },
    ship_to_address: null,
    tax: null,
    totals: { currency: "EUR", subtotal: "10.00", charges: "0.00", tax: "0.00", total: "10.00" },
    lines: Array.from({ length: lineCount }, (_, i) => ({
      position: i + 1,
      sku: `SKU-${i + 1}`,
      supplier_sku: null,
      product_title: `Product ${i + 1}`,
      variant_title: null,
      quantity: 1,
      received_quantity: 0,
      outstanding_quantity: 1,
      unit_cost: "10.00",
      discount_percent: null,
      line_total: "10.00",
    })),
    charges: [],
    store: { name: "Łódź Store", timezone: "Europe/Warsaw" },
    supplier: {
      name: "Supplier",
      company_name: null,
      contact_name: null,
      email: null,
      phone: null,
      address: null,
    },
    bill_to: null,
  };
}

describe("PDF render pool", () => {
  const pools: RenderPool[] = [];
  after(async () => {
    for (const pool of pools) await pool.close();
  });

  it("renders on a thread exactly the bytes the renderer makes in-process", async () => {
    const pool = new RenderPool(1);
    pools.push(pool);
    const document = order("PO-1", 30);
    const threaded = await pool.render(1, document, false, true);
    assert.ok(threaded.equals(await renderPurchaseOrderPdf(document, { receivingCopy: false })));
    const receiving = await pool.render(1, document, true, true);
    assert.ok(receiving.equals(await renderPurchaseOrderPdf(document, { receivingCopy: true })));
    assert.equal(pool.heldBy(1), 0);
  });

  it(`refuses a store's render beyond ${PER_STORE} at once with 429 rate_limited and Retry-After; other stores and the mail job still get theirs`, async () => {
    const pool = new RenderPool(1);
    pools.push(pool);
    const held = Array.from({ length: PER_STORE }, (_, i) =>
      pool.render(7, order(`PO-${i}`, 5), false, true),
    );
    assert.equal(pool.heldBy(7), PER_STORE);
    assert.throws(
      () => pool.render(7, order("PO-C", 5), false, true),
      (error: unknown) =>
        error instanceof AppError &&
        error.code === "rate_limited" &&
        error.status === 429 &&
        error.headers?.["retry-after"] === "2",
    );
    const otherStore = pool.render(8, order("PO-D", 5), false, true);
    const mailJob = pool.render(7, order("PO-E", 5), false, false);
    for (const pdf of await Promise.all([...held, otherStore, mailJob]))
      assert.equal(pdf.subarray(0, 5).toString(), "%PDF-");
    assert.equal(pool.heldBy(7), 0);
    assert.equal(pool.heldBy(8), 0);
    // Room again once the store's renders are done.
    assert.equal((await pool.render(7, order("PO-C", 5), false, true)).subarray(0, 5).toString(), "%PDF-");
  });

  it("takes waiting renders fairly: another store's PDF goes before the rest of a busy store's queue", async () => {
    const pool = new RenderPool(1);
    pools.push(pool);
    const finished: string[] = [];
    const render = (store: number, number: string) =>
      pool.render(store, order(number, 40), false, false).then(() => finished.push(number));
    await Promise.all([render(1, "B1"), render(1, "B2"), render(1, "B3"), render(2, "A1")]);
    assert.deepEqual(finished, ["B1", "A1", "B2", "B3"]);
  });
});
