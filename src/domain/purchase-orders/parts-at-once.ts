/**
 * One order's parts (what `loadOrderParts` reads in six statements) in one statement, for the
 * transactions that read an order under its lock and then write it: a receipt runs in every
 * stock-moving request's hot path, where each statement is a round trip and a parse on a busy server.
 *
 * Each child table comes back as a JSON array in a column of its own. JSON would turn `numeric` into a
 * float and `timestamptz` into text, so numeric columns are sent as their text (as the driver gives
 * them) and timestamps are turned back into Dates here; the rows then equal the plain reads' rows.
 * A numeric or timestamp column added to one of these tables must be named below, or it reaches the
 * presenter as a number or a string: the receipt tests compare the answer with GET, field by field.
 *
 * Inside a transaction only: the embedded database reads a big order's lines in chunks outside one
 * (loading.ts), and one statement here is one snapshot of every part, which only matters once the
 * order row is locked.
 */
import { sql } from "kysely";
import type { Db } from "../../db/database.ts";
import type { SyncState } from "../stock/index.ts";
import { type OrderParts, type ReceiptRecord, syncKey } from "./loading.ts";
import type { ChargeRow, LineRow, PaymentRow, ReceiptLineRow } from "./presenter.ts";

type Json = Record<string, unknown>;

/** Columns that JSON would carry as floats (sent as text) and as strings (read back as Dates). */
const LINE_NUMERICS = ["unit_cost", "discount_percent", "line_total", "tax_amount", "tax_rate_percent"];
const CHARGE_NUMERICS = ["amount", "amount_in_order_currency", "rate_to_order_currency", "tax_amount"];
const RECEIPT_NUMERICS = ["invoice_total", "exchange_rate"];
const PAYMENT_NUMERICS = ["amount"];
const LINE_TIMES = ["created_at", "updated_at"];
const RECEIPT_TIMES = ["received_at", "voided_at", "created_at", "updated_at"];
const PAYMENT_TIMES = ["created_at"];

/** `to_jsonb(alias)` with the numeric columns replaced by their text. */
function rowJson(alias: string, numerics: readonly string[]) {
  const pairs = numerics.map((c) => `'${c}', ${alias}.${c}::text`).join(", ");
  return sql.raw(`to_jsonb(${alias}) || jsonb_build_object(${pairs})`);
}

function withDates<T>(rows: Json[] | null, times: readonly string[]): T[] {
  const out = rows ?? [];
  for (const row of out)
    for (const c of times) if (row[c] !== null && row[c] !== undefined) row[c] = new Date(row[c] as string);
  return out as T[];
}

export async function loadOrderPartsAtOnce(trx: Db, storeId: number, orderId: number): Promise<OrderParts> {
  const { rows } = await sql<{
    lines: Json[] | null;
    charges: Json[] | null;
    receipts: Json[] | null;
    receipt_lines: Json[] | null;
    payments: Json[] | null;
    sync: Array<[string, number, SyncState["state"], string | null, string | null]> | null;
  }>`select
      (select json_agg(${rowJson("l", LINE_NUMERICS)} order by l.position, l.id)
        from purchase_order_lines l
        where l.store_id = ${storeId} and l.purchase_order_id = ${orderId}) as lines,
      (select json_agg(${rowJson("c", CHARGE_NUMERICS)} order by c.position, c.id)
        from purchase_order_charges c
        where c.store_id = ${storeId} and c.purchase_order_id = ${orderId}) as charges,
      (select json_agg(${rowJson("r", RECEIPT_NUMERICS)} || jsonb_build_object('location_name', loc.name)
          order by r.created_at, r.id)
        from receipts r
        left join locations loc on loc.id = r.location_id and loc.store_id = ${storeId}
        where r.store_id = ${storeId} and r.purchase_order_id = ${orderId}) as receipts,
      (select json_agg(json_build_object('id', rl.id, 'receipt_id', rl.receipt_id, 'line_id', rl.line_id,
          'quantity', rl.quantity, 'surplus_quantity', rl.surplus_quantity,
          'rejected_quantity', rl.rejected_quantity, 'unit_cost', rl.unit_cost::text,
          'landed_unit_cost', rl.landed_unit_cost::text,
          'allocated_charge_amount', rl.allocated_charge_amount::text, 'unordered', rl.unordered)
          order by rl.id)
        from receipt_lines rl
        join receipts r on r.id = rl.receipt_id
        where r.store_id = ${storeId} and r.purchase_order_id = ${orderId}) as receipt_lines,
      (select json_agg(${rowJson("p", PAYMENT_NUMERICS)} order by p.created_at, p.id)
        from payments p
        where p.store_id = ${storeId} and p.purchase_order_id = ${orderId}) as payments,
      (select json_agg(json_build_array(s.subject_type, s.subject_id, s.state, s.attempted_at, s.error))
        from platform_sync_states s
        where s.store_id = ${storeId}
          and ((s.subject_type = 'purchase_order' and s.subject_id = ${orderId})
            or (s.subject_type = 'receipt' and s.subject_id in (
              select id from receipts where store_id = ${storeId} and purchase_order_id = ${orderId})))) as sync`.execute(
    trx,
  );
  const row = rows[0];
  const sync = new Map<string, SyncState>();
  for (const [type, id, state, attemptedAt, error] of row.sync ?? [])
    sync.set(syncKey(type, Number(id)), {
      state,
      attempted_at: attemptedAt === null ? null : new Date(attemptedAt).toISOString(),
      error,
    });
  return {
    lines: withDates<LineRow>(row.lines, LINE_TIMES),
    charges: withDates<ChargeRow>(row.charges, LINE_TIMES),
    receipts: withDates<ReceiptRecord>(row.receipts, RECEIPT_TIMES),
    receiptLines: (row.receipt_lines ?? []) as unknown as ReceiptLineRow[],
    payments: withDates<PaymentRow>(row.payments, PAYMENT_TIMES),
    sync,
  };
}
