// Tables of the stock adjustments module. Each table interface is listed in StockAdjustmentsTables.
// biome-ignore lint/complexity/noBannedTypes: filled in by the module that owns these tables
export type StockAdjustmentsTables = {};
