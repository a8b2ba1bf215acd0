import type { StockAdjustmentStatus } from "../../db/tables/stock_adjustments.ts";
import { invalidTransition } from "../errors.ts";

export type { StockAdjustmentStatus };

export const ADJUSTMENT_STATUSES: readonly StockAdjustmentStatus[] = ["draft", "applied", "cancelled"];

export type AdjustmentAction = "update" | "apply" | "cancel";

/** The adjustment lifecycle in one place: every move not listed is refused with invalid_transition. */
export const ADJUSTMENT_TRANSITIONS: Record<
  AdjustmentAction,
  { from: readonly StockAdjustmentStatus[]; to: StockAdjustmentStatus | null; verb: string }
> = {
  // `to: null` keeps the current status.
  update: { from: ["draft"], to: null, verb: "changed" },
  apply: { from: ["draft"], to: "applied", verb: "applied" },
  cancel: { from: ["draft"], to: "cancelled", verb: "cancelled" },
};

/** The status after `action`, or a 422 invalid_transition whose message names the current state. */
export function nextAdjustmentStatus(
  status: StockAdjustmentStatus,
  action: AdjustmentAction,
): StockAdjustmentStatus {
  const move = ADJUSTMENT_TRANSITIONS[action];
  if (!move.from.includes(status)) {
    throw invalidTransition(
      `The stock adjustment is ${status}; only a draft adjustment can be ${move.verb}.`,
    );
  }
  return move.to ?? status;
}

export const ADJUSTMENT_REASONS = [
  "correction",
  "cycle_count_available",
  "received",
  "restock",
  "damaged",
  "shrinkage",
  "promotion",
  "other",
] as const;
export type AdjustmentReason = (typeof ADJUSTMENT_REASONS)[number];

export const REASON_LABELS: Record<AdjustmentReason, string> = {
  correction: "Correction",
  cycle_count_available: "Cycle count (available)",
  received: "Received",
  restock: "Restock",
  damaged: "Damaged",
  shrinkage: "Shrinkage",
  promotion: "Promotion",
  other: "Other",
};

export function reasonLabel(reason: string): string {
  return REASON_LABELS[reason as AdjustmentReason] ?? reason;
}
