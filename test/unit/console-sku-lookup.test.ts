/**
 * The console's lookup of a CSV's SKUs (item-search.ts): grouped into requests of at most 250 SKUs and
 * a bounded query length, each SKU answered by every variant having it in the API's order (a shared
 * SKU with all of them, so the import can refuse it), and the number of calls set by the SKUs and
 * their matches, not by the size of the catalog. The API is a fake that
 * answers GET /variants?sku=…&sku=… as the real one does (the list's order, pages of `limit`).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { skuGroups, type Variant, variantsBySku } from "../../src/console/item-search.ts";
import type { StoreApi } from "../../src/console/store-api.ts";

function variant(id: number, sku: string | null): Variant {
  return {
    id,
    inventory_item_id: id,
    title: null,
    product_title: `Item ${id}`,
    sku,
    barcode: null,
    unit_cost: null,
    unit_cost_currency: null,
  };
}

/** A store's variants (in the API's order) behind a fake API that counts its calls. */
function fakeApi(catalog: readonly Variant[]): { api: StoreApi; calls: string[] } {
  const calls: string[] = [];
  const refuse = () => Promise.reject(new Error("not used by the lookup"));
  const api: StoreApi = {
    storeId: 1,
    async get<T>(path: string): Promise<T> {
      calls.push(path);
      const [route, query] = path.split("?");
      assert.equal(route, "/variants");
      const params = new URLSearchParams(query);
      const skus = new Set(params.getAll("sku"));
      assert.ok(skus.size >= 1 && skus.size <= 250, `${skus.size} SKUs in one call`);
      assert.ok(query.length <= 8_000 + 300, `a query of ${query.length} characters`);
      const limit = Number(params.get("limit") ?? 50);
      const from = Number(params.get("cursor") ?? 0);
      const matches = catalog.filter((v) => v.sku !== null && skus.has(v.sku));
      const data = matches.slice(from, from + limit);
      const more = from + limit < matches.length;
      return { data, has_more: more, next_cursor: more ? String(from + limit) : null } as T;
    },
    post: refuse,
    put: refuse,
    patch: refuse,
    delete: refuse,
    has: () => true,
    raw: refuse,
  };
  return { api, calls };
}

describe("variantsBySku", () => {
  test("250 SKUs in a catalog of 100,000 variants: one call, each SKU its variant", async () => {
    const catalog = Array.from({ length: 100_000 }, (_, i) => variant(i + 1, `SKU-${i + 1}`));
    const { api, calls } = fakeApi(catalog);
    const wanted = Array.from({ length: 250 }, (_, i) => `SKU-${99_751 + i}`);
    const found = await variantsBySku(api, [...wanted, ...wanted.slice(0, 10), ""]);
    assert.equal(calls.length, 1);
    assert.deepEqual(
      [...found].map(([sku, vs]) => [sku, vs.map((v) => v.id)]).sort(),
      wanted.map((sku) => [sku, [Number(sku.slice(4))]]).sort(),
    );
  });

  test("a SKU shared by several variants comes back with every one of them; a missing one is absent", async () => {
    const catalog = [
      variant(1, "A"),
      ...Array.from({ length: 600 }, (_, i) => variant(i + 2, "SHARED")),
      variant(700, "B"),
    ];
    const { api, calls } = fakeApi(catalog);
    const found = await variantsBySku(api, ["SHARED", "B", "NONE", "A"]);
    assert.deepEqual([...found.keys()].sort(), ["A", "B", "SHARED"]);
    assert.deepEqual(
      found.get("A")?.map((v) => v.id),
      [1],
    );
    assert.deepEqual(
      found.get("B")?.map((v) => v.id),
      [700],
    );
    assert.deepEqual(
      found.get("SHARED")?.map((v) => v.id),
      Array.from({ length: 600 }, (_, i) => i + 2),
    );
    // 602 matches: three pages of 250, all read, since any SKU of the group may be shared.
    assert.equal(calls.length, 3);
  });

  test("a shared SKU on a later page is counted whole although every SKU was seen on the first", async () => {
    const catalog = [
      variant(1, "A"),
      ...Array.from({ length: 300 }, (_, i) => variant(i + 2, "B")),
      variant(400, "A"),
    ];
    const { api, calls } = fakeApi(catalog);
    const found = await variantsBySku(api, ["A", "B"]);
    assert.deepEqual(
      found.get("A")?.map((v) => v.id),
      [1, 400],
    );
    assert.equal(found.get("B")?.length, 300);
    assert.equal(calls.length, 2);
  });

  test("no SKU: no call", async () => {
    const { api, calls } = fakeApi([variant(1, "A")]);
    assert.equal((await variantsBySku(api, ["", ""])).size, 0);
    assert.equal(calls.length, 0);
  });
});

describe("skuGroups", () => {
  test("keeps every SKU once, in order, in groups of at most 250 and a bounded query", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 255, unit: "binary" }), { maxLength: 700 }),
        (skus) => {
          const groups = skuGroups(skus);
          assert.deepEqual(groups.flat(), skus);
          for (const group of groups) {
            assert.ok(group.length >= 1 && group.length <= 250);
            const query = new URLSearchParams(group.map((s) => ["sku", s])).toString();
            // One SKU alone may be long (255 characters, escaped); more than one stays within the budget.
            if (group.length > 1) assert.ok(query.length <= 8_000, `${query.length}`);
          }
          // Grouped as few times as the two bounds allow: no two neighbours would fit in one.
          for (let i = 1; i < groups.length; i++) {
            const merged = [...groups[i - 1], groups[i][0]];
            const query = new URLSearchParams(merged.map((s) => ["sku", s])).toString();
            assert.ok(merged.length > 250 || query.length + 1 > 8_000);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
