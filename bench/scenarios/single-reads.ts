import { catalogFixture, suppliersFixture } from "../fixtures.ts";
import type { Bench } from "../lib/context.ts";
import type { LoadRequest } from "../lib/load-types.ts";
import type { Row, ScenarioOutput } from "../lib/types.ts";
import { orderLines } from "./orders.ts";
import { output, type Scenario, target } from "./scenario.ts";

/**
 * Single-record reads (issue 22 item 2): the key lookup and one more indexed statement, so half of the
 * one-query ceiling at 32 connections is their natural bound; the target is to reach it.
 */
export async function singleReadLoad(
  b: Bench,
  what: string,
  requests: LoadRequest[],
  figures: ScenarioOutput["figures"],
): Promise<ScenarioOutput> {
  const c1 = await b.load("c=1", { connections: 1, requests });
  const c32: Row = await b.load("c=32", { connections: 32, requests });
  return output({
    rows: [c1, c32],
    figures,
    targets: [
      target(
        22,
        `${what} at 32 connections ≥ 50% of the one-query ceiling`,
        c32.ratio,
        "%",
        (c32.ratio ?? 0) >= 0.5,
      ),
    ],
  });
}

export const variantGet: Scenario = {
  name: "variant-get",
  title: "GET /v2/variants/{id} (each of 1,400 variants in turn)",
  issue: 22,
  requires: ["GET /v2/variants/{id}"],
  async run(b) {
    const { bulk } = await catalogFixture(b);
    const requests: LoadRequest[] = bulk
      .slice(0, 1400)
      .map((v) => ({ method: "GET", path: `/v2/variants/${v.id}` }));
    return singleReadLoad(b, "GET /v2/variants/{id}", requests, { variants: requests.length });
  },
};

const SMALL_ORDER_LINES = 3;

export const orderGetSmall: Scenario = {
  name: "order-get-small",
  title: `GET /v2/purchase_orders/{id}, ${SMALL_ORDER_LINES} lines (20 orders in turn)`,
  issue: 22,
  requires: ["POST /v2/purchase_orders", "GET /v2/purchase_orders/{id}"],
  async run(b) {
    const { ids: suppliers } = await suppliersFixture(b);
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) {
      const order = await b.api.post<{ data: { id: number } }>("/v2/purchase_orders", {
        supplier_id: suppliers[i % suppliers.length],
        reference: `BENCH-SMALL-${i + 1}`,
        lines: await orderLines(b, SMALL_ORDER_LINES, 500 + i * SMALL_ORDER_LINES),
      });
      ids.push(order.data.id);
    }
    const requests: LoadRequest[] = ids.map((id) => ({ method: "GET", path: `/v2/purchase_orders/${id}` }));
    return singleReadLoad(b, `GET /v2/purchase_orders/{id} (${SMALL_ORDER_LINES} lines)`, requests, {
      orders: ids.length,
      lines: SMALL_ORDER_LINES,
    });
  },
};
