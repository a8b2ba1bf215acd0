/**
 * The catalog module: the store's mirror of the platform's products, variants and locations, read
 * here and written by the mirror (applyCatalogChanges, fed by the platform layer's sync). Other modules use only what this file exports.
 */

export { defaultLocation, defaultLocationIdSql } from "./default-location.ts";
export {
  type CatalogRemovals,
  deletedInventoryItems,
  liveCatalogIds,
  markDeleted,
  markItemsDeleted,
} from "./deletions.ts";
export type {
  CatalogFeed,
  PlatformAddress,
  PlatformInventoryItem,
  PlatformItemCost,
  PlatformLocation,
  PlatformProduct,
  PlatformProductOption,
  PlatformVariant,
  ProductStatus,
} from "./feed.ts";
export {
  listProducts,
  listVariantsJson,
  listVisibleLocations,
  type ProductFilters,
  type VariantFilters,
} from "./lists.ts";
export { findShownLocation, locationNames } from "./location-lookups.ts";
export { adoptUnitCosts, applyCatalogChanges, changedUnitCosts } from "./mirror.ts";
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
  allLocations,
  findVariants,
  getProduct,
  getVariantJson,
  getVisibleLocation,
  hideImportedLocation,
  setLocationHidden,
  variantReadAhead,
  variantsOfProducts,
} from "./repository.ts";
