import { orderRecordQuery, orderRecordsByIdQuery } from "../../src/domain/purchase-orders/index.ts";
import { catalogFixture, suppliersFixture } from "../fixtures.ts";
import type { Bench } from "../lib/context.ts";
import { mapLimit } from "../lib/http.ts";
import type { LoadRequest } from "../lib/load-types.ts";
import { cloneDraftOrders } from "../lib/orders-clone.ts";
import { output, type Scenario, target } from "./scenario.ts";

/** Lines naming `count` catalog items by variant id (the service fills titles, SKU and cost). */
export async function orderLines(b: Bench, count: number, offset: number, quantity = 12) {
  const { bulk } = await catalogFixture(b);
  return Array.from({ length: count }, (_, i) => {
    const v = bulk[(offset + i) % bulk.length];
    return { variant_id: v.id, quantity: quantity + (i % 5) };
  });
}

/** A few 100-line draft orders made through POST /v2/purchase_orders (for GET and PDF). */
export function bigOrdersFixture(b: Bench): Promise<number[]> {
  return b.fixture("big-orders", async () => {
    const { ids: suppliers } = await suppliersFixture(b);
    const made: number[] = [];
    for (let i = 0; i < 4; i++) {
      const order = await b.api.post<{ data: { id: number; lines: unknown[] } }>("/v2/purchase_orders", {
        supplier_id: suppliers[i],
        reference: `BENCH-BIG-${i + 1}`,
        notes: "A 100-line order for the benchmark.",
        lines: await orderLines(b, 100, i * 100),
      });
      if (order.data.lines.length !== 100) throw new Error("the order does not have 100 lines");
      made.push(order.data.id);
    }
    return made;
  });
}

export const orderCreate: Scenario = {
  name: "order-create",
  title: "POST /v2/purchase_orders, 100 lines",
  issue: 5,
  requires: ["POST /v2/purchase_orders"],
  async run(b) {
    const { ids: suppliers } = await suppliersFixture(b);
    const body = JSON.stringify({
      supplier_id: suppliers[0],
      reference: "BENCH-CREATE",
      lines: await orderLines(b, 100, 0),
    });
    const requests: LoadRequest[] = [
      { method: "POST", path: "/v2/purchase_orders", headers: { "content-type": "application/json" }, body },
    ];
    const c1 = await b.load("c=1", { connections: 1, requests });
    const c32 = await b.load("c=32", { connections: 32, requests });
    return output({
      rows: [c1, c32],
      targets: [
        target(
          5,
          "create a 100-line order p50 < 40 ms (PostgreSQL)",
          c1.p50,
          "ms",
          b.kind === "postgres" ? c1.p50 < 40 : null,
        ),
      ],
      notes: ["every request creates a new draft of 100 lines named by variant id (costs from the catalog)"],
    });
  },
};

export const orderGet: Scenario = {
  name: "order-get",
  title: "GET /v2/purchase_orders/{id}, 100 lines",
  issue: 5,
  requires: ["POST /v2/purchase_orders", "GET /v2/purchase_orders/{id}"],
  async run(b) {
    const ids = await bigOrdersFixture(b);
    const requests: LoadRequest[] = ids.map((id) => ({ method: "GET", path: `/v2/purchase_orders/${id}` }));
    b.plan("order-get", "Query plan of GET /v2/purchase_orders/{id}: the order", (db) =>
      orderRecordsByIdQuery(db, b.storeId, [ids[0]]),
    );
    b.plan("order-get", "Query plan of GET /v2/purchase_orders/{id}: its lines", (db) =>
      db
        .selectFrom("purchase_order_lines")
        .selectAll()
        .where("store_id", "=", b.storeId)
        .where("purchase_order_id", "in", [ids[0]])
        .orderBy("purchase_order_id")
        .orderBy("position")
        .orderBy("id"),
    );
    const c1 = await b.load("c=1", { connections: 1, requests });
    const c32 = await b.load("c=32", { connections: 32, requests });
    return output({
      rows: [c1, c32],
      targets: [target(5, "GET a 100-line order p50 < 10 ms", c1.p50, "ms", c1.p50 < 10)],
    });
  },
};

export const orderPdf: Scenario = {
  name: "pdf",
  title: "GET /v2/purchase_orders/{id}/pdf, 100 lines",
  issue: 7,
  requires: ["POST /v2/purchase_orders", "GET /v2/purchase_orders/{id}/pdf"],
  async run(b) {
    const ids = await bigOrdersFixture(b);
    const requests: LoadRequest[] = ids.map((id) => ({
      method: "GET",
      path: `/v2/purchase_orders/${id}/pdf`,
    }));
    const c1 = await b.load("c=1", { connections: 1, requests });
    const c32 = await b.load("c=32", { connections: 32, requests });
    return output({
      rows: [c1, c32],
      targets: [target(7, "PDF of a 100-line order p50 < 150 ms", c1.p50, "ms", c1.p50 < 150)],
    });
  },
};

/**
 * A store with 100,000 orders: drafts made through the API (1 to 5 lines each, 20 suppliers), then
 * copied in bulk (bench/lib/orders-clone.ts) up to the total. Quick mode: 5,000.
 */
export const orderList: Scenario = {
  name: "order-list",
  title: "GET /v2/purchase_orders?supplier_id=&status=draft (page of 50, store with 100,000 orders)",
  issue: 5,
  requires: ["POST /v2/purchase_orders", "GET /v2/purchase_orders"],
  async run(b) {
    const total = b.quick ? 5_000 : 100_000;
    const templateCount = b.quick ? 40 : 200;
    const { ids: suppliers } = await suppliersFixture(b);
    const { locationIds } = await catalogFixture(b);
    b.log(`   ${templateCount} orders through the API`);
    const templates = await mapLimit(Array.from({ length: templateCount }), 8, async (_, i) => {
      const order = await b.api.post<{ data: { id: number } }>("/v2/purchase_orders", {
        supplier_id: suppliers[i % 20],
        location_id: locationIds[i % locationIds.length],
        reference: `BENCH-LIST-${i + 1}`,
        lines: await orderLines(b, 1 + (i % 5), i * 7, 5),
      });
      return order.data.id;
    });
    b.log(`   copying them up to ${total.toLocaleString("en")} orders`);
    const t0 = Date.now();
    await b.direct((db) => cloneDraftOrders(db, b.storeId, templates, total - templateCount));
    const cloneSeconds = (Date.now() - t0) / 1000;
    b.log(`   copied in ${cloneSeconds.toFixed(1)} s`);

    // The copies read back through the API like any order.
    const oldest = await b.api.get<{ data: Array<{ id: number }> }>("/v2/purchase_orders?limit=1");
    const copy = await b.api.get<{ data: { lines: unknown[]; number: string } }>(
      `/v2/purchase_orders/${oldest.data[0].id}`,
    );
    if (copy.data.lines.length === 0) throw new Error(`copied order ${copy.data.number} has no lines`);

    const filter = `supplier_id=${suppliers[5]}&status=draft&limit=50`;
    const paths = [`/v2/purchase_orders?${filter}`];
    while (paths.length < 20) {
      const page: { next_cursor: string | null } = await b.api.get(paths[paths.length - 1]);
      if (!page.next_cursor) break;
      paths.push(`/v2/purchase_orders?${filter}&cursor=${encodeURIComponent(page.next_cursor)}`);
    }
    const requests: LoadRequest[] = paths.map((path) => ({ method: "GET", path }));
    const c1 = await b.load("c=1", { connections: 1, requests });
    const c32 = await b.load("c=32", { connections: 32, requests });
    // The list's query, as listPurchaseOrders builds it for this filter (first page).
    b.plan(
      "order-list",
      "Query plan of GET /v2/purchase_orders?supplier_id=&status=draft (first page)",
      (db) =>
        orderRecordQuery(db, b.storeId)
          .where("po.archived", "=", false)
          .where("po.status", "in", ["draft"])
          .where("po.supplier_id", "=", suppliers[5])
          .orderBy("po.updated_at", "asc")
          .orderBy("po.id", "asc")
          .limit(51),
    );
    return output({
      rows: [c1, c32],
      figures: {
        orders: total,
        "API-made": templateCount,
        "copy s": Number(cloneSeconds.toFixed(1)),
        "pages walked": paths.length,
      },
      targets: [
        target(
          5,
          `filtered page of 50 from ${total.toLocaleString("en")} orders p50 < 20 ms${total < 100_000 ? " (quick mode; target is for 100,000)" : ""}`,
          c1.p50,
          "ms",
          total >= 100_000 ? c1.p50 < 20 : null,
        ),
      ],
      notes: [
        `${templateCount} draft orders made through POST /v2/purchase_orders, copied in bulk to ${total.toLocaleString("en")} (order rows, lines and created history, numbers and sequential ids from the store's counters; ANALYZE after)`,
        `filter supplier_id + status=draft, ~${Math.round(total / 20).toLocaleString("en")} matching; the first ${paths.length} pages in turn by cursor`,
      ],
    });
  },
};
