/**
 * Raising and editing a draft purchase order in the console (issue 20 item 3) through HTTP, as a browser
 * without script uses it: the line picker finds items by title, SKU or barcode with the supplier's
 * catalog items first and their tier prices; an added item starts at the supplier's minimum in whole
 * packs; the pack-size warning is rendered by the server; a refused save names the field in the user's
 * words, marks it and saves nothing; a save is one API call (idempotent per form) that ends on the
 * order's page; editing changes every field and adds and removes lines; a viewer gets none of it.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { apiCallsDuring } from "../helpers/api-calls.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import { ConsoleAgent, hiddenValue, pageText as text } from "../helpers/console-agent.ts";
import {
  createSupplier,
  FIXTURE_VARIANT_OFFSET,
  getOrder,
  insertFixtureVariants,
  listLocations,
  listVariants,
  type Variant,
} from "../helpers/factories.ts";
import { allPages } from "../helpers/paging.ts";
import { startSmtp, type TestSmtp } from "../helpers/smtp.ts";
import { joinStaff } from "../helpers/staff.ts";

/** Every field of the editor's form in a page, as a browser would post it (inputs, selects, textareas). */
function formFields(html: string): Record<string, string> {
  const form = /<form method="post" action="[^"]*\/(?:new|edit)" class="draft-order"[\s\S]*?<\/form>/.exec(
    html,
  );
  assert.ok(form, "no draft editor in the page");
  const out: Record<string, string> = {};
  const entities = (s: string) =>
    s
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&");
  for (const m of form[0].matchAll(/<input ([^>]*)>/g)) {
    const name = /name="([^"]*)"/.exec(m[1])?.[1];
    if (!name) continue;
    const type = /type="([^"]*)"/.exec(m[1])?.[1] ?? "text";
    if (type === "checkbox" && !/ checked/.test(m[1])) continue;
    out[name] = entities(/value="([^"]*)"/.exec(m[1])?.[1] ?? "");
  }
  for (const m of form[0].matchAll(/<select [^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/select>/g)) {
    out[m[1]] =
      /<option value="([^"]*)" selected[ >]/.exec(m[2])?.[1] ??
      /<option value="([^"]*)"/.exec(m[2])?.[1] ??
      "";
  }
  for (const m of form[0].matchAll(/<textarea [^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/textarea>/g))
    out[m[1]] = entities(m[2]);
  return out;
}

describe("console draft purchase orders", () => {
  let t: TestApp;
  let smtp: TestSmtp;
  let store: TestStore;
  let agent: ConsoleAgent;
  let variants: Variant[];
  let supplier: { id: number; name: string };
  const base = () => `/console/stores/${store.id}/purchase_orders`;
  const bySku = (sku: string) => variants.find((v) => v.sku === sku) as Variant;
  const orderCount = async () =>
    (await allPages(store.api, "/v2/purchase_orders?archived=all&limit=250")).length;

  before(async () => {
    smtp = await startSmtp();
    t = await startTestApp({ env: { SMTP_URL: smtp.url } });
    store = await t.createStore({ seed: "demo", currency: "USD" });
    await t.drain();
    agent = new ConsoleAgent(t);
    assert.equal((await agent.login()).status, 303);
    variants = await listVariants(store.api);
    supplier = await createSupplier(store.api, { name: "Pack & Co", currency: "USD" });
    expectStatus(
      await store.api.put(`/v2/suppliers/${supplier.id}/catalog`, {
        rows: [
          {
            variant_id: bySku("TEE-M").id,
            supplier_sku: "PK-TM",
            pack_size: 6,
            pack_unit: "box",
            min_order_qty: 12,
            tiers: [
              { min_qty: 1, price: "8.00" },
              { min_qty: 24, price: "7.50" },
            ],
          },
        ],
      }),
      200,
    );
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  /** Posts the editor's form as it is in `page`, with changes. */
  const post = (url: string, page: string, changes: Record<string, string>) =>
    agent.post(url, { ...formFields(page), ...changes });

  test("the list offers a new order; the picker puts the supplier's items first with their prices", async () => {
    const list = await agent.get(base());
    assert.match(list.body, new RegExp(`href="${base()}/new"`));
    const blank = await agent.get(`${base()}/new?supplier_id=${supplier.id}`);
    assert.equal(blank.status, 200);
    assert.match(blank.body, /id="po-supplier" name="supplier" value="Pack &amp; Co" required/);
    assert.equal(formFields(blank.body).supplier_id, String(supplier.id));
    assert.match(text(blank.body), /No lines yet/);

    const found = await post(`${base()}/new`, blank.body, { item_q: "tee", _do: "search" });
    assert.equal(found.status, 200);
    const results = text(/<ul class="picker-results"[\s\S]*?<\/ul>/.exec(found.body)?.[0] ?? "");
    assert.match(
      results,
      /^ Add Classic Tee – M TEE-M \d{13} From this supplier · Supplier SKU PK-TM · packs of 6 \(box\) · minimum 12 · 1\+ at \$8\.00 USD, 24\+ at \$7\.50 USD /,
    );
    for (const size of ["S", "L", "XL"])
      assert.match(results, new RegExp(`Add Classic Tee – ${size} TEE-${size}`));
    // By barcode, and by SKU without its dash.
    const byBarcode = await post(`${base()}/new`, blank.body, {
      item_q: bySku("TEE-L").barcode as string,
      _do: "search",
    });
    assert.match(text(byBarcode.body), /Add Classic Tee – L TEE-L/);
    const noMatch = await post(`${base()}/new`, blank.body, { item_q: "zzzz", _do: "search" });
    assert.match(text(noMatch.body), /No item matches “zzzz”\./);
  });

  test("an order raised from the picker: whole packs first, the pack warning, a refused quantity, then saved once", async () => {
    const blank = await agent.get(`${base()}/new?supplier_id=${supplier.id}`);
    const added = await post(`${base()}/new`, blank.body, { _do: `add:${bySku("TEE-M").id}` });
    assert.equal(added.status, 200);
    const fields = formFields(added.body);
    assert.equal(fields.line_count, "1");
    assert.equal(fields.line_qty_0, "12", "the supplier's minimum, in whole packs");
    assert.equal(fields.line_cost_0, "");
    assert.match(added.body, /id="line-cost-0" name="line_cost_0" value="" placeholder="8.00"/);
    assert.match(added.body, /<p class="line-warning" id="line-warn-0" aria-live="polite"><\/p>/);

    // A round trip (Enter in a field, or Search) renders the warnings for what was typed.
    const warned = await post(`${base()}/new`, added.body, { line_qty_0: "13", _do: "search" });
    assert.match(text(warned.body), /Not a whole number of packs of 6 \(box\)\. Suggested: 18\./);
    const below = await post(`${base()}/new`, added.body, { line_qty_0: "5", _do: "search" });
    assert.match(
      text(below.body),
      /Below the supplier's minimum order of 12\. Not a whole number of packs of 6 \(box\)\. Suggested: 12\./,
    );

    const before = await orderCount();
    const refused = await post(`${base()}/new`, added.body, { line_qty_0: "0", _do: "save" });
    assert.equal(refused.status, 422, text(refused.body).slice(0, 3000));
    assert.match(
      text(refused.body),
      /Nothing was saved\. Please correct: Line 1 \(Classic Tee – M\) quantity must be >= 1/,
    );
    assert.match(
      refused.body,
      /id="line-qty-0" name="line_qty_0" value="0" aria-invalid="true" aria-describedby="line-qty-0-error"/,
    );
    assert.equal(
      (text(refused.body).match(/quantity must be >= 1/g) ?? []).length,
      2,
      "summary and field, once each",
    );
    assert.equal(await orderCount(), before);

    const badCurrency = await post(`${base()}/new`, added.body, { currency: "US", _do: "save" });
    assert.equal(badCurrency.status, 422, text(badCurrency.body).slice(0, 1500));
    assert.match(
      badCurrency.body,
      /id="po-currency" name="currency" value="US" maxlength="3" autocapitalize="characters" aria-invalid="true"/,
    );
    assert.match(text(badCurrency.body), /Please correct: Currency /);
    assert.equal(await orderCount(), before);

    const locations = await listLocations(store.api);
    const form = {
      line_qty_0: "13",
      location_id: String(locations[1].id),
      expected_at: "2026-12-24",
      reference: "XMAS-1",
      notes: "Ring the bell.",
      charge_kind_0: "shipping",
      charge_label_0: "Freight",
      charge_amount_0: "10.00",
      _do: "save",
    };
    const saved = await post(`${base()}/new`, added.body, form);
    assert.equal(saved.status, 303, saved.body);
    const id = Number(new RegExp(`${base()}/(\\d+)$`).exec(saved.location ?? "")?.[1]);
    const order = await getOrder(store.api, id);
    assert.equal(order.status, "draft");
    assert.equal(order.supplier.id, supplier.id);
    assert.equal(order.location.id, locations[1].id);
    assert.equal(order.expected_at, "2026-12-24");
    assert.equal(order.reference, "XMAS-1");
    assert.equal(order.notes, "Ring the bell.");
    assert.deepEqual(
      order.lines.map((l: any) => [
        l.sku,
        l.quantity,
        l.unit_cost,
        l.line_total,
        l.warnings.map((w: any) => w.code),
      ]),
      [["TEE-M", 13, "8.00", "104.00", ["not_pack_multiple"]]],
    );
    assert.deepEqual(
      order.charges.map((c: any) => [c.kind, c.label, c.amount]),
      [["shipping", "Freight", "10.00"]],
    );
    assert.equal(order.totals.subtotal, "104.00");
    assert.equal(order.totals.charges, "10.00");
    const shown = text((await agent.get(saved.location as string)).body);
    assert.match(
      shown,
      new RegExp(
        `${order.number} is saved as a draft\\. Classic Tee – M: The quantity is not a multiple of the supplier's pack size of 6 \\(box\\)\\.`,
      ),
    );
    assert.match(shown, /Edit draft/);
    // The same form posted again (a double click, a reload) saves nothing more.
    const again = await post(`${base()}/new`, added.body, form);
    assert.equal(again.status, 303);
    assert.equal(again.location, saved.location);
    assert.equal(await orderCount(), before + 1);
    const history = (await store.api.get(`/v2/purchase_orders/${id}/history`)).body.data;
    assert.deepEqual(
      history.map((h: any) => [h.type, h.by, h.via]),
      [["created", "operator", "console"]],
    );
  });

  test("the supplier's catalog terms are read once per step: an Add, opening a draft, a save", async () => {
    const catalogCalls = (calls: string[]) =>
      calls.filter((c) => c.startsWith(`/v2/suppliers/${supplier.id}/catalog?`)).length;
    const blank = await agent.get(`${base()}/new?supplier_id=${supplier.id}`);
    const add = await apiCallsDuring(t, () =>
      post(`${base()}/new`, blank.body, { _do: `add:${bySku("TEE-M").id}` }),
    );
    assert.equal(add.result.status, 200);
    assert.equal(
      formFields(add.result.body).line_qty_0,
      "12",
      "the terms still start the line at the minimum",
    );
    assert.equal(catalogCalls(add.calls), 1);
    const created = await store.api.post("/v2/purchase_orders", {
      supplier_id: supplier.id,
      lines: [{ variant_id: bySku("TEE-M").id, quantity: 12 }],
    });
    expectStatus(created, 201);
    const opened = await apiCallsDuring(t, () => agent.get(`${base()}/${created.body.data.id}/edit`));
    assert.equal(opened.result.status, 200);
    assert.equal(catalogCalls(opened.calls), 1);
    // A refused save draws the editor again with the terms its tier prices came from.
    const refused = await apiCallsDuring(t, () =>
      post(`${base()}/${created.body.data.id}/edit`, opened.result.body, { line_qty_0: "0", _do: "save" }),
    );
    assert.equal(refused.result.status, 422);
    assert.equal(catalogCalls(refused.calls), 1);
  });

  test("a catalog of 1,001 items: the 1,001st item's line has its tier price and pack warning, added or reopened", async () => {
    const items = Array.from({ length: 1001 }, (_, i) => 800_001 + i);
    await insertFixtureVariants(t, store.id, items);
    const big = await createSupplier(store.api, { name: "Big Catalog", currency: "USD" });
    // Written in order, 250 rows a call: the last item is the catalog's 1,001st row, past four pages.
    for (let i = 0; i < items.length; i += 250) {
      const rows = items.slice(i, i + 250).map((id) => ({ inventory_item_id: id }));
      if (i + 250 >= items.length)
        rows[rows.length - 1] = {
          inventory_item_id: 801_001,
          pack_size: 6,
          pack_unit: "case",
          min_order_qty: 12,
          tiers: [{ min_qty: 1, price: "3.25" }],
        } as (typeof rows)[number];
      expectStatus(await store.api.put(`/v2/suppliers/${big.id}/catalog`, { rows }), 200);
    }
    const fourPages = await store.api.get(`/v2/suppliers/${big.id}/catalog?limit=250`);
    assert.equal(fourPages.body.data[0].inventory_item_id, 800_001, "the catalog's first row");

    const blank = await agent.get(`${base()}/new?supplier_id=${big.id}`);
    const add = await apiCallsDuring(t, () =>
      post(`${base()}/new`, blank.body, { _do: `add:${801_001 + FIXTURE_VARIANT_OFFSET}` }),
    );
    assert.equal(add.result.status, 200);
    assert.equal(formFields(add.result.body).line_qty_0, "12", "the supplier's minimum, in whole packs");
    assert.match(add.result.body, /id="line-cost-0" name="line_cost_0" value="" placeholder="3.25"/);
    // The first thousand rows for the picker, then the line's item by id: once in the request.
    const catalogCalls = add.calls.filter((c) => c.startsWith(`/v2/suppliers/${big.id}/catalog?`));
    assert.equal(catalogCalls.length, 5);
    assert.deepEqual(
      catalogCalls.filter((c) => c.includes("inventory_item_id=")),
      [`/v2/suppliers/${big.id}/catalog?limit=250&inventory_item_id=801001`],
    );
    const warned = await post(`${base()}/new`, add.result.body, { line_qty_0: "13", _do: "search" });
    assert.match(text(warned.body), /Not a whole number of packs of 6 \(case\)\. Suggested: 18\./);

    // Found by its SKU, the 1,001st item is this supplier's, with its terms, like the first thousand.
    const searched = await post(`${base()}/new`, blank.body, { item_q: "SKU-801001", _do: "search" });
    assert.equal(searched.status, 200);
    const result = /<ul class="picker-results"[^>]*>([\s\S]*?)<\/ul>/.exec(searched.body)?.[1] ?? "";
    assert.match(text(result), /^ ?Add Fixture product – Variant 801001 SKU-801001 From this supplier · /);

    // A saved draft reopened: the line's cost that the tier gives is left blank, its warning shown.
    const created = await store.api.post("/v2/purchase_orders", {
      supplier_id: big.id,
      lines: [{ variant_id: 801_001 + FIXTURE_VARIANT_OFFSET, quantity: 13 }],
    });
    expectStatus(created, 201);
    assert.equal(created.body.data.lines[0].unit_cost, "3.25");
    const opened = await agent.get(`${base()}/${created.body.data.id}/edit`);
    assert.equal(opened.status, 200);
    assert.equal(formFields(opened.body).line_cost_0, "", "the tier's price is not pinned as typed");
    assert.match(opened.body, /placeholder="3.25"/);
    assert.match(text(opened.body), /Not a whole number of packs of 6 \(case\)\. Suggested: 18\./);
  });

  test("editing a draft changes its fields, reprices by tier, adds and removes lines", async () => {
    const created = await store.api.post("/v2/purchase_orders", {
      supplier_id: supplier.id,
      reference: "R-1",
      lines: [
        { variant_id: bySku("TEE-M").id, quantity: 12 },
        { variant_id: bySku("CAP-BLACK").id, quantity: 2, unit_cost: "5.00" },
      ],
    });
    expectStatus(created, 201);
    const order = created.body.data;
    const edit = await agent.get(`${base()}/${order.id}/edit`);
    assert.equal(edit.status, 200);
    const fields = formFields(edit.body);
    assert.equal(fields.reference, "R-1");
    assert.equal(fields.line_qty_0, "12");
    assert.equal(fields.line_cost_0, "", "the tier's price is left to the supplier's price list");
    assert.equal(fields.line_cost_1, "5.00", "a cost typed by someone stays");

    const withTee = await post(`${base()}/${order.id}/edit`, edit.body, { _do: `add:${bySku("TEE-L").id}` });
    assert.equal(formFields(withTee.body).line_count, "3");
    const saved = await post(`${base()}/${order.id}/edit`, withTee.body, {
      reference: "R-2",
      line_qty_0: "24",
      line_remove_1: "yes",
      line_qty_2: "3",
      line_cost_2: "9.25",
      _do: "save",
    });
    assert.equal(saved.status, 303, saved.body);
    assert.equal(saved.location, `${base()}/${order.id}`);
    const after = await getOrder(store.api, order.id);
    assert.equal(after.reference, "R-2");
    assert.deepEqual(
      after.lines.map((l: any) => [l.sku, l.quantity, l.unit_cost]),
      [
        ["TEE-M", 24, "7.50"],
        ["TEE-L", 3, "9.25"],
      ],
    );
    assert.equal(after.lines[0].id, order.lines[0].id, "the kept line keeps its id");

    // An order no longer a draft is not edited here.
    expectStatus(await store.api.post(`/v2/purchase_orders/${order.id}/mark_ordered`, {}), 200);
    const closed = await agent.get(`${base()}/${order.id}/edit`);
    assert.equal(closed.status, 303);
    assert.match(text((await agent.get(closed.location as string)).body), /only a draft is edited here/);
    const late = await post(`${base()}/${order.id}/edit`, withTee.body, { reference: "R-3", _do: "save" });
    assert.equal(late.status, 303);
    assert.equal((await getOrder(store.api, order.id)).reference, "R-2");
  });

  test("the order's tax from the store's rates and a line discount: saved, refused on its field, kept on edit", async () => {
    expectStatus(
      await t.admin.put(`/admin/stores/${store.id}/tax_rates`, {
        rates: [
          { name: "VAT 20%", rate_percent: "20" },
          { name: "Reduced 5%", rate_percent: "5" },
        ],
      }),
      200,
    );
    const rates = (await t.admin.get(`/admin/stores/${store.id}/tax_rates`)).body.data as {
      id: number;
      name: string;
    }[];
    const vat = rates.find((r) => r.name === "VAT 20%") as { id: number };
    const blank = await agent.get(`${base()}/new?supplier_id=${supplier.id}`);
    assert.match(
      blank.body,
      new RegExp(
        `<select id="po-tax" name="tax_rate_id">\\s*<option value="" data-rate="0">No tax</option><option value="${vat.id}" data-rate="20">VAT 20% \\(20%\\)</option>`,
      ),
    );
    assert.match(blank.body, /data-tax-rate="0" data-taxes-included="false" data-charges-taxable="false"/);
    const added = await post(`${base()}/new`, blank.body, { _do: `add:${bySku("CAP-BLACK").id}` });
    const before = await orderCount();
    const refused = await post(`${base()}/new`, added.body, {
      tax_rate_id: String(vat.id),
      charges_taxable: "yes",
      line_qty_0: "10",
      line_cost_0: "4.00",
      line_discount_0: "150",
      charge_amount_0: "10.00",
      _do: "save",
    });
    assert.equal(refused.status, 422);
    assert.match(text(refused.body), /Line 1 \(Canvas Cap – Black\) discount must be <= 100/);
    assert.match(refused.body, /id="line-discount-0" name="line_discount_0" value="150" aria-invalid="true"/);
    assert.match(refused.body, new RegExp(`<option value="${vat.id}" selected data-rate="20">`));
    assert.match(refused.body, /data-tax-rate="20" data-taxes-included="false" data-charges-taxable="true"/);
    assert.equal(await orderCount(), before);

    const saved = await post(`${base()}/new`, refused.body, { line_discount_0: "12.5", _do: "save" });
    assert.equal(saved.status, 303, saved.body);
    const id = Number(/(\d+)$/.exec(saved.location as string)?.[1]);
    const order = await getOrder(store.api, id);
    assert.deepEqual(
      [order.tax.rate_id, order.tax.rate_percent, order.tax.taxes_included, order.tax.charges_taxable],
      [vat.id, 20, false, true],
    );
    // 10 × 4.00 less 12.5% = 35.00; tax 20% of 35.00 and of the 10.00 charge = 9.00.
    assert.deepEqual(
      [order.lines[0].discount_percent, order.lines[0].line_total, order.totals],
      [12.5, "35.00", { currency: "USD", subtotal: "35.00", charges: "10.00", tax: "9.00", total: "54.00" }],
    );

    const edit = await agent.get(`${base()}/${id}/edit`);
    const fields = formFields(edit.body);
    assert.deepEqual(
      [fields.tax_rate_id, fields.charges_taxable, fields.taxes_included, fields.line_discount_0],
      [String(vat.id), "yes", undefined, "12.5"],
    );
    const untaxed = await post(`${base()}/${id}/edit`, edit.body, {
      tax_rate_id: "",
      line_discount_0: "",
      charges_taxable: "",
      _do: "save",
    });
    assert.equal(untaxed.status, 303, untaxed.body);
    const after = await getOrder(store.api, id);
    assert.deepEqual(
      [after.tax.rate_id, after.lines[0].discount_percent, after.totals.tax, after.totals.total],
      [null, null, "0.00", "50.00"],
    );
  });

  test("an order whose tax rate was since removed shows it as it recorded it and keeps it on save", async () => {
    const ratesPath = `/admin/stores/${store.id}/tax_rates`;
    const current = (await t.admin.get(ratesPath)).body.data as {
      id: number;
      name: string;
      rate_percent: number;
    }[];
    const kept = current.map((r) => ({ id: r.id, name: r.name, rate_percent: String(r.rate_percent) }));
    expectStatus(
      await t.admin.put(ratesPath, { rates: [...kept, { name: "Harbour levy", rate_percent: "7.5" }] }),
      200,
    );
    const levy = ((await t.admin.get(ratesPath)).body.data as { id: number; name: string }[]).find(
      (r) => r.name === "Harbour levy",
    ) as { id: number };
    const created = await store.api.post("/v2/purchase_orders", {
      supplier_id: supplier.id,
      tax_rate_id: levy.id,
      lines: [{ variant_id: bySku("CAP-BLACK").id, quantity: 10, unit_cost: "4.00" }],
    });
    expectStatus(created, 201);
    const id = created.body.data.id;
    expectStatus(await t.admin.put(ratesPath, { rates: kept }), 200);

    const edit = await agent.get(`${base()}/${id}/edit`);
    assert.equal(edit.status, 200);
    assert.match(
      edit.body,
      /<option value="" data-rate="0">No tax<\/option><option value="recorded" selected data-rate="7.5">Harbour levy \(7.5%\), as the order recorded it: no longer one of the store's rates<\/option>/,
    );
    assert.equal(formFields(edit.body).tax_rate_id, "recorded");
    assert.match(edit.body, /data-tax-rate="7.5"/);
    // Saving another change keeps the rate as recorded: 10 × 4.00 = 40.00, 7.5 % of it 3.00.
    const saved = await post(`${base()}/${id}/edit`, edit.body, { reference: "Levy kept", _do: "save" });
    assert.equal(saved.status, 303, text(saved.body).slice(0, 2000));
    const after = await getOrder(store.api, id);
    assert.deepEqual(
      [after.reference, after.tax.rate_id, after.tax.name, after.tax.rate_percent, after.totals.tax],
      ["Levy kept", levy.id, "Harbour levy", 7.5, "3.00"],
    );
    // "No tax" still takes it off.
    const again = await agent.get(`${base()}/${id}/edit`);
    const untaxed = await post(`${base()}/${id}/edit`, again.body, { tax_rate_id: "", _do: "save" });
    assert.equal(untaxed.status, 303, text(untaxed.body).slice(0, 2000));
    const off = await getOrder(store.api, id);
    assert.deepEqual([off.tax.rate_id, off.tax.name, off.totals.tax], [null, null, "0.00"]);
    const reopened = await agent.get(`${base()}/${id}/edit`);
    assert.doesNotMatch(reopened.body, /as the order recorded it/);
  });

  /** The picker's items in a page: each one's text as read, in order. */
  const pickerItems = (body: string) =>
    [
      ...(/<ul class="picker-results"[\s\S]*?<\/ul>/.exec(body)?.[0] ?? "").matchAll(/<li>([\s\S]*?)<\/li>/g),
    ].map((m) => text(m[1]).trim());

  test("nothing typed: the picker lists the supplier's catalog items first with their tier prices, then the rest", async () => {
    // 30 more items, all "Fixture product": the last one is past the first 25 any search of them pages.
    const items = Array.from({ length: 30 }, (_, i) => 700_001 + i);
    await insertFixtureVariants(t, store.id, items);
    const second = await createSupplier(store.api, { name: "Second Source", currency: "USD" });
    expectStatus(
      await store.api.put(`/v2/suppliers/${second.id}/catalog`, {
        rows: [
          { inventory_item_id: 700_030, min_order_qty: 5, tiers: [{ min_qty: 1, price: "2.25" }] },
          { variant_id: bySku("CAP-BLACK").id, tiers: [{ min_qty: 1, price: "4.00" }] },
        ],
      }),
      200,
    );
    const blank = await agent.get(`${base()}/new?supplier_id=${second.id}`);
    assert.equal(blank.status, 200);
    const listed = pickerItems(blank.body);
    assert.equal(listed.length, 25);
    assert.deepEqual(listed.slice(0, 2), [
      ["Add Canvas Cap – Black CAP-BLACK", bySku("CAP-BLACK").barcode, "From this supplier · 1+ at $4.00 USD"]
        .filter(Boolean)
        .join(" "),
      "Add Fixture product – Variant 700030 SKU-700030 From this supplier · minimum 5 · 1+ at $2.25 USD",
    ]);
    assert.ok(
      listed.slice(2).every((item) => !item.includes("From this supplier")),
      "then the store's other items",
    );
    assert.equal(new Set(listed).size, 25, "each item once");
    assert.match(blank.body, /<ul class="picker-results" aria-label="Items to add">/);
    // An item added from the list starts at the supplier's minimum.
    const added = await post(`${base()}/new`, blank.body, { _do: `add:${700_030 + FIXTURE_VARIANT_OFFSET}` });
    assert.equal(formFields(added.body).line_qty_0, "5");

    // No supplier yet: the store's items, none of them the supplier's.
    const none = pickerItems((await agent.get(`${base()}/new`)).body);
    assert.equal(none.length, 25);
    assert.ok(none.every((item) => !item.includes("From this supplier")));

    // Typed: the supplier's matching item first, though 30 items match and it is not in the API's first 25.
    const firstPage = await store.api.get("/v2/variants?q=fixture&limit=25");
    assert.ok(!firstPage.body.data.some((v: any) => v.inventory_item_id === 700_030));
    const found = pickerItems(
      (await post(`${base()}/new`, blank.body, { item_q: "fixture", _do: "search" })).body,
    );
    assert.equal(found.length, 25);
    assert.equal(
      found[0],
      "Add Fixture product – Variant 700030 SKU-700030 From this supplier · minimum 5 · 1+ at $2.25 USD",
    );
    assert.ok(
      found.slice(1).every((item) => item.startsWith("Add Fixture product") && !item.includes("From this")),
    );
  });

  test("the supplier is typed by name: several offered to choose from, none refused on save, a new name on edit", async () => {
    const hand = await createSupplier(store.api, { name: "Second Hand Goods", currency: "USD" });
    const blank = await agent.get(`${base()}/new`);
    assert.equal(formFields(blank.body).supplier_id, "");
    const several = await post(`${base()}/new`, blank.body, { supplier: "second", _do: "search" });
    assert.equal(several.status, 200);
    assert.equal((text(several.body).match(/matches several suppliers/g) ?? []).length, 1);
    assert.match(
      text(several.body),
      /Supplier “second” matches several suppliers: choose one\. Which supplier did you mean\? Second Hand Goods Second Source/,
    );
    assert.match(
      several.body,
      /id="po-supplier" name="supplier" value="second" required maxlength="200" autocomplete="off" placeholder="Type the supplier's name" aria-invalid="true"/,
    );
    const chosen = await post(`${base()}/new`, several.body, {
      supplier_choice: String(hand.id),
      _do: "search",
    });
    assert.match(chosen.body, /id="po-supplier" name="supplier" value="Second Hand Goods" required/);
    assert.equal(formFields(chosen.body).supplier_id, String(hand.id));
    assert.doesNotMatch(chosen.body, /field-error/);

    const added = await post(`${base()}/new`, chosen.body, { _do: `add:${bySku("TEE-S").id}` });
    const before = await orderCount();
    const refused = await post(`${base()}/new`, added.body, { supplier: "nobody", _do: "save" });
    assert.equal(refused.status, 422);
    assert.match(
      text(refused.body),
      /Nothing was saved\. Please correct: Supplier “nobody” matches no supplier's name\./,
    );
    assert.equal(
      (text(refused.body).match(/matches no supplier's name/g) ?? []).length,
      2,
      "summary and field",
    );
    assert.equal(formFields(refused.body).supplier_id, "");
    assert.equal(await orderCount(), before);
    const saved = await post(`${base()}/new`, refused.body, { supplier: "second hand goods", _do: "save" });
    assert.equal(saved.status, 303, saved.body);
    const id = Number(/(\d+)$/.exec(saved.location as string)?.[1]);
    assert.equal((await getOrder(store.api, id)).supplier.id, hand.id);

    // On edit, the name shown is kept as it is, and another name typed changes the supplier.
    const edit = await agent.get(`${base()}/${id}/edit`);
    assert.equal(formFields(edit.body).supplier, "Second Hand Goods");
    const moved = await post(`${base()}/${id}/edit`, edit.body, { supplier: "PACK & CO", _do: "save" });
    assert.equal(moved.status, 303, moved.body);
    assert.equal((await getOrder(store.api, id)).supplier.id, supplier.id);
  });

  test("each line's tax (the order's, none, or a rate): saved as the API's taxable and tax_rate_id, refused on its field, kept on edit", async () => {
    // The rates of the test before: VAT 20% and Reduced 5%.
    const rates = (await t.admin.get(`/admin/stores/${store.id}/tax_rates`)).body.data as {
      id: number;
      name: string;
    }[];
    const vat = rates.find((r) => r.name === "VAT 20%") as { id: number };
    const reduced = rates.find((r) => r.name === "Reduced 5%") as { id: number };
    const blank = await agent.get(`${base()}/new?supplier_id=${supplier.id}`);
    const one = await post(`${base()}/new`, blank.body, { _do: `add:${bySku("CAP-BLACK").id}` });
    const two = await post(`${base()}/new`, one.body, { _do: `add:${bySku("TEE-M").id}` });
    assert.match(
      two.body,
      new RegExp(
        `<label class="visually-hidden" for="line-tax-1">Tax on Classic Tee – M</label>\\s*<select class="line-tax" id="line-tax-1" name="line_tax_1"><option value="" selected data-rate="order">Order(?:'|&#39;)s tax</option><option value="none" data-rate="0">Not taxed</option><option value="${vat.id}" data-rate="20">VAT 20% \\(20%\\)</option><option value="${reduced.id}" data-rate="5">Reduced 5% \\(5%\\)</option></select>`,
      ),
    );
    assert.match(two.body, /<th scope="col">Tax<\/th>/);

    // A rate that is not the store's (a forged form) is named on the line's tax and saves nothing.
    const before = await orderCount();
    const changes = {
      tax_rate_id: String(vat.id),
      line_qty_0: "10",
      line_cost_0: "4.00",
      line_tax_0: "none",
      line_qty_1: "12",
      line_tax_1: "999999",
      _do: "save",
    };
    const refused = await post(`${base()}/new`, two.body, changes);
    assert.equal(refused.status, 422);
    assert.match(text(refused.body), /Line 2 \(Classic Tee – M\) tax is not a tax rate of this store/);
    assert.match(refused.body, /id="line-tax-1" name="line_tax_1" aria-invalid="true"/);
    assert.match(refused.body, /<option value="999999" selected data-rate="0">A removed rate<\/option>/);
    assert.match(refused.body, /<option value="none" selected data-rate="0">Not taxed<\/option>/);
    assert.equal(await orderCount(), before);

    const saved = await post(`${base()}/new`, refused.body, { line_tax_1: String(reduced.id), _do: "save" });
    assert.equal(saved.status, 303, saved.body);
    const id = Number(/(\d+)$/.exec(saved.location as string)?.[1]);
    const order = await getOrder(store.api, id);
    // Caps: 10 × 4.00 = 40.00, not taxed; tees: 12 × 8.00 = 96.00 at 5% = 4.80.
    assert.deepEqual(
      [order.lines.map((l: any) => [l.sku, l.taxable, l.tax_rate_id, l.tax_rate_percent]), order.totals],
      [
        [
          ["CAP-BLACK", false, null, 0],
          ["TEE-M", true, reduced.id, 5],
        ],
        { currency: "USD", subtotal: "136.00", charges: "0.00", tax: "4.80", total: "140.80" },
      ],
    );

    const edit = await agent.get(`${base()}/${id}/edit`);
    const fields = formFields(edit.body);
    assert.deepEqual([fields.line_tax_0, fields.line_tax_1], ["none", String(reduced.id)]);
    const orderTaxed = await post(`${base()}/${id}/edit`, edit.body, { line_tax_0: "", _do: "save" });
    assert.equal(orderTaxed.status, 303, orderTaxed.body);
    const after = await getOrder(store.api, id);
    // The caps take the order's 20% now: 8.00 more tax.
    assert.deepEqual(
      [after.lines[0].taxable, after.lines[0].tax_rate_id, after.totals.tax, after.totals.total],
      [true, null, "12.80", "148.80"],
    );
  });

  test("a viewer sees no control to raise or edit an order, and forged posts change nothing", async () => {
    const created = await store.api.post("/v2/purchase_orders", {
      supplier_id: supplier.id,
      lines: [{ variant_id: bySku("TEE-S").id, quantity: 12 }],
    });
    const order = created.body.data;
    const viewer = await joinStaff(t, smtp, store.id, "vic@example.com", "viewer");
    const list = await viewer.get(base());
    assert.equal(list.status, 200);
    assert.doesNotMatch(list.body, /New purchase order/);
    const shown = await viewer.get(`${base()}/${order.id}`);
    assert.equal(shown.status, 200);
    assert.doesNotMatch(shown.body, /Edit draft|\/edit"/);
    assert.equal((await viewer.get(`${base()}/new`)).status, 403);
    assert.equal((await viewer.get(`${base()}/${order.id}/edit`)).status, 403);
    const token = hiddenValue(shown.body, "_csrf");
    const before = await orderCount();
    const forged = {
      _csrf: token,
      supplier_id: String(supplier.id),
      line_count: "1",
      line_variant_0: String(bySku("TEE-S").id),
      line_qty_0: "99",
      _do: "save",
    };
    assert.equal((await viewer.post(`${base()}/new`, forged)).status, 403);
    assert.equal(
      (await viewer.post(`${base()}/${order.id}/edit`, { ...forged, line_id_0: String(order.lines[0].id) }))
        .status,
      403,
    );
    assert.equal(await orderCount(), before);
    assert.equal((await getOrder(store.api, order.id)).lines[0].quantity, 12);

    const buyer = await joinStaff(t, smtp, store.id, "bea@example.com", "purchasing");
    const page = await buyer.get(`${base()}/${order.id}/edit`);
    assert.equal(page.status, 200);
    const saved = await buyer.post(`${base()}/${order.id}/edit`, {
      ...formFields(page.body),
      line_qty_0: "18",
      _do: "save",
    });
    assert.equal(saved.status, 303);
    const history = (await store.api.get(`/v2/purchase_orders/${order.id}/history`)).body.data;
    assert.deepEqual(
      history.filter((h: any) => h.type === "updated").map((h: any) => [h.by, h.via]),
      [["bea@example.com", "console"]],
    );
  });
});
