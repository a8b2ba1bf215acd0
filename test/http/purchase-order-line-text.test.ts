/**
 * A big order's lines written as JSON text by the database (issue 18 item 2,
 * src/domain/purchase-orders/line-text.ts), on PostgreSQL and on the embedded database: its GET and a
 * header-only PATCH answer exactly what the presenter gives (values, types, and the lines' bytes),
 * the PATCH's event and an idempotent replay hold the same, and the event loop no longer receives the
 * 500 lines as rows to build (the PostgreSQL driver's values and JSON, the embedded database's
 * structured copies) for the GET, the PATCH, a page or a PDF.
 */
import "../helpers/driver-work.ts";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { loadPurchaseOrder, MAX_LINES_PER_ORDER } from "../../src/domain/purchase-orders/index.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import { driverWork } from "../helpers/driver-work.ts";
import { createDraftOrder, createSupplier, eventsOf, idempotencyKey } from "../helpers/factories.ts";

/** Text a JSON writer must escape, and text it must not. */
const AWKWARD = [
  'He said "ship it" \\ now',
  "two\nlines\tand a\rreturn",
  "control \u0001\u001f\b\f end",
  "é ü 漢字 🚚 \u2028 \u007f",
  "</script><script>",
];

/** A line with every field set, varied by `i` (costs with up to 8 places, discounts, no tax). */
function richLine(i: number, taxRateId: number) {
  return {
    product_title: `${AWKWARD[i % AWKWARD.length]} #${i}`,
    variant_title: i % 3 === 0 ? null : `Size ${i % 5}`,
    sku: `SKU-${i}`,
    supplier_sku: i % 4 === 0 ? null : `SUP"${i}`,
    barcode: `0${i}`.padStart(13, "0"),
    pack_code: i % 2 ? "BOX\\6" : null,
    quantity: 1 + (i % 9),
    unit_cost: ["0.12345678", "3.1", "1000000.5", "0", "12.3456789", "7"][i % 6],
    discount_percent: i % 5 === 0 ? null : [12.5, 0, 33.3333, 100][i % 4],
    weight_grams: i * 7,
    taxable: i % 7 !== 0,
    tax_rate_id: i % 2 ? taxRateId : null,
    supplier_note: i % 2 ? AWKWARD[(i + 1) % AWKWARD.length] : null,
    internal_note: i % 3 ? null : "internal",
  };
}

describe("a big order's lines as the database's JSON text", () => {
  let t: TestApp;
  let store: TestStore;
  const orders: Record<string, number> = {};

  before(async () => {
    t = await startTestApp();
    store = await t.createStore();
    const rates = await t.admin.put(`/admin/stores/${store.id}/tax_rates`, {
      rates: [{ name: "Odd 7.125%", rate_percent: "7.125" }],
    });
    expectStatus(rates, 200);
    const rate = rates.body.data[0].id as number;
    const supplier = await createSupplier(store.api);
    const make = async (name: string, currency: string, count: number, extra: object = {}) => {
      const lines = Array.from({ length: count }, (_, i) => richLine(i, rate));
      orders[name] = (
        await createDraftOrder(store.api, {
          supplier_id: supplier.id,
          currency,
          ...(currency !== "USD" && { exchange_rate: "0.0067" }),
          lines,
          notes: 'notes with "lines":[] in them',
          ...extra,
        })
      ).id;
    };
    await make("usd", "USD", MAX_LINES_PER_ORDER, { tax_rate_id: rate });
    await make("jpy", "JPY", 60, { taxes_included: true });
    await make("kwd", "KWD", 60);
    // Warnings are written by catalog terms and costs; these set every kind of value one holds.
    const warned = await t.runtime.ctx.db
      .selectFrom("purchase_order_lines")
      .select("id")
      .where("purchase_order_id", "=", orders.usd)
      .orderBy("position")
      .limit(2)
      .execute();
    await t.runtime.ctx.db
      .updateTable("purchase_order_lines")
      .set({
        warnings: JSON.stringify([
          { code: "below_min_order_qty", message: 'Minimum "12"\n\u0002', suggested_quantity: 12 },
          { code: "no_cost", message: "No cost", suggested_quantity: null },
        ]) as never,
      })
      .where(
        "id",
        "in",
        warned.map((w) => w.id),
      )
      .execute();
  });
  after(() => t.close());

  for (const name of ["usd", "jpy", "kwd"]) {
    test(`GET of a ${name.toUpperCase()} order answers what the presenter gives, the lines byte for byte`, async () => {
      const id = orders[name];
      const res = await store.api.get(`/v2/purchase_orders/${id}`);
      expectStatus(res, 200);
      assert.equal(res.headers["content-type"], "application/json; charset=utf-8");
      // Sent from its pieces, framed as bytes are: its length given, not chunked.
      assert.equal(res.headers["content-length"], String(Buffer.byteLength(res.raw.payload)));
      assert.equal(res.headers["transfer-encoding"], undefined);
      const expected = await loadPurchaseOrder(t.runtime.ctx.db, store.id, id);
      assert.deepEqual(res.body, { data: expected });
      // The lines' text is exactly JSON.stringify's of the presented lines (the schema's key order).
      assert.ok(res.raw.payload.includes(`"lines":${JSON.stringify(expected.lines)},"charges":`));
    });
  }

  test("a page of big orders answers what the presenter gives, the lines byte for byte", async () => {
    const res = await store.api.get("/v2/purchase_orders?limit=250");
    expectStatus(res, 200);
    assert.deepEqual(res.body.data.map((o: { id: number }) => o.id).sort(), Object.values(orders).sort());
    for (const row of res.body.data) {
      const {
        receipts: _r,
        payments: _p,
        ...summary
      } = await loadPurchaseOrder(t.runtime.ctx.db, store.id, row.id);
      assert.deepEqual(row, summary);
      assert.ok(res.raw.payload.includes(`"lines":${JSON.stringify(summary.lines)},"charges":`));
    }
    assert.deepEqual(Object.keys(res.body), ["data", "next_cursor", "has_more"]);
  });

  test("a header-only PATCH answers, records and replays the order as GET shows it", async () => {
    const id = orders.usd;
    const headers = idempotencyKey("line-text");
    const patched = await store.api.patch(`/v2/purchase_orders/${id}`, { notes: 'new "notes"' }, headers);
    expectStatus(patched, 200);
    const got = await store.api.get(`/v2/purchase_orders/${id}`);
    expectStatus(got, 200);
    assert.equal(patched.body.data.notes, 'new "notes"');
    assert.deepEqual(patched.body, got.body);
    assert.equal(patched.raw.payload, got.raw.payload);
    assert.equal(patched.headers["content-length"], String(Buffer.byteLength(patched.raw.payload)));
    const events = await eventsOf(t, { type: "purchase_order", id });
    const updated = events.filter((e) => e.name === "purchase_order.updated").at(-1);
    assert.deepEqual(updated?.data, got.body.data);
    const replay = await store.api.patch(`/v2/purchase_orders/${id}`, { notes: 'new "notes"' }, headers);
    expectStatus(replay, 200);
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assert.deepEqual(replay.body, patched.body);
  });

  test("the driver builds none of the lines for an order's GET, a header-only PATCH, a page and a PDF", async () => {
    const id = orders.usd;
    await t.runtime.ctx.requestLog.flush();
    const get = await driverWork(() => store.api.get(`/v2/purchase_orders/${id}`));
    expectStatus(get.result, 200);
    assert.equal(get.result.body.data.lines.length, MAX_LINES_PER_ORDER);
    await t.runtime.ctx.requestLog.flush();
    const patch = await driverWork(() => store.api.patch(`/v2/purchase_orders/${id}`, { notes: "again" }));
    expectStatus(patch.result, 200);
    assert.equal(patch.result.body.data.lines.length, MAX_LINES_PER_ORDER);
    assert.equal(patch.result.headers["content-length"], String(Buffer.byteLength(patch.result.raw.payload)));
    await t.runtime.ctx.requestLog.flush();
    const list = await driverWork(() => store.api.get("/v2/purchase_orders?limit=250"));
    expectStatus(list.result, 200);
    assert.equal(list.result.body.data.length, 3);
    // The order was changed by the PATCH: its PDF is rendered anew, its lines read for the render thread.
    await t.runtime.ctx.requestLog.flush();
    const pdf = await driverWork(() => store.api.get(`/v2/purchase_orders/${id}/pdf`));
    expectStatus(pdf.result, 200);
    // Before: the GET parsed its lines' ~200 KB of JSON (the embedded database: 500 rows of 30
    // columns), the PATCH and the page built 500 and 620 rows of 30 columns, the PDF read the order
    // as GET did. And the embedded database's thread then sent the lines' text as a string, copied
    // into the loop's heap: 280,000 characters for this order, 300,000 for the page.
    for (const [label, seen] of [
      ["GET", get],
      ["PATCH", patch],
      ["list", list],
      ["PDF", pdf],
    ] as const) {
      assert.ok(seen.values < 500, `${label}: ${seen.values} values built by the driver`);
      assert.ok(
        seen.jsonChars < 5_000,
        `${label}: ${seen.jsonChars} characters of JSON parsed by the driver`,
      );
      // No string so long that V8 puts it in its old generation (a large object, freed only by a
      // full collection). Before, one of ~280,000 characters for the order, 3 of them for the page.
      assert.ok(seen.longestText < 64_000, `${label}: a string of ${seen.longestText} characters`);
      // PostgreSQL's driver gives every text of a result as a string: the lines come from a binary
      // COPY as bytes instead (db/copy-binary.ts; before, 280,000 characters of lines for the GET, the
      // PATCH and the PDF, in pieces of 50 lines, and 850,000 for this page).
      assert.ok(
        seen.textChars < 20_000,
        `${label}: ${seen.textChars} characters of text reached the event loop as strings`,
      );
      // Nor one big COPY message: the lines' text comes in rows of about 32 KB (line-text.ts,
      // linePiecesSql), each within a socket read, where one of ~280 KB (the order's lines as one row)
      // made the driver's parser double its buffer three times while it arrived.
      assert.ok(seen.largestCopyData < 40_000, `${label}: a COPY message of ${seen.largestCopyData} bytes`);
    }
  });
});
