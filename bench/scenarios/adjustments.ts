import { randomUUID } from "node:crypto";
import { catalogFixture } from "../fixtures.ts";
import type { Bench } from "../lib/context.ts";
import { mapLimit } from "../lib/http.ts";
import type { LoadRequest } from "../lib/load-types.ts";
import { output, type Scenario, target } from "./scenario.ts";

const LINES = 200;

/**
 * Draft adjustments of 200 lines, made through POST /v2/stock_adjustments; consecutive drafts use
 * disjoint sets of 200 items, so concurrent applies do not queue behind each other's level locks.
 */
async function drafts(b: Bench, count: number, offset: number): Promise<number[]> {
  const catalog = await catalogFixture(b);
  const sets = Math.max(1, Math.floor(catalog.bulk.length / LINES));
  const location = catalog.locationIds[0];
  return mapLimit(Array.from({ length: count }), 8, async (_, i) => {
    const set = (offset + i) % sets;
    const items = catalog.bulk.slice(set * LINES, set * LINES + LINES);
    const made = await b.api.post<{ data: { id: number } }>("/v2/stock_adjustments", {
      location_id: location,
      reason: "correction",
      note: "bench",
      lines: items.map((v, j) => ({ variant_id: v.id, delta: j % 4 === 3 ? -1 : (j % 5) + 1 })),
    });
    return made.data.id;
  });
}

function applies(ids: number[]): LoadRequest[] {
  return ids.map((id) => ({
    method: "POST",
    path: `/v2/stock_adjustments/${id}/apply`,
    headers: { "idempotency-key": `bench-${randomUUID()}` },
  }));
}

export const adjustmentApply: Scenario = {
  name: "adjustment",
  title: "POST /v2/stock_adjustments/{id}/apply, 200 lines",
  issue: 8,
  requires: ["POST /v2/stock_adjustments", "POST /v2/stock_adjustments/{id}/apply"],
  async run(b) {
    const [n1, n32] = b.quick ? [15, 64] : [100, 300];
    b.log(`   preparing ${n1 + n32} draft adjustments of ${LINES} lines`);
    const first = await drafts(b, n1, 0);
    const second = await drafts(b, n32, n1);
    const c1 = b.withWriteRatio(
      await b.load("c=1", { connections: 1, requests: applies(first), once: true }),
    );
    // The c=1 applies' platform pushes finish before the c=32 run starts.
    await b.quiesce();
    const c32 = b.withWriteRatio(
      await b.load("c=32", { connections: 32, requests: applies(second), once: true }),
    );
    return output({
      rows: [c1, c32],
      figures: { lines: LINES },
      targets: [
        target(
          8,
          "apply a 200-line adjustment p50 < 100 ms (PostgreSQL)",
          c1.p50,
          "ms",
          b.kind === "postgres" ? c1.p50 < 100 : null,
        ),
        target(
          22,
          "200-line apply at 32 connections ≥ 50% of the (50-line receipt's) write ceiling",
          c32.writeRatio ?? null,
          "%",
          (c32.writeRatio ?? 0) >= 0.5,
        ),
      ],
      notes: [
        `each request applies a different draft (${n1} + ${n32} prepared); a run ends early when they are used up`,
        "the write ceiling is the 50-line receipt's rows, as issue 22 asks: a 200-line apply writes 200 movements and levels against its 50",
      ],
    });
  },
};
