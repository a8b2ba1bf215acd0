/**
 * The catalog module: the store's mirror of the platform's products, variants and locations, read
 * here and written by the mirror sync. Other modules use only what this file exports.
 */
export {
  adoptUnitCosts,
  applyCatalogChanges,
  recordSyncError,
  SYNC_BATCH,
  SYNC_JOB,
  type SyncResult,
  syncCatalog,
} from "./mirror.ts";
export {
  type LevelRow,
  type LocationRow,
  moneyText,
  type ProductRow,
  presentLevel,
  presentLocation,
  presentProduct,
  presentVariant,
  unitCostText,
  type VariantRow,
  type VariantView,
} from "./presenters.ts";
export {
  defaultLocation,
  findVariants,
  getProduct,
  getVariant,
  getVisibleLocation,
  productsQuery,
  variantsOfProducts,
} from "./repository.ts";
