// Tables of the suppliers module. Each table interface is listed in SuppliersTables.
// biome-ignore lint/complexity/noBannedTypes: filled in by the module that owns these tables
export type SuppliersTables = {};
