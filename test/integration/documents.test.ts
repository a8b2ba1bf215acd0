import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { PDFParse } from "pdf-parse";
import type { ManualClock } from "../../src/clock.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { startSmtp } from "../helpers/smtp.ts";

async function pdfText(buffer: Buffer): Promise<{ text: string; pages: number }> {
  const parser = new PDFParse({ data: new Uint8Array(buffer) });
  try {
    const result = await parser.getText();
    return { text: result.text, pages: result.total };
  } finally {
    await parser.destroy();
  }
}

/** The attachment's bytes, decoded from the raw MIME message. */
function pdfAttachment(raw: string): Buffer {
  const part = raw.split(/\r?\n--/).find((p) => /Content-Type: application\/pdf/i.test(p));
  assert.ok(part, "a PDF part");
  const body = part
    .split(/\r?\n\r?\n/)
    .slice(1)
    .join("\n")
    .replace(/\s+/g, "");
  return Buffer.from(body, "base64");
}

async function makeOrder(
  store: TestStore,
  lineCount: number,
  supplier: { email: string | null; email_cc?: string[] },
) {
  const s = await store.api.post("/v2/suppliers", {
    name: "Fournisseur Crème",
    currency: "USD",
    ...supplier,
  });
  assert.equal(s.status, 201, JSON.stringify(s.body));
  const variants = await store.api.get(`/v2/variants?limit=${Math.min(lineCount, 250)}`);
  const withSku = variants.body.data.filter((v: any) => v.sku);
  assert.ok(withSku.length >= Math.min(lineCount, 60));
  const lines = Array.from({ length: lineCount }, (_, i) => ({
    variant_id: withSku[i % withSku.length].id,
    quantity: 3,
    unit_cost: 123.45,
  }));
  const po = await store.api.post("/v2/purchase_orders", {
    supplier_id: s.body.data.id,
    lines,
    notes: "Livraison à l'entrepôt n° 2",
  });
  assert.equal(po.status, 201, JSON.stringify(po.body));
  return {
    order: po.body.data,
    skus: [...new Set(lines.map((_, i) => withSku[i % withSku.length].sku as string))],
  };
}

describe("purchase order PDF and sending by SMTP", () => {
  let t: TestApp;
  let store: TestStore;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  before(async () => {
    smtp = await startSmtp();
    t = await startTestApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: "Stockroom <po@stockroom.test>" } });
    store = await t.createStore({ seed: "demo" });
    await t.drain();
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  test("the PDF parses and holds the order number, every SKU and the total; 60 lines flow onto a second page", async () => {
    const { order, skus } = await makeOrder(store, 60, { email: "orders@supplier.test" });
    const res = await store.api.get(`/v2/purchase_orders/${order.id}/pdf`);
    assert.equal(res.status, 200);
    assert.match(String(res.headers["content-type"]), /^application\/pdf/);
    const { text, pages } = await pdfText(res.raw.rawPayload);
    assert.ok(text.includes(order.number), "order number");
    for (const sku of skus) assert.ok(text.includes(sku), `sku ${sku}`);
    const total = Number(order.totals.total).toLocaleString("en-US", { minimumFractionDigits: 2 });
    assert.ok(text.includes(total), `total ${total}`);
    assert.ok(text.includes("Livraison à l'entrepôt"), "accented notes render");
    assert.ok(pages >= 2, `pages ${pages}`);
    assert.match(text, /Page 2 of/);
  });

  test("the receiving copy holds quantities and no prices", async () => {
    const { order } = await makeOrder(store, 5, { email: "orders@supplier.test" });
    const res = await store.api.get(`/v2/purchase_orders/${order.id}/pdf?received=true`);
    assert.equal(res.status, 200);
    const { text } = await pdfText(res.raw.rawPayload);
    assert.ok(text.includes(order.number));
    assert.ok(!text.includes("123.45"), "no unit cost");
    assert.ok(
      !text.includes(Number(order.totals.total).toLocaleString("en-US", { minimumFractionDigits: 2 })),
      "no total",
    );
  });

  test("another store's order is 404 and a read-only key may fetch the PDF", async () => {
    const { order } = await makeOrder(store, 1, { email: "orders@supplier.test" });
    const other = await t.createStore();
    await t.drain(); // its owner's invitation goes out now, not into a later test's count
    assert.equal((await other.api.get(`/v2/purchase_orders/${order.id}/pdf`)).status, 404);
    const reader = await store.keyWithScopes(["read"]);
    assert.equal((await reader.get(`/v2/purchase_orders/${order.id}/pdf`)).status, 200);
  });

  test("an unchanged order's PDF is served again as it was; a supplier's new address, which leaves the order's updated_at alone, is printed at once", async () => {
    const { order } = await makeOrder(store, 3, { email: "orders@supplier.test" });
    const first = await store.api.get(`/v2/purchase_orders/${order.id}/pdf`);
    const again = await store.api.get(`/v2/purchase_orders/${order.id}/pdf`);
    assert.equal(first.status, 200);
    assert.ok(first.raw.rawPayload.equals(again.raw.rawPayload));
    assert.ok(!(await pdfText(first.raw.rawPayload)).text.includes("Quimper"));
    const patched = await store.api.patch(`/v2/suppliers/${order.supplier.id}`, {
      address_line1: "3 rue du Port",
      city: "Quimper",
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const after = await store.api.get(`/v2/purchase_orders/${order.id}`);
    assert.equal(after.body.data.updated_at, order.updated_at);
    const moved = await store.api.get(`/v2/purchase_orders/${order.id}/pdf`);
    assert.ok((await pdfText(moved.raw.rawPayload)).text.includes("Quimper"));
  });

  test("send emails one message with the PDF to the supplier and cc; the draft becomes ordered", async () => {
    const { order } = await makeOrder(store, 3, {
      email: "orders@supplier.test",
      email_cc: ["accounts@supplier.test"],
    });
    smtp.received.length = 0;
    const res = await store.api.post(`/v2/purchase_orders/${order.id}/send`, { message: "Merci !" });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.status, "ordered");
    assert.ok(res.body.data.sent_at);
    assert.ok(res.body.data.ordered_at);
    assert.equal(smtp.received.length, 0, "mail leaves after commit, from the queue");
    await t.drain();
    assert.equal(smtp.received.length, 1);
    const [mail] = smtp.received;
    assert.deepEqual(mail.rcptTo.sort(), ["accounts@supplier.test", "orders@supplier.test"]);
    assert.match(mail.raw, /Content-Type: application\/pdf/i);
    assert.match(mail.raw, new RegExp(`${order.number}\\.pdf`));
    assert.match(mail.raw, /Content-Type: text\/plain/i);
    assert.match(mail.raw, /Content-Type: text\/html/i);
    assert.ok(pdfAttachment(mail.raw).subarray(0, 5).equals(Buffer.from("%PDF-")));
    const history = await store.api.get(`/v2/purchase_orders/${order.id}/history`);
    const types = history.body.data.map((h: any) => h.type);
    assert.ok(types.includes("sent"));
    assert.ok(types.includes("ordered"));
    const events = await t.runtime.ctx.db
      .selectFrom("events")
      .select("name")
      .where("subject_id", "=", order.id)
      .where("subject_type", "=", "purchase_order")
      .execute();
    assert.ok(events.some((e) => e.name === "purchase_order.ordered"));
  });

  test("an explicit recipient list overrides the supplier's; re-sending an open order keeps its status", async () => {
    const { order } = await makeOrder(store, 1, { email: "orders@supplier.test" });
    await store.api.post(`/v2/purchase_orders/${order.id}/mark_ordered`, {});
    smtp.received.length = 0;
    const res = await store.api.post(`/v2/purchase_orders/${order.id}/send`, {
      to: ["buyer@elsewhere.test"],
      cc: [],
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.status, "ordered");
    await t.drain();
    assert.deepEqual(
      smtp.received.map((m) => m.rcptTo),
      [["buyer@elsewhere.test"]],
    );
  });

  test("a send with no recipient is refused on `to` and changes nothing", async () => {
    const { order } = await makeOrder(store, 1, { email: null });
    const before = await store.api.get(`/v2/purchase_orders/${order.id}`);
    const res = await store.api.post(`/v2/purchase_orders/${order.id}/send`, {});
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, "validation_failed");
    assert.equal(res.body.error.details[0].field, "to");
    const afterward = await store.api.get(`/v2/purchase_orders/${order.id}`);
    assert.deepEqual(afterward.body, before.body);
    const bad = await store.api.post(`/v2/purchase_orders/${order.id}/send`, { to: ["not-an-email"] });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error.details[0].field, "to.0");
  });

  test("sending a closed order is an invalid transition", async () => {
    const { order } = await makeOrder(store, 1, { email: "orders@supplier.test" });
    await store.api.post(`/v2/purchase_orders/${order.id}/mark_ordered`, {});
    await store.api.post(`/v2/purchase_orders/${order.id}/close`, {});
    const res = await store.api.post(`/v2/purchase_orders/${order.id}/send`, {});
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, "invalid_transition");
    assert.match(res.body.error.message, /closed/);
  });

  test("a send the mail server refuses for good leaves a history row saying so", async () => {
    const { order } = await makeOrder(store, 1, { email: "orders@supplier.test" });
    smtp.state.refuseWith = 550;
    try {
      assert.equal((await store.api.post(`/v2/purchase_orders/${order.id}/send`, {})).status, 200);
      await t.drain();
    } finally {
      smtp.state.refuseWith = 0;
    }
    const history = await store.api.get(`/v2/purchase_orders/${order.id}/history`);
    const failed = history.body.data.find((h: any) => h.type === "send_failed");
    assert.ok(failed, "send_failed history row");
    assert.match(failed.data.error, /550|unavailable/i);
  });

  test("a transient failure is retried and then delivered", async () => {
    const { order } = await makeOrder(store, 1, { email: "orders@supplier.test" });
    smtp.received.length = 0;
    smtp.state.refuseWith = 451;
    assert.equal((await store.api.post(`/v2/purchase_orders/${order.id}/send`, {})).status, 200);
    await t.drain();
    assert.equal(smtp.received.length, 0);
    smtp.state.refuseWith = 0;
    (t.clock as ManualClock).advance(31_000);
    await t.drain();
    assert.equal(smtp.received.length, 1);
  });
});

describe("sending without SMTP_URL writes the message to the outbox", () => {
  test("an .eml file appears with the PDF attached", async () => {
    const outbox = await mkdtemp(join(tmpdir(), "stockroom-outbox-test-"));
    const t = await startTestApp({ env: { OUTBOX_DIR: outbox } });
    try {
      const store = await t.createStore({ seed: "demo" });
      await t.drain();
      // The owner's invitation is already there: only what the send writes counts.
      const earlier = new Set(await readdir(outbox));
      const { order } = await makeOrder(store, 2, { email: "orders@supplier.test" });
      assert.equal((await store.api.post(`/v2/purchase_orders/${order.id}/send`, {})).status, 200);
      await t.drain();
      const files = (await readdir(outbox)).filter((f) => f.endsWith(".eml") && !earlier.has(f));
      assert.equal(files.length, 1);
      const raw = await readFile(join(outbox, files[0]), "latin1");
      assert.match(raw, /To: orders@supplier\.test/);
      assert.match(raw, new RegExp(`Subject: Purchase order ${order.number}`));
      const pdf = pdfAttachment(raw);
      assert.ok(pdf.subarray(0, 5).equals(Buffer.from("%PDF-")));
      // The demo's main warehouse, in the US post's format, in the text part and the PDF alike.
      assert.match(
        raw,
        /Ship to:\r?\nMain Warehouse\r?\n1200 NW Front Ave\r?\nPortland, OR 97209\r?\nUnited States/,
      );
      assert.match((await pdfText(pdf)).text, /Portland, OR 97209/);
    } finally {
      await t.close();
    }
  });
});
