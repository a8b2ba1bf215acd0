/**
 * The suppliers module's public entry: suppliers, their merge, their catalogs and tiered prices.
 * Routes, the admin API and other modules import from here only.
 */

export { type CatalogRowInput, deleteCatalogItem, putCatalog, type StoreRef } from "./catalog.ts";
export { lockMergeParties, type MergeParties, mergeSupplierRecords } from "./merge.ts";
export {
  formatSupplierMoney,
  type PriceTierSetView,
  presentCatalogRow,
  presentSupplier,
  type SupplierCatalogRowView,
  type SupplierRow,
  type SupplierView,
} from "./presenter.ts";
export {
  type CatalogRow,
  lowestTier,
  promoteDue,
  type SupplierItemTerms,
  supplierPriceFor,
  type TierColumns,
  type TierSet,
  type TierSetsOnDate,
  tierFor,
  tierSetsOn,
} from "./pricing.ts";
export { type PrimarySupplier, primarySuppliersOf } from "./primary.ts";
export {
  type ArchivedFilter,
  getSupplierJson,
  listCatalogRows,
  listSuppliersJson,
  supplierReadAhead,
} from "./queries.ts";
export { findSupplier } from "./repository.ts";
export {
  archiveSupplier,
  createSupplier,
  setNetworkLink,
  unarchiveSupplier,
  updateSupplier,
} from "./service.ts";
export type { SupplierInput } from "./supplier-input.ts";
