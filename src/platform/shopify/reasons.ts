/**
 * Stockroom's movement reasons as Shopify's adjustment reasons (docs/decisions.md, "Shopify
 * connector"). A receipt is `received`, its void `correction`; an order's incoming change is created,
 * cancelled or updated by the sign of the call's deltas (Stockroom records one reason for placing,
 * adding lines, cancelling, closing and reopening); an adjustment keeps its own reason, all of which
 * Shopify has.
 */
const ADJUSTMENT_REASONS = new Set([
  "correction",
  "cycle_count_available",
  "damaged",
  "promotion",
  "received",
  "restock",
  "shrinkage",
  "other",
]);

export function shopifyReason(reason: string, deltas: readonly number[]): string {
  if (reason === "receipt_voided") return "correction";
  if (reason === "purchase_order_incoming") {
    if (deltas.every((d) => d > 0)) return "movement_created";
    if (deltas.every((d) => d < 0)) return "movement_canceled";
    return "movement_updated";
  }
  return ADJUSTMENT_REASONS.has(reason) ? reason : "other";
}
