// Tables of the catalog module. Each table interface is listed in CatalogTables.
// biome-ignore lint/complexity/noBannedTypes: filled in by the module that owns these tables
export type CatalogTables = {};
