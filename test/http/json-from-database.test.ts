/**
 * `GET /v2/variants` and `GET /v2/suppliers` pages and `GET /v2/variants/{id}` and `/v2/suppliers/{id}`
 * are written as JSON by the database (issue 22 items 2 and 3: src/db/json-text.ts,
 * catalog/variant-json.ts, suppliers/supplier-json.ts), no longer read as rows and shaped by
 * presentVariant/presentSupplier. They must say exactly what those presenters say:
 * generated rows with awkward values (prices to round, negative amounts, currencies with 0 and 3 minor
 * units or none, lower-case and unknown codes, escapes, microsecond timestamps, ties in the sort key)
 * are written straight into the tables, every page is walked, and each body is compared with the
 * presenters' output for the same rows in the same order (byte for byte where the old body was).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import pg from "pg";
import { PGliteThread } from "../../src/db/pglite-thread.ts";
import { presentVariant } from "../../src/domain/catalog/index.ts";
import { presentSupplier } from "../../src/domain/suppliers/index.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { expectError } from "../helpers/assertions.ts";
import { queryAndSee } from "../helpers/pg-answers.ts";

/** The column names of each statement's rows written as JSON, as the driver handed them over. */
const pageColumns: string[][] = [];
const isPageStatement = (text: unknown) => typeof text === "string" && /row_to_json/.test(text);

const threadQuery = PGliteThread.prototype.query;
PGliteThread.prototype.query = async function (this: PGliteThread, text: string, params?: unknown[]) {
  const result = await threadQuery.call(this, text, params);
  if (isPageStatement(text) && result.rows[0]) pageColumns.push(Object.keys(result.rows[0] as object));
  return result;
} as typeof PGliteThread.prototype.query;
/** Every statement sent to PostgreSQL (a text, or "(sent together)" for statements sent as one). */
const sentToPostgres: string[] = [];
/** The same statements' names (undefined for an unnamed statement, parsed and planned each time). */
const namesSentToPostgres: Array<string | undefined> = [];
const clientQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const first = args[0];
  const text = typeof first === "string" ? first : (first as { text?: string } | undefined)?.text;
  sentToPostgres.push(text ?? "(sent together)");
  namesSentToPostgres.push((first as { name?: string } | undefined)?.name);
  return queryAndSee<pg.QueryResult>(clientQuery, this, args, (r) => {
    if (isPageStatement(text) && r?.rows?.[0]) pageColumns.push(r.fields.map((f) => f.name));
  });
} as typeof pg.Client.prototype.query;

const TEXTS = [
  "Plain",
  'Quote " and \\ backslash',
  "Line\nbreak\ttab\rreturn",
  "Control \u0001\u001f\b\f",
  "Unicode é ✓ 😀",
  "Slash / <tag> & amp",
  "Separators \u2028 \u2029",
];
const AMOUNTS = [
  "0",
  "12.5",
  "12.345",
  "12.355",
  "-0.001",
  "-0.005",
  "999999999999.99999999",
  "0.00000001",
  "7",
];
const COSTS = [null, "3.1", "0.12345678", "5", "5.5", "-1.5", "0", "-0.00000001", "1234.5678"];
const COST_CURRENCIES = [null, "JPY", "KWD", "USD", "jpy", "EUR", "XYZ"];
/** Timestamps with microseconds (the API shows milliseconds, truncated). */
const moment = (i: number) =>
  `2026-11-0${1 + (i % 7)} 10:00:0${i % 3}.${String(999_999 - (i % 4) * 250_001).padStart(6, "0")}+00`;
/**
 * The sort key as the service writes it, in whole milliseconds (the cursor carries milliseconds), two
 * rows at a time equal so the id breaks the tie.
 */
const sortKey = (i: number) =>
  `2026-10-${String(10 + (Math.floor(i / 2) % 19)).padStart(2, "0")} 09:30:00.${String(Math.floor(i / 2) * 7).padStart(3, "0")}+00`;

const pick = <T>(list: readonly T[], i: number): T => list[i % list.length];

/** Walks a list by cursor and returns every page's raw body and parsed body. */
async function walk(t: TestApp, key: string, path: string) {
  const api = t.client(`Bearer ${key}`);
  const pages: Array<{ raw: string; body: any }> = [];
  let url = path;
  for (;;) {
    const res = await api.get(url);
    assert.equal(res.status, 200, res.raw.body);
    assert.match(String(res.headers["content-type"]), /^application\/json; charset=utf-8$/);
    pages.push({ raw: res.raw.body, body: res.body });
    if (!res.body.has_more) return pages;
    url = `${path}&cursor=${encodeURIComponent(res.body.next_cursor)}`;
  }
}

/** The pages the presenters would have written: the same rows cut at `limit`, with the cursors given. */
function expectedPages<T>(rows: T[], limit: number, cursors: Array<string | null>) {
  const pages: string[] = [];
  for (let i = 0; i * limit < rows.length || i === 0; i++) {
    const data = rows.slice(i * limit, (i + 1) * limit);
    const has_more = (i + 1) * limit < rows.length;
    pages.push(JSON.stringify({ data, next_cursor: cursors[i] ?? null, has_more }));
  }
  return pages;
}

describe("pages and single reads written as JSON by the database", () => {
  let t: TestApp;
  /** One supplier of the store, by id (the generated rows are all alike for these checks). */
  const aSupplierOf = async (storeId: number) => {
    const [supplier] = await t.runtime.database.db
      .selectFrom("suppliers")
      .select("id")
      .where("store_id", "=", storeId)
      .execute();
    return supplier;
  };
  const stores: Array<{ id: number; key: string; currency: string }> = [];

  before(async () => {
    t = await startTestApp();
    const db = t.runtime.database.db;
    for (const currency of ["USD", "JPY", "KWD"]) {
      const store = await t.createStore({ currency });
      stores.push({ id: store.id, key: store.key, currency });
      for (let i = 0; i < 45; i++) {
        const id = 9_000_000_000_000 + i * 7;
        await sql`insert into variants (store_id, id, product_id, inventory_item_id, title, product_title,
            sku, barcode, position, price, compare_at_price, unit_cost, unit_cost_currency, weight_grams,
            inventory_tracked, inventory_policy, taxable, image_url, platform_updated_at, created_at,
            updated_at, deleted_at)
          values (${store.id}, ${id}, ${id + 1}, ${id + 2}, ${pick(TEXTS, i)}, ${pick(TEXTS, i + 3)},
            ${i % 4 === 0 ? null : `SKU-${i}`}, ${i % 5 === 0 ? null : `0${i}`}, ${1 + (i % 5)},
            ${pick(AMOUNTS, i)}::numeric, ${i % 3 === 0 ? null : pick(AMOUNTS, i + 4)}::numeric,
            ${pick(COSTS, i)}::numeric, ${pick(COST_CURRENCIES, i * 5)}, ${i * 13}, ${i % 2 === 0},
            ${i % 2 === 0 ? "deny" : "continue"}, ${i % 3 !== 1}, ${i % 6 === 0 ? null : `https://img.test/${i}.png`},
            ${i % 4 === 1 ? null : moment(i + 2)}::timestamptz, ${moment(i + 1)}::timestamptz,
            ${sortKey(i)}::timestamptz, ${i % 11 === 10 ? moment(i) : null}::timestamptz)`.execute(db);
        const currencies = [null, "USD", "JPY", "jpy", "KWD", "XYZ", "EUR"];
        await sql`insert into suppliers (store_id, name, company_name, type, contact_name, phone,
            account_number, payment_terms, notes, bill_to_address, email, email_cc, currency,
            location_account_numbers, lead_time_days, min_order_value, free_freight_threshold, taxable,
            ships_direct, auto_restock, exclude_from_reorder, default_updates_stock, address_line1,
            address_line2, city, province, zip, country, match_vendors, match_tags, match_exclude_tags,
            dropship_tags, archived, archived_at, merged_into_id, created_at, updated_at)
          values (${store.id}, ${pick(TEXTS, i)}, ${i % 3 === 0 ? null : pick(TEXTS, i + 1)}, ${i % 2 ? "maker" : null},
            ${pick(TEXTS, i + 2)}, ${i % 4 ? "+1 555" : null}, ${i % 5 ? `AC-${i}` : null}, ${i % 2 ? "Net 30" : null},
            ${i % 3 ? pick(TEXTS, i + 4) : null}, ${i % 4 ? null : "1 Road\nTown"}, ${i % 2 ? `s${i}@x.test` : null},
            ${i % 3 ? [`a${i}@x.test`, 'q"uote@x.test'] : []}::text[], ${pick(currencies, i)},
            ${i % 4 === 0 ? "{}" : JSON.stringify({ 12: `A-${i}`, 3: 'B"2', abc: "x" })}::jsonb,
            ${i % 3 ? i : null}, ${i % 2 ? pick(AMOUNTS, i) : null}::numeric,
            ${i % 3 ? pick(AMOUNTS, i + 2) : null}::numeric, ${i % 2 === 0}, ${i % 3 === 0}, ${i % 4 === 0},
            ${i % 5 === 0}, ${i % 3 === 0 ? null : i % 3 === 1}, ${pick(TEXTS, i + 5)}, ${i % 2 ? null : "Unit 2"},
            ${i % 3 ? "Town" : null}, ${i % 4 ? "ON" : null}, ${i % 5 ? "K1A" : null}, ${i % 6 ? "CA" : null},
            ${i % 2 ? ["Acme", pick(TEXTS, i)] : []}::text[], ${i % 3 ? ["t1"] : []}::text[],
            ${i % 4 ? [] : ["x", "y"]}::text[], ${i % 5 ? [] : ["d"]}::text[], ${i % 7 === 6},
            ${i % 7 === 6 ? moment(i + 3) : null}::timestamptz, ${i % 9 === 8 ? 1 : null},
            ${moment(i + 1)}::timestamptz, ${sortKey(i)}::timestamptz)`.execute(db);
      }
    }
  });
  after(() => t.close());

  test("variant pages equal presentVariant's output for the same rows, byte for byte, in every currency", async () => {
    const db = t.runtime.database.db;
    for (const store of stores) {
      const rows = await db
        .selectFrom("variants")
        .selectAll()
        .where("store_id", "=", store.id)
        .where("deleted_at", "is", null)
        .orderBy("updated_at")
        .orderBy("id")
        .execute();
      assert.equal(rows.length, 41);
      const pages = await walk(t, store.key, "/v2/variants?limit=7");
      assert.equal(pages.length, 6);
      const expected = expectedPages(
        rows.map((row) => presentVariant(row, store.currency)),
        7,
        pages.map((p) => p.body.next_cursor),
      );
      assert.deepEqual(
        pages.map((p) => p.raw),
        expected,
        store.currency,
      );
    }
  });

  test("supplier pages (active, then all) equal presentSupplier's output for the same rows", async () => {
    const db = t.runtime.database.db;
    for (const store of stores) {
      for (const archived of [false, true]) {
        let query = db.selectFrom("suppliers").selectAll().where("store_id", "=", store.id);
        if (!archived) query = query.where("archived", "=", false);
        const rows = await query.orderBy("updated_at").orderBy("id").execute();
        assert.equal(rows.length, archived ? 45 : 39);
        const pages = await walk(t, store.key, `/v2/suppliers?limit=8${archived ? "&archived=all" : ""}`);
        const expected = expectedPages(
          rows.map(presentSupplier),
          8,
          pages.map((p) => p.body.next_cursor),
        );
        // location_account_numbers is written as jsonb prints it (spaces after ":" and ","): the same
        // object, so the bodies are compared as parsed, and byte for byte where it is empty.
        assert.deepEqual(
          pages.map((p) => JSON.stringify(p.body)),
          expected.map((e) => JSON.stringify(JSON.parse(e))),
        );
        const empty = rows.filter((r) => Object.keys(r.location_account_numbers).length === 0);
        assert.ok(empty.length > 5);
        for (const row of empty) {
          const text = JSON.stringify(presentSupplier(row));
          assert.ok(
            pages.some((p) => p.raw.includes(text)),
            `supplier ${row.id} byte for byte`,
          );
        }
      }
    }
  });

  test("a variant and a supplier by id answer presentVariant's and presentSupplier's text, byte for byte", async () => {
    const db = t.runtime.database.db;
    for (const store of stores) {
      const api = t.client(`Bearer ${store.key}`);
      const variants = await db.selectFrom("variants").selectAll().where("store_id", "=", store.id).execute();
      assert.equal(variants.length, 45);
      for (const row of variants) {
        const res = await api.get(`/v2/variants/${row.id}`);
        assert.equal(res.status, 200);
        assert.equal(
          res.raw.body,
          JSON.stringify({ data: presentVariant(row, store.currency) }),
          store.currency,
        );
      }
      const suppliers = await db
        .selectFrom("suppliers")
        .selectAll()
        .where("store_id", "=", store.id)
        .execute();
      for (const row of suppliers) {
        const res = await api.get(`/v2/suppliers/${row.id}`);
        assert.equal(res.status, 200);
        assert.equal(JSON.stringify(res.body), JSON.stringify({ data: presentSupplier(row) }));
        if (Object.keys(row.location_account_numbers).length === 0)
          assert.equal(res.raw.body, JSON.stringify({ data: presentSupplier(row) }));
      }
    }
    const api = t.client(`Bearer ${stores[0].key}`);
    expectError(await api.get("/v2/variants/1"), 404, "not_found");
    expectError(await api.get("/v2/suppliers/2147483647"), 404, "not_found");
    const [foreign] = await db
      .selectFrom("suppliers")
      .select("id")
      .where("store_id", "=", stores[1].id)
      .execute();
    expectError(await api.get(`/v2/suppliers/${foreign.id}`), 404, "not_found");
  });

  test("the database hands over each page's rows as their JSON text and sort key, not 25-40 columns", async () => {
    const store = stores[0];
    pageColumns.length = 0;
    await walk(t, store.key, "/v2/variants?limit=20");
    await walk(t, store.key, "/v2/suppliers?limit=20");
    assert.equal(pageColumns.length, 5);
    for (const columns of pageColumns) assert.deepEqual(columns, ["row_json", "page_time", "page_id"]);
    // A zero-padded id is never read ahead with the key lookup (auth.ts): the handler's own statement.
    pageColumns.length = 0;
    const api = t.client(`Bearer ${store.key}`);
    const supplier = await aSupplierOf(store.id);
    assert.equal((await api.get(`/v2/variants/0${9_000_000_000_000}`)).status, 200);
    assert.equal((await api.get(`/v2/suppliers/0${supplier.id}`)).status, 200);
    assert.deepEqual(pageColumns, [["row_json"], ["row_json"]]);
  });

  test("on PostgreSQL a variant or supplier by id is one statement: the key lookup with the record's JSON beside it", {
    skip: !process.env.TEST_DATABASE_URL,
  }, async () => {
    const store = stores[0];
    const api = t.client(`Bearer ${store.key}`);
    const supplier = await aSupplierOf(store.id);
    for (const path of [
      `/v2/variants/${9_000_000_000_000}`,
      `/v2/suppliers/${supplier.id}`,
      "/v2/suppliers/2147483647",
    ]) {
      // The request log's buffered rows are written now, not during the request.
      await t.runtime.ctx.requestLog.flush();
      sentToPostgres.length = 0;
      const res = await api.get(path);
      assert.equal(res.status, path.endsWith("2147483647") ? 404 : 200);
      assert.equal(sentToPostgres.length, 1, `${path}: ${sentToPostgres.join(" | ")}`);
      assert.match(sentToPostgres[0], /row_to_json.*from "api_keys" as "k"/s);
    }
  });

  test("on PostgreSQL a page's statement is named: parsed and planned once per connection, not per page", {
    skip: !process.env.TEST_DATABASE_URL,
  }, async () => {
    const api = t.client(`Bearer ${stores[1].key}`);
    for (const path of ["/v2/variants?sku=SKU-1", "/v2/variants?limit=3", "/v2/suppliers?limit=3"]) {
      await t.runtime.ctx.requestLog.flush();
      sentToPostgres.length = 0;
      namesSentToPostgres.length = 0;
      assert.equal((await api.get(path)).status, 200);
      const pages = sentToPostgres.flatMap((text, i) =>
        isPageStatement(text) ? [namesSentToPostgres[i]] : [],
      );
      assert.equal(pages.length, 1, path);
      assert.match(pages[0] ?? "(unnamed)", /^stockroom_page_\d+$/, path);
    }
  });

  test("an empty page, a filter and refusals answer as before", async () => {
    const store = stores[1];
    const api = t.client(`Bearer ${store.key}`);
    const none = await api.get("/v2/variants?sku=NOPE");
    assert.equal(none.status, 200);
    assert.equal(none.raw.body, '{"data":[],"next_cursor":null,"has_more":false}');
    const one = await api.get("/v2/variants?sku=SKU-1");
    assert.deepEqual(
      one.body.data.map((v: { sku: string }) => v.sku),
      ["SKU-1"],
    );
    const named = await api.get(`/v2/suppliers?name=${encodeURIComponent(" PLAIN ")}&archived=all`);
    assert.ok(named.body.data.length > 0);
    assert.ok(named.body.data.every((s: { name: string }) => s.name === "Plain"));
    expectError(await api.get("/v2/variants?cursor=nonsense"), 400, "invalid_cursor");
    expectError(await api.get("/v2/suppliers?cursor=nonsense"), 400, "invalid_cursor");
    const first = await api.get("/v2/variants?limit=2");
    expectError(
      await api.get(`/v2/suppliers?cursor=${encodeURIComponent(first.body.next_cursor)}`),
      400,
      "invalid_cursor",
    );
  });
});
