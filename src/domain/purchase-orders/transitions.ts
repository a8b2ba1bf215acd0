/**
 * The purchase order lifecycle, complete, in one table. Every lifecycle call asks `assertCan`
 * before writing anything; a move not in the table is 422 `invalid_transition` naming the state.
 */
import type { PurchaseOrderStatus } from "../../db/tables/purchase_orders.ts";
import { invalidTransition } from "../errors.ts";

export type { PurchaseOrderStatus };

export const STATUSES: readonly PurchaseOrderStatus[] = [
  "draft",
  "ordered",
  "in_transit",
  "partial",
  "received",
  "closed",
];

/** Placed and not finished: stock is on its way. */
export const OPEN_STATUSES: readonly PurchaseOrderStatus[] = ["ordered", "in_transit", "partial"];

export function isOpen(status: PurchaseOrderStatus): boolean {
  return OPEN_STATUSES.includes(status);
}

export type OrderAction =
  | "mark_ordered"
  | "send"
  | "mark_in_transit"
  | "receipt"
  | "cancel_remaining"
  | "close"
  | "reopen"
  | "void_receipt"
  | "delete"
  | "archive"
  | "unarchive"
  | "add_lines"
  | "duplicate";

/**
 * Where a move leads: a fixed status, `same` (status unchanged), `derived` (computed from the lines:
 * `deriveStatusAfterReceiving`), `same_or_received` (cancel_remaining: received when nothing is left
 * outstanding and something was received, otherwise unchanged), or `removed` (DELETE).
 */
export type MoveTarget = PurchaseOrderStatus | "same" | "derived" | "same_or_received" | "removed";

type Row = Partial<Record<PurchaseOrderStatus, MoveTarget>>;

const ALL_SAME: Row = {
  draft: "same",
  ordered: "same",
  in_transit: "same",
  partial: "same",
  received: "same",
  closed: "same",
};

/** The complete table. A status missing from an action's row is a refused move. */
export const TRANSITIONS: Readonly<Record<OrderAction, Row>> = {
  mark_ordered: { draft: "ordered" },
  send: { draft: "ordered", ordered: "same", in_transit: "same", partial: "same" },
  mark_in_transit: { ordered: "in_transit", partial: "in_transit" },
  receipt: { ordered: "derived", in_transit: "derived", partial: "derived" },
  cancel_remaining: {
    ordered: "same_or_received",
    in_transit: "same_or_received",
    partial: "same_or_received",
  },
  close: { ordered: "closed", in_transit: "closed", partial: "closed", received: "closed" },
  reopen: { closed: "derived" },
  void_receipt: { ordered: "derived", in_transit: "derived", partial: "derived", received: "derived" },
  delete: { draft: "removed" },
  archive: ALL_SAME,
  unarchive: ALL_SAME,
  add_lines: { ordered: "same", in_transit: "same", partial: "same" },
  duplicate: ALL_SAME,
};

const ACTION_WORDS: Record<OrderAction, string> = {
  mark_ordered: "be marked ordered",
  send: "be sent",
  mark_in_transit: "be marked in transit",
  receipt: "take a receipt",
  cancel_remaining: "have remaining quantities cancelled",
  close: "be closed",
  reopen: "be reopened",
  void_receipt: "have a receipt voided",
  delete: "be deleted (only drafts can; close or archive it instead)",
  archive: "be archived",
  unarchive: "be unarchived",
  add_lines: "take new lines (a draft takes lines through PATCH)",
  duplicate: "be duplicated",
};

/** True when the table has the move. */
export function can(action: OrderAction, status: PurchaseOrderStatus): boolean {
  return TRANSITIONS[action][status] !== undefined;
}

/** The move's target, or 422 invalid_transition naming the current state. */
export function assertCan(action: OrderAction, status: PurchaseOrderStatus): MoveTarget {
  const target = TRANSITIONS[action][status];
  if (target === undefined) throw refusal(action, status);
  return target;
}

export function refusal(action: OrderAction, status: PurchaseOrderStatus) {
  return invalidTransition(`The purchase order is ${status}: it cannot ${ACTION_WORDS[action]}.`);
}

export interface LineQuantities {
  quantity: number;
  received_quantity: number;
  cancelled_quantity: number;
}

export function outstandingOf(line: LineQuantities): number {
  return Math.max(0, line.quantity - line.received_quantity - line.cancelled_quantity);
}

/**
 * Status of a placed order from its lines (receipt, void receipt, reopen): nothing received →
 * ordered; something outstanding → partial; every line received + cancelled ≥ quantity → received.
 */
export function deriveStatusAfterReceiving(
  lines: readonly LineQuantities[],
): "ordered" | "partial" | "received" {
  const received = lines.some((l) => l.received_quantity > 0);
  if (!received) return "ordered";
  return lines.some((l) => outstandingOf(l) > 0) ? "partial" : "received";
}

/**
 * Status after cancel_remaining on a line: received when nothing is left outstanding and something
 * was received, otherwise unchanged.
 */
export function statusAfterCancel(
  current: PurchaseOrderStatus,
  lines: readonly LineQuantities[],
): PurchaseOrderStatus {
  const received = lines.some((l) => l.received_quantity > 0);
  const outstanding = lines.some((l) => outstandingOf(l) > 0);
  return received && !outstanding ? "received" : current;
}

/** Resolves a move's target against the order's lines after the change. */
export function resolveTarget(
  target: MoveTarget,
  current: PurchaseOrderStatus,
  linesAfter: readonly LineQuantities[],
): PurchaseOrderStatus | "removed" {
  switch (target) {
    case "same":
      return current;
    case "derived":
      return deriveStatusAfterReceiving(linesAfter);
    case "same_or_received":
      return statusAfterCancel(current, linesAfter);
    default:
      return target;
  }
}

/** PATCH by state: which input fields each status accepts. */
const REFERENCE_FIELDS = [
  "reference",
  "customer_order_number",
  "supplier_order_number",
  "invoice_number",
  "account_number",
] as const;

const OPEN_PATCH_FIELDS = new Set<string>([
  "notes",
  ...REFERENCE_FIELDS,
  "expected_at",
  "payment_due_on",
  "charges",
  "lines",
]);
const FINISHED_PATCH_FIELDS = new Set<string>(["notes", ...REFERENCE_FIELDS, "payment_due_on"]);

/** The first field of `fields` the status refuses on PATCH, or null when all are accepted. */
export function refusedPatchField(status: PurchaseOrderStatus, fields: readonly string[]): string | null {
  if (status === "draft") return null;
  const allowed = isOpen(status) ? OPEN_PATCH_FIELDS : FINISHED_PATCH_FIELDS;
  return fields.find((f) => !allowed.has(f)) ?? null;
}

export function patchRefusal(status: PurchaseOrderStatus, field: string) {
  const hint =
    field === "supplier_id" || field === "currency" || field === "type"
      ? "it changes only on a draft"
      : "it cannot change in that state";
  return invalidTransition(`The purchase order is ${status}: ${field} ${hint}.`);
}
