/**
 * The stock adjustments module's public entry: drafting, applying and cancelling adjustments, and
 * their list. Routes and other modules import from here only.
 */

export type { StockAdjustmentLineView, StockAdjustmentView } from "./presenter.ts";
export { type AdjustmentListFilters, listAdjustments, parseStatuses } from "./queries.ts";
export { adjustmentNumbersOf } from "./repository.ts";
export {
  type AdjustmentInput,
  type AdjustmentLineInput,
  type AppliedAdjustment,
  applyAdjustment,
  cancelAdjustment,
  createAdjustment,
  formatAdjustmentNumber,
  getAdjustment,
  type StoreRef,
  updateAdjustment,
} from "./service.ts";
export {
  ADJUSTMENT_REASONS,
  ADJUSTMENT_STATUSES,
  type AdjustmentReason,
  REASON_LABELS,
  type StockAdjustmentStatus,
} from "./transitions.ts";
