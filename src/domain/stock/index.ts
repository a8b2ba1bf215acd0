/**
 * The stock module: the ledger of stock movements (the one place stock moves), the mirror's inventory
 * levels kept as the platform's last report plus the movements it has not acknowledged, the item
 * alerts those levels raise, and where each stock-moving record stands with the platform.
 * Other modules use only what this file exports.
 */
export { type AlertRuleItem, type AlertRules, getAlertRules, putAlertRules } from "./alert-rules.ts";
export { type CostToSend, costsInFlightBefore } from "./costs-in-flight.ts";
export { eraseStoreMovements } from "./erasure.ts";
export { refuseGoneFor } from "./gone-refusal.ts";
export {
  type AlongsideWrites,
  findGoneDestinations,
  type GoneDestination,
  type MovementInput,
  PUSH_JOB,
  PUSH_MAX_ATTEMPTS,
  recordStockMovements,
  recordStockMovementsWith,
  type SyncSubjectType,
} from "./ledger.ts";
export { type DriftRepair, repairLevelDrift } from "./level-drift.ts";
export { dropLevels, dropLevelsAt, droppedLevels, heldLevelKeys } from "./level-drops.ts";
export type { LevelDelta, LevelKey, LevelReport } from "./level-keys.ts";
export { lockNewLevelsAt } from "./level-locks.ts";
export { refreshLevels } from "./levels.ts";
export { type LevelFilters, listLevels } from "./lists.ts";
export {
  assignBatches,
  type BatchedMovement,
  dissolveBatch,
  movementsOfBatches,
  settleSyncedRecords,
  unpushedWithBatch,
} from "./push-batches.ts";
export {
  advancePushGeneration,
  type PushCallState,
  pushCallStatesOf,
  pushGenerationsOf,
} from "./push-generations.ts";
export {
  markMovementsPushed,
  markMovementsSent,
  markMovementsSkipped,
  markMovementsUnsent,
  pushStandingOf,
  type UnpushedMovement,
  unpushedMovements,
} from "./pushes.ts";
export {
  listStockLevels,
  type StockLevelFilters,
  type StockLevelRow,
} from "./stock-levels.ts";
export {
  JUST_RECORDED,
  markSyncPending,
  NEVER_MOVED,
  platformSyncOf,
  type SyncState,
  syncStateCounts,
  writeSyncState,
} from "./sync-state.ts";
