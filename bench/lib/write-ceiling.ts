/**
 * The write ceiling's SQL (served by bench/ceiling.ts): in one transaction, exactly the rows a 50-line
 * receipt writes in the service, each table in one statement (multi-row `unnest` inserts, as the
 * service does), and nothing else: no key lookup, no reads of the order, no presentation.
 *
 * The tables are copies of the service's (`create table … (like … including all)`: the same columns,
 * defaults, checks, identities and indexes, so the same index maintenance and conflict targets) in a
 * schema of their own, `ceiling`, so the service's workers never see these jobs and events and its
 * stock is untouched. `like` leaves out foreign keys: the ceiling skips their lookups, which makes it
 * a little higher (stricter) than the tables the service writes.
 *
 * A row's size is part of the row. The contract fixes the event's `data` (the order as GET shows it,
 * every receipt with its lines, and the receipt beside it) and the replay of a keyed write (the
 * answer as first sent, kept sealed): so the ceiling's event and stored answer are the service's own
 * shapes, built from a real receipt's event (receipt-sample.json: the order after its first receipt,
 * one line of each kind kept) over the ceiling's own rows, and the answer is sealed as the service
 * seals it (src/http/plugins/sealed-text.ts) and sent back. The event and the answer grow with the
 * order's receipts, as the service's do.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { STORED_RESPONSE_PURPOSE, seal, sealingKey, unseal } from "../../src/http/plugins/sealed-text.ts";
import { Sealer, SecretKey } from "../../src/secrets/index.ts";

/** One statement on a connection inside (or outside) a transaction. */
export type Run = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

/** The tables a receipt writes (and, for the update, the order lines it counts against). */
export const WRITE_CEILING_TABLES = [
  "purchase_orders",
  "purchase_order_lines",
  "receipts",
  "receipt_lines",
  "stock_movements",
  "inventory_levels",
  "platform_sync_states",
  "purchase_order_history",
  "events",
  "jobs",
  "idempotency_keys",
] as const;

export const WRITE_CEILING_LINES = 50;
/** Orders prepared with their lines and levels; requests go round them as the receipt scenario's do. */
export const WRITE_CEILING_ORDERS = 200;
const STORE = 1;
const LOCATION = 1;

/** Creates the `ceiling` copies of the tables (the service's migrations made `public`'s) and seeds them. */
export async function prepareWriteCeiling(run: Run): Promise<void> {
  await run("drop schema if exists ceiling cascade", []);
  await run("create schema ceiling", []);
  for (const table of WRITE_CEILING_TABLES) {
    await run(`create table ceiling.${table} (like public.${table} including all)`, []);
    // `like` copies no storage parameters: the same room on the pages (fillfactor, migration 035).
    const [options] = await run(
      "select array_to_string(reloptions, ', ') as list from pg_class where oid = $1::regclass",
      [`public.${table}`],
    );
    if (options?.list) await run(`alter table ceiling.${table} set (${options.list})`, []);
  }
  await run(
    `insert into ceiling.purchase_orders (id, store_id, sequential_id, number, status, supplier_id, currency, exchange_rate_base_currency, exchange_rate_date, location_id)
     select o, $1, o, 'PO-' || o, 'ordered', 1, 'USD', 'USD', current_date, $2 from generate_series(1, $3::int) as o`,
    [STORE, LOCATION, WRITE_CEILING_ORDERS],
  );
  // Orders 1..N (ids given), 50 lines each on items of their own, with a level for each item, as
  // mark_ordered leaves them before the first receipt.
  await run(
    `insert into ceiling.purchase_order_lines (store_id, purchase_order_id, position, inventory_item_id, location_id, quantity, unit_cost)
     select $1, o, p, (o - 1) * $3 + p, $2, 1000, 2.5
     from generate_series(1, $4::int) as o, generate_series(1, $3::int) as p`,
    [STORE, LOCATION, WRITE_CEILING_LINES, WRITE_CEILING_ORDERS],
  );
  await run(
    `insert into ceiling.inventory_levels (store_id, inventory_item_id, location_id, available, on_hand, incoming)
     select $1, i, $2, 0, 0, 1000 from generate_series(1, $3::int) as i`,
    [STORE, LOCATION, WRITE_CEILING_LINES * WRITE_CEILING_ORDERS],
  );
  await run("analyze", []);
}

interface LineRow {
  id: number;
  inventory_item_id: number;
  received_quantity: number;
}

/** An order of the ceiling: its lines and the receipts written so far, as presented. */
export interface CeilingOrder {
  lines: LineRow[];
  receipts: Array<Record<string, unknown>>;
}

type Json = Record<string, unknown>;
/** A real 50-line order's event after its first receipt (data and extra), one line and one receipt line kept. */
const SAMPLE = JSON.parse(readFileSync(new URL("./receipt-sample.json", import.meta.url), "utf8")) as {
  data: Json & { lines: Json[]; receipts: Array<Json & { lines: Json[] }> };
};

/** A line's unit cost: 40 values over 50 lines, as the bench's variants have. */
const unitCost = (i: number) => (4.25 + (i % 40)).toFixed(2);

/** The ceiling's receipt as the service presents one. */
function presentCeilingReceipt(
  receiptId: number,
  orderId: number,
  now: string,
  lines: readonly LineRow[],
  receiptLineIds: readonly number[],
): Json {
  const [receipt] = SAMPLE.data.receipts;
  const [line] = receipt.lines;
  return {
    ...receipt,
    id: receiptId,
    purchase_order_id: orderId,
    received_at: now,
    lines: receiptLineIds.map((id, i) => ({
      ...line,
      id,
      line_id: lines[i].id,
      unit_cost: unitCost(i),
      landed_unit_cost: unitCost(i),
    })),
    created_at: now,
    updated_at: now,
  };
}

/** The ceiling's order as GET presents an order (the event's `data`). */
function presentCeilingOrder(orderId: number, order: CeilingOrder, now: string): Json {
  const { lines: sampleLines, receipts: _receipts, ...header } = SAMPLE.data;
  const [line] = sampleLines;
  return {
    ...header,
    id: orderId,
    number: `PO-${String(orderId).padStart(4, "0")}`,
    status: "partial",
    // Each line's own values, varied as a real order's are (so they compress no better).
    lines: order.lines.map((l, i) => ({
      ...line,
      id: l.id,
      position: i + 1,
      variant_title: `Option ${i + 1}`,
      sku: `BULK-${String(orderId).padStart(6, "0")}-${i + 1}`,
      barcode: String(2900000000000 + l.inventory_item_id * 7),
      inventory_item_id: l.inventory_item_id,
      variant_id: l.inventory_item_id + 1000,
      received_quantity: l.received_quantity,
      outstanding_quantity: 1000 - l.received_quantity,
      unit_cost: unitCost(i),
      line_total: (Number(unitCost(i)) * 1000).toFixed(2),
      weight_grams: 100 + i,
    })),
    receipts: order.receipts,
    updated_at: now,
  };
}

/** Seals stored answers as the service does (the key is the bench's own). */
const SEAL_KEY = sealingKey(new Sealer(new SecretKey(Buffer.alloc(32, 1))), STORED_RESPONSE_PURPOSE);

/** A stored answer of the ceiling, opened (for its test). */
export function openCeilingAnswer(stored: string): string {
  return unseal(stored, SEAL_KEY);
}

/**
 * Lines of the prepared orders, read once at start: the service reads an order's lines in the
 * receipt's transaction; the ceiling knows them already.
 */
export async function loadCeilingOrders(run: Run): Promise<Map<number, CeilingOrder>> {
  const rows = (await run(
    "select id, purchase_order_id, inventory_item_id, received_quantity from ceiling.purchase_order_lines order by purchase_order_id, position",
    [],
  )) as unknown as Array<LineRow & { purchase_order_id: number }>;
  const orders = new Map<number, CeilingOrder>();
  for (const r of rows) {
    const order = orders.get(r.purchase_order_id) ?? { lines: [], receipts: [] };
    order.lines.push({
      id: r.id,
      inventory_item_id: Number(r.inventory_item_id),
      received_quantity: r.received_quantity,
    });
    orders.set(r.purchase_order_id, order);
  }
  return orders;
}

/**
 * The statements of one receipt, in the order the service runs them; `run` is inside a transaction.
 * Returns the answer's JSON text (what was stored sealed).
 */
export async function writeReceiptRows(run: Run, orderId: number, order: CeilingOrder): Promise<string> {
  const { lines } = order;
  const now = new Date().toISOString();
  const n = lines.length;
  const fill = <T>(v: T) => Array.from({ length: n }, () => v);
  const [receipt] = await run(
    `insert into ceiling.receipts (store_id, purchase_order_id, received_at, source, location_id, exchange_rate, note, created_at, updated_at)
     values ($1, $2, $3, 'api', $4, 1, 'bench', $3, $3) returning id`,
    [STORE, orderId, now, LOCATION],
  );
  const receiptId = Number(receipt.id);
  const ids = lines.map((l) => l.id);
  const items = lines.map((l) => l.inventory_item_id);
  const receiptLines = await run(
    `insert into ceiling.receipt_lines (store_id, receipt_id, line_id, location_id, quantity, outstanding_before, unit_cost, landed_unit_cost, created_at)
     select * from unnest($1::int[], $2::int[], $3::int[], $4::bigint[], $5::int[], $6::int[], $7::numeric[], $8::numeric[], $9::timestamptz[])
     returning id`,
    [
      fill(STORE),
      fill(receiptId),
      ids,
      fill(LOCATION),
      fill(1),
      fill(999),
      fill("2.5"),
      fill("2.5"),
      fill(now),
    ],
  );
  for (const l of lines) l.received_quantity += 1;
  await run(
    `update ceiling.purchase_order_lines as l set received_quantity = v.received, updated_at = $1
     from (select * from unnest($2::int[], $3::int[])) as v(id, received)
     where l.id = v.id and l.store_id = $4`,
    [now, ids, lines.map((l) => l.received_quantity), STORE],
  );
  await run(
    `update ceiling.purchase_orders set status = 'partial', updated_at = $1 where store_id = $2 and id = $3`,
    [now, STORE, orderId],
  );
  const movements = await run(
    `insert into ceiling.stock_movements (store_id, subject_type, subject_id, inventory_item_id, location_id, available_delta, on_hand_delta, incoming_delta, unit_cost, unit_cost_currency, reason, reference, created_at)
     select * from unnest($1::int[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::int[], $7::int[], $8::int[], $9::numeric[], $10::text[], $11::text[], $12::text[], $13::timestamptz[])
     returning id`,
    [
      fill(STORE),
      fill("receipt"),
      fill(receiptId),
      items,
      fill(LOCATION),
      fill(1),
      fill(1),
      fill(-1),
      fill("2.5"),
      fill("USD"),
      fill("received"),
      fill(`PO-${orderId}`),
      fill(now),
    ],
  );
  await run(
    `insert into ceiling.platform_sync_states (store_id, subject_type, subject_id, state, updated_at) values ($1, 'receipt', $2, 'pending', $3)
     on conflict (store_id, subject_type, subject_id) do update set state = excluded.state, updated_at = excluded.updated_at`,
    [STORE, receiptId, now],
  );
  await run(
    `insert into ceiling.jobs (store_id, type, payload, state, attempts, max_attempts, run_at, dedupe_key, created_at, updated_at)
     values ($1, 'platform.push', $2, 'queued', 0, 10, $3, $4, $3, $3)`,
    [
      STORE,
      // The service's payload: the movements it pushes, by id.
      JSON.stringify({
        grouped: true,
        store_id: STORE,
        subject_id: receiptId,
        movement_ids: movements.map((m) => Number(m.id)),
        subject_type: "receipt",
      }),
      now,
      `push:receipt:${receiptId}`,
    ],
  );
  await run(
    `insert into ceiling.inventory_levels as l (store_id, inventory_item_id, location_id, available, on_hand, incoming, created_at, updated_at)
     select * from unnest($1::int[], $2::bigint[], $3::bigint[], $4::int[], $5::int[], $6::int[], $7::timestamptz[], $8::timestamptz[])
     on conflict (store_id, inventory_item_id, location_id) do update set available = l.available + excluded.available,
       on_hand = l.on_hand + excluded.on_hand, incoming = l.incoming + excluded.incoming, updated_at = excluded.updated_at`,
    [fill(STORE), items, fill(LOCATION), fill(1), fill(1), fill(-1), fill(now), fill(now)],
  );
  const presentedReceipt = presentCeilingReceipt(
    receiptId,
    orderId,
    now,
    lines,
    receiptLines.map((r) => Number(r.id)),
  );
  order.receipts.push(presentedReceipt);
  const presentedOrder = presentCeilingOrder(orderId, order, now);
  await run(
    `insert into ceiling.purchase_order_history (store_id, purchase_order_id, type, at, by_name, via, data) values ($1, $2, 'received', $3, 'bench', 'api', $4)`,
    [
      STORE,
      orderId,
      now,
      // The service's history row: every line's quantities.
      JSON.stringify({
        receipt_id: receiptId,
        lines: ids.map((id) => ({ line_id: id, quantity: 1, surplus_quantity: 0, rejected_quantity: 0 })),
        status: { from: "ordered", to: "partial" },
      }),
    ],
  );
  await run(
    `insert into ceiling.events (id, store_id, name, subject_type, subject_id, data, extra, occurred_at) values ($1, $2, 'purchase_order.receipt_recorded', 'purchase_order', $3, $4, $5, $6)`,
    [
      `evt_${randomUUID()}`,
      STORE,
      orderId,
      JSON.stringify(presentedOrder),
      JSON.stringify({ receipt: presentedReceipt }),
      now,
    ],
  );
  const body = JSON.stringify({ data: presentedReceipt, purchase_order: presentedOrder });
  await run(
    `insert into ceiling.idempotency_keys (store_id, api_key_id, key, request_hash, state, status_code, response_body, locked_at, created_at)
     values ($1, 1, $2, 'h', 'done', 201, $3, $4, $4)`,
    [STORE, randomUUID(), seal(body, SEAL_KEY), now],
  );
  return body;
}
