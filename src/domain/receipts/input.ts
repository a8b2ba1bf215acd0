/**
 * A receipt body's own checks, before anything is computed: amounts parsed within the columns'
 * limits, the exchange rate as it will be stored, the unordered entries as order line inputs and the
 * instant a received_at date stands for. Problems go to the caller's collector (one 422 for all).
 */
import Big from "big.js";
import type { DetailCollector } from "../errors.ts";
import { startOfDay } from "../local-time.ts";
import { minorUnits, parseDecimalInput } from "../money.ts";
import type { LineInput } from "../purchase-orders/index.ts";
import type { ReceiptLineRequest } from "./compute.ts";
import type { ReceiptBody, UnorderedBody } from "./types.ts";

/** Column limits: unit costs numeric(20, 8), amounts numeric(20, 4). */
const MAX_UNIT_COST = new Big("1e12");
const MAX_AMOUNT = new Big("1e15");

export interface CheckedInput {
  lines: ReceiptLineRequest[];
  invoiceTotal: string | null;
  exchangeRate: Big | null;
}

export function checkReceiptInput(
  body: ReceiptBody,
  orderCurrency: string,
  problems: DetailCollector,
): CheckedInput {
  const lines: ReceiptLineRequest[] = (body.lines ?? []).map((l, index) => {
    let unitCost: Big | null = null;
    if (l.unit_cost !== undefined) {
      const parsed = parseDecimalInput(l.unit_cost, { maxPlaces: 8 });
      if (!parsed.ok) problems.add(`lines.${index}.unit_cost`, parsed.code, parsed.message);
      else if (parsed.value.gte(MAX_UNIT_COST))
        problems.add(`lines.${index}.unit_cost`, "out_of_range", `must be below ${MAX_UNIT_COST}`);
      else unitCost = parsed.value;
    }
    return {
      lineId: l.line_id,
      quantity: l.quantity,
      rejected: (l.rejected ?? []).map((r) => ({ quantity: r.quantity, reason: r.reason ?? null })),
      unitCost,
    };
  });

  let invoiceTotal: string | null = null;
  if (body.invoice_total !== undefined && body.invoice_total !== null) {
    const parsed = parseDecimalInput(body.invoice_total, { maxPlaces: minorUnits(orderCurrency) });
    if (!parsed.ok) problems.add("invoice_total", parsed.code, parsed.message);
    else if (parsed.value.gte(MAX_AMOUNT))
      problems.add("invoice_total", "out_of_range", `must be below ${MAX_AMOUNT}`);
    else invoiceTotal = parsed.value.toString();
  }

  // Stored with 12 decimal places (as the order's rate): book exactly what is stored.
  let exchangeRate: Big | null = null;
  if (body.exchange_rate !== undefined) {
    exchangeRate = new Big(String(body.exchange_rate)).round(12, 1);
    if (exchangeRate.lte(0)) problems.add("exchange_rate", "must_be_positive", "must be greater than zero");
  }
  return { lines, invoiceTotal, exchangeRate };
}

/** The unordered entries as order line inputs (only the fields given, as a new line takes them). */
export function unorderedLineInputs(unordered: readonly UnorderedBody[]): LineInput[] {
  return unordered.map((u) => ({
    ...(u.variant_id !== undefined && { variant_id: u.variant_id }),
    ...(u.inventory_item_id !== undefined && { inventory_item_id: u.inventory_item_id }),
    ...(u.product_title !== undefined && { product_title: u.product_title }),
    ...(u.sku !== undefined && { sku: u.sku }),
    ...(u.unit_cost !== undefined && { unit_cost: u.unit_cost }),
    ...(u.location_id !== undefined && { location_id: u.location_id }),
    quantity: u.quantity,
  }));
}

/** Today (or no date) is the moment of recording; another date is the start of that day in the store. */
export function receivedAtOf(
  receivedAt: string | undefined,
  now: Date,
  today: string,
  timeZone: string,
): Date {
  return receivedAt === undefined || receivedAt === today ? now : startOfDay(receivedAt, timeZone);
}
