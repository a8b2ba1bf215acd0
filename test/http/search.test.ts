import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectError, expectStatus } from "../helpers/assertions.ts";
import { createSupplier } from "../helpers/factories.ts";
import { allPages } from "../helpers/paging.ts";

/**
 * `q=` on GET /v2/variants and /v2/suppliers (the pickers' search): every typed word a prefix of one of
 * the record's words, any case, punctuation splitting words, codes also typed without it; paging and
 * the cursor's binding kept; a store sees only its own records. And `name=` on /v2/suppliers, a
 * supplier by its whole name.
 */

describe("text search for pickers", () => {
  let t: TestApp;
  let store: TestStore;
  let other: TestStore;
  let variants: any[];

  before(async () => {
    t = await startTestApp();
    store = await t.createStore({ seed: "demo", currency: "USD" });
    other = await t.createStore({ seed: "demo", currency: "USD" });
    variants = await allPages(store.api, "/v2/variants?limit=250");
  });
  after(() => t.close());

  const skus = (rows: any[]) => rows.map((v) => v.sku).sort();
  const search = async (s: TestStore, path: string) => {
    const res = await s.api.get(path);
    expectStatus(res, 200);
    return res.body;
  };

  test("variants by words of the product title, any case, each word a prefix", async () => {
    const wool = await search(store, "/v2/variants?q=WOOL&limit=250");
    assert.deepEqual(skus(wool.data), [
      "SOCK-L",
      "SOCK-M",
      "SOCK-S",
      "SOCK-XL",
      ...skus(variants.filter((v) => v.product_title === "Wool Throw Blanket")),
    ]);
    assert.equal(wool.has_more, false);
    // Two words: both must match; a prefix of a word matches it.
    const socks = await search(store, "/v2/variants?q=wo%20hik");
    assert.deepEqual(skus(socks.data), ["SOCK-L", "SOCK-M", "SOCK-S", "SOCK-XL"]);
    // The whole answer is the list's shape and order, rows exactly as the list shows them.
    const expected = variants.filter((v) => v.product_title === "Wool Hiking Socks");
    assert.deepEqual(socks, { data: expected, next_cursor: null, has_more: false });
    // A word in the middle of a word is not a prefix.
    assert.deepEqual((await search(store, "/v2/variants?q=ool")).data, []);
  });

  test("variants by variant title, SKU with or without its punctuation, and barcode", async () => {
    assert.deepEqual(skus((await search(store, "/v2/variants?q=tee-m")).data), ["TEE-M"]);
    assert.deepEqual(skus((await search(store, "/v2/variants?q=teem")).data), ["TEE-M"]);
    assert.deepEqual(skus((await search(store, "/v2/variants?q=classic%20xl")).data), ["TEE-XL"]);
    const tee = variants.find((v) => v.sku === "TEE-S");
    assert.deepEqual(
      (await search(store, `/v2/variants?q=${tee.barcode}`)).data.map((v: any) => v.id),
      [tee.id],
    );
    // The first twelve digits of an EAN-13 are unique in the demo catalog: a prefix finds the one.
    assert.deepEqual(
      (await search(store, `/v2/variants?q=${tee.barcode.slice(0, 12)}`)).data.map((v: any) => v.id),
      [tee.id],
    );
    // Combined with the exact filters.
    assert.deepEqual(skus((await search(store, `/v2/variants?q=xl&product_id=${tee.product_id}`)).data), [
      "TEE-XL",
    ]);
  });

  test("search results page by cursor, and the cursor is bound to the search", async () => {
    const all = (await search(store, "/v2/variants?q=wool&limit=250")).data;
    assert.ok(all.length >= 6);
    const paged = await allPages(store.api, "/v2/variants?q=wool&limit=2");
    assert.deepEqual(paged, all);
    const first = await search(store, "/v2/variants?q=wool&limit=2");
    assert.equal(first.has_more, true);
    const moved = await store.api.get(
      `/v2/variants?q=tee&limit=2&cursor=${encodeURIComponent(first.next_cursor)}`,
    );
    expectError(moved, 400, "invalid_cursor");
  });

  test("a search without a letter or digit is refused, an empty or long one too", async () => {
    const punctuation = await store.api.get("/v2/variants?q=--%20%2F");
    expectError(punctuation, 400, "invalid_filter");
    assert.deepEqual(punctuation.body.error.details, [
      { field: "q", code: "no_words", message: "needs at least one letter or digit" },
    ]);
    expectError(await store.api.get("/v2/suppliers?q=%2A%2A"), 400, "invalid_filter");
    expectError(await store.api.get("/v2/variants?q="), 422, "validation_failed");
    expectError(await store.api.get(`/v2/suppliers?q=${"a".repeat(201)}`), 422, "validation_failed");
    // tsquery syntax typed by a user is only punctuation between words.
    assert.deepEqual(skus((await search(store, "/v2/variants?q=tee%20%26%20!m%3A*")).data), ["TEE-M"]);
  });

  test("another store's variants never match", async () => {
    const mine = new Set(variants.map((v) => v.id));
    const theirs = (await search(other, "/v2/variants?q=tee")).data;
    assert.equal(theirs.length, 4);
    for (const v of theirs) assert.ok(!mine.has(v.id));
  });

  test("suppliers by name, company, contact, email and account number; archived filter kept", async () => {
    const acme = await createSupplier(store.api, {
      name: "Acme Supply",
      company_name: "Acme Holdings Ltd",
      contact_name: "Jane Doe",
      email: "orders@acme-supply.test",
      account_number: "AC-1009",
    });
    const beta = await createSupplier(store.api, { name: "Beta Foods", contact_name: "Acme Liaison" });
    const old = await createSupplier(store.api, { name: "Acme Old" });
    expectStatus(await store.api.post(`/v2/suppliers/${old.id}/archive`, {}), 200);
    await createSupplier(other.api, { name: "Acme Elsewhere" });

    const ids = (body: any) => body.data.map((s: any) => s.id);
    assert.deepEqual(ids(await search(store, "/v2/suppliers?q=acme")), [acme.id, beta.id]);
    assert.deepEqual(ids(await search(store, "/v2/suppliers?q=acme&archived=all")), [
      acme.id,
      beta.id,
      old.id,
    ]);
    assert.deepEqual(ids(await search(store, "/v2/suppliers?q=acme&archived=true")), [old.id]);
    assert.deepEqual(ids(await search(store, "/v2/suppliers?q=holdings")), [acme.id]);
    assert.deepEqual(ids(await search(store, "/v2/suppliers?q=jane%20d")), [acme.id]);
    assert.deepEqual(ids(await search(store, "/v2/suppliers?q=orders%40acme")), [acme.id]);
    assert.deepEqual(ids(await search(store, "/v2/suppliers?q=ac1009")), [acme.id]);
    assert.deepEqual(ids(await search(store, "/v2/suppliers?q=ac-10")), [acme.id]);
    assert.deepEqual(ids(await search(store, "/v2/suppliers?q=foods%20liaison")), [beta.id]);
    assert.deepEqual(ids(await search(store, "/v2/suppliers?q=zzz")), []);
    const shown = await search(store, `/v2/suppliers?q=jane`);
    assert.deepEqual(shown.data[0], (await store.api.get(`/v2/suppliers/${acme.id}`)).body.data);

    const paged = await allPages(store.api, "/v2/suppliers?q=acme&archived=all&limit=1");
    assert.deepEqual(
      paged.map((s) => s.id),
      [acme.id, beta.id, old.id],
    );
    const first = await search(store, "/v2/suppliers?q=acme&limit=1");
    const moved = await store.api.get(
      `/v2/suppliers?q=beta&limit=1&cursor=${encodeURIComponent(first.next_cursor)}`,
    );
    expectError(moved, 400, "invalid_cursor");
  });

  test("suppliers by their whole name: any case, the spaces around it ignored, no prefix; archived filter kept", async () => {
    const quay = await createSupplier(store.api, { name: "Quay Tools" });
    const north = await createSupplier(store.api, { name: "Quay Tools North" });
    const again = await createSupplier(store.api, { name: "quay tools" });
    expectStatus(await store.api.post(`/v2/suppliers/${again.id}/archive`, {}), 200);
    await createSupplier(other.api, { name: "Quay Tools" });

    const ids = (body: any) => body.data.map((s: any) => s.id);
    assert.deepEqual(ids(await search(store, "/v2/suppliers?name=QUAY%20TOOLS")), [quay.id]);
    assert.deepEqual(ids(await search(store, "/v2/suppliers?name=%20quay%20tools%20%20")), [quay.id]);
    assert.deepEqual(ids(await search(store, "/v2/suppliers?name=quay%20tools&archived=all")), [
      quay.id,
      again.id,
    ]);
    assert.deepEqual(ids(await search(store, "/v2/suppliers?name=quay%20tools&archived=true")), [again.id]);
    assert.deepEqual(ids(await search(store, "/v2/suppliers?name=Quay%20Tools%20North")), [north.id]);
    assert.deepEqual(ids(await search(store, "/v2/suppliers?name=Quay")), []);
    // The row is the list's, and the cursor is bound to the name.
    const both = await search(store, "/v2/suppliers?name=quay%20tools&archived=all&limit=1");
    assert.deepEqual(both.data[0], (await store.api.get(`/v2/suppliers/${quay.id}`)).body.data);
    const moved = await store.api.get(
      `/v2/suppliers?name=quay&archived=all&limit=1&cursor=${encodeURIComponent(both.next_cursor)}`,
    );
    expectError(moved, 400, "invalid_cursor");
    expectError(await store.api.get("/v2/suppliers?name="), 422, "validation_failed");
    expectError(await store.api.get(`/v2/suppliers?name=${"a".repeat(256)}`), 422, "validation_failed");
  });
});
