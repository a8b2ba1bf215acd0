import { stockAdjustmentRoutes } from "../http/routes/stock-adjustments.ts";
import type { Module } from "./module.ts";

/** Stock adjustments: drafts with a signed delta per line, applied once through the stock pipeline. */
export const stockAdjustmentsModule: Module = {
  name: "stock-adjustments",
  routes: stockAdjustmentRoutes,
};
