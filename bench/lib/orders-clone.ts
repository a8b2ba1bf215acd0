import { sql } from "kysely";
import type { Db } from "../../src/db/database.ts";
import { nextSequentialIds } from "../../src/domain/purchase-orders/index.ts";
import { takePurchaseOrderNumbers } from "../../src/domain/stores/index.ts";

async function columns(db: Db, table: string, except: string[]): Promise<string[]> {
  const rows = await sql<{ column_name: string }>`
    select column_name from information_schema.columns
    where table_schema = current_schema() and table_name = ${table}
    order by ordinal_position`.execute(db);
  return rows.rows.map((r) => r.column_name).filter((c) => !except.includes(c));
}

/**
 * Bulk copies of draft orders the API created (the templates), to give a store 100,000 orders in
 * seconds rather than hours. Each copy is what POST /v2/purchase_orders writes for a draft: the order
 * row (every column of its template, with its own sequential id and number taken from the store's
 * counters through the service's repository, and its own created/updated time, spread 30 s apart into
 * the past), its lines, and its `created` history row. Not copied: the `purchase_order.created` outbox
 * events (nothing reads them back for lists, and the store has no webhooks).
 */
export async function cloneDraftOrders(
  db: Db,
  storeId: number,
  templateIds: number[],
  count: number,
): Promise<void> {
  const sorted = [...templateIds].sort((a, b) => a - b);
  const t = sorted.length;
  const orderCols = await columns(db, "purchase_orders", [
    "id",
    "sequential_id",
    "number",
    "created_at",
    "updated_at",
  ]);
  const lineCols = await columns(db, "purchase_order_lines", [
    "id",
    "store_id",
    "purchase_order_id",
    "created_at",
    "updated_at",
  ]);
  const ids = sql.join(sorted);
  const ident = (c: string) => sql.ref(c);
  const chunk = 10_000;
  await db.transaction().execute(async (trx) => {
    // Bulk statements run longer than the service's 30 s per-statement bound.
    await sql`set local statement_timeout = 0`.execute(trx);
    const firstSeq = await nextSequentialIds(trx, storeId, count);
    const numbers = await takePurchaseOrderNumbers(trx, storeId, count);
    const src = sql`(select id, (row_number() over (order by id) - 1)::int as k
      from purchase_orders where store_id = ${storeId} and id in (${ids}))`;
    for (let from = 0; from < count; from += chunk) {
      const to = Math.min(count, from + chunk) - 1;
      await sql`
        insert into purchase_orders (sequential_id, number, created_at, updated_at,
          ${sql.join(orderCols.map(ident))})
        select ${firstSeq}::int + g,
          ${numbers.prefix}::text || (case when length((${numbers.first}::int + g)::text) >= 4
            then (${numbers.first}::int + g)::text else lpad((${numbers.first}::int + g)::text, 4, '0') end),
          t.created_at - make_interval(secs => (${count}::int - g) * 30),
          t.created_at - make_interval(secs => (${count}::int - g) * 30),
          ${sql.join(orderCols.map((c) => sql`t.${sql.ref(c)}`))}
        from generate_series(${from}::int, ${to}::int) as g
        join ${src} as src on src.k = g % ${t}::int
        join purchase_orders t on t.id = src.id`.execute(trx);
      const range = sql`o.store_id = ${storeId} and o.sequential_id between ${firstSeq + from}::int and ${firstSeq + to}::int`;
      // The templates' lines and history rows are read once (a few hundred rows) and joined by
      // template number, never looked up per copied order.
      await sql`
        with tl as (
          select src.k, l.* from ${src} as src
          join purchase_order_lines l on l.store_id = ${storeId} and l.purchase_order_id = src.id)
        insert into purchase_order_lines (store_id, purchase_order_id, created_at, updated_at,
          ${sql.join(lineCols.map(ident))})
        select o.store_id, o.id, o.created_at, o.updated_at, ${sql.join(lineCols.map((c) => sql`tl.${sql.ref(c)}`))}
        from purchase_orders o
        join tl on tl.k = (o.sequential_id - ${firstSeq}::int) % ${t}::int
        where ${range}`.execute(trx);
      await sql`
        with th as (
          select src.k, h.by_name, h.via from ${src} as src
          join purchase_order_history h on h.store_id = ${storeId} and h.purchase_order_id = src.id
            and h.type = 'created')
        insert into purchase_order_history (store_id, purchase_order_id, type, at, by_name, via, data)
        select o.store_id, o.id, 'created', o.created_at, th.by_name, th.via,
          jsonb_build_object('number', o.number, 'status', o.status)
        from purchase_orders o
        join th on th.k = (o.sequential_id - ${firstSeq}::int) % ${t}::int
        where ${range}`.execute(trx);
    }
  });
  // A store that grew to this size over months has planner statistics; give the copy the same.
  await sql`analyze purchase_orders`.execute(db);
  await sql`analyze purchase_order_lines`.execute(db);
  await sql`analyze purchase_order_history`.execute(db);
}
