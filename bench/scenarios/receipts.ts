import { randomUUID } from "node:crypto";
import { catalogFixture, suppliersFixture } from "../fixtures.ts";
import type { Bench } from "../lib/context.ts";
import { mapLimit } from "../lib/http.ts";
import type { LoadRequest } from "../lib/load-types.ts";
import { orderLines } from "./orders.ts";
import { output, type Scenario, target } from "./scenario.ts";

const LINES = 50;

/**
 * `orders` ordered purchase orders of 50 lines (1,000 units a line), made through the API (create,
 * mark_ordered), and `perOrder` receipts of one unit a line for each; requests go round the orders,
 * so concurrent receipts land on different orders.
 */
async function receiptRequests(
  b: Bench,
  orders: number,
  perOrder: number,
  offset: number,
): Promise<LoadRequest[]> {
  const { ids: suppliers } = await suppliersFixture(b);
  const { locationIds } = await catalogFixture(b);
  const made = await mapLimit(Array.from({ length: orders }), 8, async (_, i) => {
    const order = await b.api.post<{ data: { id: number } }>("/v2/purchase_orders", {
      supplier_id: suppliers[(offset + i) % 50],
      location_id: locationIds[0],
      reference: `BENCH-RECEIPT-${offset + i + 1}`,
      lines: await orderLines(b, LINES, (offset + i) * LINES, 1000),
    });
    const ordered = await b.api.post<{ data: { id: number; lines: Array<{ id: number }> } }>(
      `/v2/purchase_orders/${order.data.id}/mark_ordered`,
      {},
    );
    return {
      id: ordered.data.id,
      body: JSON.stringify({
        note: "bench",
        lines: ordered.data.lines.map((l) => ({ line_id: l.id, quantity: 1 })),
      }),
    };
  });
  const requests: LoadRequest[] = [];
  for (let r = 0; r < perOrder; r++) {
    for (const order of made) {
      requests.push({
        method: "POST",
        path: `/v2/purchase_orders/${order.id}/receipts`,
        headers: { "content-type": "application/json", "idempotency-key": `bench-${randomUUID()}` },
        body: order.body,
      });
    }
  }
  return requests;
}

export const receipt: Scenario = {
  name: "receipt",
  title: "POST /v2/purchase_orders/{id}/receipts, 50 lines",
  issue: 6,
  requires: [
    "POST /v2/purchase_orders",
    "POST /v2/purchase_orders/{id}/mark_ordered",
    "POST /v2/purchase_orders/{id}/receipts",
  ],
  async run(b) {
    const [o1, o32, perOrder] = b.quick ? [8, 32, 3] : [40, 160, 4];
    b.log(`   preparing ${o1 + o32} ordered ${LINES}-line orders`);
    const first = await receiptRequests(b, o1, perOrder, 0);
    const second = await receiptRequests(b, o32, perOrder, o1);
    // mark_ordered pushed incoming stock for every order; let that finish, and the c=1 run's own
    // pushes before the c=32 run, so each run carries only its own background work.
    await b.quiesce();
    const c1 = b.withWriteRatio(await b.load("c=1", { connections: 1, requests: first, once: true }));
    await b.quiesce();
    const c32 = b.withWriteRatio(await b.load("c=32", { connections: 32, requests: second, once: true }));
    // Sustained means the background keeps up: the receipts of the c=32 run over the run and the time
    // its platform pushes took to drain afterwards.
    const drained = await b.quiesce();
    const sustained = c32.requests / (c32.durationSec + drained.drainSeconds);
    const pg = b.kind === "postgres";
    return output({
      rows: [c1, c32],
      figures: {
        lines: LINES,
        pushes_pending_after_c32: drained.pending,
        push_drain_seconds_after_c32: drained.drainSeconds,
        receipts_per_second_with_pushes: Math.round(sustained * 10) / 10,
      },
      targets: [
        target(6, "50-line receipt p50 < 50 ms (PostgreSQL)", c1.p50, "ms", pg ? c1.p50 < 50 : null),
        target(
          6,
          "receipts per second sustained ≥ 20, platform pushes included (PGlite, 32 connections)",
          sustained,
          "/s",
          pg ? null : sustained >= 20,
        ),
        target(
          22,
          "50-line receipt at 32 connections ≥ 50% of the write ceiling",
          c32.writeRatio ?? null,
          "%",
          (c32.writeRatio ?? 0) >= 0.5,
        ),
      ],
      notes: [
        "sustained = receipts of the c=32 run / (its duration + the time its platform pushes took to drain after it)",
        `each request is a new receipt (its own Idempotency-Key) of 1 unit on each of the 50 lines; ${perOrder} receipts per order over ${o1} + ${o32} ordered orders; a run ends early when they are used up`,
      ],
    });
  },
};
