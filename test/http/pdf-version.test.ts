/**
 * A purchase order's cached PDF is served on its version alone (issue 22 item 4): one statement beside
 * the key lookup, where it read, presented and hashed the whole order before; and every change of
 * what the PDF prints still prints at once. Statements counted at the driver (helpers/statements.ts);
 * the key lookup is left out of the counts, as the embedded database answers it from its cache.
 */
import "../helpers/statements.ts";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { PDFParse } from "pdf-parse";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectError, expectStatus } from "../helpers/assertions.ts";
import { createOrderedOrder, createSupplier, customLine, idempotencyKey } from "../helpers/factories.ts";
import { countStatements } from "../helpers/statements.ts";

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

async function pdfText(pdf: Buffer): Promise<string> {
  const parser = new PDFParse({ data: new Uint8Array(pdf) });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}

describe("a purchase order's PDF served on its version", () => {
  let t: TestApp;
  let store: TestStore;
  let order: { id: number; number: string; lines: { id: number }[]; supplier: { id: number } };

  before(async () => {
    t = await startTestApp();
    store = await t.createStore();
    await t.drain();
    const supplier = await createSupplier(store.api, { name: "Versioned Supplies" });
    order = await createOrderedOrder(store.api, {
      supplier_id: supplier.id,
      notes: "First notes",
      lines: Array.from({ length: 100 }, (_, i) => customLine(2, `${i + 1}.50`)),
    });
  });
  after(() => t.close());

  const pdfPath = (copy = "") => `/v2/purchase_orders/${order.id}/pdf${copy}`;

  /** One PDF request, counted alone (the request log's buffered insert written before it). */
  async function counted(path: string) {
    await t.runtime.ctx.requestLog.flush();
    const seen = await countStatements(() => store.api.get(path));
    expectStatus(seen.result, 200);
    const statements = seen.statements.filter((s) => !/from "api_keys" as "k"/.test(s));
    return { pdf: seen.result.raw.rawPayload, statements };
  }

  test("a cached 100-line PDF runs one statement, its version as one text, and answers the same bytes and file name", async () => {
    const first = await counted(pdfPath());
    const again = await counted(pdfPath());
    assert.equal(again.statements.length, 1, again.statements.join("\n"));
    assert.match(
      again.statements[0],
      /^select po\.number as order_number, concat_ws\(.*\) as version\s+from /s,
    );
    assert.ok(again.pdf.equals(first.pdf));
    const res = await store.api.get(pdfPath());
    assert.equal(res.headers["content-disposition"], `inline; filename="${order.number}.pdf"`);
  });

  test("on PostgreSQL a PDF not cached yet reads its version once, then the order with its lines' text, and its supplier: three statements", {
    skip: !onPostgres,
  }, async () => {
    const fresh = await counted(pdfPath("?received=true"));
    // The store's fields come from the version (by value), the location and bill-to with the order;
    // before, a second statement read the version again beside them (four).
    assert.equal(fresh.statements.length, 3, fresh.statements.join("\n"));
    assert.equal(
      fresh.statements.filter((s) => /concat_ws\(/.test(s)).length,
      1,
      fresh.statements.join("\n"),
    );
  });

  test("a PDF another store asks for is 404 not_found without showing the order", async () => {
    const other = await t.createStore();
    await t.drain();
    const res = await other.api.get(pdfPath());
    expectError(res, 404, "not_found");
  });

  test("every change of what the PDF prints is printed at once: the order, a line, a receipt, the supplier, the store", async () => {
    const seen = new Set<string>();
    const fetchNew = async (copy = "") => {
      const { pdf } = await counted(pdfPath(copy));
      const text = await pdfText(pdf);
      assert.ok(!seen.has(pdf.toString("base64")), "a new rendering");
      seen.add(pdf.toString("base64"));
      return text;
    };
    assert.match(await fetchNew(), /First notes/);
    assert.match(await fetchNew("?received=true"), /First notes/);

    expectStatus(await store.api.patch(`/v2/purchase_orders/${order.id}`, { notes: "Second notes" }), 200);
    assert.match(await fetchNew(), /Second notes/);

    // A line's write (cancelling what is left of it) changes the line, not the order's own fields.
    const before = await pdfText((await counted(pdfPath("?received=true"))).pdf);
    expectStatus(
      await store.api.post(`/v2/purchase_orders/${order.id}/lines/${order.lines[0].id}/cancel_remaining`),
      200,
    );
    const cancelled = await fetchNew("?received=true");
    assert.notEqual(cancelled, before);

    const receipt = await store.api.post(
      `/v2/purchase_orders/${order.id}/receipts`,
      { lines: [{ line_id: order.lines[1].id, quantity: 1 }] },
      idempotencyKey("pdf-receipt"),
    );
    expectStatus(receipt, 201);
    assert.notEqual(await fetchNew("?received=true"), cancelled);

    expectStatus(await store.api.patch(`/v2/suppliers/${order.supplier.id}`, { city: "Quimper" }), 200);
    assert.match(await fetchNew(), /Quimper/);

    expectStatus(await t.admin.patch(`/admin/stores/${store.id}`, { name: "Renamed Store" }), 200);
    assert.match(await fetchNew(), /Renamed Store/);
  });
});
