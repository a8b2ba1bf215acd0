/**
 * An order read by id (a receipt's lock of its order above all) finds the order, its supplier and its
 * location by their primary keys whatever the statistics say (src/domain/purchase-orders/loading.ts,
 * orderRecordSelect). The statistics are taken while the store has nothing, as on a new store or a
 * server without autovacuum (the bench's), then the store grows: written `x.store_id = $`, the planner
 * walked the store's suppliers by `suppliers_name` and its orders by `purchase_orders_sequential` for
 * the one row it wanted. Checked with the values and as a generic plan (kept statements are planned
 * so on PGlite and after five runs on PostgreSQL).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Compilable, CompiledQuery, sql } from "kysely";
import { orderRecordsByIdQuery } from "../../src/domain/purchase-orders/index.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";

const SUPPLIERS = 1000;
const ORDERS = 3000;

/** A parameter as a literal for `execute name(…)`. */
const literal = (value: unknown) => (typeof value === "number" ? String(value) : `'${String(value)}'`);

describe("an order read by id, on statistics taken while the store was empty", () => {
  let t: TestApp;
  let storeId: number;
  let orderId: number;

  before(async () => {
    t = await startTestApp();
    storeId = (await t.createStore({ seed: "empty" })).id;
    const { db } = t.runtime.ctx;
    await sql`analyze suppliers`.execute(db);
    await sql`analyze purchase_orders`.execute(db);
    await sql`analyze locations`.execute(db);
    await sql`insert into suppliers (store_id, name, currency)
      select ${storeId}, 'Supplier ' || g, 'USD' from generate_series(1, ${SUPPLIERS}) g`.execute(db);
    const { rows: found } = await sql<{ supplier: number; location: number }>`select
      (select min(id) from suppliers where store_id = ${storeId}) as supplier,
      (select min(id) from locations where store_id = ${storeId}) as location`.execute(db);
    const { supplier, location } = found[0];
    assert.ok(location, "the store has a location");
    await sql`insert into purchase_orders (store_id, sequential_id, number, status, supplier_id, location_id,
        currency, exchange_rate_base_currency, exchange_rate_date)
      select ${storeId}, g, 'PO-' || g, 'ordered', ${supplier}::int + (g * 7) % ${SUPPLIERS}, ${location},
        'USD', 'USD', current_date
      from generate_series(1, ${ORDERS}) g`.execute(db);
    const { rows } = await sql<{ id: number }>`select id from purchase_orders
      where store_id = ${storeId} and sequential_id = ${ORDERS - 10}`.execute(db);
    orderId = Number(rows[0].id);
  });

  after(async () => {
    await t?.close();
  });

  /** The statement's plan with its values and generic (prepared, planned without them). */
  async function plansOf(query: Compilable): Promise<string[]> {
    const { db } = t.runtime.ctx;
    const compiled = query.compile();
    const text = (r: { rows: unknown[] }) =>
      (r.rows as Array<Record<string, string>>).map((row) => row["QUERY PLAN"]).join("\n");
    return db.connection().execute(async (c) => {
      const custom = await c.executeQuery(
        CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]),
      );
      await c.executeQuery(CompiledQuery.raw("set plan_cache_mode = force_generic_plan"));
      try {
        await c.executeQuery(CompiledQuery.raw(`prepare order_record as ${compiled.sql}`));
        const args = compiled.parameters.map(literal).join(", ");
        const generic = await c.executeQuery(CompiledQuery.raw(`explain execute order_record(${args})`));
        return [text(custom), text(generic)];
      } finally {
        await c.executeQuery(CompiledQuery.raw("deallocate order_record")).catch(() => {});
        await c.executeQuery(CompiledQuery.raw("reset plan_cache_mode"));
      }
    });
  }

  function assertByKey(plans: string[]) {
    for (const plan of plans) {
      assert.match(plan, /purchase_orders_pkey/, plan);
      assert.match(plan, /suppliers_pkey/, plan);
      assert.doesNotMatch(
        plan,
        /suppliers_name|suppliers_page|purchase_orders_(sequential|number|page|status)/,
        plan,
      );
    }
  }

  test("a receipt's lock of its order: the order, its supplier and its location by key", async () => {
    const { db } = t.runtime.ctx;
    const lock = orderRecordsByIdQuery(db, storeId, orderId)
      .select(sql<number>`nextval(pg_get_serial_sequence('receipts', 'id'))`.as("next_receipt_id"))
      .forUpdate("po");
    assertByKey(await plansOf(lock));
    const row = await orderRecordsByIdQuery(db, storeId, orderId).executeTakeFirst();
    assert.equal(row?.supplier_name, `Supplier ${(((ORDERS - 10) * 7) % SUPPLIERS) + 1}`);
  });

  test("another store's id finds nothing", async () => {
    const other = (await t.createStore({ seed: "empty" })).id;
    const row = await orderRecordsByIdQuery(t.runtime.ctx.db, other, orderId).executeTakeFirst();
    assert.equal(row, undefined);
  });

  test("orders by a list of ids", async () => {
    assertByKey(await plansOf(orderRecordsByIdQuery(t.runtime.ctx.db, storeId, [orderId, orderId - 1])));
  });
});
