/** New orders: create from input, and duplicate an order (a draft copy with today's exchange rate). */
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { DetailCollector } from "../errors.ts";
import { localDate } from "../local-time.ts";
import { takePurchaseOrderNumbers } from "../stores/index.ts";
import { emitOrder, type OrderCall, recordHistory, type StoreInfo } from "./call.ts";
import { type ChargeDraft, storeRates } from "./charges.ts";
import { chargeDraftOf, lineDraftOf } from "./drafts.ts";
import type { Actor } from "./history.ts";
import { repriceConvertedLines } from "./line-costs.ts";
import type { LineDraft } from "./lines.ts";
import { fetchLookups } from "./lookups.ts";
import { checkComputedMoney } from "./money-bounds.ts";
import { loadPurchaseOrderInTransaction } from "./one-statement-read.ts";
import type { OrderFields, OrderInput } from "./order-fields.ts";
import { numberTaken, resolveOrderInput } from "./order-input.ts";
import { sameValue } from "./patch-diff.ts";
import type { OrderRow, PurchaseOrder } from "./presenter.ts";
import {
  formatOrderNumber,
  insertCharges,
  insertLines,
  insertOrderRow,
  lockPurchaseOrder,
  nextSequentialIds,
  orderCharges,
  orderLines,
} from "./repository.ts";
import { type ComputedMoney, computeMoney } from "./totals.ts";
import { assertCan } from "./transitions.ts";

export async function createPurchaseOrder(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  input: OrderInput,
): Promise<PurchaseOrder> {
  const call: OrderCall = { ctx, trx, store, actor };
  const now = ctx.clock.now();
  const resolved = await resolveOrderInput(call, input, null);
  return writeNewOrder(call, resolved.fields, resolved.lines, resolved.charges ?? [], now, {});
}

export async function duplicateOrder(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  id: number,
): Promise<PurchaseOrder> {
  const call: OrderCall = { ctx, trx, store, actor };
  const source = await lockPurchaseOrder(trx, store.id, id);
  assertCan("duplicate", source.status);
  const now = ctx.clock.now();
  const [lines, charges] = await Promise.all([
    orderLines(trx, store.id, id),
    orderCharges(trx, store.id, id),
  ]);
  const today = localDate(now, store.timezone);
  const fields = await duplicateFields(trx, source, today);
  // A line a voided receipt took back to nothing (an unordered item) was never ordered: not copied.
  const copied = lines
    .filter((l) => l.quantity > 0)
    .map((l) => {
      const { id: _id, created_at: _c, ...rest } = lineDraftOf(l);
      return { ...rest, received_quantity: 0, cancelled_quantity: 0 };
    });
  const lineDrafts = sameValue(fields.exchange_rate, source.exchange_rate)
    ? copied
    : await convertAgain(trx, store, source.supplier_id, fields, today, copied);
  const copy = await writeNewOrder(call, fields, lineDrafts, charges.map(chargeDraftOf), now, {
    duplicated_from: { id: source.id, number: source.number },
  });
  await recordHistory(call, id, "duplicated", { new_order_id: copy.id, new_number: copy.number }, now);
  return copy;
}

/** The copy's converted costs at its own rate (today's store rate), as a draft's rate change does. */
async function convertAgain(
  trx: Db,
  store: StoreInfo,
  supplierId: number,
  fields: OrderFields,
  today: string,
  lines: LineDraft[],
): Promise<LineDraft[]> {
  const converted = lines.filter((l) => l.warnings.some((w) => w.code === "converted_cost"));
  if (converted.length === 0) return lines;
  const lookups = await fetchLookups(trx, store.id, {
    supplierId,
    variantIds: [],
    itemIds: converted.flatMap((l) => (l.inventory_item_id === null ? [] : [l.inventory_item_id])),
    locationIds: [],
    taxRateIds: [],
  });
  const problems = new DetailCollector();
  const terms = {
    currency: fields.currency,
    storeCurrency: store.currency,
    exchangeRate: fields.exchange_rate,
    today,
    lookups,
  };
  const repriced = repriceConvertedLines(terms, lines, problems, "exchange_rate").lines;
  problems.throwIfAny();
  return repriced;
}

/**
 * The copy's fields: the source's terms without its references and dates; a rate from the store's
 * rates is today's store rate (the source's when the store has none any more).
 */
async function duplicateFields(trx: Db, source: OrderRow, today: string): Promise<OrderFields> {
  let exchange: Pick<OrderFields, "exchange_rate" | "exchange_rate_date" | "exchange_rate_source"> = {
    exchange_rate: source.exchange_rate,
    exchange_rate_date: today,
    exchange_rate_source: source.exchange_rate_source,
  };
  if (source.exchange_rate_source === "store_rates") {
    const current = (await storeRates(trx, source.store_id, [source.currency])).get(source.currency);
    if (current)
      exchange = {
        exchange_rate: current.rate_to_base,
        exchange_rate_date: current.date,
        exchange_rate_source: "store_rates",
      };
    else exchange.exchange_rate_date = source.exchange_rate_date;
  }
  return {
    supplier_id: source.supplier_id,
    number: null,
    currency: source.currency,
    type: source.type,
    return_reason: source.return_reason,
    return_source_po_id: source.return_source_po_id,
    location_id: source.location_id,
    tax_rate_id: source.tax_rate_id,
    tax_rate_name: source.tax_rate_name,
    tax_rate_percent: source.tax_rate_percent,
    taxes_included: source.taxes_included,
    charges_taxable: source.charges_taxable,
    reference: null,
    customer_order_number: null,
    supplier_order_number: null,
    invoice_number: null,
    account_number: source.account_number,
    notes: source.notes,
    expected_at: null,
    payment_due_on: null,
    ship_to_override: source.ship_to_override,
    bill_to_override: source.bill_to_override,
    ships_to_customer: source.ships_to_customer,
    updates_stock: source.updates_stock,
    exchange_rate_base_currency: source.exchange_rate_base_currency,
    ...exchange,
  };
}

async function writeNewOrder(
  call: OrderCall,
  fields: OrderFields,
  lines: readonly LineDraft[],
  charges: readonly ChargeDraft[],
  now: Date,
  historyData: Record<string, unknown>,
): Promise<PurchaseOrder> {
  const { trx, store } = call;
  const money = computeMoney(fields, lines, charges);
  const problems = new DetailCollector();
  checkComputedMoney(money, problems, (i) => `lines.${i}.unit_cost`);
  problems.throwIfAny();
  const order = await insertOrder(call, fields, money.order, now);
  const ofOrder = { storeId: store.id, orderId: order.id, now };
  await insertLines(trx, { ...ofOrder, drafts: lines, money: money.lines });
  await insertCharges(trx, { ...ofOrder, drafts: charges, money: money.charges });
  await recordHistory(
    call,
    order.id,
    "created",
    { number: order.number, status: order.status, ...historyData },
    now,
  );
  // Read back in two statements (the row, then every part as JSON in one), not the full read's seven.
  const presented = await loadPurchaseOrderInTransaction(trx, store.id, order.id);
  await emitOrder(call, "purchase_order.created", presented);
  return presented;
}

/** Inserts the draft with a store number (automatic or supplied); 422 `taken` on a used number. */
async function insertOrder(
  call: OrderCall,
  fields: OrderFields,
  totals: ComputedMoney["order"],
  now: Date,
): Promise<OrderRow> {
  const { trx, store } = call;
  const sequentialId = await nextSequentialIds(trx, store.id);
  const { number: supplied, ...rest } = fields;
  for (let attempt = 0; attempt < 1000; attempt++) {
    let number: string;
    if (supplied !== null) number = supplied;
    else {
      const taken = await takePurchaseOrderNumbers(trx, store.id);
      number = formatOrderNumber(taken.prefix, taken.first);
    }
    const row = await insertOrderRow(trx, {
      ...rest,
      store_id: store.id,
      sequential_id: sequentialId,
      number,
      status: "draft",
      source: "api",
      ...totals,
      created_at: now,
      updated_at: now,
    });
    if (row) return row;
    if (supplied !== null) throw numberTaken();
    // An automatic number someone already used by hand: take the next one.
  }
  throw new Error("could not find a free purchase order number");
}
