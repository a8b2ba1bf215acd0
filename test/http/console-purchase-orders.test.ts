/**
 * The purchase order list in the console (issue 20 item 3): newest first, every filter, the search by
 * number or reference, the other sorts, keyset pages of 50, amounts with their currency, and each order
 * and supplier linked. A filter the API refuses is named in the user's words and shows nothing.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../src/clock.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { ConsoleAgent, pageText as text } from "../helpers/console-agent.ts";
import { createDraftOrder, createSupplier, customLine, listLocations } from "../helpers/factories.ts";
import { startSmtp, type TestSmtp } from "../helpers/smtp.ts";
import { joinStaff } from "../helpers/staff.ts";

describe("console purchase order list", () => {
  let t: TestApp;
  let smtp: TestSmtp;
  let store: TestStore;
  let agent: ConsoleAgent;
  let clock: ManualClock;
  let list: string;
  /** Every order in creation order, as the API made it. */
  const orders: any[] = [];
  let north: any;
  let south: any;
  let locations: { id: number; name: string }[];

  /** The order numbers a list page shows, in its order. */
  const numbersOn = (body: string) =>
    [...body.matchAll(/<a href="[^"]*\/purchase_orders\/\d+">(PO-\d+|[A-Z]+-\d+)<\/a>/g)].map((m) => m[1]);

  before(async () => {
    clock = new ManualClock("2031-05-01T09:00:00.000Z");
    smtp = await startSmtp();
    t = await startTestApp({ clock, env: { SMTP_URL: smtp.url } });
    store = await t.createStore({ seed: "demo" });
    await t.drain();
    list = `/console/stores/${store.id}/purchase_orders`;
    locations = await listLocations(store.api);
    north = await createSupplier(store.api, { name: "North Mill" });
    south = await createSupplier(store.api, { name: "South <Forge>" });
    const make = async (body: Record<string, unknown>) => {
      clock.advance(60_000);
      const order = await createDraftOrder(store.api, { lines: [customLine(2, "12.50")], ...body });
      orders.push(order);
      return order;
    };
    await make({ supplier_id: north.id, reference: "Spring restock", location_id: locations[0].id });
    const ordered = await make({ supplier_id: south.id, reference: "Anvils", location_id: locations[1].id });
    assert.equal((await store.api.post(`/v2/purchase_orders/${ordered.id}/mark_ordered`, {})).status, 200);
    await make({ supplier_id: north.id, type: "return", location_id: locations[0].id });
    const archived = await make({
      supplier_id: south.id,
      reference: "Old stock",
      location_id: locations[0].id,
    });
    assert.equal((await store.api.post(`/v2/purchase_orders/${archived.id}/archive`, {})).status, 200);
    // 50 more, so the default list has a second page.
    for (let i = 0; i < 50; i++) await make({ supplier_id: north.id, location_id: locations[0].id });
    agent = new ConsoleAgent(t);
    assert.equal((await agent.login()).status, 303);
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  const unarchived = () => orders.filter((o) => o.reference !== "Old stock");

  test("newest first, 50 a page, the next page and back to the first", async () => {
    const first = await agent.get(list);
    assert.equal(first.status, 200);
    const newestFirst = unarchived()
      .reverse()
      .map((o) => o.number);
    assert.deepEqual(numbersOn(first.body), newestFirst.slice(0, 50));
    const next = /<a href="([^"]+)" rel="next">Next page<\/a>/.exec(first.body);
    assert.ok(next, "a next page link");
    const second = await agent.get(next[1].replace(/&amp;/g, "&"));
    assert.equal(second.status, 200);
    assert.deepEqual(numbersOn(second.body), newestFirst.slice(50));
    assert.doesNotMatch(second.body, /rel="next"/);
    assert.match(second.body, new RegExp(`<a href="${list}\\?sort=-created_at">First page</a>`));
  });

  test("each row links the order and its supplier and shows status, total with currency and reference", async () => {
    const [, ordered] = orders;
    const page = await agent.get(`${list}?q=anvils`);
    assert.match(page.body, new RegExp(`<a href="${list}/${ordered.id}">${ordered.number}</a>`));
    assert.match(
      page.body,
      new RegExp(`<a href="/console/stores/${store.id}/suppliers/${south.id}">South &lt;Forge&gt;</a>`),
    );
    assert.match(
      text(page.body),
      new RegExp(
        `${ordered.number} South <Forge> Ordered \\$25\\.00 USD Anvils ${locations[1].name} Unpaid – 1 May 2031, 09:02`,
      ),
    );
  });

  test("every filter narrows the list; the search finds a number or a reference in any case", async () => {
    const [spring, ordered, ret, old] = orders;
    const cases: [string, string[]][] = [
      ["status=ordered", [ordered.number]],
      ["status=ordered,in_transit,partial", [ordered.number]],
      [`supplier_id=${south.id}`, [ordered.number]],
      [`supplier_id=${south.id}&archived=all`, [old.number, ordered.number]],
      [`location_id=${locations[1].id}`, [ordered.number]],
      ["type=return", [ret.number]],
      ["archived=true", [old.number]],
      ["q=SPRING", [spring.number]],
      [`q=${ordered.number.toLowerCase()}`, [ordered.number]],
      ["q=stock&archived=all", [old.number, spring.number]],
      ["q=stock&archived=all&sort=created_at", [spring.number, old.number]],
      ["q=nothing+like+it", []],
    ];
    for (const [query, want] of cases) {
      const page = await agent.get(`${list}?${query}`);
      assert.equal(page.status, 200, query);
      assert.deepEqual(numbersOn(page.body), want, query);
    }
    const none = await agent.get(`${list}?status=closed`);
    assert.match(text(none.body), /No purchase orders match\./);
    // The form keeps what was chosen.
    const kept = await agent.get(
      `${list}?supplier_id=${south.id}&type=return&archived=all&sort=-updated_at&q=x`,
    );
    assert.match(kept.body, /id="po-supplier" name="supplier" value="South &lt;Forge&gt;"/);
    assert.match(kept.body, /<option value="return" selected>Returns<\/option>/);
    assert.match(kept.body, /<option value="all" selected>Both<\/option>/);
    assert.match(kept.body, /<option value="-updated_at" selected>Recently changed<\/option>/);
    assert.match(kept.body, /id="po-q" name="q" value="x"/);
  });

  test("the other sorts: oldest first, recently changed", async () => {
    const oldest = await agent.get(`${list}?sort=created_at`);
    assert.deepEqual(
      numbersOn(oldest.body),
      unarchived()
        .slice(0, 50)
        .map((o) => o.number),
    );
    clock.advance(60_000);
    const [spring] = orders;
    assert.equal((await store.api.patch(`/v2/purchase_orders/${spring.id}`, { notes: "now" })).status, 200);
    const changed = await agent.get(`${list}?sort=-updated_at`);
    assert.equal(numbersOn(changed.body)[0], spring.number);
  });

  test("a refused filter is named in the user's words and shows no orders", async () => {
    const status = await agent.get(`${list}?status=shipped`);
    assert.equal(status.status, 422);
    assert.match(text(status.body), /No orders shown\. Choose a status from the list\./);
    assert.deepEqual(numbersOn(status.body), []);
    const sort = await agent.get(`${list}?sort=number`);
    assert.equal(sort.status, 422);
    assert.match(text(sort.body), /No orders shown\. Check Sort: /);
    const cursor = await agent.get(`${list}?cursor=forged`);
    assert.equal(cursor.status, 422);
    assert.match(text(cursor.body), /That page link no longer matches the filters\./);
  });

  test("the supplier filter reaches every supplier of 260: typed in full (past 250 like names too), by words, several offered, none said", async () => {
    const bulk: any[] = [];
    for (let i = 1; i <= 260; i++) bulk.push(await createSupplier(store.api, { name: `Bulk supplier ${i}` }));
    // The last supplier made is past the first 250 of every supplier list the API pages.
    const last = bulk[259];
    const lastOrders = [];
    for (let i = 0; i < 2; i++) {
      clock.advance(60_000);
      lastOrders.push(
        await createDraftOrder(store.api, { supplier_id: last.id, lines: [customLine(1, "4.00")] }),
      );
    }
    const byName = await agent.get(`${list}?supplier=bulk+SUPPLIER+260&sort=created_at`);
    assert.equal(byName.status, 200);
    assert.deepEqual(
      numbersOn(byName.body),
      lastOrders.map((o) => o.number),
    );
    assert.match(byName.body, /id="po-supplier" name="supplier" value="Bulk supplier 260"/);
    assert.doesNotMatch(byName.body, /field-error/);
    // The page's links name the supplier by id; a link shows the name in the field.
    const byId = await agent.get(`${list}?supplier_id=${last.id}&sort=created_at`);
    assert.deepEqual(
      numbersOn(byId.body),
      lastOrders.map((o) => o.number),
    );
    assert.match(byId.body, /id="po-supplier" name="supplier" value="Bulk supplier 260"/);
    // A name typed in full is that supplier, though another name starts with it.
    const exact = await agent.get(`${list}?supplier=Bulk+supplier+26`);
    assert.equal(exact.status, 200);
    assert.match(exact.body, /id="po-supplier" name="supplier" value="Bulk supplier 26"/);
    assert.deepEqual(numbersOn(exact.body), []);
    assert.match(text(exact.body), /No purchase orders match\./);
    // Words of several names: the first ten by name offered as links, no orders until one is chosen.
    const several = await agent.get(`${list}?supplier=bulk&status=draft`);
    assert.equal(several.status, 200);
    assert.deepEqual(numbersOn(several.body), []);
    assert.match(
      several.body,
      /id="po-supplier" name="supplier" value="bulk" placeholder="Any supplier" maxlength="200" autocomplete="off" aria-invalid="true" aria-describedby="po-supplier-error">/,
    );
    assert.equal((text(several.body).match(/matches several suppliers/g) ?? []).length, 1);
    const offered = [...several.body.matchAll(/<li><a href="([^"]+)">(Bulk supplier \d+)<\/a><\/li>/g)];
    assert.deepEqual(
      offered.map((m) => m[2]),
      bulk
        .map((b) => b.name)
        .sort((a, b) => a.localeCompare(b))
        .slice(0, 10),
    );
    assert.match(text(several.body), /More suppliers match: type more of the name\./);
    const chosen = offered.find((m) => m[2] === "Bulk supplier 260");
    assert.equal(chosen, undefined, "260 sorts after the first ten");
    const first = offered[0][1].replace(/&amp;/g, "&");
    assert.equal(first, `${list}?status=draft&supplier_id=${bulk[0].id}&sort=-created_at`);
    // None: said once, on the field, and nothing listed.
    const none = await agent.get(`${list}?supplier=nobody+by+that+name`);
    assert.equal(none.status, 422);
    assert.deepEqual(numbersOn(none.body), []);
    assert.equal(
      (text(none.body).match(/Supplier “nobody by that name” matches no supplier's name\./g) ?? []).length,
      1,
    );
    assert.match(
      none.body,
      /value="nobody by that name" placeholder="Any supplier" maxlength="200" autocomplete="off" aria-invalid="true"/,
    );
    const gone = await agent.get(`${list}?supplier_id=999999`);
    assert.equal(gone.status, 422);
    assert.match(text(gone.body), /Supplier is not a supplier of this store: type its name\./);
    // A whole name that begins 261 names, made after them all (so past the first 250 matches of the
    // word search, in the API's order), is still that supplier.
    const plain = await createSupplier(store.api, { name: "Bulk supplier" });
    clock.advance(60_000);
    const plainOrder = await createDraftOrder(store.api, {
      supplier_id: plain.id,
      lines: [customLine(1, "2.00")],
    });
    const whole = await agent.get(`${list}?supplier=BULK+supplier`);
    assert.equal(whole.status, 200);
    assert.deepEqual(numbersOn(whole.body), [plainOrder.number]);
    assert.match(whole.body, /id="po-supplier" name="supplier" value="Bulk supplier"/);
    assert.doesNotMatch(whole.body, /field-error|Which supplier did you mean/);
  });

  test("a viewer reads the list; another store's staff get a 404", async () => {
    const viewer = await joinStaff(t, smtp, store.id, "vic@example.com", "viewer");
    const page = await viewer.get(`${list}?q=anvils`);
    assert.equal(page.status, 200);
    assert.deepEqual(numbersOn(page.body), [orders[1].number]);
    const other = await t.createStore({ seed: "empty" });
    const stranger = await joinStaff(t, smtp, other.id, "sam@example.com", "owner");
    assert.equal((await stranger.get(list)).status, 404);
    assert.equal((await stranger.get(`${list}/${orders[1].id}`)).status, 404);
  });
});
