/**
 * A purchase order's page in the console (issue 20 item 3, part): mark ordered, send by email after a
 * preview (the recipients refused on their field, nothing sent; then the mail with the PDF arrives),
 * the history saying who did it from the console; a viewer gets no control and a forged POST is 403.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { ConsoleAgent, hiddenValue, pageText as text } from "../helpers/console-agent.ts";
import {
  createDraftOrder,
  createOrderedOrder,
  createSupplier,
  customLine,
  getOrder,
  trackedVariants,
} from "../helpers/factories.ts";
import { startSmtp, type TestSmtp } from "../helpers/smtp.ts";
import { joinStaff, mailsTo } from "../helpers/staff.ts";

describe("console purchase order actions", () => {
  let t: TestApp;
  let smtp: TestSmtp;
  let store: TestStore;
  let agent: ConsoleAgent;
  const orderPath = (id: number) => `/console/stores/${store.id}/purchase_orders/${id}`;

  before(async () => {
    smtp = await startSmtp();
    t = await startTestApp({ env: { SMTP_URL: smtp.url } });
    store = await t.createStore({ seed: "demo" });
    await t.drain();
    agent = new ConsoleAgent(t);
    assert.equal((await agent.login()).status, 303);
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  async function draft() {
    const supplier = await createSupplier(store.api, { email: "orders@acme.test", contact_name: "Jo" });
    return createDraftOrder(store.api, { supplier_id: supplier.id, lines: [customLine(3, "12.50")] });
  }

  test("a draft is marked ordered from its page; the history says the operator did it in the console", async () => {
    // A tracked item's line, so ordering has incoming quantities to send to the platform.
    const [variant] = await trackedVariants(store.api);
    const supplier = await createSupplier(store.api, { email: "orders@acme.test" });
    const order = await createDraftOrder(store.api, {
      supplier_id: supplier.id,
      lines: [{ variant_id: variant.id, quantity: 3, unit_cost: "12.50" }],
    });
    const shown = await agent.get(orderPath(order.id));
    assert.match(shown.body, /Mark ordered/);
    // A draft moves no stock: nothing was sent to the platform, and the page does not claim it is up to date.
    assert.deepEqual((await getOrder(store.api, order.id)).platform_sync, {
      state: "synced",
      attempted_at: null,
      error: null,
    });
    assert.match(text(shown.body), /Platform sync Nothing to send yet /);
    const res = await agent.post(`${orderPath(order.id)}/mark_ordered`, {
      _csrf: hiddenValue(shown.body, "_csrf"),
    });
    assert.equal(res.status, 303);
    assert.equal((await getOrder(store.api, order.id)).status, "ordered");
    const page = text((await agent.get(orderPath(order.id))).body);
    assert.match(page, new RegExp(`${order.number} is marked ordered\\.`));
    assert.match(page, /Ordered operator \(console\)/);
    // Ordering sends the incoming quantities; once the platform took them, the order is up to date.
    assert.match(page, /Platform sync Waiting to be sent /);
    await t.drain();
    assert.match(text((await agent.get(orderPath(order.id))).body), /Platform sync Up to date /);
    const history = (await store.api.get(`/v2/purchase_orders/${order.id}/history`)).body.data;
    assert.deepEqual(
      history.filter((h: any) => h.type === "ordered").map((h: any) => [h.by, h.via]),
      [["operator", "console"]],
    );
  });

  test("send shows the mail first; no recipient is refused on its field and sends nothing; then it goes", async () => {
    const order = await draft();
    const preview = await agent.get(`${orderPath(order.id)}/send`);
    assert.equal(preview.status, 200);
    const shown = text(preview.body);
    assert.match(shown, new RegExp(`Subject: Purchase order ${order.number} from`));
    assert.match(shown, /Hello Jo, Please find attached purchase order/);
    assert.match(shown, /Total: USD 37\.50/);
    assert.match(preview.body, new RegExp(`href="${orderPath(order.id)}/pdf"`));
    assert.match(preview.body, /id="send-to" name="to" value="orders@acme\.test"/);

    const csrf = hiddenValue(preview.body, "_csrf");
    smtp.received.length = 0;
    const refused = await agent.post(`${orderPath(order.id)}/send`, { _csrf: csrf, to: "", cc: "" });
    assert.equal(refused.status, 422);
    assert.match(text(refused.body), /Nothing was sent\./);
    assert.match(refused.body, /id="send-to" name="to" value=""[^>]* aria-invalid="true"/);
    assert.equal((await getOrder(store.api, order.id)).status, "draft");

    const sent = await agent.post(`${orderPath(order.id)}/send`, {
      _csrf: csrf,
      _key: hiddenValue(preview.body, "_key"),
      to: "orders@acme.test",
      cc: "",
      message: "Before Friday, please.",
    });
    assert.equal(sent.status, 303);
    await t.drain();
    const mails = mailsTo(smtp.received, "orders@acme.test");
    assert.equal(mails.length, 1);
    assert.match(mails[0].raw, /Before Friday, please\./);
    assert.match(mails[0].raw, /Total: USD 37\.50/, "the preview's total line is the mail's");
    assert.match(mails[0].raw, /Content-Type: application\/pdf/i);
    assert.equal((await getOrder(store.api, order.id)).status, "ordered");
    assert.match(
      text((await agent.get(orderPath(order.id))).body),
      /Sent to the supplier operator \(console\)/,
    );
  });

  test("the order's moments are shown in the store's time zone, one readable format, not UTC ISO", async () => {
    // India has no daylight saving: +05:30 all year, so the expected text is plain arithmetic here.
    const indian = await t.createStore({ seed: "demo", timezone: "Asia/Kolkata" });
    await t.drain();
    const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    const inKolkata = (iso: string) => {
      const d = new Date(Date.parse(iso) + 5.5 * 3600_000);
      const two = (n: number) => String(n).padStart(2, "0");
      return `${d.getUTCDate()} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`;
    };
    const supplier = await createSupplier(indian.api, { name: "Kolkata Traders" });
    const order = await createOrderedOrder(indian.api, {
      supplier_id: supplier.id,
      lines: [customLine(2, "4.00")],
    });
    const receipt = await indian.api.post(
      `/v2/purchase_orders/${order.id}/receipts`,
      { lines: [{ line_id: order.lines[0].id, quantity: 1 }] },
      { "idempotency-key": `tz-${order.id}` },
    );
    assert.equal(receipt.status, 201, JSON.stringify(receipt.body));
    const path = `/console/stores/${indian.id}/purchase_orders/${order.id}`;
    const res = await agent.get(path);
    assert.equal(res.status, 200, res.body.slice(0, 300));
    const shown = text(res.body);
    const history = (await indian.api.get(`/v2/purchase_orders/${order.id}/history`)).body.data;
    const created = history.find((h: any) => h.type === "created");
    assert.match(res.body, new RegExp(`<time datetime="${created.at}">${inKolkata(created.at)}</time>`));
    assert.match(shown, new RegExp(`${inKolkata(created.at)} Created`));
    const fresh = await getOrder(indian.api, order.id);
    assert.match(shown, new RegExp(`Ordered ${inKolkata(fresh.ordered_at)} `));
    assert.match(shown, new RegExp(`Delivery 1 ${inKolkata(receipt.body.data.received_at)} `));
    assert.doesNotMatch(res.body, />\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/, "no raw ISO or UTC time is printed");
  });

  test("the order's days (Expected, Payment due, a payment's day) are written like its moments' days, not ISO", async () => {
    const supplier = await createSupplier(store.api, { name: "Day Format Co" });
    const order = await createOrderedOrder(store.api, {
      supplier_id: supplier.id,
      lines: [customLine(2, "4.00")],
      expected_at: "2031-05-10",
      payment_due_on: "2031-06-01",
      reference: "DAYS-1",
    });
    const payment = await store.api.post(`/v2/purchase_orders/${order.id}/payments`, {
      amount: "1.00",
      paid_on: "2031-05-02",
    });
    assert.equal(payment.status, 201, JSON.stringify(payment.body));

    const res = await agent.get(orderPath(order.id));
    assert.equal(res.status, 200);
    const shown = text(res.body);
    assert.match(shown, /Expected 10 May 2031 /);
    assert.match(shown, /Payment due 1 Jun 2031 /);
    // The platform's state in words, not the API's lower-case word: a custom line has no item on the
    // platform, so this order never had anything to send.
    assert.deepEqual((await getOrder(store.api, order.id)).platform_sync, {
      state: "synced",
      attempted_at: null,
      error: null,
    });
    assert.match(shown, /Platform sync Nothing to send yet /);
    assert.match(res.body, /<time datetime="2031-05-10">10 May 2031<\/time>/);
    assert.match(res.body, /<th scope="row"><time datetime="2031-05-02">2 May 2031<\/time><\/th>/);
    assert.doesNotMatch(res.body, />\s*2031-0\d-\d\d\s*</, "no day printed as ISO");
    const question = text(
      (await agent.get(`${orderPath(order.id)}/payments/${payment.body.data.id}/delete`)).body,
    );
    assert.match(question, /made on 2 May 2031 \(/);

    const list = await agent.get(`/console/stores/${store.id}/purchase_orders?q=DAYS-1`);
    assert.equal(list.status, 200);
    assert.match(list.body, /<td><time datetime="2031-05-10">10 May 2031<\/time><\/td>/);
  });

  test("History pages: an Older history link walks to every entry; a stale link shows none and says so", async () => {
    const order = await draft();
    for (let i = 1; i <= 55; i++)
      assert.equal(
        (await store.api.patch(`/v2/purchase_orders/${order.id}`, { notes: `n${i}` })).status,
        200,
      );
    const all = (await store.api.get(`/v2/purchase_orders/${order.id}/history?limit=250`)).body.data;
    assert.equal(all.length, 56, "created and 55 changes");
    const historyOf = (body: string) =>
      body.slice(
        body.indexOf('<section id="history"'),
        body.indexOf("</section>", body.indexOf('<section id="history"')),
      );
    const seen: string[] = [];
    let path = orderPath(order.id);
    const pages: string[] = [];
    for (let n = 0; n < 5; n++) {
      const res = await agent.get(path);
      assert.equal(res.status, 200, res.body.slice(0, 300));
      const section = historyOf(res.body);
      pages.push(section);
      for (const m of section.matchAll(
        /<tr><td><time datetime="([^"]+)">[^<]*<\/time><\/td><td>([^<]+)<\/td>/g,
      ))
        seen.push(`${m[1]} ${m[2]}`);
      const older = /<a href="([^"]+)" rel="next">Older history<\/a>/.exec(section);
      if (!older) break;
      path = older[1].replace(/&amp;/g, "&");
      assert.match(path, new RegExp(`^${orderPath(order.id)}\\?history_cursor=[^#]+#history$`));
    }
    assert.equal(pages.length, 2, "the API's 50 newest, then the rest");
    assert.deepEqual(
      seen,
      all.map((h: any) => `${h.at} ${h.type === "created" ? "Created" : "Changed"}`),
      "every entry once, newest first",
    );
    assert.match(text(pages[1]), /Newest history/);
    assert.doesNotMatch(text(pages[0]), /Newest history/);
    assert.doesNotMatch(pages[1], /Older history/);

    const stale = await agent.get(`${orderPath(order.id)}?history_cursor=nope`);
    assert.equal(stale.status, 200);
    assert.equal(
      text(historyOf(stale.body)).trim(),
      "That history link no longer works. Start again from the newest entries. History When What Who No history shown. Newest history",
    );
  });

  test("a charge's kind is shown in the draft editor's words, not the API's", async () => {
    const supplier = await createSupplier(store.api, { name: "Charges Ltd" });
    const order = await createDraftOrder(store.api, {
      supplier_id: supplier.id,
      lines: [customLine(1, "10.00")],
      charges: [
        { kind: "shipping", label: "Freight", amount: "5.00" },
        { kind: "other", label: "Pallet", amount: "2.00" },
      ],
    });
    const editor = await agent.get(`${orderPath(order.id)}/edit`);
    assert.equal(editor.status, 200, editor.body.slice(0, 300));
    const offered = [...editor.body.matchAll(/<option value="(shipping|other)"[^>]*>([^<]+)<\/option>/g)];
    const words = new Map(offered.map((m) => [m[1], m[2]]));
    assert.deepEqual(Object.fromEntries(words), { shipping: "Shipping", other: "Other" });
    const page = (await agent.get(orderPath(order.id))).body;
    const charges = page.slice(
      page.indexOf("<caption>Charges</caption>"),
      page.indexOf("</table>", page.indexOf("<caption>Charges</caption>")),
    );
    const kinds = [...charges.matchAll(/<tr><td>([^<]*)<\/td><td>([^<]*)<\/td>/g)].map((m) => [m[1], m[2]]);
    assert.deepEqual(kinds, [
      [words.get("shipping"), "Freight"],
      [words.get("other"), "Pallet"],
    ]);
  });

  test("a viewer sees the order and its history with no control; forged POSTs are refused", async () => {
    const order = await draft();
    const viewer = await joinStaff(t, smtp, store.id, "val@example.com", "viewer");
    const page = await viewer.get(orderPath(order.id));
    assert.equal(page.status, 200, page.body.slice(0, 300));
    assert.match(text(page.body), /History/);
    assert.doesNotMatch(page.body, /Mark ordered|Send by email/);
    const csrf = hiddenValue(page.body, "_csrf");
    assert.equal((await viewer.post(`${orderPath(order.id)}/mark_ordered`, { _csrf: csrf })).status, 403);
    assert.equal(
      (await viewer.post(`${orderPath(order.id)}/send`, { _csrf: csrf, to: "x@y.test" })).status,
      403,
    );
    assert.equal((await viewer.get(`${orderPath(order.id)}/send`)).status, 403);
    assert.equal((await getOrder(store.api, order.id)).status, "draft");
  });
});
