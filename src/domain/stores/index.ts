/**
 * The stores module's public entry: stores (creation runs every module's `onStoreCreated`) and their
 * API keys. The admin API, the console and the bootstrap import from here only.
 */

export { authRowsVersion } from "./auth-rows.ts";
export { eraseStore } from "./erase.ts";
export { createKey, FULL_SCOPES, listKeys, revokeKey } from "./keys.ts";
export { takePurchaseOrderNumbers, takeStockAdjustmentNumber } from "./numbering.ts";
export { type KeyRow, presentKey, presentStore, type StoreRow } from "./presenter.ts";
export { anyStoreExists, recordKeysUsed } from "./repository.ts";
export {
  type CreateStoreInput,
  createStore,
  getStore,
  listStores,
  type UpdateStoreInput,
  updateStore,
} from "./service.ts";
