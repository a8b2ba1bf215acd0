/**
 * The console's supplier pages (issue 20 item 2) through HTTP as a browser without script would use
 * them: every field of the form reaches the API, a refused field is named in the user's words and
 * nothing is saved, search, the archived filter, archive and unarchive, the catalog's item picker with
 * price tiers, and the CSV import that writes nothing when one row is wrong, and the export.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { apiCallsDuring } from "../helpers/api-calls.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { ConsoleAgent, hiddenValue, pageText as text } from "../helpers/console-agent.ts";
import { createSupplier, insertFixtureVariants, listVariants, type Variant } from "../helpers/factories.ts";
import { allPages } from "../helpers/paging.ts";
import { startSmtp, type TestSmtp } from "../helpers/smtp.ts";
import { joinStaff } from "../helpers/staff.ts";

describe("console suppliers", () => {
  let t: TestApp;
  let store: TestStore;
  let agent: ConsoleAgent;
  let csrf: string;
  let variants: Variant[];
  let smtp: TestSmtp;
  const base = () => `/console/stores/${store.id}/suppliers`;

  before(async () => {
    smtp = await startSmtp();
    t = await startTestApp({ env: { SMTP_URL: smtp.url } });
    store = await t.createStore({ seed: "demo" });
    await t.drain();
    agent = new ConsoleAgent(t);
    assert.equal((await agent.login()).status, 303);
    csrf = hiddenValue((await agent.get(base())).body, "_csrf");
    variants = (await listVariants(store.api)).filter((v) => v.sku);
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  const fullForm = {
    name: "Rose City Ceramics",
    company_name: "Rose City Ceramics LLC",
    type: "manufacturer",
    currency: "usd",
    account_number: "ACC-9",
    payment_terms: "Net 30",
    lead_time_days: "12",
    min_order_value: "250.00",
    free_freight_threshold: "1,000",
    contact_name: "Dana Park",
    email: "orders@rosecity.test",
    email_cc: "ap@rosecity.test\nboss@rosecity.test",
    phone: "+1 503 555 0199",
    address_line1: "1 Main St",
    address_line2: "Suite 4",
    city: "Portland",
    province: "OR",
    zip: "97209",
    country: "United States",
    bill_to_address: "Rose City Ceramics\nPO Box 1",
    ships_direct: "true",
    auto_restock: "true",
    default_updates_stock: "false",
    location_account_numbers: "1 = WH-1",
    match_vendors: "Rose City",
    match_tags: "ceramic\nmug",
    match_exclude_tags: "clearance",
    dropship_tags: "dropship",
    notes: "Call before noon.",
  };

  test("the form creates a supplier with every field, the currency typed in lower case", async () => {
    const page = await agent.get(`${base()}/new`);
    assert.equal(page.status, 200);
    const res = await agent.post(base(), { _csrf: csrf, _key: hiddenValue(page.body, "_key"), ...fullForm });
    assert.equal(res.status, 303, res.body);
    const id = Number(/\/suppliers\/(\d+)$/.exec(res.location ?? "")?.[1]);
    const api = (await store.api.get(`/v2/suppliers/${id}`)).body.data;
    const { id: _, created_at, updated_at, archived_at, ...rest } = api;
    assert.deepEqual(rest, {
      name: "Rose City Ceramics",
      company_name: "Rose City Ceramics LLC",
      type: "manufacturer",
      contact_name: "Dana Park",
      email: "orders@rosecity.test",
      email_cc: ["ap@rosecity.test", "boss@rosecity.test"],
      phone: "+1 503 555 0199",
      account_number: "ACC-9",
      payment_terms: "Net 30",
      notes: "Call before noon.",
      bill_to_address: "Rose City Ceramics\nPO Box 1",
      currency: "USD",
      location_account_numbers: { "1": "WH-1" },
      lead_time_days: 12,
      min_order_value: "250.00",
      free_freight_threshold: "1000.00",
      taxable: false,
      ships_direct: true,
      auto_restock: true,
      exclude_from_reorder: false,
      default_updates_stock: false,
      address: {
        line1: "1 Main St",
        line2: "Suite 4",
        city: "Portland",
        province: "OR",
        zip: "97209",
        country: "United States",
      },
      match_vendors: ["Rose City"],
      match_tags: ["ceramic", "mug"],
      match_exclude_tags: ["clearance"],
      dropship_tags: ["dropship"],
      archived: false,
      merged_into_id: null,
    });
    const shown = text((await agent.get(res.location as string)).body);
    assert.match(shown, /Supplier “Rose City Ceramics” created\./);
    assert.match(shown, /Minimum order \$250\.00/);
    assert.match(shown, /Lead time 12 days/);
    assert.match(shown, /1 Main St · Suite 4 · Portland, OR 97209 · United States/);
  });

  test("a refused field is named by its label, once, highlighted, and nothing is saved", async () => {
    const before = await allPages(store.api, "/v2/suppliers?archived=all");
    const res = await agent.post(base(), {
      _csrf: csrf,
      name: "Broken",
      email: "not-an-email",
      lead_time_days: "soon",
    });
    assert.equal(res.status, 422);
    const shown = text(res.body);
    assert.match(shown, /Nothing was saved\. Please correct:/);
    assert.equal(shown.match(/Email /g)?.length, 3, "label, summary and the message under the field");
    assert.doesNotMatch(shown, /lead_time_days|email:/);
    assert.match(
      res.body,
      /id="supplier-email" name="email" value="not-an-email"[^>]* aria-invalid="true" aria-describedby="supplier-email-error"/,
    );
    assert.match(res.body, /<a href="#supplier-lead-time-days">Lead time \(days\)<\/a>/);
    assert.deepEqual(await allPages(store.api, "/v2/suppliers?archived=all"), before);
  });

  test("a search pages through every match, however many suppliers the store has; punctuation alone is a hint", async () => {
    // A store of its own: 51 more suppliers would push the other tests' suppliers off the first page.
    const many = await t.createStore();
    const manyBase = `/console/stores/${many.id}/suppliers`;
    for (let i = 1; i <= 51; i++)
      await createSupplier(many.api, { name: `Quince ${String(i).padStart(2, "0")}` });
    await createSupplier(many.api, { name: "Medlar Goods" });
    const names = (body: string) => [...text(body).matchAll(/Quince \d\d/g)].map((m) => m[0]);
    const first = await agent.get(`${manyBase}?q=quince`);
    assert.doesNotMatch(text(first.body), /Medlar/);
    assert.equal(first.status, 200);
    assert.equal(new Set(names(first.body)).size, 50);
    const nextHref = /href="([^"]*)" rel="next"/.exec(first.body)?.[1]?.replaceAll("&amp;", "&");
    assert.ok(nextHref?.includes("q=quince"), "the next page keeps the search");
    const second = await agent.get(nextHref as string);
    assert.equal(second.status, 200);
    assert.equal(names(second.body).length, 1);
    assert.ok(!names(first.body).includes(names(second.body)[0]));
    assert.doesNotMatch(second.body, /rel="next"/);

    const dots = await agent.get(`${manyBase}?q=${encodeURIComponent("...")}`);
    assert.equal(dots.status, 200);
    assert.match(text(dots.body), /Type a letter or a digit to search\./);
  });

  test("search finds by name, company or email; the archived filter; archive and unarchive", async () => {
    const a = await createSupplier(store.api, {
      name: "Acorn Tools",
      email: "sales@acorn.test",
      lead_time_days: 1,
    });
    const b = await createSupplier(store.api, { name: "Birch Paper" });
    const found = text((await agent.get(`${base()}?q=acorn`)).body);
    assert.match(found, /Acorn Tools/);
    assert.doesNotMatch(found, /Birch Paper/);
    assert.match(text((await agent.get(`${base()}?q=ACORN.TEST`)).body), /Acorn Tools/);
    assert.match(text((await agent.get(`${base()}?q=zzz`)).body), /No supplier matches that search\./);

    const archived = await agent.post(`${base()}/${b.id}/archive`, { _csrf: csrf });
    assert.equal(archived.status, 303);
    assert.equal((await store.api.get(`/v2/suppliers/${b.id}`)).body.data.archived, true);
    const afterArchive = text((await agent.get(archived.location as string)).body);
    assert.match(afterArchive, /“Birch Paper” archived\. .*This supplier is archived/);
    assert.doesNotMatch(text((await agent.get(base())).body), /Birch Paper/);
    assert.match(text((await agent.get(`${base()}?archived=true`)).body), /Birch Paper archived/);
    assert.equal((await agent.post(`${base()}/${b.id}/unarchive`, { _csrf: csrf })).status, 303);
    assert.equal((await store.api.get(`/v2/suppliers/${b.id}`)).body.data.archived, false);
    const acorn = text((await agent.get(`${base()}/${a.id}`)).body);
    assert.match(acorn, /Email sales@acorn\.test/);
    assert.match(acorn, /Lead time 1 day(?!s)/, "one day, not 1 days");
    assert.match(found, /Acorn Tools sales@acorn\.test USD 1 day(?!s)/);
  });

  test("an item found by SKU is added to the catalog with its price tiers", async () => {
    const s = await createSupplier(store.api, { name: "Tiered Goods" });
    const item = variants[0];
    const search = await agent.get(`${base()}/${s.id}?item_q=${encodeURIComponent(item.sku as string)}`);
    assert.equal(search.status, 200);
    assert.match(search.body, new RegExp(`name="variant_id" value="${item.id}"`));
    const res = await agent.post(`${base()}/${s.id}/catalog`, {
      _csrf: csrf,
      variant_id: String(item.id),
      supplier_sku: "TG-1",
      pack_size: "6",
      min_order_qty: "12",
      tiers: "1:4.50 24:4.00",
      is_primary: "true",
    });
    assert.equal(res.status, 303, res.body);
    const rows = (await store.api.get(`/v2/suppliers/${s.id}/catalog`)).body.data;
    assert.deepEqual(
      rows.map((r: any) => [
        r.inventory_item_id,
        r.supplier_sku,
        r.pack_size,
        r.min_order_qty,
        r.is_primary,
        r.price_list.effective.tiers,
      ]),
      [
        [
          item.inventory_item_id,
          "TG-1",
          6,
          12,
          true,
          [
            { min_qty: 1, price: "4.50" },
            { min_qty: 24, price: "4.00" },
          ],
        ],
      ],
    );
    const page = text((await agent.get(`${base()}/${s.id}`)).body);
    assert.match(page, /1\+ at \$4\.50 USD, 24\+ at \$4\.00 USD/);
    assert.match(page, /6 per unit/);
  });

  test("a CSV with one bad row is refused line by line and writes nothing; a good one is imported and exported again", async () => {
    const s = await createSupplier(store.api, { name: "CSV Supplies" });
    const [one, two] = variants;
    const bad = [
      "sku,supplier_sku,pack_size,min_order_qty,is_primary,tiers",
      `${one.sku},CSV-1,1,1,yes,1:2.00`,
      `${two.sku},CSV-2,zero,1,maybe,1:3.00`,
      "NO-SUCH-SKU,CSV-3,1,1,no,",
    ].join("\n");
    const refused = await agent.post(`${base()}/${s.id}/catalog/import`, { _csrf: csrf, csv: bad });
    assert.equal(refused.status, 422);
    const shown = text(refused.body);
    assert.match(shown, /Nothing was imported\./);
    assert.match(shown, /Line 3, pack_size: must be a whole number of at least 1/);
    assert.match(shown, /Line 3, is_primary: must be yes or no/);
    assert.match(shown, /Line 4, sku: "NO-SUCH-SKU" is no item of this store/);
    assert.doesNotMatch(shown, /Line 2/);
    assert.deepEqual((await store.api.get(`/v2/suppliers/${s.id}/catalog`)).body.data, []);

    const good = [
      "sku,supplier_sku,pack_size,pack_unit,min_order_qty,is_primary,tiers",
      `${one.sku},CSV-1,1,unit,1,yes,1:2.00`,
      `"${two.sku}","CSV-2, blue",12,case,24,no,1:3.00 48:2.75`,
    ].join("\r\n");
    const imported = await agent.post(`${base()}/${s.id}/catalog/import`, { _csrf: csrf, csv: good });
    assert.equal(imported.status, 303, imported.body);
    const exported = await agent.get(`${base()}/${s.id}/catalog.csv`);
    assert.equal(exported.status, 200);
    assert.match(String(exported.headers["content-type"]), /^text\/csv/);
    const lines = exported.body.trimEnd().split("\r\n").sort();
    assert.deepEqual(
      lines,
      [
        `${one.sku},${one.inventory_item_id},CSV-1,1,unit,1,yes,1:2.00,`,
        `${two.sku},${two.inventory_item_id},"CSV-2, blue",12,case,24,no,1:3.00 48:2.75,`,
        "sku,inventory_item_id,supplier_sku,pack_size,pack_unit,min_order_qty,is_primary,tiers,effective_from",
      ].sort(),
    );
  });

  test("a CSV row whose SKU several items share is refused with their count; nothing is written", async () => {
    // Two fixture variants given one SKU (a store may hold such, Shopify does not make SKUs unique).
    const twins = [770_001, 770_002];
    await insertFixtureVariants(t, store.id, twins);
    await t.runtime.ctx.db
      .updateTable("variants")
      .set({ sku: "TWIN-1" })
      .where("store_id", "=", store.id)
      .where("inventory_item_id", "in", twins)
      .execute();
    const s = await createSupplier(store.api, { name: "Twin Supplies" });
    const [one] = variants;
    const csv = ["sku,supplier_sku,tiers", `${one.sku},ONE-1,1:2.00`, "TWIN-1,TW-1,1:3.00"].join("\n");
    const refused = await agent.post(`${base()}/${s.id}/catalog/import`, { _csrf: csrf, csv });
    assert.equal(refused.status, 422);
    const shown = text(refused.body);
    assert.match(shown, /Nothing was imported\./);
    assert.match(
      shown,
      /Line 3, sku: "TWIN-1" is the SKU of 2 items of this store: name the item by its inventory_item_id/,
    );
    assert.doesNotMatch(shown, /Line 2/);
    assert.deepEqual((await store.api.get(`/v2/suppliers/${s.id}/catalog`)).body.data, []);
    // Named by its inventory item id, the row goes to that item.
    const exact = [
      "sku,inventory_item_id,supplier_sku,tiers",
      `${one.sku},,ONE-1,1:2.00`,
      `TWIN-1,${twins[1]},TW-1,1:3.00`,
    ].join("\n");
    const imported = await agent.post(`${base()}/${s.id}/catalog/import`, { _csrf: csrf, csv: exact });
    assert.equal(imported.status, 303, imported.body);
    const catalog = (await store.api.get(`/v2/suppliers/${s.id}/catalog`)).body.data;
    assert.deepEqual(
      catalog.map((r: any) => [r.inventory_item_id, r.supplier_sku]).sort(),
      [
        [one.inventory_item_id, "ONE-1"],
        [twins[1], "TW-1"],
      ].sort(),
    );
  });

  test("a CSV import finds its SKUs however many variants the store has, in one call for the file", async () => {
    // A store of its own with more variants than the 40 pages of 250 the import once read through:
    // the last one in the API's order (the highest id of one insert) lay past them.
    const big = await t.createStore();
    const items = Array.from({ length: 10_050 }, (_, i) => i + 1);
    for (let i = 0; i < items.length; i += 2_000)
      await insertFixtureVariants(t, big.id, items.slice(i, i + 2_000));
    const s = await createSupplier(big.api, { name: "Far Shelf Supplies" });
    const csv = ["sku,supplier_sku,tiers", "SKU-10050,FAR-1,1:2.00", "SKU-7,NEAR-1,1:1.00"].join("\n");
    const { result: imported, calls } = await apiCallsDuring(t, () =>
      agent.post(`/console/stores/${big.id}/suppliers/${s.id}/catalog/import`, { _csrf: csrf, csv }),
    );
    assert.equal(imported.status, 303, imported.body);
    assert.deepEqual(
      calls.filter((c) => c.startsWith("/v2/variants?")),
      ["/v2/variants?sku=SKU-10050&sku=SKU-7&limit=250"],
    );
    const catalog = (await big.api.get(`/v2/suppliers/${s.id}/catalog`)).body.data;
    assert.deepEqual(catalog.map((r: any) => [r.inventory_item_id, r.supplier_sku]).sort(), [
      [10_050, "FAR-1"],
      [7, "NEAR-1"],
    ]);
  });

  test("the catalog is paged 50 items at a time, each row on one page only", async () => {
    const s = await createSupplier(store.api, { name: "Big Catalog Co" });
    const items = variants.slice(0, 51);
    assert.equal(items.length, 51, "the demo catalog has 51 items with a SKU");
    const put = await store.api.put(`/v2/suppliers/${s.id}/catalog`, {
      rows: items.map((v, i) => ({ variant_id: v.id, supplier_sku: `BIG-${String(i).padStart(2, "0")}` })),
    });
    assert.equal(put.status, 200);
    const skus = (body: string) => [...text(body).matchAll(/BIG-\d\d/g)].map((m) => m[0]);
    const first = await agent.get(`${base()}/${s.id}`);
    assert.equal(first.status, 200);
    assert.equal(new Set(skus(first.body)).size, 50);
    const nextHref = /href="([^"]*)" rel="next"/.exec(first.body)?.[1]?.replaceAll("&amp;", "&");
    assert.ok(nextHref?.includes("catalog_cursor="), "a next page of the catalog");
    const second = await agent.get(nextHref as string);
    assert.equal(second.status, 200);
    assert.equal(skus(second.body).length, 1);
    assert.ok(!skus(first.body).includes(skus(second.body)[0]));
    assert.doesNotMatch(second.body, /rel="next"/);
    assert.match(second.body, new RegExp(`href="${base()}/${s.id}#catalog">First page<`));
    // The export still has every row.
    const exported = await agent.get(`${base()}/${s.id}/catalog.csv`);
    assert.equal(exported.body.trimEnd().split("\r\n").length, 52);
  });

  test("removing a catalog row asks first; another store's supplier is a 404 page", async () => {
    const s = await createSupplier(store.api, { name: "Removable" });
    const item = variants[2];
    await store.api.put(`/v2/suppliers/${s.id}/catalog`, { rows: [{ variant_id: item.id }] });
    // Each row's button says which item it removes (a screen reader hears the name, not the row).
    const label = [item.product_title, item.title === "Default Title" ? null : item.title]
      .filter(Boolean)
      .join(" – ")
      .replaceAll("&", "&amp;");
    assert.ok(
      (await agent.get(`${base()}/${s.id}`)).body.includes(
        `<button type="submit" aria-label="Remove ${label} from the catalog">Remove</button>`,
      ),
      "the Remove button names its item",
    );
    const ask = await agent.post(`${base()}/${s.id}/catalog/${item.inventory_item_id}/remove`, {
      _csrf: csrf,
    });
    assert.equal(ask.status, 200);
    assert.match(text(ask.body), /Remove .* from Removable's catalog\?/);
    assert.equal((await store.api.get(`/v2/suppliers/${s.id}/catalog`)).body.data.length, 1);
    const done = await agent.post(`${base()}/${s.id}/catalog/${item.inventory_item_id}/remove`, {
      _csrf: csrf,
      confirm: "yes",
    });
    assert.equal(done.status, 303);
    assert.equal((await store.api.get(`/v2/suppliers/${s.id}/catalog`)).body.data.length, 0);
    const other = await t.createStore();
    const theirs = await createSupplier(other.api, { name: "Not yours" });
    assert.equal((await agent.get(`${base()}/${theirs.id}`)).status, 404);
  });

  test("a viewer sees the suppliers and no write control, and a forged POST is refused; purchasing may write", async () => {
    const s = await createSupplier(store.api, { name: "Viewed Supplies" });
    const viewer = await joinStaff(t, smtp, store.id, "vera@example.com", "viewer");
    const list = await viewer.get(base());
    assert.equal(list.status, 200);
    assert.match(text(list.body), /Viewed Supplies/);
    assert.doesNotMatch(list.body, /New supplier/);
    const one = await viewer.get(`${base()}/${s.id}`);
    assert.equal(one.status, 200);
    assert.doesNotMatch(one.body, /Edit supplier|\/archive"|Add an item|Import from CSV|\/remove"/);
    assert.equal((await viewer.get(`${base()}/new`)).status, 403);
    const token = hiddenValue(one.body, "_csrf");
    const before = await allPages(store.api, "/v2/suppliers?archived=all");
    for (const [url, form] of [
      [base(), { name: "Forged" }],
      [`${base()}/${s.id}`, { name: "Renamed" }],
      [`${base()}/${s.id}/archive`, {}],
      [`${base()}/${s.id}/catalog/import`, { csv: `sku\n${variants[0].sku}` }],
    ] as const) {
      const refused = await viewer.post(url, { _csrf: token, ...form });
      assert.equal(refused.status, 403, url);
    }
    assert.deepEqual(await allPages(store.api, "/v2/suppliers?archived=all"), before);
    assert.deepEqual((await store.api.get(`/v2/suppliers/${s.id}/catalog`)).body.data, []);

    const buyer = await joinStaff(t, smtp, store.id, "pat@example.com", "purchasing");
    const page = await buyer.get(`${base()}/new`);
    const made = await buyer.post(base(), { _csrf: hiddenValue(page.body, "_csrf"), name: "Bought by Pat" });
    assert.equal(made.status, 303);
    const created = (await allPages(store.api, "/v2/suppliers")).find((x: any) => x.name === "Bought by Pat");
    assert.ok(created);
  });
});
