/**
 * Stock as tests arrange and read it: movements recorded straight through the stock module (as a
 * stock adjustment would record them, without the adjustment's own rules), and the raw level rows of
 * the mirror and of the simulated platform.
 */
import { type MovementInput, recordStockMovements } from "../../src/domain/stock/index.ts";
import type { Client, TestApp } from "./app.ts";
import { expectStatus } from "./assertions.ts";
import { trackedVariants, variantPool } from "./factories.ts";

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

/**
 * A store with a low-stock threshold of 10 on every item (so a wrong level fires an item event), its
 * tracked variants to take items from, and its first location; the seeding's events delivered.
 */
export async function alertingDemoStore(t: TestApp) {
  const store = await t.createStore({ seed: "demo" });
  const tracked = await trackedVariants(store.api);
  const pool = variantPool(() => tracked);
  const location: number = (await store.api.get("/v2/locations")).body.data[0].id;
  const rules = await t.admin.put(`/admin/stores/${store.id}/alert_rules`, {
    low_stock_threshold: 10,
    items: [],
  });
  expectStatus(rules, 200);
  await t.drain();
  return { store, pool, location };
}

/**
 * The store's item events since the previous call, as [name, available] pairs. The app and store are
 * read at each call (a test file makes them in its `before`).
 */
export function itemEventsSince(
  app: () => TestApp,
  storeId: () => number,
): () => Promise<Array<[string, number]>> {
  let seen = 0;
  return async () => {
    const rows = await app()
      .runtime.ctx.db.selectFrom("events")
      .select(["seq", "name", "data"])
      .where("store_id", "=", storeId())
      .where("name", "like", "item.%")
      .where("seq", ">", seen)
      .orderBy("seq")
      .execute();
    if (rows.length > 0) seen = rows[rows.length - 1].seq;
    return rows.map((r) => [r.name, (r.data as { available: number }).available]);
  };
}
