import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../src/clock.ts";
import {
  archiveOrder,
  closeOrder,
  createPurchaseOrder,
  formatOrderNumber,
  markInTransit,
  markOrdered,
  nextSequentialIds,
  SYSTEM_ACTOR,
} from "../../src/domain/purchase-orders/index.ts";
import { takePurchaseOrderNumbers } from "../../src/domain/stores/index.ts";
import { type HttpResult, startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";

interface Expected {
  id: number;
  status: string;
  supplier_id: number;
  location_id: number;
  type: string;
  archived: boolean;
}

const COUNT = 1000;

describe("GET /v2/purchase_orders over 1,000 orders", () => {
  let t: TestApp;
  let store: TestStore;
  const orders: Expected[] = [];

  before(async () => {
    const clock = new ManualClock("2030-01-01T00:00:00.000Z");
    t = await startTestApp({ clock });
    store = await t.createStore({ seed: "demo" });
    await t.drain();
    const locations = (await store.api.get("/v2/locations")).body.data.map((l: { id: number }) => l.id);
    const suppliers: number[] = [];
    for (const name of ["North", "South"])
      suppliers.push((await store.api.post("/v2/suppliers", { name })).body.data.id);
    // 64 templates (every status × supplier × location × type × archived) are made through the same
    // service calls the routes make; the other orders are copies of their rows (order, lines,
    // history), numbered through the repository's store numbering and counters, so every row is one
    // the API would write while the fixture stays fast.
    const ctx = t.runtime.ctx;
    const storeInfo = { id: store.id, currency: "USD", timezone: "UTC" };
    const STATUSES = ["draft", "ordered", "in_transit", "closed"] as const;
    await ctx.db.transaction().execute(async (trx) => {
      const templates: (Expected & { index: number })[] = [];
      let index = 0;
      for (const status of STATUSES)
        for (const supplier_id of suppliers)
          for (const location_id of locations.slice(0, 2))
            for (const type of ["purchase", "return"] as const)
              for (const archived of [false, true]) {
                clock.advance(3);
                const order = await createPurchaseOrder(ctx, trx, storeInfo, SYSTEM_ACTOR, {
                  supplier_id,
                  location_id,
                  type,
                  lines: [{ product_title: `Part ${index}`, quantity: 1 + (index % 5), unit_cost: "2.50" }],
                });
                if (status !== "draft") await markOrdered(ctx, trx, storeInfo, SYSTEM_ACTOR, order.id, {});
                if (status === "in_transit")
                  await markInTransit(ctx, trx, storeInfo, SYSTEM_ACTOR, order.id, {});
                if (status === "closed") await closeOrder(ctx, trx, storeInfo, SYSTEM_ACTOR, order.id);
                if (archived) await archiveOrder(ctx, trx, storeInfo, SYSTEM_ACTOR, order.id, {});
                templates.push({
                  id: order.id,
                  status,
                  supplier_id,
                  location_id,
                  type,
                  archived,
                  index: index++,
                });
              }
      orders.push(...templates);
      const rows = await trx
        .selectFrom("purchase_orders")
        .selectAll()
        .where("store_id", "=", store.id)
        .execute();
      const byId = new Map(rows.map((r) => [r.id, r]));
      const lines = await trx
        .selectFrom("purchase_order_lines")
        .selectAll()
        .where("store_id", "=", store.id)
        .execute();
      const history = await trx
        .selectFrom("purchase_order_history")
        .selectAll()
        .where("store_id", "=", store.id)
        .execute();
      const copies = COUNT - templates.length;
      const numbers = await takePurchaseOrderNumbers(trx, store.id, copies);
      const firstSeq = await nextSequentialIds(trx, store.id, copies);
      const base = clock.now().getTime();
      const newRows = Array.from({ length: copies }, (_, i) => {
        const template = templates[i % templates.length];
        const { id: _id, ...row } = byId.get(template.id) as (typeof rows)[number];
        // Every third copy shares its neighbour's updated_at, so paging must break ties by id.
        const at = new Date(base + Math.floor(i / 3) * 3 * 5);
        return {
          ...row,
          number: formatOrderNumber(numbers.prefix, numbers.first + i),
          sequential_id: firstSeq + i,
          created_at: at,
          updated_at: at,
        };
      });
      const inserted: number[] = [];
      for (let i = 0; i < newRows.length; i += 200) {
        const batch = newRows.slice(i, i + 200);
        const ids = await trx.insertInto("purchase_orders").values(batch).returning("id").execute();
        inserted.push(...ids.map((r) => r.id));
      }
      const lineCopies = inserted.flatMap((id, i) =>
        lines
          .filter((l) => l.purchase_order_id === templates[i % templates.length].id)
          .map(({ id: _id, ...l }) => ({
            ...l,
            purchase_order_id: id,
            warnings: JSON.stringify(l.warnings),
          })),
      );
      const historyCopies = inserted.flatMap((id, i) =>
        history
          .filter((h) => h.purchase_order_id === templates[i % templates.length].id)
          .map(({ id: _id, ...h }) => ({ ...h, purchase_order_id: id, data: JSON.stringify(h.data) })),
      );
      for (let i = 0; i < lineCopies.length; i += 500)
        await trx
          .insertInto("purchase_order_lines")
          .values(lineCopies.slice(i, i + 500))
          .execute();
      for (let i = 0; i < historyCopies.length; i += 500)
        await trx
          .insertInto("purchase_order_history")
          .values(historyCopies.slice(i, i + 500))
          .execute();
      inserted.forEach((id, i) => {
        const { index: _index, ...template } = templates[i % templates.length];
        orders.push({ ...template, id });
      });
    });
    assert.equal(orders.length, COUNT);
  });
  after(() => t.close());

  async function walk(query: string, limit: number) {
    const seen: { id: number; updated_at: string }[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const url: string = `/v2/purchase_orders?limit=${limit}${query ? `&${query}` : ""}${cursor ? `&cursor=${cursor}` : ""}`;
      const res: HttpResult = await store.api.get(url);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.ok(res.body.data.length <= limit);
      assert.equal(res.body.has_more, res.body.next_cursor !== null);
      for (const row of res.body.data) {
        assert.ok(!("receipts" in row) && !("payments" in row), "list rows are summaries");
        seen.push({ id: row.id, updated_at: row.updated_at });
      }
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    // Oldest update first, ties by id, never a row twice.
    for (let i = 1; i < seen.length; i++) {
      const a = seen[i - 1];
      const b = seen[i];
      assert.ok(
        a.updated_at < b.updated_at || (a.updated_at === b.updated_at && a.id < b.id),
        "keyset order",
      );
    }
    assert.equal(new Set(seen.map((s) => s.id)).size, seen.length);
    return { ids: seen.map((s) => s.id).sort((x, y) => x - y), pages };
  }

  const expected = (keep: (o: Expected) => boolean) =>
    orders
      .filter(keep)
      .map((o) => o.id)
      .sort((x, y) => x - y);

  test("no filter: every unarchived order once, in order", async () => {
    const { ids, pages } = await walk("", 97);
    assert.deepEqual(
      ids,
      expected((o) => !o.archived),
    );
    assert.equal(pages, Math.ceil(ids.length / 97));
  });

  test("each filter, alone and combined", async () => {
    const cases: [string, (o: Expected) => boolean][] = [
      ["status=ordered,closed", (o) => !o.archived && (o.status === "ordered" || o.status === "closed")],
      ["status=in_transit", (o) => !o.archived && o.status === "in_transit"],
      [`supplier_id=${orders[1].supplier_id}`, (o) => !o.archived && o.supplier_id === orders[1].supplier_id],
      [`location_id=${orders[0].location_id}`, (o) => !o.archived && o.location_id === orders[0].location_id],
      ["type=return", (o) => !o.archived && o.type === "return"],
      ["archived=true", (o) => o.archived],
      ["archived=all", () => true],
      ["archived=false", (o) => !o.archived],
      [
        `status=draft&type=purchase&supplier_id=${orders[0].supplier_id}&archived=all`,
        (o) => o.status === "draft" && o.type === "purchase" && o.supplier_id === orders[0].supplier_id,
      ],
    ];
    for (const [query, keep] of cases) {
      const want = expected(keep);
      assert.ok(want.length > 0, query);
      const { ids } = await walk(query, 250);
      assert.deepEqual(ids, want, query);
    }
  });

  test("an unknown status is 400 invalid_filter; a cursor is bound to its filters", async () => {
    const bad = await store.api.get("/v2/purchase_orders?status=ordered,shipped");
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, "invalid_filter");
    assert.match(bad.body.error.message, /shipped/);
    const page = await store.api.get("/v2/purchase_orders?status=draft&limit=5");
    const reused = await store.api.get(
      `/v2/purchase_orders?status=ordered&limit=5&cursor=${page.body.next_cursor}`,
    );
    assert.equal(reused.status, 400);
    assert.equal(reused.body.error.code, "invalid_cursor");
    const badType = await store.api.get("/v2/purchase_orders?type=gift");
    assert.equal(badType.status, 422);
    const other = await t.createStore({ seed: "empty" });
    const foreign = await other.api.get(
      `/v2/purchase_orders?status=draft&limit=5&cursor=${page.body.next_cursor}`,
    );
    assert.equal(foreign.status, 400);
    assert.equal(foreign.body.error.code, "invalid_cursor");
    assert.deepEqual((await other.api.get("/v2/purchase_orders?archived=all")).body, {
      data: [],
      next_cursor: null,
      has_more: false,
    });
  });

  test("updated_at filters form a change feed", async () => {
    const all = await walk("archived=all", 250);
    const cut = "2030-01-01T00:00:03.500Z";
    const res = await walk(`archived=all&updated_at_min=${cut}`, 250);
    assert.ok(res.ids.length > 0 && res.ids.length < all.ids.length);
  });
});
