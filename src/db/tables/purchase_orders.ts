// Tables of the purchase orders module. Each table interface is listed in PurchaseOrdersTables.
// biome-ignore lint/complexity/noBannedTypes: filled in by the module that owns these tables
export type PurchaseOrdersTables = {};
