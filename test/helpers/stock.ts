/**
 * Stock as tests arrange and read it: movements recorded straight through the stock module (as a
 * stock adjustment would record them, without the adjustment's own rules), and the raw level rows of
 * the mirror and of the simulated platform.
 */
import { type MovementInput, recordStockMovements } from "../../src/domain/stock/index.ts";
import type { Client, TestApp } from "./app.ts";
import { expectStatus } from "./assertions.ts";

/** Records `movements` in one transaction as stock adjustment `subjectId` of the store. */
export async function recordTestMovements(
  t: TestApp,
  storeId: number,
  subjectId: number,
  movements: MovementInput[],
  reference = `stockroom://stock_adjustments/${subjectId}`,
): Promise<void> {
  const ctx = t.runtime.ctx;
  await ctx.db.transaction().execute((trx) =>
    recordStockMovements(ctx, trx, {
      storeId,
      subjectType: "stock_adjustment",
      subjectId,
      reference,
      movements,
    }),
  );
}

/** The mirror's level row as GET /v2/inventory_levels shows it (undefined when there is none). */
export async function mirrorLevelRow(api: Client, itemId: number, locationId: number) {
  const res = await api.get(`/v2/inventory_levels?inventory_item_id=${itemId}&location_id=${locationId}`);
  expectStatus(res, 200);
  return res.body.data[0];
}

/** The simulated platform's level row as the admin API shows it (undefined when there is none). */
export async function platformLevelRow(t: TestApp, storeId: number, itemId: number, locationId: number) {
  const res = await t.admin.get(
    `/admin/stores/${storeId}/platform/inventory?inventory_item_id=${itemId}&location_id=${locationId}`,
  );
  expectStatus(res, 200);
  return res.body.data[0];
}
