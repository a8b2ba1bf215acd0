/**
 * Merging suppliers (issue 20 item 2): the API's merge preview (POST /v2/suppliers/merge/preview)
 * answers what the merge would move and writes nothing, with the merge's own refusals; in the console a
 * purchasing user picks the duplicates on the survivor's page, sees what moves on a confirmation page
 * (orders, catalog items, price lists, the fields filled in), then merges once (a double click merges
 * once); a viewer gets no merge control and a forged POST is 403.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectError, expectStatus } from "../helpers/assertions.ts";
import { type ConsoleAgent, hiddenValue, pageText as text } from "../helpers/console-agent.ts";
import {
  createDraftOrder,
  createSupplier,
  customLine,
  eventsOf,
  listVariants,
} from "../helpers/factories.ts";
import { startSmtp, type TestSmtp } from "../helpers/smtp.ts";
import { joinStaff } from "../helpers/staff.ts";

describe("supplier merge: the API's preview and the console's confirmation", () => {
  let t: TestApp;
  let smtp: TestSmtp;
  let store: TestStore;
  let buyer: ConsoleAgent;
  let viewer: ConsoleAgent;

  before(async () => {
    smtp = await startSmtp();
    t = await startTestApp({ env: { SMTP_URL: smtp.url } });
    store = await t.createStore({ name: "Merge Shop", seed: "demo" });
    await t.drain();
    buyer = await joinStaff(t, smtp, store.id, "buyer@merge.test", "purchasing");
    viewer = await joinStaff(t, smtp, store.id, "viewer@merge.test", "viewer");
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  /** A target and two duplicates: orders on the sources, catalog items (two priced), a shared item. */
  async function duplicates(prefix: string) {
    const variants = (await listVariants(store.api)).slice(0, 4);
    const target = await createSupplier(store.api, { name: `${prefix} Ceramics` });
    const a = await createSupplier(store.api, { name: `${prefix} Ceramics Ltd`, phone: "+1 503 555 0100" });
    const b = await createSupplier(store.api, {
      name: `${prefix} ceramics (old)`,
      email: "old@ceramics.test",
    });
    const put = async (supplierId: number, rows: unknown[]) =>
      expectStatus(await store.api.put(`/v2/suppliers/${supplierId}/catalog`, { rows }), 200);
    await put(target.id, [{ variant_id: variants[0].id }]);
    await put(a.id, [
      { variant_id: variants[0].id, tiers: [{ min_qty: 1, price: 4 }] },
      { variant_id: variants[1].id, tiers: [{ min_qty: 1, price: 5 }] },
      { variant_id: variants[2].id },
    ]);
    await put(b.id, [{ variant_id: variants[3].id, tiers: [{ min_qty: 1, price: 6 }] }]);
    await createDraftOrder(store.api, { supplier_id: a.id, lines: [customLine()] });
    await createDraftOrder(store.api, { supplier_id: a.id, lines: [customLine()] });
    await createDraftOrder(store.api, { supplier_id: b.id, lines: [customLine()] });
    return { target, a, b };
  }

  const snapshot = async (ids: number[]) => ({
    suppliers: await Promise.all(
      ids.map(async (id) => (await store.api.get(`/v2/suppliers/${id}`)).body.data),
    ),
    catalogs: await Promise.all(
      ids.map(async (id) => (await store.api.get(`/v2/suppliers/${id}/catalog`)).body.data),
    ),
    orders: (await store.api.get("/v2/purchase_orders?limit=250")).body.data.map((o: any) => [
      o.id,
      o.supplier_id,
    ]),
    events: (
      await Promise.all(ids.map((id) => eventsOf(t, { type: "supplier", id, storeId: store.id })))
    ).map((list) => list.length),
  });

  test("the API's preview answers the merge's counts and survivor, and writes nothing", async () => {
    const { target, a, b } = await duplicates("Preview");
    const input = { target_id: target.id, source_ids: [a.id, b.id] };
    const before = await snapshot([target.id, a.id, b.id]);
    const preview = await store.api.post("/v2/suppliers/merge/preview", input);
    expectStatus(preview, 200);
    // a's item 0 stays the target's (dropped), so 3 items move, 2 of them priced; 3 orders move.
    assert.deepEqual(preview.body.moved, { purchase_orders: 3, items: 3, price_lists: 2, suppliers: 2 });
    assert.equal(preview.body.data.id, target.id);
    assert.equal(preview.body.data.phone, "+1 503 555 0100");
    assert.equal(preview.body.data.email, "old@ceramics.test");
    assert.deepEqual(await snapshot([target.id, a.id, b.id]), before);

    const merged = await store.api.post("/v2/suppliers/merge", input);
    expectStatus(merged, 200);
    assert.deepEqual(merged.body.moved, { purchase_orders: 3, items: 3, suppliers: 2 });
    const { updated_at: _u, ...survivor } = merged.body.data;
    const { updated_at: _p, ...previewed } = preview.body.data;
    assert.deepEqual(survivor, previewed);
  });

  test("the preview refuses as the merge does: the target itself, an unknown supplier", async () => {
    const target = await createSupplier(store.api, { name: "Lonely" });
    const res = await store.api.post("/v2/suppliers/merge/preview", {
      target_id: target.id,
      source_ids: [target.id, 999999],
    });
    expectError(res, 422, "validation_failed");
    assert.deepEqual(
      res.body.error.details.map((d: any) => [d.field, d.code]),
      [
        ["source_ids.0", "same_as_target"],
        ["source_ids.1", "not_found"],
      ],
    );
  });

  test("the console: pick the duplicates, see what moves, confirm; a double click merges once", async () => {
    const { target, a, b } = await duplicates("Console");
    const base = `/console/stores/${store.id}/suppliers/${target.id}`;
    const supplierPage = await buyer.get(base);
    assert.match(
      supplierPage.body,
      new RegExp(`<a class="button" href="${base}/merge">Merge duplicates into this supplier</a>`),
    );
    const pick = await buyer.get(`${base}/merge?q=Console`);
    assert.equal(pick.status, 200);
    const shown = text(pick.body);
    assert.match(shown, /Console Ceramics Ltd/);
    assert.match(shown, /Console ceramics \(old\)/);
    assert.doesNotMatch(pick.body, new RegExp(`name="source_ids" value="${target.id}"`));
    const csrf = hiddenValue(pick.body, "_csrf");

    const none = await buyer.post(`${base}/merge`, { _csrf: csrf });
    assert.equal(none.status, 422);
    assert.match(text(none.body), /Pick at least one supplier to merge into Console Ceramics\./);

    const before = await snapshot([target.id, a.id, b.id]);
    const confirm = await buyer.post(`${base}/merge`, {
      _csrf: csrf,
      source_ids: [String(a.id), String(b.id)],
    });
    assert.equal(confirm.status, 200);
    const question = text(confirm.body);
    assert.match(question, /Merge 2 suppliers into Console Ceramics\?/);
    assert.match(question, /Purchase orders 3 Catalog items 3 Of them with price lists 2/);
    assert.match(
      question,
      /Filled in from the merged suppliers Email old@ceramics\.test Phone \+1 503 555 0100/,
    );
    assert.deepEqual(
      await snapshot([target.id, a.id, b.id]),
      before,
      "the confirmation page changes nothing",
    );

    const form = {
      _csrf: csrf,
      confirm: "yes",
      _key: hiddenValue(confirm.body, "_key"),
      source_ids: [String(a.id), String(b.id)],
    };
    const done = await buyer.post(`${base}/merge`, form);
    assert.equal(done.status, 303);
    assert.equal(done.location, base);
    const again = await buyer.post(`${base}/merge`, form);
    assert.equal(again.status, 303, "the same confirmation twice is one merge");
    assert.match(
      text((await buyer.get(base)).body),
      /Merged 2 suppliers into Console Ceramics: 3 purchase orders and 3 catalog items moved\./,
    );
    const sources = await Promise.all(
      [a.id, b.id].map(async (id) => (await store.api.get(`/v2/suppliers/${id}`)).body.data),
    );
    assert.deepEqual(
      sources.map((s) => [s.archived, s.merged_into_id]),
      [
        [true, target.id],
        [true, target.id],
      ],
    );
    const history = (await eventsOf(t, { type: "supplier", id: target.id, storeId: store.id })).filter(
      (e) => e.name === "supplier.merged",
    );
    assert.equal(history.length, 1);

    // Merging a source already merged is the API's refusal, named by the supplier.
    const refused = await buyer.post(`${base}/merge`, { _csrf: csrf, source_ids: String(a.id) });
    assert.equal(refused.status, 422);
    assert.match(
      text(refused.body),
      new RegExp(
        `Nothing was merged\\. .*Console Ceramics Ltd was already merged into supplier ${target.id}`,
      ),
    );
  });

  test("a viewer gets no merge control, and a forged merge is 403 and changes nothing", async () => {
    const { target, a } = await duplicates("Viewer");
    const base = `/console/stores/${store.id}/suppliers/${target.id}`;
    const page = await viewer.get(base);
    assert.doesNotMatch(page.body, /Merge duplicates/);
    assert.equal((await viewer.get(`${base}/merge`)).status, 403);
    const csrf = hiddenValue(page.body, "_csrf");
    const forged = await viewer.post(`${base}/merge`, {
      _csrf: csrf,
      confirm: "yes",
      source_ids: String(a.id),
    });
    assert.equal(forged.status, 403);
    assert.equal((await store.api.get(`/v2/suppliers/${a.id}`)).body.data.merged_into_id, null);
  });
});
