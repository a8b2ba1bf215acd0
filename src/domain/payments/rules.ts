/**
 * Payment rules (docs/decisions.md, "Receipts and payments"), pure: what a payment body means, how much
 * `mark_paid` pays, and which payment moves an order refuses. payment_status / paid_at themselves follow from
 * the payment rows through `paymentStatusOf` (purchase-orders/payment-status.ts), which every path here
 * relies on.
 */
import Big from "big.js";
import { DetailCollector, invalidTransition } from "../errors.ts";
import { formatMoney, minorUnits, parseDecimalInput } from "../money.ts";
import { type PaymentStatus, paymentStatusOf } from "../purchase-orders/index.ts";

export { type PaymentStatus, paymentStatusOf };

export const DEFAULT_PAYMENT_METHOD = "other";
/** Amounts are numeric(20, 4). */
const MAX_AMOUNT = new Big("1e15");

export interface PaymentBody {
  amount: number | string;
  paid_on?: string;
  method?: string;
  reference?: string | null;
  note?: string | null;
  currency?: string;
}

export interface PaymentValues {
  amount: Big;
  currency: string;
  paid_on: string;
  method: string;
  reference: string | null;
  note: string | null;
}

/**
 * A POST …/payments body as stored values, or 422 validation_failed with every problem: the amount
 * must be > 0 with at most the currency's minor units, the currency (when given) must be the order's.
 * `today` is the store's date, the default `paid_on`.
 */
export function paymentValues(body: PaymentBody, orderCurrency: string, today: string): PaymentValues {
  const problems = new DetailCollector();
  const parsed = parseDecimalInput(body.amount, { maxPlaces: minorUnits(orderCurrency), allowZero: false });
  if (!parsed.ok) problems.add("amount", parsed.code, parsed.message);
  else if (parsed.value.gte(MAX_AMOUNT))
    problems.add("amount", "out_of_range", `must be below ${MAX_AMOUNT}`);
  if (body.currency !== undefined && body.currency !== orderCurrency) {
    problems.add(
      "currency",
      "currency_mismatch",
      `must be the purchase order's currency (${orderCurrency}); payments in another currency are not accepted`,
    );
  }
  problems.throwIfAny();
  return {
    amount: parsed.ok ? parsed.value : new Big(0),
    currency: orderCurrency,
    paid_on: body.paid_on ?? today,
    method: body.method ?? DEFAULT_PAYMENT_METHOD,
    reference: body.reference ?? null,
    note: body.note ?? null,
  };
}

/** Sum of the payments and what is left to pay (never below zero). */
export function paymentBalance(
  total: Big,
  payments: readonly { amount: string | Big }[],
): { paid: Big; balance: Big } {
  const paid = payments.reduce((s, p) => s.plus(p.amount), new Big(0));
  const left = total.minus(paid);
  return { paid, balance: left.gt(0) ? left : new Big(0) };
}

/**
 * The amount `mark_paid` records: the balance. Refused (422 invalid_transition) when the order is
 * already paid, or when its total leaves nothing to pay (a zero total).
 */
export function markPaidAmount(
  total: Big,
  currency: string,
  payments: readonly { amount: string; created_at: Date }[],
): Big {
  const { payment_status } = paymentStatusOf(total, payments);
  if (payment_status === "paid")
    throw invalidTransition("The purchase order is paid: it cannot be marked paid again.");
  const { balance } = paymentBalance(total, payments);
  if (balance.lte(0)) {
    throw invalidTransition(
      `The purchase order is ${payment_status} with a total of ${formatMoney(total, currency)}: there is nothing to pay.`,
    );
  }
  return balance;
}

/** `mark_unpaid` deletes every payment; an order without payments is refused. */
export function assertCanMarkUnpaid(
  total: Big,
  payments: readonly { amount: string; created_at: Date }[],
): void {
  const { payment_status } = paymentStatusOf(total, payments);
  if (payment_status === "unpaid" || payments.length === 0)
    throw invalidTransition("The purchase order is unpaid: it cannot be marked unpaid again.");
}
