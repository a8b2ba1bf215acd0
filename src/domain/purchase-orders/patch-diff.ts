/**
 * What a PATCH changes: the order fields (as history's `changes`, before and after), which lines were
 * added, removed or updated, and whether the charges differ. A PATCH that changes nothing writes nothing.
 */
import Big from "big.js";
import { formatMoney } from "../money.ts";
import type { ChargeDraft } from "./charges.ts";
import { LINE_COLUMNS, type LineDraft } from "./lines.ts";
import { type OrderFields, PLAIN_FIELDS } from "./order-fields.ts";
import type { ChargeRow, LineRow, OrderRow } from "./presenter.ts";

/**
 * What history's `changes` compares: the fields input sets as they are, and the ones resolved from
 * input (not the snapshots they carry: tax rate name and percent, the exchange rate's base, date and
 * source). The history row is jsonb, so this order is not the order a client reads.
 */
const HISTORY_FIELDS: readonly (keyof OrderFields)[] = [
  "supplier_id",
  "number",
  "currency",
  "location_id",
  "tax_rate_id",
  "exchange_rate",
  ...PLAIN_FIELDS,
];

export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined) return false;
  if (
    typeof a === "string" &&
    typeof b === "string" &&
    /^-?\d+(\.\d+)?$/.test(a) &&
    /^-?\d+(\.\d+)?$/.test(b)
  )
    return new Big(a).eq(b);
  return String(a) === String(b);
}

function historyValue(field: string, value: unknown): unknown {
  if (field === "exchange_rate" && typeof value === "string") return Number(value);
  return value;
}

/**
 * A kept line is updated when one of its own fields differs, but for those the PATCH does not set: the
 * product (follows the variant), the cancelled and received quantities, and the tax rate's snapshot.
 */
const NOT_COMPARED = new Set(["product_id", "cancelled_quantity", "received_quantity", "tax_rate_percent"]);
const LINE_COMPARE = LINE_COLUMNS.filter((column) => !NOT_COMPARED.has(column));

function diffLines(before: readonly LineRow[], after: readonly LineDraft[]) {
  const kept = new Map(after.filter((l) => l.id !== undefined).map((l) => [l.id as number, l]));
  const removed = before.filter((l) => !kept.has(l.id)).map((l) => l.id);
  const updated = before
    .filter((l) => {
      const next = kept.get(l.id);
      if (!next) return false;
      return LINE_COMPARE.some((f) => !sameValue((l as unknown as Record<string, unknown>)[f], next[f]));
    })
    .map((l) => l.id);
  const added = after.filter((l) => l.id === undefined).length;
  return { added, removed, updated };
}

function chargesDiffer(before: readonly ChargeRow[], after: readonly ChargeDraft[]): boolean {
  if (before.length !== after.length) return true;
  return before.some((c, i) => {
    const n = after[i];
    return (
      c.kind !== n.kind ||
      c.label !== n.label ||
      !sameValue(c.amount, n.amount) ||
      c.currency !== n.currency ||
      !sameValue(c.rate_to_order_currency, n.rate_to_order_currency) ||
      c.billed_by_supplier !== n.billed_by_supplier ||
      c.allocation_method !== n.allocation_method ||
      JSON.stringify(c.custom_split) !== JSON.stringify(n.custom_split)
    );
  });
}

export interface OrderDiff {
  /** Field → [before, after], for the history row (the total in the currency's format). */
  changes: Record<string, [unknown, unknown]>;
  /** When the PATCH gave lines: what happened to them. */
  lines: { added: number; removed: number[]; updated: number[] } | null;
  linesChanged: boolean;
  /** When the PATCH gave charges: how many there were and are. */
  charges: { replaced: number; now: number } | null;
  chargesChanged: boolean;
}

/** The differences between the stored order and what the PATCH resolved to. */
export function diffOrder(
  before: { order: OrderRow; lines: readonly LineRow[]; charges: readonly ChargeRow[] },
  after: { fields: OrderFields; lines: readonly LineDraft[]; charges: readonly ChargeDraft[]; total: string },
  given: { lines: boolean; charges: boolean },
): OrderDiff {
  const { order } = before;
  const changes: Record<string, [unknown, unknown]> = {};
  for (const f of HISTORY_FIELDS) {
    const was = (order as unknown as Record<string, unknown>)[f];
    const now = (after.fields as unknown as Record<string, unknown>)[f];
    if (!sameValue(was, now)) changes[f] = [historyValue(f, was), historyValue(f, now)];
  }
  if (!sameValue(order.total, after.total))
    changes.total = [
      formatMoney(new Big(order.total), order.currency),
      formatMoney(new Big(after.total), after.fields.currency),
    ];
  const lines = given.lines ? diffLines(before.lines, after.lines) : null;
  const charges = given.charges ? { replaced: before.charges.length, now: after.charges.length } : null;
  return {
    changes,
    lines,
    linesChanged: lines !== null && (lines.added > 0 || lines.removed.length > 0 || lines.updated.length > 0),
    charges,
    chargesChanged: charges !== null && chargesDiffer(before.charges, after.charges),
  };
}
