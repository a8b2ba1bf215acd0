/**
 * GET /v2/purchase_orders: `q` finds an order by its number, reference or the supplier's order number
 * (any case, wildcards taken literally), `sort` orders by creation or update either way, and a cursor is
 * bound to its sort and search. Another store's orders never appear. `lines=false` leaves each order's
 * lines out and nothing else.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../src/clock.ts";
import { type HttpResult, startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";

describe("GET /v2/purchase_orders with q and sort", () => {
  let t: TestApp;
  let store: TestStore;
  let clock: ManualClock;
  /** The orders in creation order. */
  const created: { id: number; number: string }[] = [];

  async function order(fields: Record<string, unknown>) {
    clock.advance(1000);
    const res = await store.api.post("/v2/purchase_orders", {
      supplier_id: fields.supplier_id,
      lines: [{ product_title: "Part", quantity: 1, unit_cost: "2.00" }],
      ...fields,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    created.push({ id: res.body.data.id, number: res.body.data.number });
    return res.body.data;
  }

  const ids = (body: { data: { id: number }[] }) => body.data.map((o) => o.id);

  async function walk(query: string, limit: number): Promise<number[]> {
    const out: number[] = [];
    let cursor: string | null = null;
    do {
      const res: HttpResult = await store.api.get(
        `/v2/purchase_orders?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`,
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      out.push(...ids(res.body));
      cursor = res.body.has_more ? res.body.next_cursor : null;
    } while (cursor);
    return out;
  }

  before(async () => {
    clock = new ManualClock("2031-03-01T00:00:00.000Z");
    t = await startTestApp({ clock });
    store = await t.createStore({ seed: "empty" });
    const supplier = (await store.api.post("/v2/suppliers", { name: "North" })).body.data;
    await order({ supplier_id: supplier.id, reference: "Spring restock" });
    await order({ supplier_id: supplier.id, reference: "100% cotton", supplier_order_number: "SO-77" });
    await order({ supplier_id: supplier.id, reference: "autumn RESTOCK" });
    await order({ supplier_id: supplier.id, supplier_order_number: "so-78_b" });
    await order({ supplier_id: supplier.id, number: "RET-9" });
    // The oldest order changes last, so update order and creation order differ.
    clock.advance(1000);
    const patched = await store.api.patch(`/v2/purchase_orders/${created[0].id}`, { notes: "later" });
    assert.equal(patched.status, 200);
    const other = await t.createStore({ seed: "empty" });
    const theirs = (await other.api.post("/v2/suppliers", { name: "Theirs" })).body.data;
    const foreign = await other.api.post("/v2/purchase_orders", {
      supplier_id: theirs.id,
      reference: "Spring restock",
      lines: [{ product_title: "Part", quantity: 1, unit_cost: "2.00" }],
    });
    assert.equal(foreign.status, 201);
  });
  after(() => t.close());

  test("q finds the number, the reference and the supplier's order number, in any case", async () => {
    const find = async (q: string) => {
      const res = await store.api.get(`/v2/purchase_orders?sort=created_at&q=${encodeURIComponent(q)}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return ids(res.body);
    };
    const [spring, cotton, autumn, so78, ret] = created.map((o) => o.id);
    assert.deepEqual(await find("restock"), [spring, autumn]);
    assert.deepEqual(await find("SO-7"), [cotton, so78]);
    assert.deepEqual(await find("ret-9"), [ret]);
    assert.deepEqual(await find(created[1].number.toLowerCase()), [cotton]);
    assert.deepEqual(await find("  restock  "), [spring, autumn], "the text is trimmed");
    // % and _ are the text itself, not wildcards.
    assert.deepEqual(await find("100%"), [cotton]);
    assert.deepEqual(await find("0%c"), []);
    assert.deepEqual(await find("_b"), [so78]);
    assert.deepEqual(await find("o-78b"), []);
    assert.deepEqual(await find("nothing like it"), []);
  });

  test("sort: creation either way, update either way, default oldest update first; pages follow it", async () => {
    const byCreation = created.map((o) => o.id);
    const byUpdate = [...byCreation.slice(1), byCreation[0]];
    assert.deepEqual(await walk("sort=created_at", 2), byCreation);
    assert.deepEqual(await walk("sort=-created_at", 2), [...byCreation].reverse());
    assert.deepEqual(await walk("sort=updated_at", 2), byUpdate);
    assert.deepEqual(await walk("sort=-updated_at", 2), [...byUpdate].reverse());
    assert.deepEqual(await walk("archived=false", 2), byUpdate);
    assert.deepEqual(await walk("sort=-created_at&q=restock", 1), [byCreation[2], byCreation[0]]);
  });

  test("a cursor is bound to its sort and search; a bad sort or a long q is refused", async () => {
    const first = await store.api.get("/v2/purchase_orders?sort=-created_at&limit=2");
    assert.equal(first.body.has_more, true);
    for (const query of ["sort=created_at", "sort=-updated_at", "", "sort=-created_at&q=restock"]) {
      const reused = await store.api.get(
        `/v2/purchase_orders?${query}&limit=2&cursor=${first.body.next_cursor}`,
      );
      assert.equal(reused.status, 400, query);
      assert.equal(reused.body.error.code, "invalid_cursor", query);
    }
    const badSort = await store.api.get("/v2/purchase_orders?sort=number");
    assert.equal(badSort.status, 422);
    assert.equal(badSort.body.error.code, "validation_failed");
    assert.equal(badSort.body.error.details[0].field, "sort");
    const longQ = await store.api.get(`/v2/purchase_orders?q=${"x".repeat(101)}`);
    assert.equal(longQ.status, 422);
    assert.equal(longQ.body.error.details[0].field, "q");
  });

  test("lines=false: every order as without it but its lines empty; pages follow the same orders", async () => {
    const full = await store.api.get("/v2/purchase_orders?sort=created_at&limit=3");
    const bare = await store.api.get("/v2/purchase_orders?sort=created_at&limit=3&lines=false");
    assert.equal(bare.status, 200, JSON.stringify(bare.body));
    assert.ok(full.body.data.every((o: any) => o.lines.length === 1));
    assert.deepEqual(
      bare.body.data,
      full.body.data.map((o: any) => ({ ...o, lines: [] })),
    );
    assert.equal(bare.body.has_more, true);
    assert.deepEqual(await walk("sort=created_at&lines=false", 2), await walk("sort=created_at", 2));
    const refused = await store.api.get("/v2/purchase_orders?lines=none");
    assert.equal(refused.status, 422);
  });
});
