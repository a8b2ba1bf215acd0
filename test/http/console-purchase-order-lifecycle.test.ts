/**
 * An order's lifecycle from its console page (issue 20 item 3): each control only where the status
 * allows it, duplicate (then the copy opens), mark in transit, cancel a line's remaining quantity,
 * close, reopen, archive (an open order closes first, after a question), unarchive and delete a draft
 * (after a question). A refused move says why and changes nothing; history says who did it from the
 * console; a viewer and an inventory user see no control and their forged POSTs are 403.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { type ConsoleAgent, hiddenValue, pageText as text } from "../helpers/console-agent.ts";
import {
  createDraftOrder,
  createOrderedOrder,
  createSupplier,
  customLine,
  getOrder,
} from "../helpers/factories.ts";
import { startSmtp, type TestSmtp } from "../helpers/smtp.ts";
import { joinStaff } from "../helpers/staff.ts";

describe("console purchase order lifecycle", () => {
  let t: TestApp;
  let smtp: TestSmtp;
  let store: TestStore;
  let buyer: ConsoleAgent;
  let supplierId: number;
  const orderPath = (id: number) => `/console/stores/${store.id}/purchase_orders/${id}`;

  before(async () => {
    smtp = await startSmtp();
    t = await startTestApp({ env: { SMTP_URL: smtp.url } });
    store = await t.createStore({ seed: "demo" });
    await t.drain();
    supplierId = (await createSupplier(store.api, { name: "Acme" })).id;
    buyer = await joinStaff(t, smtp, store.id, "pat@example.com", "purchasing");
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  const draft = () =>
    createDraftOrder(store.api, {
      supplier_id: supplierId,
      lines: [customLine(3, "12.50"), customLine(2, "4")],
    });
  const ordered = () =>
    createOrderedOrder(store.api, {
      supplier_id: supplierId,
      lines: [customLine(3, "12.50"), customLine(2, "4")],
    });

  /** The controls of the order's page, by their visible names. */
  async function controls(agent: ConsoleAgent, id: number): Promise<string[]> {
    const page = await agent.get(orderPath(id));
    assert.equal(page.status, 200);
    const actions = /<div class="actions">([\s\S]*?)<\/div>/.exec(page.body);
    if (!actions) return [];
    return [
      ...actions[1].matchAll(
        /<button type="submit"[^>]*>([^<]+)<\/button>|<a class="button[^"]*" href="[^"]+">([^<]+)<\/a>/g,
      ),
    ].map((m) => m[1] ?? m[2]);
  }

  async function post(agent: ConsoleAgent, id: number, action: string, fields: Record<string, string> = {}) {
    const page = await agent.get(orderPath(id));
    return agent.post(`${orderPath(id)}/${action}`, { _csrf: hiddenValue(page.body, "_csrf"), ...fields });
  }

  async function history(id: number): Promise<[string, string, string | null][]> {
    const res = await store.api.get(`/v2/purchase_orders/${id}/history?limit=250`);
    return res.body.data.map((h: any) => [h.type, h.by, h.via]).reverse();
  }

  test("each status shows the moves it allows", async () => {
    const d = await draft();
    assert.deepEqual(await controls(buyer, d.id), [
      "Mark ordered",
      "Send by email…",
      "Duplicate",
      "Archive",
      "Delete draft…",
    ]);
    const o = await ordered();
    assert.deepEqual(await controls(buyer, o.id), [
      "Send by email…",
      "Mark in transit",
      "Close…",
      "Duplicate",
      "Archive…",
    ]);
    assert.equal((await store.api.post(`/v2/purchase_orders/${o.id}/close`, {})).status, 200);
    assert.deepEqual(await controls(buyer, o.id), ["Reopen", "Duplicate", "Archive"]);
    assert.equal((await store.api.post(`/v2/purchase_orders/${o.id}/archive`, {})).status, 200);
    assert.deepEqual(await controls(buyer, o.id), ["Unarchive", "Duplicate"]);
  });

  test("duplicate makes one new draft (a resent form too) and opens it", async () => {
    const o = await ordered();
    const page = await buyer.get(orderPath(o.id));
    const form = { _csrf: hiddenValue(page.body, "_csrf"), _key: hiddenValue(page.body, "_key") };
    const res = await buyer.post(`${orderPath(o.id)}/duplicate`, form);
    assert.equal(res.status, 303);
    const copyId = Number(/\/purchase_orders\/(\d+)$/.exec(res.location ?? "")?.[1]);
    assert.ok(copyId > o.id);
    const again = await buyer.post(`${orderPath(o.id)}/duplicate`, form);
    assert.equal(again.location, res.location, "the same key makes no second copy");
    const copy = await getOrder(store.api, copyId);
    assert.equal(copy.status, "draft");
    assert.deepEqual(
      copy.lines.map((l: any) => [l.quantity, l.unit_cost]),
      [
        [3, "12.50"],
        [2, "4.00"],
      ],
    );
    const shown = text((await buyer.get(res.location!)).body);
    assert.match(shown, new RegExp(`${copy.number} is a new draft copied from ${o.number}\\.`));
    assert.deepEqual((await history(o.id)).at(-1), ["duplicated", "pat@example.com", "console"]);
  });

  test("mark in transit with an expected date; a wrong date is named and changes nothing", async () => {
    const o = await ordered();
    const wrong = await post(buyer, o.id, "mark_in_transit", { expected_at: "2031-02-30" });
    assert.equal(wrong.status, 303);
    const refusedPage = text((await buyer.get(orderPath(o.id))).body);
    assert.match(refusedPage, /Nothing was changed: the expected date /);
    assert.equal((await getOrder(store.api, o.id)).status, "ordered");
    const res = await post(buyer, o.id, "mark_in_transit", { expected_at: "2031-03-15" });
    assert.equal(res.status, 303);
    const now = await getOrder(store.api, o.id);
    assert.deepEqual([now.status, now.expected_at], ["in_transit", "2031-03-15"]);
    assert.match(text((await buyer.get(orderPath(o.id))).body), new RegExp(`${o.number} is in transit\\.`));
    assert.deepEqual((await history(o.id)).at(-1), ["in_transit", "pat@example.com", "console"]);
  });

  test("cancel a line's remaining quantity after a question", async () => {
    const o = await ordered();
    const line = o.lines[1];
    const page = await buyer.get(orderPath(o.id));
    const link = `${orderPath(o.id)}/lines/${line.id}/cancel_remaining`;
    assert.match(
      page.body,
      new RegExp(`<a href="${link}" aria-label="Cancel remaining of Custom part…">Cancel remaining…</a>`),
    );
    const ask = await buyer.get(link);
    assert.equal(ask.status, 200);
    assert.match(text(ask.body), /Cancel the remaining 2 of Custom part\?/);
    // The console's one confirm step (src/console/confirm.ts), as the settings and keys pages ask.
    assert.match(
      ask.body,
      /<section class="confirm" aria-labelledby="confirm-question">\s*<h2 id="confirm-question">Cancel the remaining 2 of Custom part\?<\/h2>/,
    );
    const csrf = hiddenValue(ask.body, "_csrf");
    const unconfirmed = await buyer.post(link, { _csrf: csrf });
    assert.equal(unconfirmed.status, 200, "without the confirmation it asks again");
    assert.equal((await getOrder(store.api, o.id)).lines[1].cancelled_quantity, 0);
    const res = await buyer.post(link, { _csrf: csrf, confirm: "yes" });
    assert.equal(res.status, 303);
    const now = await getOrder(store.api, o.id);
    assert.deepEqual(
      now.lines.map((l: any) => [l.cancelled_quantity, l.outstanding_quantity]),
      [
        [0, 3],
        [2, 0],
      ],
    );
    const shown = await buyer.get(orderPath(o.id));
    assert.match(text(shown.body), /The remaining 2 of Custom part are cancelled\./);
    assert.doesNotMatch(shown.body, new RegExp(link), "nothing left to cancel on that line");
    assert.deepEqual((await history(o.id)).at(-1), ["line_cancelled", "pat@example.com", "console"]);
    assert.equal((await buyer.get(`${orderPath(o.id)}/lines/999999/cancel_remaining`)).status, 404);
  });

  test("close after a question, then reopen; a move the status refuses says why", async () => {
    const o = await ordered();
    const ask = await buyer.get(`${orderPath(o.id)}/close`);
    assert.equal(ask.status, 200);
    assert.match(
      text(ask.body),
      new RegExp(`Close ${o.number}\\? Nothing more is expected from the supplier`),
    );
    const closed = await buyer.post(`${orderPath(o.id)}/close`, {
      _csrf: hiddenValue(ask.body, "_csrf"),
      confirm: "yes",
    });
    assert.equal(closed.status, 303);
    assert.equal((await getOrder(store.api, o.id)).status, "closed");
    // A second tab still showing the open order: the API refuses, the page says so.
    const stale = await post(buyer, o.id, "close", { confirm: "yes" });
    assert.equal(stale.status, 303);
    assert.match(text((await buyer.get(orderPath(o.id))).body), /Nothing was changed: .*closed/);
    const reopened = await post(buyer, o.id, "reopen");
    assert.equal(reopened.status, 303);
    assert.equal((await getOrder(store.api, o.id)).status, "ordered");
    assert.match(text((await buyer.get(orderPath(o.id))).body), new RegExp(`${o.number} is reopened\\.`));
    const refused = await post(buyer, o.id, "reopen");
    assert.equal(refused.status, 303);
    assert.match(text((await buyer.get(orderPath(o.id))).body), /Nothing was changed: /);
    assert.equal((await getOrder(store.api, o.id)).status, "ordered");
    assert.deepEqual((await history(o.id)).slice(-2), [
      ["closed", "pat@example.com", "console"],
      ["reopened", "pat@example.com", "console"],
    ]);
  });

  test("archive: an open order closes first after a question; a draft at once; unarchive", async () => {
    const o = await ordered();
    const ask = await buyer.get(`${orderPath(o.id)}/archive`);
    assert.equal(ask.status, 200);
    assert.match(text(ask.body), /archiving closes it first/);
    assert.match(ask.body, /<input type="hidden" name="close" value="yes">/);
    assert.match(ask.body, /<section class="confirm" aria-labelledby="confirm-question">/);
    const csrf = hiddenValue(ask.body, "_csrf");
    const unconfirmed = await buyer.post(`${orderPath(o.id)}/archive`, { _csrf: csrf, close: "yes" });
    assert.equal(unconfirmed.status, 200);
    assert.equal((await getOrder(store.api, o.id)).archived, false);
    const res = await buyer.post(`${orderPath(o.id)}/archive`, { _csrf: csrf, close: "yes", confirm: "yes" });
    assert.equal(res.status, 303);
    const now = await getOrder(store.api, o.id);
    assert.deepEqual([now.status, now.archived], ["closed", true]);
    const shown = await buyer.get(orderPath(o.id));
    assert.match(
      text(shown.body),
      new RegExp(`${o.number} is archived \\(closed first\\)\\. This order is archived\\.`),
    );
    assert.equal((await post(buyer, o.id, "unarchive")).status, 303);
    assert.equal((await getOrder(store.api, o.id)).archived, false);

    const d = await draft();
    assert.equal((await post(buyer, d.id, "archive")).status, 303);
    assert.match(text((await buyer.get(orderPath(d.id))).body), new RegExp(`${d.number} is archived\\.`));
    const archivedDraft = await getOrder(store.api, d.id);
    assert.deepEqual([archivedDraft.status, archivedDraft.archived], ["draft", true]);
    assert.deepEqual(
      (await history(o.id)).slice(-3).map(([type, by, via]) => [type, by, via]),
      [
        ["closed", "pat@example.com", "console"],
        ["archived", "pat@example.com", "console"],
        ["unarchived", "pat@example.com", "console"],
      ],
    );
  });

  test("delete a draft after a question; a placed order offers no delete and refuses one", async () => {
    const d = await draft();
    const ask = await buyer.get(`${orderPath(d.id)}/delete`);
    assert.equal(ask.status, 200);
    assert.match(
      text(ask.body),
      new RegExp(`Delete draft ${d.number}\\? The draft and its 2 lines are removed for good\\.`),
    );
    assert.match(ask.body, new RegExp(`<a href="${orderPath(d.id)}">Keep ${d.number} as it is</a>`));
    const csrf = hiddenValue(ask.body, "_csrf");
    assert.equal((await buyer.post(`${orderPath(d.id)}/delete`, { _csrf: csrf })).status, 200);
    assert.equal(
      (await store.api.get(`/v2/purchase_orders/${d.id}`)).status,
      200,
      "not without the confirmation",
    );
    const res = await buyer.post(`${orderPath(d.id)}/delete`, { _csrf: csrf, confirm: "yes" });
    assert.equal(res.status, 303);
    assert.equal(res.location, `/console/stores/${store.id}/purchase_orders`);
    assert.equal((await store.api.get(`/v2/purchase_orders/${d.id}`)).status, 404);
    assert.match(text((await buyer.get(res.location!)).body), new RegExp(`Draft ${d.number} is deleted\\.`));
    assert.equal((await buyer.get(orderPath(d.id))).status, 404);

    const o = await ordered();
    const notAsked = await buyer.get(`${orderPath(o.id)}/delete`);
    assert.equal(notAsked.status, 303, "no question for a move the order does not allow");
    assert.match(
      text((await buyer.get(orderPath(o.id))).body),
      new RegExp(`${o.number} is ordered: it cannot be deleted\\.`),
    );
    const forced = await post(buyer, o.id, "delete", { confirm: "yes" });
    assert.equal(forced.status, 303);
    assert.match(text((await buyer.get(orderPath(o.id))).body), /Nothing was changed: /);
    assert.equal((await getOrder(store.api, o.id)).status, "ordered");
  });

  test("a viewer and an inventory user see no control; their forged POSTs and question pages are 403", async () => {
    const o = await ordered();
    const d = await draft();
    const line = o.lines[0].id;
    const ordersBefore = await orderCount();
    for (const [email, role] of [
      ["vi@example.com", "viewer"],
      ["ivy@example.com", "inventory"],
    ]) {
      const agent = await joinStaff(t, smtp, store.id, email, role);
      assert.deepEqual(await controls(agent, o.id), [], role);
      assert.deepEqual(await controls(agent, d.id), [], role);
      const page = await agent.get(orderPath(o.id));
      assert.doesNotMatch(page.body, /Cancel remaining/, role);
      assert.match(page.body, /PDF of/, role);
      const csrf = hiddenValue(page.body, "_csrf");
      for (const [id, action] of [
        [o.id, "duplicate"],
        [o.id, "mark_in_transit"],
        [o.id, "close"],
        [o.id, "reopen"],
        [o.id, "archive"],
        [o.id, "unarchive"],
        [o.id, `lines/${line}/cancel_remaining`],
        [d.id, "delete"],
      ] as const) {
        const res = await agent.post(`${orderPath(id)}/${action}`, {
          _csrf: csrf,
          confirm: "yes",
          close: "yes",
        });
        assert.equal(res.status, 403, `${role} ${action}`);
      }
      for (const [id, action] of [
        [o.id, "close"],
        [o.id, "archive"],
        [d.id, "delete"],
        [o.id, `lines/${line}/cancel_remaining`],
      ] as const)
        assert.equal((await agent.get(`${orderPath(id)}/${action}`)).status, 403, `${role} GET ${action}`);
    }
    const [nowO, nowD] = [await getOrder(store.api, o.id), await getOrder(store.api, d.id)];
    assert.deepEqual([nowO.status, nowO.archived, nowO.lines[0].cancelled_quantity], ["ordered", false, 0]);
    assert.equal(nowD.status, "draft");
    assert.equal(await orderCount(), ordersBefore, "no copy was made");
  });

  async function orderCount(): Promise<number> {
    return (await store.api.get("/v2/purchase_orders?archived=all&limit=250")).body.data.length;
  }
});
