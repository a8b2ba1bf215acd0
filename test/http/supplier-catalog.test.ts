import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../src/clock.ts";
import { supplierPriceFor } from "../../src/domain/suppliers/pricing.ts";
import { type Client, startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { FIXTURE_VARIANT_OFFSET, insertFixtureVariants } from "../helpers/factories.ts";

const ROW_KEYS = [
  "created_at",
  "inventory_item_id",
  "is_primary",
  "min_order_qty",
  "pack_size",
  "pack_unit",
  "price",
  "price_currency",
  "price_list",
  "source",
  "supplier_sku",
  "updated_at",
];

type Detail = { field: string; code: string };
const detailsOf = (body: { error: { details: Detail[] } }) =>
  body.error.details.map((d) => [d.field, d.code]);

describe("supplier catalog", () => {
  let t: TestApp;
  let store: TestStore;
  let api: Client;
  // 12:00 UTC on 10 March: already 11 March in Auckland.
  const clock = new ManualClock("2025-03-10T12:00:00.000Z");
  before(async () => {
    t = await startTestApp({ clock });
    store = await t.createStore({ currency: "USD", timezone: "UTC" });
    api = store.api;
    await insertFixtureVariants(
      t,
      store.id,
      Array.from({ length: 30 }, (_, i) => 1001 + i),
    );
  });
  after(() => t.close());

  const newSupplier = async (body: Record<string, unknown> = {}, client = api) => {
    const res = await client.post("/v2/suppliers", { name: `Supplier ${Math.random()}`, ...body });
    assert.equal(res.status, 201);
    return res.body.data as { id: number };
  };

  test("PUT writes rows named by inventory_item_id or variant_id and answers them as they stand", async () => {
    const s = await newSupplier({ currency: "EUR" });
    const res = await api.put(`/v2/suppliers/${s.id}/catalog`, {
      rows: [
        {
          inventory_item_id: 1001,
          supplier_sku: "AC-1",
          pack_size: 12,
          pack_unit: "box",
          min_order_qty: 24,
          tiers: [
            { min_qty: 100, price: "4.1" },
            { min_qty: 1, price: 5 },
            { min_qty: 10, price: 0.12345678 },
          ],
        },
        { variant_id: 1002 + FIXTURE_VARIANT_OFFSET },
      ],
    });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body), ["data"]);
    const [first, second] = res.body.data;
    assert.deepEqual(Object.keys(first).sort(), ROW_KEYS);
    const now = clock.now().toISOString();
    assert.deepEqual(first, {
      inventory_item_id: 1001,
      supplier_sku: "AC-1",
      pack_size: 12,
      pack_unit: "box",
      min_order_qty: 24,
      is_primary: false,
      source: "api",
      price: "5.00",
      price_currency: "EUR",
      price_list: {
        effective: {
          currency: "EUR",
          effective_from: null,
          source: "api",
          tiers: [
            { min_qty: 1, price: "5.00" },
            { min_qty: 10, price: "0.12345678" },
            { min_qty: 100, price: "4.10" },
          ],
        },
        upcoming: null,
      },
      created_at: now,
      updated_at: now,
    });
    assert.deepEqual(second, {
      inventory_item_id: 1002,
      supplier_sku: null,
      pack_size: 1,
      pack_unit: "unit",
      min_order_qty: 1,
      is_primary: false,
      source: "api",
      price: null,
      price_currency: null,
      price_list: { effective: null, upcoming: null },
      created_at: now,
      updated_at: now,
    });
    const listed = await api.get(`/v2/suppliers/${s.id}/catalog`);
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body, { data: [first, second], next_cursor: null, has_more: false });
  });

  test("fields left out are left alone; tiers replace the price list; [] removes it", async () => {
    const s = await newSupplier();
    await api.put(`/v2/suppliers/${s.id}/catalog`, {
      rows: [
        {
          inventory_item_id: 1003,
          supplier_sku: "X",
          pack_size: 6,
          min_order_qty: 6,
          tiers: [
            { min_qty: 1, price: 2 },
            { min_qty: 50, price: 1.5 },
          ],
        },
      ],
    });
    clock.advance(1000);
    const partial = await api.put(`/v2/suppliers/${s.id}/catalog`, {
      rows: [{ inventory_item_id: 1003, min_order_qty: 12 }],
    });
    assert.equal(partial.status, 200);
    const row = partial.body.data[0];
    assert.equal(row.supplier_sku, "X");
    assert.equal(row.pack_size, 6);
    assert.equal(row.min_order_qty, 12);
    assert.equal(row.price, "2.00");
    assert.equal(row.price_currency, "USD", "a supplier without a currency prices in the store's");
    assert.equal(row.price_list.effective.tiers.length, 2);
    assert.equal(row.updated_at, clock.now().toISOString());
    assert.notEqual(row.created_at, row.updated_at);

    const replaced = await api.put(`/v2/suppliers/${s.id}/catalog`, {
      rows: [{ inventory_item_id: 1003, tiers: [{ min_qty: 5, price: "1.75" }], supplier_sku: null }],
    });
    assert.deepEqual(replaced.body.data[0].price_list.effective.tiers, [{ min_qty: 5, price: "1.75" }]);
    assert.equal(replaced.body.data[0].price, "1.75");
    assert.equal(replaced.body.data[0].supplier_sku, null);

    const removed = await api.put(`/v2/suppliers/${s.id}/catalog`, {
      rows: [{ inventory_item_id: 1003, tiers: [] }],
    });
    assert.equal(removed.body.data[0].price, null);
    assert.equal(removed.body.data[0].price_currency, null);
    assert.deepEqual(removed.body.data[0].price_list, { effective: null, upcoming: null });
    assert.equal(removed.body.data[0].min_order_qty, 12);
  });

  test("a future effective_from fills upcoming, which becomes effective on that date (store timezone)", async () => {
    const s = await newSupplier({ currency: "USD" });
    const url = `/v2/suppliers/${s.id}/catalog`;
    await api.put(url, { rows: [{ inventory_item_id: 1004, tiers: [{ min_qty: 1, price: 10 }] }] });
    const scheduled = await api.put(url, {
      rows: [
        {
          inventory_item_id: 1004,
          effective_from: "2025-03-12",
          tiers: [
            { min_qty: 1, price: 12 },
            { min_qty: 20, price: 11 },
          ],
        },
      ],
    });
    assert.equal(scheduled.status, 200);
    const before = scheduled.body.data[0];
    assert.equal(before.price, "10.00");
    assert.deepEqual(before.price_list, {
      effective: {
        currency: "USD",
        effective_from: null,
        source: "api",
        tiers: [{ min_qty: 1, price: "10.00" }],
      },
      upcoming: {
        currency: "USD",
        effective_from: "2025-03-12",
        source: "api",
        tiers: [
          { min_qty: 1, price: "12.00" },
          { min_qty: 20, price: "11.00" },
        ],
      },
    });

    // Pricing for purchase orders reads the set in force on the order's date.
    const db = t.runtime.ctx.db;
    const quantities = new Map([[1004, 25]]);
    const onEleventh = await supplierPriceFor(db, store.id, s.id, [1004, 1005], quantities, "2025-03-11");
    assert.deepEqual([...onEleventh.keys()], [1004]);
    assert.equal(onEleventh.get(1004)?.unitCost, "10.00");
    const onTwelfth = await supplierPriceFor(db, store.id, s.id, [1004], quantities, "2025-03-12");
    assert.equal(onTwelfth.get(1004)?.unitCost, "11.00");
    const smallOrder = await supplierPriceFor(
      db,
      store.id,
      s.id,
      [1004],
      new Map([[1004, 19]]),
      "2025-03-12",
    );
    assert.equal(smallOrder.get(1004)?.unitCost, "12.00");

    // Still the 11th in UTC at 23:59:59: not yet.
    clock.set("2025-03-11T23:59:59.000Z");
    assert.equal((await api.get(url)).body.data[0].price, "10.00");
    clock.set("2025-03-12T00:00:00.000Z");
    const after = (await api.get(url)).body.data[0];
    assert.equal(after.price, "12.00");
    assert.equal(after.price_list.upcoming, null);
    assert.equal(after.price_list.effective.effective_from, "2025-03-12");
    assert.equal(after.price_list.effective.tiers.length, 2);

    // A write after the date keeps the promoted set (and a new future set goes to upcoming again).
    const later = await api.put(url, {
      rows: [{ inventory_item_id: 1004, effective_from: "2025-04-01", tiers: [{ min_qty: 1, price: 13 }] }],
    });
    assert.equal(later.body.data[0].price, "12.00");
    assert.equal(later.body.data[0].price_list.effective.effective_from, "2025-03-12");
    assert.equal(later.body.data[0].price_list.upcoming.effective_from, "2025-04-01");
    // Tiers without a future date replace the whole list, the upcoming set included.
    const now = await api.put(url, {
      rows: [{ inventory_item_id: 1004, tiers: [{ min_qty: 1, price: 9 }] }],
    });
    assert.equal(now.body.data[0].price, "9.00");
    assert.equal(now.body.data[0].price_list.upcoming, null);
    clock.set("2025-03-10T12:00:00.000Z");
  });

  test("'today' is the store's date: 11 March is already today in Auckland at 12:00 UTC on the 10th", async () => {
    const nz = await t.createStore({ currency: "NZD", timezone: "Pacific/Auckland" });
    await insertFixtureVariants(t, nz.id, [7001]);
    const s = await newSupplier({ currency: "JPY" }, nz.api);
    const res = await nz.api.put(`/v2/suppliers/${s.id}/catalog`, {
      rows: [{ inventory_item_id: 7001, effective_from: "2025-03-11", tiers: [{ min_qty: 1, price: 500 }] }],
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.data[0].price, "500");
    assert.equal(res.body.data[0].price_currency, "JPY");
    assert.equal(res.body.data[0].price_list.effective.effective_from, "2025-03-11");
    assert.equal(res.body.data[0].price_list.upcoming, null);

    const utc = await newSupplier();
    const inUtc = await api.put(`/v2/suppliers/${utc.id}/catalog`, {
      rows: [{ inventory_item_id: 1006, effective_from: "2025-03-11", tiers: [{ min_qty: 1, price: 1 }] }],
    });
    assert.equal(inUtc.body.data[0].price, null);
    assert.equal(inUtc.body.data[0].price_list.upcoming.effective_from, "2025-03-11");
  });

  test("is_primary: true clears any other supplier's pin for that item", async () => {
    const a = await newSupplier();
    const b = await newSupplier();
    await api.put(`/v2/suppliers/${a.id}/catalog`, {
      rows: [
        { inventory_item_id: 1007, is_primary: true },
        { inventory_item_id: 1008, is_primary: true },
      ],
    });
    clock.advance(1000);
    const res = await api.put(`/v2/suppliers/${b.id}/catalog`, {
      rows: [{ inventory_item_id: 1007, is_primary: true }],
    });
    assert.equal(res.body.data[0].is_primary, true);
    const aRows = (await api.get(`/v2/suppliers/${a.id}/catalog`)).body.data;
    const byItem = Object.fromEntries(
      aRows.map((r: { inventory_item_id: number }) => [r.inventory_item_id, r]),
    );
    assert.equal(byItem[1007].is_primary, false);
    assert.equal(byItem[1007].updated_at, clock.now().toISOString());
    assert.equal(byItem[1008].is_primary, true);
  });

  test("one unknown item among ten refuses the whole request and writes none", async () => {
    const other = await t.createStore();
    await insertFixtureVariants(t, other.id, [8001]);
    const s = await newSupplier();
    const rows: Record<string, unknown>[] = Array.from({ length: 10 }, (_, i) => ({
      inventory_item_id: 1010 + i,
      supplier_sku: `S-${i}`,
      tiers: [{ min_qty: 1, price: i + 1 }],
    }));
    rows[6] = { inventory_item_id: 999_999, supplier_sku: "ghost" };
    const res = await api.put(`/v2/suppliers/${s.id}/catalog`, { rows });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, "validation_failed");
    assert.deepEqual(detailsOf(res.body), [["rows.6.inventory_item_id", "not_found"]]);
    assert.deepEqual((await api.get(`/v2/suppliers/${s.id}/catalog`)).body.data, []);

    // Another store's item, by either id, is just as unknown.
    const foreign = await api.put(`/v2/suppliers/${s.id}/catalog`, {
      rows: [
        { inventory_item_id: 1010 },
        { variant_id: 8001 + FIXTURE_VARIANT_OFFSET },
        { inventory_item_id: 8001 },
      ],
    });
    assert.equal(foreign.status, 422);
    assert.deepEqual(detailsOf(foreign.body), [
      ["rows.1.variant_id", "not_found"],
      ["rows.2.inventory_item_id", "not_found"],
    ]);
    assert.deepEqual((await api.get(`/v2/suppliers/${s.id}/catalog`)).body.data, []);
  });

  test("refusals: bad tiers, missing or mismatched item, duplicates, unknown fields; nothing written", async () => {
    const s = await newSupplier();
    const url = `/v2/suppliers/${s.id}/catalog`;
    const tiers = await api.put(url, {
      rows: [
        {
          inventory_item_id: 1020,
          tiers: [
            { min_qty: 1, price: 5 },
            { min_qty: 1, price: 4 },
            { min_qty: 10, price: -1 },
            { min_qty: 20, price: "0.123456789" },
            { min_qty: 30, price: "abc" },
          ],
        },
        { inventory_item_id: 1021, effective_from: "2025-05-01" },
        { supplier_sku: "no item" },
        { inventory_item_id: 1022, variant_id: 1023 + FIXTURE_VARIANT_OFFSET },
        { variant_id: 1020 + FIXTURE_VARIANT_OFFSET },
      ],
    });
    assert.equal(tiers.status, 422);
    assert.deepEqual(detailsOf(tiers.body), [
      ["rows.0.tiers.1.min_qty", "duplicate"],
      ["rows.0.tiers.2.price", "must_not_be_negative"],
      ["rows.0.tiers.3.price", "too_many_decimals"],
      ["rows.0.tiers.4.price", "invalid_decimal"],
      ["rows.1.effective_from", "requires_tiers"],
      ["rows.2.inventory_item_id", "required"],
      ["rows.3.variant_id", "mismatch"],
      ["rows.4.variant_id", "duplicate"],
    ]);

    const schema = await api.put(url, {
      rows: [
        { inventory_item_id: 1020, tiers: [{ min_qty: 0, price: 1 }], pack_size: 0, colour: "red" },
        { inventory_item_id: "1021", tiers: [{ min_qty: 1.5, price: true }], effective_from: "2025-13-01" },
      ],
    });
    assert.equal(schema.status, 422);
    assert.deepEqual(detailsOf(schema.body).sort(), [
      ["rows.0.colour", "unknown_field"],
      ["rows.0.pack_size", "out_of_range"],
      ["rows.0.tiers.0.min_qty", "out_of_range"],
      ["rows.1.effective_from", "invalid_format"],
      ["rows.1.inventory_item_id", "invalid_type"],
      ["rows.1.tiers.0.min_qty", "invalid_type"],
      ["rows.1.tiers.0.price", "invalid_type"],
    ]);
    const noRows = await api.put(url, {});
    assert.equal(noRows.status, 422);
    assert.deepEqual(detailsOf(noRows.body), [["rows", "required"]]);
    assert.deepEqual((await api.get(url)).body.data, []);
    const empty = await api.put(url, { rows: [] });
    assert.deepEqual(empty.body, { data: [] });
  });

  test("DELETE removes the association and its prices; 404 when absent", async () => {
    const s = await newSupplier();
    const url = `/v2/suppliers/${s.id}/catalog`;
    await api.put(url, {
      rows: [{ inventory_item_id: 1024, tiers: [{ min_qty: 1, price: 3 }] }, { inventory_item_id: 1025 }],
    });
    const res = await api.delete(`${url}/1024`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { data: { inventory_item_id: 1024, deleted: true } });
    assert.deepEqual(
      (await api.get(url)).body.data.map((r: { inventory_item_id: number }) => r.inventory_item_id),
      [1025],
    );
    const again = await api.delete(`${url}/1024`);
    assert.equal(again.status, 404);
    assert.equal(again.body.error.code, "not_found");
    const noSupplier = await api.delete("/v2/suppliers/99999999/catalog/1025");
    assert.equal(noSupplier.status, 404);
    // Written again, the item starts over without its old prices.
    const back = await api.put(url, { rows: [{ inventory_item_id: 1024 }] });
    assert.equal(back.body.data[0].price, null);
  });

  test("GET pages by (updated_at, id), oldest first; a cursor is bound to its supplier", async () => {
    const s = await newSupplier();
    const url = `/v2/suppliers/${s.id}/catalog`;
    const items = Array.from({ length: 10 }, (_, i) => 1001 + i);
    await api.put(url, { rows: items.map((id) => ({ inventory_item_id: id })) });
    clock.advance(1000);
    // Touching the first item moves it to the end of the feed.
    await api.put(url, { rows: [{ inventory_item_id: 1001, pack_size: 2 }] });

    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: {
        status: number;
        body: { data: { inventory_item_id: number }[]; next_cursor: string | null };
      } = await api.get(`${url}?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      assert.equal(res.status, 200);
      seen.push(...res.body.data.map((r) => r.inventory_item_id));
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    assert.equal(pages, 4);
    assert.deepEqual(seen, [...items.slice(1), 1001]);

    const first = await api.get(`${url}?limit=3`);
    const other = await newSupplier();
    const wrong = await api.get(
      `/v2/suppliers/${other.id}/catalog?limit=3&cursor=${encodeURIComponent(first.body.next_cursor)}`,
    );
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error.code, "invalid_cursor");
    const badLimit = await api.get(`${url}?limit=0`);
    assert.equal(badLimit.status, 422);
    assert.equal(badLimit.body.error.details[0].field, "limit");
    const changed = await api.get(`${url}?updated_at_min=${encodeURIComponent(clock.now().toISOString())}`);
    assert.deepEqual(
      changed.body.data.map((r: { inventory_item_id: number }) => r.inventory_item_id),
      [1001],
    );
  });

  test("GET ?inventory_item_id=a,b,c: those items' rows only, paged; bad or over 250 ids refused; no other store's rows", async () => {
    const s = await newSupplier();
    const url = `/v2/suppliers/${s.id}/catalog`;
    await api.put(url, { rows: [1011, 1012, 1013, 1014].map((id) => ({ inventory_item_id: id })) });
    const itemsOf = (body: { data: { inventory_item_id: number }[] }) =>
      body.data.map((r) => r.inventory_item_id).sort();

    // Several ids, one repeated, one the store has but the supplier does not list, one nobody has.
    const some = await api.get(`${url}?inventory_item_id=1014,1012,1012,1020,987654321`);
    assert.equal(some.status, 200);
    assert.deepEqual(itemsOf(some.body), [1012, 1014]);
    assert.equal(some.body.has_more, false);
    assert.equal(some.body.next_cursor, null);
    const none = await api.get(`${url}?inventory_item_id=987654321,987654322`);
    assert.deepEqual(none.body, { data: [], has_more: false, next_cursor: null });

    // Paged within the filter; a cursor of the filtered list is bound to its ids.
    const first = await api.get(`${url}?inventory_item_id=1011,1012,1013&limit=2`);
    assert.equal(first.body.data.length, 2);
    const cursor = encodeURIComponent(first.body.next_cursor);
    const rest = await api.get(`${url}?inventory_item_id=1011,1012,1013&limit=2&cursor=${cursor}`);
    assert.deepEqual([...itemsOf(first.body), ...itemsOf(rest.body)].sort(), [1011, 1012, 1013]);
    assert.equal(rest.body.has_more, false);
    const crossed = await api.get(`${url}?inventory_item_id=1011,1012&limit=2&cursor=${cursor}`);
    assert.equal(crossed.status, 400);
    assert.equal(crossed.body.error.code, "invalid_cursor");

    // 250 ids are one call; 251, or anything but positive ids and commas, is refused as on /v2/variants.
    const ids = (n: number) => Array.from({ length: n }, (_, i) => 1011 + i).join(",");
    const full = await api.get(`${url}?inventory_item_id=${ids(250)}&limit=250`);
    assert.equal(full.status, 200);
    assert.deepEqual(itemsOf(full.body), [1011, 1012, 1013, 1014]);
    for (const bad of ["abc", "1011,,1012", "0", "1011,-2", ids(251), "9999999999999999"]) {
      const refused = await api.get(`${url}?inventory_item_id=${bad}`);
      assert.equal(refused.status, bad === "9999999999999999" ? 400 : 422, bad);
      assert.equal(
        refused.body.error.code,
        bad === "9999999999999999" ? "invalid_filter" : "validation_failed",
      );
      if (refused.status === 422)
        assert.deepEqual(
          detailsOf(refused.body).map(([field]) => field),
          ["inventory_item_id"],
        );
    }

    // Another store's supplier listing the same item ids: never seen from here, nor this one from there.
    const other = await t.createStore({ currency: "USD", timezone: "UTC" });
    await insertFixtureVariants(t, other.id, [1011, 1012]);
    const theirs = await newSupplier({}, other.api);
    assert.equal(
      (
        await other.api.put(`/v2/suppliers/${theirs.id}/catalog`, {
          rows: [{ inventory_item_id: 1011, supplier_sku: "THEIRS" }],
        })
      ).status,
      200,
    );
    const ours = await api.get(`${url}?inventory_item_id=1011,1012`);
    assert.ok(ours.body.data.every((r: { supplier_sku: string | null }) => r.supplier_sku !== "THEIRS"));
    assert.deepEqual(itemsOf(ours.body), [1011, 1012]);
    const notOurs = await api.get(`/v2/suppliers/${theirs.id}/catalog?inventory_item_id=1011`);
    assert.equal(notOurs.status, 404);
    const notTheirs = await other.api.get(`${url}?inventory_item_id=1011`);
    assert.equal(notTheirs.status, 404);
  });
});
